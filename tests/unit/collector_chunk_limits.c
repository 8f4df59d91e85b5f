// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk limits hold exactly when no stack block is in the way:
 * `--chunk-lines N` gives chunks of N lines and `--chunk-bytes B` chunks of at
 * most B bytes (collector/README.md).  collector_chunk.c allows a stack
 * block's slack past a limit; without frames there is no slack to allow.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "test.h"

/* Lines of the chunk file @name in @dfd, -1 when it cannot be read. */
static long file_lines(int dfd, const char *name)
{
	char buf[4096];
	long n = 0;
	ssize_t r, i;
	int fd = openat(dfd, name, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < r; i++)
			n += buf[i] == '\n';
	close(fd);
	return r < 0 ? -1 : n;
}

/* Feed @nlines event lines of 10 bytes with @lim; chunk k must hold want[k] lines. */
static void cut(const struct chunk_limits *lim, int nlines, const int *want, size_t nwant,
		const char *what)
{
	char dir[] = "/tmp/mmlock-limits-XXXXXX", line[32];
	struct chunk_writer cw;
	size_t k;
	int dfd, i, ok = 1;

	if (!mkdtemp(dir)) {
		CHECK(0, "%s: mkdtemp", what);
		return;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(chunk_writer_init(&cw, dfd, CHUNK_NONE, 1, lim) == 0, "%s: writer init", what);
	cw.do_fsync = 0;
	for (i = 0; i < nlines; i++) {
		snprintf(line, sizeof(line), "a-1 ev%03d\n", i % 1000);
		chunk_writer_feed(&cw, line, strlen(line), 1000);
	}
	CHECK(chunk_writer_finish(&cw, 2000) == 0, "%s: finish", what);
	if (cw.nr_chunks != nwant)
		ok = 0;
	for (k = 0; k < cw.nr_chunks; k++) {
		long got = file_lines(dfd, cw.chunks[k].name);

		printf("# %s: chunk %zu: %ld lines (writer says %llu)\n", what, k + 1, got,
		       (unsigned long long)cw.chunks[k].lines);
		if (k < nwant && (got != want[k] || cw.chunks[k].lines != (uint64_t)want[k]))
			ok = 0;
		unlinkat(dfd, cw.chunks[k].name, 0);
	}
	CHECK(ok, "%s: %zu chunks of exactly the expected lines", what, nwant);
	chunk_writer_release(&cw);
	close(dfd);
	rmdir(dir);
}

/* The chunk options record and convert share: values in, bad values named. */
static void option_values(void)
{
	struct chunk_limits l = { 0, 0, 0 };
	enum chunk_compress c = CHUNK_GZIP;
	const char *why = NULL;
	int level = 1;

	CHECK(!chunk_option_parse("compress", "zst", &c, &level, &l, &why) && c == CHUNK_ZSTD,
	      "--compress zst: zstd");
	CHECK(chunk_option_parse("compress", "lz4", &c, &level, &l, &why) == -1 &&
	      c == CHUNK_ZSTD && strstr(why, "gzip, zstd or none"),
	      "--compress lz4: refused, saying what is expected");
	CHECK(!chunk_option_parse("level", "19", &c, &level, &l, &why) && level == 19 &&
	      chunk_option_parse("level", "20", &c, &level, &l, &why) == -1 && level == 19,
	      "--level: 19 kept, 20 refused");
	CHECK(!chunk_option_parse("chunk-bytes", "64M", &c, &level, &l, &why) &&
	      l.bytes == 64ULL << 20 &&
	      chunk_option_parse("chunk-lines", "0", &c, &level, &l, &why) == -1 && !l.lines,
	      "--chunk-bytes 64M; --chunk-lines 0 refused");
	CHECK(!chunk_option_parse("chunk-seconds", "2s", &c, &level, &l, &why) &&
	      l.usecs == 2000000, "--chunk-seconds 2s");
	CHECK(chunk_option_parse("output", "x", &c, &level, &l, &why) == 1,
	      "another option is not a chunk option");
}

int main(void)
{
	static const int three[] = { 3, 3, 3, 1 };
	static const int one[] = { 1, 1, 1 };
	struct chunk_limits by_lines = { 3, 0, 0 };
	struct chunk_limits by_one = { 1, 0, 0 };
	/* 35 bytes: three 10-byte lines fit, a fourth would make 40 */
	struct chunk_limits by_bytes = { 0, 35, 0 };
	struct chunk_limits by_exact_bytes = { 0, 30, 0 };

	cut(&by_lines, 10, three, 4, "--chunk-lines 3, 10 lines");
	cut(&by_one, 3, one, 3, "--chunk-lines 1, 3 lines");
	cut(&by_bytes, 10, three, 4, "--chunk-bytes 35, 10 lines of 10 bytes");
	cut(&by_exact_bytes, 10, three, 4, "--chunk-bytes 30, 10 lines of 10 bytes");
	option_values();
	return TEST_EXIT();
}
