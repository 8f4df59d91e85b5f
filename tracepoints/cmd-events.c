// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock events: print the event contract, or compare it with the format
 * files of a running kernel (what the QEMU harness runs on a patched kernel).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmlock.h"
#include "mmlock_events.h"
#include "util.h"

static const char *const fmt_names[] = {
	[MMLOCK_FMT_DEC] = "dec", [MMLOCK_FMT_HEX] = "hex", [MMLOCK_FMT_PTR] = "ptr",
	[MMLOCK_FMT_DEV] = "dev", [MMLOCK_FMT_ENUM] = "enum", [MMLOCK_FMT_FLAGS] = "flags",
	[MMLOCK_FMT_SYM] = "sym", [MMLOCK_FMT_BOOL] = "bool",
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mmlock events [--check] [--tracefs DIR]\n"
		"\n"
		"Without options, print every event of the contract with its fields\n"
		"(name, kernel type, print form, enumeration words).\n"
		"\n"
		"  -c, --check        compare the contract with DIR/events/*/*/format:\n"
		"                     same field names, types and order, and a print\n"
		"                     format naming the fields in that order\n"
		"  -t, --tracefs DIR  tracefs mount (default /sys/kernel/tracing)\n"
		"  -h, --help         this text\n"
		"\n"
		"Exit: 0 all match, 1 a mismatch, 5 an event is missing.\n");
}

static void print_contract(void)
{
	int i;
	unsigned int f;

	for (i = 0; i < MMLOCK_EV_NR; i++) {
		const struct mmlock_event *ev = &mmlock_events[i];

		printf("%s:%s%s\n", ev->system, ev->name, ev->custom ? "" : "  (stock)");
		for (f = 0; f < ev->nr_fields; f++) {
			const struct mmlock_field *fl = &ev->fields[f];
			int w;

			printf("\t%-14s %-16s %s", fl->name, fl->ctype, fmt_names[fl->fmt]);
			for (w = 0; fl->words && fl->words[w]; w++)
				printf("%s%s", w ? "|" : " ", fl->words[w]);
			putchar('\n');
		}
	}
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = xrealloc(buf, cap);
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/*
 * Check one event: the non-common fields of the format file, in order, must
 * be the contract's (name and type), and each "name=" must appear in the
 * print format in the same order.
 */
static int check_event(const char *tracefs, const struct mmlock_event *ev)
{
	char *path = xasprintf("%s/events/%s/%s/format", tracefs, ev->system, ev->name);
	char *text = read_file(path);
	const char *p, *printfmt;
	unsigned int idx = 0;
	int bad = 0;

	if (!text) {
		printf("MISSING %s:%s (%s: %s)\n", ev->system, ev->name, path, strerror(errno));
		free(path);
		return 2;
	}
	printfmt = strstr(text, "print fmt:");
	for (p = strstr(text, "field:"); p && (!printfmt || p < printfmt);
	     p = strstr(p + 1, "field:")) {
		const char *decl = p + 6, *semi = strchr(decl, ';');
		char buf[256], *name;
		size_t len;

		if (!semi || (size_t)(semi - decl) >= sizeof(buf))
			break;
		len = (size_t)(semi - decl);
		memcpy(buf, decl, len);
		buf[len] = '\0';
		if (!strncmp(buf, "unsigned short common_", 22) ||
		    strstr(buf, " common_"))
			continue;
		name = strrchr(buf, ' ');
		if (!name)
			continue;
		*name++ = '\0';
		if (idx >= ev->nr_fields) {
			printf("MISMATCH %s:%s: extra field '%s %s'\n", ev->system,
			       ev->name, buf, name);
			bad = 1;
			continue;
		}
		if (strcmp(name, ev->fields[idx].name) || strcmp(buf, ev->fields[idx].ctype)) {
			printf("MISMATCH %s:%s: field %u is '%s %s', contract says '%s %s'\n",
			       ev->system, ev->name, idx, buf, name, ev->fields[idx].ctype,
			       ev->fields[idx].name);
			bad = 1;
		}
		idx++;
	}
	if (idx < ev->nr_fields) {
		printf("MISMATCH %s:%s: %u fields, contract has %u\n", ev->system, ev->name,
		       idx, ev->nr_fields);
		bad = 1;
	}
	if (printfmt) {
		const char *q = printfmt;

		for (idx = 0; idx < ev->nr_fields; idx++) {
			char *key = xasprintf("%s%s=", idx ? " " : "\"", ev->fields[idx].name);
			const char *hit = strstr(q, key);

			if (!hit) {
				printf("MISMATCH %s:%s: print fmt lacks '%s' in order\n",
				       ev->system, ev->name, key + 1);
				bad = 1;
			} else {
				q = hit + strlen(key);
			}
			free(key);
		}
	} else {
		printf("MISMATCH %s:%s: no print fmt\n", ev->system, ev->name);
		bad = 1;
	}
	if (!bad)
		printf("ok %s:%s\n", ev->system, ev->name);
	free(text);
	free(path);
	return bad;
}

int cmd_events(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check",	no_argument,		NULL, 'c' },
		{ "tracefs",	required_argument,	NULL, 't' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *tracefs = "/sys/kernel/tracing";
	int check = 0, c, i, missing = 0, bad = 0;

	while ((c = getopt_long(argc, argv, "ct:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			check = 1;
			break;
		case 't':
			tracefs = optarg;
			break;
		case 'h':
			usage(stdout);
			return MMLOCK_EXIT_OK;
		default:
			usage(stderr);
			return MMLOCK_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		pr_err("unexpected argument '%s'", argv[optind]);
		return MMLOCK_EXIT_USAGE;
	}
	if (!check) {
		print_contract();
		return MMLOCK_EXIT_OK;
	}
	for (i = 0; i < MMLOCK_EV_NR_CUSTOM; i++) {
		int r = check_event(tracefs, &mmlock_events[i]);

		missing += r == 2;
		bad += r == 1;
	}
	if (missing)
		return MMLOCK_EXIT_ENV;
	return bad ? MMLOCK_EXIT_FAILURE : MMLOCK_EXIT_OK;
}
