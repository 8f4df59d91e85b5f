// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock events: print the event contract, compare it with the format files
 * of a running kernel (what the QEMU harness runs on a patched kernel), or
 * with the trace-event header text the kernel series carry
 * (kernel-patches/check-series).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "evset.h"
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
		"usage: mmlock events [--check [--tracefs DIR] [--source SRC] |\n"
		"                      --check-header FILE...]\n"
		"\n"
		"Without options, print every event of the contract (version %d) with its\n"
		"fields (name, kernel type, print form, enumeration words), then the\n"
		"fault-policy sysctls the kernel series adds.\n"
		"\n"
		"  -c, --check         compare the contract with DIR/events/*/*/format:\n"
		"                      same field names, types and order, and a print\n"
		"                      format naming the fields in that order with the\n"
		"                      contract's conversions.  Accepts version 1 and 2\n"
		"                      of the text form and says which it saw\n"
		"  -t, --tracefs DIR   tracefs mount (default /sys/kernel/tracing)\n"
		"  -s, --source SRC    whose events --check reads: kernel (the series'\n"
		"                      filemap:* and mmap_lock:*, the default), module\n"
		"                      (mmlock_probe.ko's copies, DIR/events/mmlock_probe/,\n"
		"                      contract v2 only) or auto (kernel where it has\n"
		"                      them, else a loaded module)\n"
		"  -H, --check-header  parse the TRACE_EVENT / DECLARE_EVENT_CLASS /\n"
		"                      DEFINE_EVENT blocks of each FILE (trace-event\n"
		"                      header text) and compare their TP_STRUCT__entry\n"
		"                      and TP_printk with the contract (version %d);\n"
		"                      every custom event must be defined once\n"
		"  -h, --help          this text\n"
		"\n"
		"Exit: 0 all match, 1 a mismatch, 3 a FILE is unreadable, 5 an event\n"
		"is missing from the kernel.\n", MMLOCK_CONTRACT_VERSION, MMLOCK_CONTRACT_VERSION);
}

