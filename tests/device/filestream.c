// SPDX-License-Identifier: GPL-2.0
/*
 * What a device may send in a host-side binary capture's file stream
 * ("mmlock-file NAME SIZE\n" + SIZE bytes, ..., "mmlock-files-end\n",
 * device/rawcap.c), and what must come of it here: the files of a capture,
 * nothing outside the capture folder, every short or malformed stream an
 * error.  Built and run by tests/device/run (part 1) against libmmlock.a;
 * prints the suite protocol's ok/not ok lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device.h"

static int failed;
static char top[4096];

static void check(int cond, const char *what)
{
	printf("%s - file stream: %s\n", cond ? "ok" : "not ok", what);
	if (!cond)
		failed = 1;
}

/* a fresh capture folder DIR/N */
static int fresh(int n)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/c%d", top, n);
	if (mkdir(p, 0755))
		return -1;
	return open(p, O_RDONLY | O_DIRECTORY);
}

/* feed @s (of @len bytes) @step bytes at a time; the result of finish, or -1 */
static int feed(int dirfd, const char *s, size_t len, size_t step, char **err)
{
	struct file_stream fs;
	size_t off;
	int rc = 0;

	file_stream_init(&fs, dirfd);
	for (off = 0; off < len && !rc; off += step)
		rc = file_stream_feed(&fs, s + off, len - off < step ? len - off : step);
	if (!rc)
		rc = file_stream_finish(&fs);
	*err = fs.error ? strdup(fs.error) : NULL;
	file_stream_release(&fs);
	return rc;
}

static int file_is(int dirfd, const char *name, const char *want)
{
	char buf[256];
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)strlen(want) && !memcmp(buf, want, (size_t)n);
}

static int exists(int dirfd, const char *name)
{
	struct stat st;

	return !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
}

#define S(x) x, sizeof(x) - 1

int main(int argc, char **argv)
{
	static const char good[] =
		"mmlock-file tracefs/events/header_page 5\nhello"
		"mmlock-file tracefs/events/mmap_lock/vma_start_write_begin/format 3\nf\n\n"
		"mmlock-file kallsyms 0\n"
		"mmlock-files-end\n";
	static const char *const bad_names[] = {
		"../escape", "tracefs/../../escape", "tracefs/./x", "tracefs/.hidden",
		"/tmp/escape", "tracefs//x", "tracefs/a b", "raw/cpu000.raw", "tracefs/",
	};
	char *err, hdr[256], *big;
	size_t i;
	int d, n = 0;

	if (argc != 2 || snprintf(top, sizeof(top), "%s", argv[1]) >= (int)sizeof(top)) {
		fprintf(stderr, "usage: filestream EMPTY-DIR\n");
		return 2;
	}

	/* a whole stream, one byte at a time and all at once */
	for (i = 1; i <= sizeof(good); i += sizeof(good) - 1) {
		d = fresh(n++);
		check(d >= 0 && !feed(d, S(good), i, &err) &&
		      file_is(d, "tracefs/events/header_page", "hello") &&
		      file_is(d, "tracefs/events/mmap_lock/vma_start_write_begin/format", "f\n\n") &&
		      file_is(d, "kallsyms", "") && exists(d, "tracefs/events/mmap_lock/enable"),
		      i == 1 ? "a whole stream fed byte by byte: every file, its system's enable"
			     : "a whole stream in one piece: every file");
		free(err);
		close(d);
	}

	/* names that are not a capture's: refused, nothing created outside */
	for (i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
		char what[200];

		d = fresh(n++);
		snprintf(hdr, sizeof(hdr), "mmlock-file %s 2\nxx" "mmlock-files-end\n", bad_names[i]);
		snprintf(what, sizeof(what), "the name '%s' is refused", bad_names[i]);
		check(d >= 0 && feed(d, hdr, strlen(hdr), 7, &err) && err &&
		      !exists(d, "../escape") && !exists(d, "escape"), what);
		free(err);
		close(d);
	}

	/* a planted link where a folder goes: not followed */
	d = fresh(n++);
	check(d >= 0 && !symlinkat(top, d, "tracefs") &&
	      feed(d, S("mmlock-file tracefs/events/header_page 1\nx" "mmlock-files-end\n"), 64,
		   &err) && !exists(d, "../events"),
	      "a symlink planted as tracefs/ is not followed");
	free(err);
	close(d);

	/* a file that already exists: never overwritten */
	d = fresh(n++);
	check(d >= 0 && close(openat(d, "kallsyms", O_WRONLY | O_CREAT, 0644)) == 0 &&
	      feed(d, S("mmlock-file kallsyms 1\nx" "mmlock-files-end\n"), 64, &err) &&
	      file_is(d, "kallsyms", ""),
	      "an existing file is not overwritten (created exclusively)");
	free(err);
	close(d);

	/* cut streams */
	d = fresh(n++);
	check(d >= 0 && feed(d, S("mmlock-file kallsyms 10\nabc"), 64, &err) && err &&
	      strstr(err, "inside a file"), "a stream cut inside a file is an error");
	free(err);
	close(d);
	d = fresh(n++);
	check(d >= 0 && feed(d, S("mmlock-file kallsyms 1\na"), 64, &err) && err &&
	      strstr(err, "mmlock-files-end"), "a stream without its end line is an error");
	free(err);
	close(d);
	d = fresh(n++);
	check(d >= 0 && feed(d, S("mmlock-files-end\nmore"), 64, &err) && err,
	      "bytes after the end line are an error");
	free(err);
	close(d);
	d = fresh(n++);
	check(d >= 0 && feed(d, S("mmlock-file kallsyms\n" "mmlock-files-end\n"), 64, &err) && err,
	      "a header without a size is an error");
	free(err);
	close(d);

	/* a header line without end, in bounded memory */
	big = malloc(1 << 20);
	if (big)
		memset(big, 'a', 1 << 20);
	d = fresh(n++);
	check(big && d >= 0 && feed(d, big, 1 << 20, 4096, &err) && err && strstr(err, "longer"),
	      "a header line of 1 MiB is refused");
	free(err);
	close(d);

	/* a file bigger than the decoder reads: left out, the stream goes on */
	d = fresh(n++);
	snprintf(hdr, sizeof(hdr), "mmlock-file tracefs/printk_formats %d\n", 2 << 20);
	if (big) {
		size_t hl = strlen(hdr), tl = strlen("mmlock-files-end\n");
		char *s = malloc(hl + (2 << 20) + tl);

		if (s) {
			memcpy(s, hdr, hl);
			memset(s + hl, 'p', 2 << 20);
			memcpy(s + hl + (2 << 20), "mmlock-files-end\n", tl);
		}
		check(s && d >= 0 && !feed(d, s, hl + (2 << 20) + tl, 65536, &err) &&
		      !exists(d, "tracefs/printk_formats"),
		      "a 2 MiB tracefs file is left out and the stream read past it");
		if (s)
			free(err);
		free(s);
	} else {
		check(0, "a 2 MiB tracefs file is left out (no memory for the test)");
	}
	close(d);
	free(big);
	return failed;
}
