// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the whole `mmlock analyze` path (input sniffing,
 * gzip/zstd, capture directories, trace.status, binary captures decoded by
 * libtraceevent, parsing, pairing, summary, atomic output) and over
 * `mmlock compare`.  Built with ASan and UBSan by tests/fuzz/build.
 *
 * One input is one case.  Its first byte chooses:
 *   bits 0-1  the mode:
 *             0  the rest is a trace file (plain, gzip or zstd by content)
 *             1  the rest is "TRACE\n@@STATUS@@\nSTATUS": a capture directory
 *                holding trace-000001.txt and trace.status
 *             2  the rest is "PAGES[\n@@CPU1@@\nPAGES][\n@@STATUS@@\nSTATUS]":
 *                a binary capture whose formats are tests/fixtures'
 *                (FUZZ_FORMATS) and whose raw/cpu00N.raw are the pages
 *             3  the rest is a summary JSON for `mmlock compare --json`
 *   bit 2     --stack-position before
 *   bit 3     --top 0 (else 3)
 * The oracle, beyond ASan/UBSan: analyze exits 0, 3 or 4 (never 1, 7 or 9 on
 * an input), and what it wrote parses as JSON in valid UTF-8; compare exits
 * 0 or 3.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "jsonout.h"
#include "mmlock.h"
#include "util.h"

static char work[256], trace[300], capdir[300], chunk[320], status[320], out[300];
static char bindir[300], raw0[340], raw1[340], binstatus[340];

static void die(const char *what)
{
	fprintf(stderr, "fuzz-analyze: %s: %s\n", what, strerror(errno));
	abort();
}

static void put(const char *path, const uint8_t *d, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		die(path);
	while (n) {
		ssize_t w = write(fd, d, n);

		if (w <= 0)
			die(path);
		d += w;
		n -= (size_t)w;
	}
	close(fd);
}

/* Copy the tree @src into @dst (format files of a binary capture). */
static void copy_tree(const char *src, const char *dst)
{
	struct dirent *de;
	DIR *d = opendir(src);

	if (!d)
		die(src);
	mkdir(dst, 0700);
	while ((de = readdir(d))) {
		char s[600], t[600];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(s, sizeof(s), "%s/%s", src, de->d_name);
		snprintf(t, sizeof(t), "%s/%s", dst, de->d_name);
		if (stat(s, &st))
			die(s);
		if (S_ISDIR(st.st_mode)) {
			copy_tree(s, t);
		} else {
			char *buf = malloc((size_t)st.st_size + 1);
			int fd = open(s, O_RDONLY);

			if (!buf || fd < 0 || read(fd, buf, (size_t)st.st_size) != st.st_size)
				die(s);
			close(fd);
			put(t, (const uint8_t *)buf, (size_t)st.st_size);
			free(buf);
		}
	}
	closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *formats = getenv("FUZZ_FORMATS");
	const char *tmp = getenv("TMPDIR");
	char src[600], dst[600];

	(void)argc;
	(void)argv;
	snprintf(work, sizeof(work), "%s/mmlock-fuzz-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(work))
		die("mkdtemp");
	snprintf(trace, sizeof(trace), "%s/in.trace", work);
	snprintf(out, sizeof(out), "%s/out.json", work);
	snprintf(capdir, sizeof(capdir), "%s/cap", work);
	snprintf(chunk, sizeof(chunk), "%s/trace-000001.txt", capdir);
	snprintf(status, sizeof(status), "%s/trace.status", capdir);
	snprintf(bindir, sizeof(bindir), "%s/bin", work);
	snprintf(raw0, sizeof(raw0), "%s/raw/cpu000.raw", bindir);
	snprintf(raw1, sizeof(raw1), "%s/raw/cpu001.raw", bindir);
	snprintf(binstatus, sizeof(binstatus), "%s/trace.status", bindir);
	mkdir(capdir, 0700);
	mkdir(bindir, 0700);
	snprintf(src, sizeof(src), "%s/raw", bindir);
	mkdir(src, 0700);
	if (!formats)
		formats = "tests/fixtures/binary-small.capture";
	snprintf(src, sizeof(src), "%s/tracefs", formats);
	snprintf(dst, sizeof(dst), "%s/tracefs", bindir);
	copy_tree(src, dst);
	util_set_prog("mmlock analyze");
	if (!getenv("FUZZ_VERBOSE"))
		util_set_quiet(1);
	return 0;
}

/* @what's text: must parse and be valid UTF-8. */
static void check_json(const char *path)
{
	struct json_tokener *tok;
	struct json_object *o;
	struct stat st;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;		/* an input without any trace line writes nothing */
	if (fstat(fd, &st))
		die(path);
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || read(fd, buf, (size_t)st.st_size) != st.st_size)
		die(path);
	close(fd);
	if (!utf8_valid(buf, (size_t)st.st_size)) {
		fprintf(stderr, "fuzz-analyze: %s is not valid UTF-8\n", path);
		abort();
	}
	tok = json_tokener_new();
	o = json_tokener_parse_ex(tok, buf, (int)st.st_size);
	if (json_tokener_get_error(tok) != json_tokener_success || !o) {
		fprintf(stderr, "fuzz-analyze: %s is not JSON\n", path);
		abort();
	}
	json_object_put(o);
	json_tokener_free(tok);
	free(buf);
}