static void print_contract(void)
{
	int i;
	unsigned int f;

	printf("# contract version %d\n", MMLOCK_CONTRACT_VERSION);
	for (i = 0; i < MMLOCK_EV_NR; i++) {
		const struct mmlock_event *ev = &mmlock_events[i];

		if (!ev->name)
			continue;	/* MMLOCK_EV_NR_CUSTOM, where the stock events start */
		printf("%s:%s%s\n", ev->system, ev->name, ev->custom ? "" : "  (stock)");
		for (f = 0; f < ev->nr_fields; f++) {
			const struct mmlock_field *fl = &ev->fields[f];
			int w;

			printf("\t%-14s %-18s %s", fl->name, fl->ctype, fmt_names[fl->fmt]);
			for (w = 0; fl->words && fl->words[w]; w++)
				printf("%s%s", w ? "|" : " ", fl->words[w]);
			putchar('\n');
		}
	}
	printf("# fault-policy sysctls: 0 stock, 1 the policy; a stock kernel has none\n");
	for (i = 0; i < MMLOCK_SYSCTL_NR; i++)
		printf("sysctl %s%s  %s\n", MMLOCK_SYSCTL_PREFIX, mmlock_sysctls[i].name,
		       mmlock_sysctls[i].path);
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

/* One event as found in a format file or a header: its fields and format. */
#define MAX_FIELDS	32
struct found_event {
	char	*type[MAX_FIELDS];
	char	*name[MAX_FIELDS];
	int	nr;
	char	*printfmt;	/* the format string, without quotes */
};

static void found_free(struct found_event *fe)
{
	int i;

	for (i = 0; i < fe->nr; i++) {
		free(fe->type[i]);
		free(fe->name[i]);
	}
	free(fe->printfmt);
	memset(fe, 0, sizeof(*fe));
}

static char *xstrndup_trim(const char *s, size_t n)
{
	char *out;

	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	out = xrealloc(NULL, n + 1);
	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

static int found_add(struct found_event *fe, const char *type, size_t tlen,
		     const char *name, size_t nlen)
{
	if (fe->nr >= MAX_FIELDS)
		return -1;
	fe->type[fe->nr] = xstrndup_trim(type, tlen);
	fe->name[fe->nr] = xstrndup_trim(name, nlen);
	fe->nr++;
	return 0;
}

/*
 * Concatenate the C string literals that start at @p ("a" "b" -> ab), up to
 * the first character that is neither a literal nor white space.
 */
static char *string_literals(const char *p)
{
	char *out = NULL;
	size_t len = 0;

	for (;;) {
		const char *q;

		while (isspace((unsigned char)*p))
			p++;
		if (*p != '"')
			break;
		for (q = p + 1; *q && *q != '"'; q++)
			if (*q == '\\' && q[1])
				q++;
		out = xrealloc(out, len + (size_t)(q - p) + 1);
		memcpy(out + len, p + 1, (size_t)(q - p - 1));
		len += (size_t)(q - p - 1);
		out[len] = '\0';
		if (!*q)
			break;
		p = q + 1;
	}
	return out;
}

/* The conversions a field's print form allows, one of them at @conv. */
static int conversion_ok(const struct mmlock_field *f, int version, const char *conv)
{
	static const char *const dec[] = { "%d", "%u", "%i", "%ld", "%lu", "%lld", "%llu", NULL };
	static const char *const hex[] = { "%lx", "%llx", "%x", NULL };
	static const char *const ptr[] = { "%p", NULL };
	static const char *const dev[] = { "%u:%u", "%d:%d", NULL };
	static const char *const str[] = { "%s", NULL };
	static const char *const sym[] = { "%pS", NULL };
	const char *const *ok;
	int i;

	switch (f->fmt) {
	case MMLOCK_FMT_DEC: ok = dec; break;
	case MMLOCK_FMT_HEX: ok = hex; break;
	case MMLOCK_FMT_PTR: ok = ptr; break;
	case MMLOCK_FMT_DEV: ok = dev; break;
	case MMLOCK_FMT_ENUM:
	case MMLOCK_FMT_FLAGS: ok = str; break;
	case MMLOCK_FMT_SYM: ok = sym; break;
	case MMLOCK_FMT_BOOL: ok = version >= 2 ? str : dec; break;
	default: return 0;
	}
	for (i = 0; ok[i]; i++) {
		size_t n = strlen(ok[i]);

		/* the whole conversion: "%p" must not match the start of "%pS" */
		if (!strncmp(conv, ok[i], n) &&
		    (conv[n] == '\0' || conv[n] == ' ' || conv[n] == '\\'))
			return 1;
	}
	return 0;
}

/*
 * Compare one found event with the contract in @version.  Prints MISMATCH
 * lines prefixed with @where; returns the number of mismatches.
 */
static int compare_event(const char *where, const struct mmlock_event *ev,
			 const struct found_event *fe, int version)
{
	const char *q = fe->printfmt;
	unsigned int idx;
	int bad = 0, off = 0;

	if (version == 1) {
		if (fe->nr < 1 || strcmp(fe->name[0], MMLOCK_V1_PID_FIELD) ||
		    strcmp(fe->type[0], MMLOCK_V1_PID_CTYPE)) {
			printf("MISMATCH %s: version 1 starts with '%s %s'\n", where,
			       MMLOCK_V1_PID_CTYPE, MMLOCK_V1_PID_FIELD);
			bad++;
		}
		off = 1;
	}
	for (idx = 0; idx < ev->nr_fields; idx++) {
		const struct mmlock_field *f = &ev->fields[idx];
		const char *ctype = mmlock_field_ctype(f, version);
		int i = (int)idx + off;

		if (i >= fe->nr) {
			printf("MISMATCH %s: %d fields, contract v%d has %u\n", where,
			       fe->nr - off, version, ev->nr_fields);
			bad++;
			break;
		}
		if (strcmp(fe->name[i], f->name) || strcmp(fe->type[i], ctype)) {
			printf("MISMATCH %s: field %u is '%s %s', contract v%d says '%s %s'\n",
			       where, idx, fe->type[i], fe->name[i], version, ctype, f->name);
			bad++;
		}
	}
	if (fe->nr > (int)ev->nr_fields + off) {
		printf("MISMATCH %s: extra field '%s %s'\n", where,
		       fe->type[ev->nr_fields + off], fe->name[ev->nr_fields + off]);
		bad++;
	}
	if (!q) {
		printf("MISMATCH %s: no print format\n", where);
		return bad + 1;
	}
	for (idx = 0; idx < ev->nr_fields + (unsigned int)off; idx++) {
		const char *name = (off && idx == 0) ? MMLOCK_V1_PID_FIELD : ev->fields[idx - off].name;
		char *key = xasprintf("%s=", name);
		const char *hit = q;

		/* "name=" at the start or after a space */
		while ((hit = strstr(hit, key)) && hit != fe->printfmt && hit[-1] != ' ')
			hit += 1;
		if (!hit || (idx == 0 && hit != fe->printfmt)) {
			printf("MISMATCH %s: print format lacks '%s' in order%s\n", where, key,
			       idx == 0 && hit ? " at its start" : "");
			bad++;
		} else {
			const char *conv = hit + strlen(key);

			if (off && idx == 0) {
				if (strncmp(conv, "%d", 2)) {
					printf("MISMATCH %s: '%s%.4s', want %%d\n", where, key, conv);
					bad++;
				}
			} else if (!conversion_ok(&ev->fields[idx - off], version, conv)) {
				printf("MISMATCH %s: '%s%.5s' does not print a %s field (contract v%d)\n",
				       where, key, conv, fmt_names[ev->fields[idx - off].fmt], version);
				bad++;
			}
			q = conv;
		}
		free(key);
	}
	return bad;
}

/* Fields and format string of a kernel format file. */
static void parse_format(const char *text, struct found_event *fe)
{
	const char *printfmt = strstr(text, "print fmt:");
	const char *p;

	for (p = strstr(text, "field:"); p && (!printfmt || p < printfmt);
	     p = strstr(p + 1, "field:")) {
		const char *decl = p + 6, *semi = strchr(decl, ';'), *sp;

		if (!semi)
			break;
		for (sp = semi; sp > decl && sp[-1] != ' '; sp--)
			;
		if (sp <= decl)
			continue;
		/* the header's own fields */
		if (!strncmp(sp, "common_", 7))
			continue;
		if (found_add(fe, decl, (size_t)(sp - decl), sp, (size_t)(semi - sp)))
			break;
	}
	if (printfmt)
		fe->printfmt = string_literals(printfmt + 10);
}

/*
 * Check @ev's format file in the trace system @system (the contract's own,
 * or the module's copy).
 */
static int check_event(const char *tracefs, const char *system,
		       const struct mmlock_event *ev, int *version)
{
	char *path = xasprintf("%s/events/%s/%s/format", tracefs, system, ev->name);
	char *text = read_file(path);
	struct found_event fe = { 0 };
	char *where;
	int bad;

	if (!text) {
		printf("MISSING %s:%s (%s: %s)\n", system, ev->name, path, strerror(errno));
		free(path);
		return 2;
	}
	parse_format(text, &fe);
	*version = (fe.nr > 0 && !strcmp(fe.name[0], MMLOCK_V1_PID_FIELD)) ? 1 : 2;
	where = xasprintf("%s:%s (v%d)", system, ev->name, *version);
	bad = compare_event(where, ev, &fe, *version);
	/* the module was written for v2: a v1 form there is not the module's */
	if (*version == 1 && strcmp(system, ev->system)) {
		printf("MISMATCH %s: the module prints contract v2, not v1\n", where);
		bad++;
	}
	if (!bad)
		printf("ok %s\n", where);
	found_free(&fe);
	free(where);
	free(text);
	free(path);
	return bad ? 1 : 0;
}

static int path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* The module's own line of what it sees here (sysfs), when it is loaded. */
static void print_module_caps(void)
{
	char *caps = read_file(EVSET_MODULE_CAPS);
	char *version = read_file(EVSET_MODULE_VERSION);

	if (version)
		version[strcspn(version, "\n")] = '\0';
	if (caps) {
		caps[strcspn(caps, "\n")] = '\0';
		printf("# mmlock_probe.ko%s%s: %s\n", version ? " version " : "",
		       version ? version : "", caps);
	}
	free(caps);
	free(version);
}

static int check_tracefs(const char *tracefs, enum evset_source src)
{
	int i, missing = 0, bad = 0, seen[3] = { 0 };
	int module = src == EVSET_SRC_MODULE;

	if (src == EVSET_SRC_AUTO) {
		char *own = xasprintf("%s/events/%s/%s", tracefs, mmlock_events[0].system,
				      mmlock_events[0].name);
		char *mod = xasprintf("%s/events/%s", tracefs, EVSET_MODULE_SYSTEM);

		module = !path_exists(own) && path_exists(mod);
		free(own);
		free(mod);
	}
	if (module) {
		char *dir = xasprintf("%s/events/%s", tracefs, EVSET_MODULE_SYSTEM);

		if (!path_exists(dir)) {
			printf("MISSING mmlock_probe.ko's events: no %s (the module is not loaded: "
			       "tracepoints/module/README.md)\n", dir);
			free(dir);
			return MMLOCK_EXIT_ENV;
		}
		free(dir);
		print_module_caps();
	}
	for (i = 0; i < MMLOCK_EV_NR_CUSTOM; i++) {
		const char *system = module ? EVSET_MODULE_SYSTEM : mmlock_events[i].system;
		int version = 0;
		int r = check_event(tracefs, system, &mmlock_events[i], &version);

		missing += r == 2;
		bad += r == 1;
		if (r != 2)
			seen[version]++;
	}
	if (seen[1] && seen[2]) {
		printf("MISMATCH the kernel mixes contract v1 (%d events) and v2 (%d events)\n",
		       seen[1], seen[2]);
		bad++;
	}
	if (missing) {
		char *mod = xasprintf("%s/events/%s", tracefs, EVSET_MODULE_SYSTEM);

		if (!module && path_exists(mod))
			printf("# mmlock_probe.ko's copies are in %s: --source module checks them\n",
			       mod);
		free(mod);
		return MMLOCK_EXIT_ENV;
	}
	if (bad)
		return MMLOCK_EXIT_FAILURE;
	printf("format files%s: contract v%d, all %d events match%s\n",
	       module ? " of mmlock_probe.ko (events/" EVSET_MODULE_SYSTEM "/)" : "",
	       seen[1] ? 1 : 2, MMLOCK_EV_NR_CUSTOM,
	       seen[1] ? " (the first version of the series: pid field, 0/1 booleans)" : "");
	return MMLOCK_EXIT_OK;
}

/* ---- trace-event header text ------------------------------------------ */

/* The end of the parenthesised group opening at @p (*p == '('), or NULL. */
static const char *group_end(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return NULL;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && --depth == 0) {
			return p;
		}
	}
	return NULL;
}

/* The text of argument @n (0-based, top level) of the group at @open. */
static char *macro_arg(const char *open, const char *close, int n)
{
	const char *p = open + 1, *start = p;
	int depth = 0, i = 0;

	for (; p < close; p++) {
		if (*p == '"') {
			for (p++; p < close && *p != '"'; p++)
				if (*p == '\\')
					p++;
		} else if (*p == '(' || *p == '{') {
			depth++;
		} else if (*p == ')' || *p == '}') {
			depth--;
		} else if (*p == ',' && depth == 0) {
			if (i == n)
				return xstrndup_trim(start, (size_t)(p - start));
			i++;
			start = p + 1;
		}
	}
	return i == n ? xstrndup_trim(start, (size_t)(close - start)) : NULL;
}

/* The group of macro @name inside [@from, @to), e.g. TP_STRUCT__entry(...). */
static const char *find_macro(const char *from, const char *to, const char *name,
			      const char **close)
{
	const char *p = from;
	size_t n = strlen(name);

	while ((p = strstr(p, name)) && p < to) {
		const char *q = p + n;

		while (isspace((unsigned char)*q))
			q++;
		if (*q == '(' && (p == from || !isalnum((unsigned char)p[-1]))) {
			*close = group_end(q);
			return *close && *close <= to ? q : NULL;
		}
		p = q;
	}
	return NULL;
}