static const uint8_t *find(const uint8_t *d, size_t n, const char *sep)
{
	return memmem(d, n, sep, strlen(sep));
}

static int run(int (*cmd)(int, char **), int argc, char **argv)
{
	optind = 0;	/* getopt_long() starts over */
	opterr = 0;
	return cmd(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char st_sep[] = "\n@@STATUS@@\n", cpu_sep[] = "\n@@CPU1@@\n";
	char *argv[16];
	int argc = 0, mode, rc;
	const uint8_t *s;

	if (!size)
		return 0;
	mode = data[0] & 3;
	unlink(out);
	unlink(status);
	unlink(binstatus);
	argv[argc++] = mode == 3 ? "compare" : "analyze";
	if (mode != 3) {
		argv[argc++] = "--top";
		argv[argc++] = data[0] & 8 ? "0" : "3";
		if (data[0] & 4)
			argv[argc++] = "--stack-position=before";
	}
	data++;
	size--;
	switch (mode) {
	case 0:
		put(trace, data, size);
		argv[argc++] = trace;
		break;
	case 1:
		s = find(data, size, st_sep);
		put(chunk, data, s ? (size_t)(s - data) : size);
		if (s)
			put(status, s + strlen(st_sep), size - (size_t)(s - data) - strlen(st_sep));
		argv[argc++] = capdir;
		break;
	case 2: {
		const uint8_t *c1 = find(data, size, cpu_sep);
		size_t end;

		s = find(data, size, st_sep);
		end = s ? (size_t)(s - data) : size;
		if (c1 && c1 < data + end) {
			put(raw0, data, (size_t)(c1 - data));
			put(raw1, c1 + strlen(cpu_sep), end - (size_t)(c1 - data) - strlen(cpu_sep));
		} else {
			put(raw0, data, end);
			unlink(raw1);
		}
		if (s)
			put(binstatus, s + strlen(st_sep), size - end - strlen(st_sep));
		argv[argc++] = bindir;
		break;
	}
	case 3:
		put(trace, data, size);
		argv[argc++] = "--json";
		argv[argc++] = "-o";
		argv[argc++] = out;
		argv[argc++] = trace;
		argv[argc] = NULL;
		rc = run(cmd_compare, argc, argv);
		if (rc != 0 && rc != 3) {
			fprintf(stderr, "fuzz-analyze: compare exited %d\n", rc);
			abort();
		}
		if (!rc)
			check_json(out);
		return 0;
	}
	argv[argc++] = "-o";
	argv[argc++] = out;
	argv[argc] = NULL;
	rc = run(cmd_analyze, argc, argv);
	if (rc != 0 && rc != 3 && rc != 4) {
		fprintf(stderr, "fuzz-analyze: analyze exited %d on an input\n", rc);
		abort();
	}
	if (rc != 3)
		check_json(out);
	return 0;
}