/* TP_STRUCT__entry fields and TP_printk format of one event block. */
static int parse_block(const char *open, const char *close, struct found_event *fe)
{
	const char *e_close, *e = find_macro(open, close, "TP_STRUCT__entry", &e_close);
	const char *pk_close, *pk = find_macro(open, close, "TP_printk", &pk_close);
	const char *p;

	if (!e || !pk)
		return -1;
	for (p = e + 1; p < e_close; p++) {
		const char *f_close, *f = NULL;
		char *type, *name;

		if (!strncmp(p, "__field(", 8) || !strncmp(p, "__field_struct(", 15))
			f = strchr(p, '(');
		if (!f)
			continue;
		f_close = group_end(f);
		if (!f_close)
			return -1;
		type = macro_arg(f, f_close, 0);
		name = macro_arg(f, f_close, 1);
		if (type && name)
			found_add(fe, type, strlen(type), name, strlen(name));
		free(type);
		free(name);
		p = f_close;
	}
	fe->printfmt = string_literals(pk + 1);
	return 0;
}

struct header_class {
	char			*name;
	struct found_event	fe;
};

static int check_header(int nfiles, char **files)
{
	struct header_class classes[64];
	int nclasses = 0, defined[MMLOCK_EV_NR] = { 0 }, bad = 0, i, f;

	for (f = 0; f < nfiles; f++) {
		char *text = read_file(files[f]);
		const char *p;

		if (!text) {
			pr_err("%s: %s", files[f], strerror(errno));
			return MMLOCK_EXIT_INPUT;
		}
		for (p = text; *p; p++) {
			static const char *const kinds[] = {
				"TRACE_EVENT", "TRACE_EVENT_FN", "DECLARE_EVENT_CLASS",
				"DEFINE_EVENT", "DEFINE_EVENT_FN", NULL
			};
			const char *open = NULL, *close;
			int k;

			if (p != text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
				continue;
			for (k = 0; kinds[k]; k++) {
				size_t n = strlen(kinds[k]);

				if (!strncmp(p, kinds[k], n) && p[n] == '(') {
					open = p + n;
					break;
				}
			}
			if (!open)
				continue;
			close = group_end(open);
			if (!close) {
				printf("MISMATCH %s: unbalanced %s(\n", files[f], kinds[k]);
				bad++;
				break;
			}
			if (!strncmp(kinds[k], "DEFINE_EVENT", 12)) {
				char *cls = macro_arg(open, close, 0), *name = macro_arg(open, close, 1);
				const struct mmlock_event *ev = name ? mmlock_event_find(name) : NULL;

				for (i = 0; ev && ev->custom && i < nclasses; i++) {
					if (strcmp(classes[i].name, cls))
						continue;
					bad += compare_event(name, ev, &classes[i].fe, MMLOCK_CONTRACT_VERSION);
					defined[ev->id]++;
					break;
				}
				if (ev && ev->custom && i == nclasses) {
					printf("MISMATCH %s: %s uses class %s, not defined before it\n",
					       files[f], name, cls);
					bad++;
				}
				free(cls);
				free(name);
			} else {
				char *name = macro_arg(open, close, 0);
				struct found_event fe = { 0 };

				if (!name || parse_block(open, close, &fe)) {
					printf("MISMATCH %s: cannot parse %s(%s\n", files[f], kinds[k],
					       name ? name : "?");
					bad++;
				} else if (!strcmp(kinds[k], "DECLARE_EVENT_CLASS") &&
					   nclasses < (int)(sizeof(classes) / sizeof(classes[0]))) {
					classes[nclasses].name = name;
					classes[nclasses++].fe = fe;
					name = NULL;
					memset(&fe, 0, sizeof(fe));
				} else {
					const struct mmlock_event *ev = mmlock_event_find(name);

					if (ev && ev->custom) {
						bad += compare_event(name, ev, &fe, MMLOCK_CONTRACT_VERSION);
						defined[ev->id]++;
					}
				}
				found_free(&fe);
				free(name);
			}
			p = close;
		}
		free(text);
	}
	for (i = 0; i < MMLOCK_EV_NR_CUSTOM; i++) {
		if (defined[i] != 1) {
			printf("MISMATCH %s:%s is defined %d times in the header text\n",
			       mmlock_events[i].system, mmlock_events[i].name, defined[i]);
			bad++;
		}
	}
	for (i = 0; i < nclasses; i++) {
		free(classes[i].name);
		found_free(&classes[i].fe);
	}
	if (bad)
		return MMLOCK_EXIT_FAILURE;
	printf("header text: contract v%d, all %d events match\n", MMLOCK_CONTRACT_VERSION,
	       MMLOCK_EV_NR_CUSTOM);
	return MMLOCK_EXIT_OK;
}

int cmd_events(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check",		no_argument,		NULL, 'c' },
		{ "tracefs",		required_argument,	NULL, 't' },
		{ "check-header",	no_argument,		NULL, 'H' },
		{ "source",		required_argument,	NULL, 's' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *tracefs = "/sys/kernel/tracing";
	const char *source = NULL;
	int check = 0, header = 0, src = EVSET_SRC_KERNEL, c;

	while ((c = getopt_long(argc, argv, "ct:Hs:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			check = 1;
			break;
		case 't':
			tracefs = optarg;
			break;
		case 'H':
			header = 1;
			break;
		case 's':
			source = optarg;
			break;
		case 'h':
			usage(stdout);
			return MMLOCK_EXIT_OK;
		default:
			usage(stderr);
			return MMLOCK_EXIT_USAGE;
		}
	}
	if (check && header) {
		pr_err("--check and --check-header exclude each other");
		return MMLOCK_EXIT_USAGE;
	}
	if (source) {
		src = evset_source_parse(source);
		if (src < 0 || src == EVSET_SRC_STOCK) {
			pr_err("--source %s: want kernel, module or auto%s", source,
			       src == EVSET_SRC_STOCK ? " (stock events have no contract to check)" : "");
			return MMLOCK_EXIT_USAGE;
		}
		if (!check) {
			pr_err("--source goes with --check");
			return MMLOCK_EXIT_USAGE;
		}
	}
	if (header) {
		if (optind == argc) {
			pr_err("--check-header needs at least one FILE");
			return MMLOCK_EXIT_USAGE;
		}
		return check_header(argc - optind, argv + optind);
	}
	if (optind != argc) {
		pr_err("unexpected argument '%s'", argv[optind]);
		return MMLOCK_EXIT_USAGE;
	}
	if (!check) {
		print_contract();
		return MMLOCK_EXIT_OK;
	}
	return check_tracefs(tracefs, (enum evset_source)src);
}
