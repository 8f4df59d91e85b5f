// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk writer: cuts only at line boundaries, keeps stack blocks whole,
 * names sort in order, gzip/zstd/none round-trip to the exact input, and the
 * LOST markers are counted per CPU.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "capture.h"
#include "lost.h"
#include "test.h"
#include "util.h"

static char *slurp(int dirfd, const char *name, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = openat(dirfd, name, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	*len = buf ? (size_t)read(fd, buf, (size_t)st.st_size) : 0;
	close(fd);
	return buf;
}

/* Decompress a whole chunk file into a malloc'd buffer. */
static char *unpack(int dirfd, const char *name, enum chunk_compress c, size_t *out_len)
{
	size_t len = 0, cap = 1 << 20, n = 0;
	char *in = slurp(dirfd, name, &len), *out;

	if (!in)
		return NULL;
	if (c == CHUNK_NONE) {
		*out_len = len;
		return in;
	}
	out = malloc(cap);
	if (c == CHUNK_GZIP) {
		z_stream z;
		int ret;

		memset(&z, 0, sizeof(z));
		inflateInit2(&z, 15 + 32);
		z.next_in = (unsigned char *)in;
		z.avail_in = (unsigned int)len;
		do {
			if (n == cap)
				out = xrealloc(out, cap *= 2);
			z.next_out = (unsigned char *)out + n;
			z.avail_out = (unsigned int)(cap - n);
			ret = inflate(&z, Z_NO_FLUSH);
			n = cap - z.avail_out;
		} while (ret == Z_OK);
		inflateEnd(&z);
		if (ret != Z_STREAM_END)
			n = (size_t)-1;
	} else {
		ZSTD_DCtx *d = ZSTD_createDCtx();
		ZSTD_inBuffer ib = { in, len, 0 };
		size_t r = 1;

		while (ib.pos < ib.size || r) {
			ZSTD_outBuffer ob;

			if (n == cap)
				out = xrealloc(out, cap *= 2);
			ob.dst = out;
			ob.size = cap;
			ob.pos = n;
			r = ZSTD_decompressStream(d, &ob, &ib);
			n = ob.pos;
			if (ZSTD_isError(r) || (ib.pos == ib.size && r && ob.pos < ob.size)) {
				n = (size_t)-1;
				break;
			}
		}
		ZSTD_freeDCtx(d);
	}
	free(in);
	*out_len = n;
	return out;
}

/* A trace-like input: events, a stack block, LOST markers. */
static char *make_input(size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	int i, j;

	for (i = 0; i < 3000; i++) {
		n += (size_t)snprintf(buf + n, cap - n,
				      "            load-%d   (  %d) [001] .....   %d.%06d: "
				      "mmap_lock_released: mm=%08x write=true\n", 100 + i % 7,
				      100, 50 + i / 1000, i, i * 2654435761u);
		if (i % 97 == 0) {
			n += (size_t)snprintf(buf + n, cap - n,
					      "            load-100   (  100) [001] .....   "
					      "%d.%06d: <stack trace>\n", 50 + i / 1000, i);
			for (j = 0; j < 6; j++)
				n += (size_t)snprintf(buf + n, cap - n, " => frame_%d_%d\n", i, j);
		}
		if (i % 500 == 499)
			n += (size_t)snprintf(buf + n, cap - n, "CPU:%d [LOST %d EVENTS]\n",
					      (i / 500) % 2, i);
	}
	*len = n;
	return buf;
}

static int tmpdir(char *path)
{
	strcpy(path, "/tmp/mmlock-unit-XXXXXX");
	if (!mkdtemp(path))
		return -1;
	return open(path, O_RDONLY | O_DIRECTORY);
}

static void rmdir_all(const char *path)
{
	struct dirent *d;
	DIR *dp = opendir(path);
	char p[512];

	while (dp && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, d->d_name);
		unlink(p);
	}
	if (dp)
		closedir(dp);
	rmdir(path);
}

static int count_lines(const char *buf, size_t len)
{
	int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n;
}

/*
 * Feed @in in odd-sized pieces, then check each chunk: it ends with '\n',
 * does not start with a stack frame, respects the limits, and all of them
 * concatenated equal the input.
 */
static void round_trip(enum chunk_compress c, const struct chunk_limits *lim, const char *what)
{
	struct chunk_writer cw;
	size_t in_len, off = 0, all_len = 0, k, step = 1;
	char *in = make_input(&in_len), *all = malloc(in_len + 1);
	char dir[64], name[64];
	int dfd = tmpdir(dir), ends_ok = 1, starts_ok = 1, limits_ok = 1, counts_ok = 1;
	uint64_t lines = 0, t = 1000;
	int rc;

	rc = chunk_writer_init(&cw, dfd, c, 1, lim);
	CHECK(rc == 0, "%s: writer init", what);
	cw.do_fsync = 0;
	while (off < in_len) {
		size_t n = step % 4099 + 1;

		if (n > in_len - off)
			n = in_len - off;
		chunk_writer_feed(&cw, in + off, n, t);
		off += n;
		step = step * 31 + 7;
		t += 100;
	}
	rc = chunk_writer_finish(&cw, t);
	CHECK(rc == 0, "%s: finish", what);
	for (k = 0; k < cw.nr_chunks; k++) {
		size_t len;
		char *buf = unpack(dfd, cw.chunks[k].name, c, &len);

		chunk_name(name, sizeof(name), (unsigned int)k + 1, c);
		if (!buf || len == (size_t)-1) {
			ends_ok = 0;
			free(buf);
			continue;
		}
		if (strcmp(name, cw.chunks[k].name))
			counts_ok = 0;
		if (!len || buf[len - 1] != '\n')
			ends_ok = 0;
		if (len >= 4 && !memcmp(buf, " => ", 4))
			starts_ok = 0;
		if ((uint64_t)count_lines(buf, len) != cw.chunks[k].lines || len != cw.chunks[k].bytes)
			counts_ok = 0;
		/* a stack block (at most 7 lines) may run past the limit */
		if (lim->lines && cw.chunks[k].lines > lim->lines + 7)
			limits_ok = 0;
		if (lim->bytes && cw.chunks[k].bytes > lim->bytes + 7 * 40)
			limits_ok = 0;
		lines += cw.chunks[k].lines;
		memcpy(all + all_len, buf, len);
		all_len += len;
		free(buf);
	}
	CHECK(cw.nr_chunks > 1, "%s: input cut into %zu chunks", what, cw.nr_chunks);
	CHECK(ends_ok, "%s: every chunk decodes and ends with a newline", what);
	CHECK(starts_ok, "%s: no chunk starts inside a stack block", what);
	CHECK(counts_ok, "%s: chunk names in order, line and byte counts exact", what);
	CHECK(limits_ok, "%s: chunks respect the limits", what);
	CHECK(all_len == in_len && !memcmp(all, in, in_len),
	      "%s: concatenated chunks equal the input", what);
	CHECK(lines == (uint64_t)count_lines(in, in_len) && cw.lines == lines,
	      "%s: line totals", what);
	CHECK(cw.lost_markers == 499 + 999 + 1499 + 1999 + 2499 + 2999 &&
	      cw.nr_lost_cpu == 2 && cw.lost_cpu[0] == 499 + 1499 + 2499,
	      "%s: LOST markers summed per CPU", what);
	CHECK(cw.events == 3000 + 31, "%s: events exclude frames and LOST lines", what);
	chunk_writer_release(&cw);
	close(dfd);
	rmdir_all(dir);
	free(in);
	free(all);
}

static void test_names(void)
{
	char a[64], b[64];
	unsigned int i;
	int ok = 1;

	for (i = 1; i < 20000; i += 7) {
		chunk_name(a, sizeof(a), i, CHUNK_GZIP);
		chunk_name(b, sizeof(b), i + 1, CHUNK_GZIP);
		if (strcmp(a, b) >= 0)
			ok = 0;
	}
	CHECK(ok, "chunk names sort in numeric order");
	CHECK(!strcmp(chunk_name(a, sizeof(a), 1, CHUNK_GZIP), "trace-000001.txt.gz"),
	      "gzip chunk name");
	CHECK(!strcmp(chunk_name(a, sizeof(a), 12, CHUNK_ZSTD), "trace-000012.txt.zst"),
	      "zstd chunk name");
	CHECK(!strcmp(chunk_name(a, sizeof(a), 3, CHUNK_NONE), "trace-000003.txt"),
	      "plain chunk name");
}

/* How many *.part files @dir holds. */
static int count_parts(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		n += l > 5 && !strcmp(de->d_name + l - 5, ".part");
	}
	if (d)
		closedir(d);
	return n;
}

static void test_lost(void)
{
	uint64_t n = 0;
	int cpu = -1, rc;

	rc = lost_marker_parse("CPU:1 [LOST 339 EVENTS]\n", 24, &cpu, &n);
	CHECK(rc && cpu == 1 && n == 339,
	      "LOST marker parsed");
	CHECK(!lost_marker_parse("CPU:1 [LOST 339 EVENTS] x\n", 26, &cpu, &n),
	      "trailing text is not a marker");
	CHECK(!lost_marker_parse("  load-1 [000] CPU:1 [LOST 3 EVENTS]\n", 37, &cpu, &n),
	      "marker text inside an event is not a marker");
	/* issue 13 L1: no sign, no blank inside a number, counts saturate */
	CHECK(!lost_marker_parse("CPU:0 [LOST -5 EVENTS]", 22, &cpu, &n) &&
	      !lost_marker_parse("CPU:0 [LOST +5 EVENTS]", 22, &cpu, &n) &&
	      !lost_marker_parse("CPU:0 [LOST  5 EVENTS]", 22, &cpu, &n) &&
	      !lost_marker_parse("CPU:-1 [LOST 5 EVENTS]", 22, &cpu, &n) &&
	      !lost_marker_parse("CPU:99999999999 [LOST 5 EVENTS]", 31, &cpu, &n),
	      "a signed or blank-padded count, a negative or huge CPU: no marker");
	rc = lost_marker_parse("CPU:7 [LOST 99999999999999999999999 EVENTS]\r\n", 45, &cpu, &n);
	CHECK(rc && cpu == 7 && n == UINT64_MAX, "a count beyond 2^64-1 saturates");
	CHECK(u64_add_sat(UINT64_MAX, 1) == UINT64_MAX && u64_add_sat(2, 3) == 5,
	      "lost counts add without wrapping");
}

static void test_partial_and_tick(void)
{
	struct chunk_limits lim = { 0, 0, 1000000 };
	struct chunk_writer cw;
	char dir[64];
	int dfd = tmpdir(dir);
	size_t len = 0;
	char *buf;

	chunk_writer_init(&cw, dfd, CHUNK_NONE, 1, &lim);
	cw.do_fsync = 0;
	chunk_writer_feed(&cw, "abc", 3, 0);
	CHECK(cw.lines == 0 && cw.fd < 0, "a partial line is held back");
	chunk_writer_feed(&cw, "def\nghi", 7, 10);
	CHECK(cw.lines == 1, "the line completes on the next feed");
	chunk_writer_tick(&cw, 500000);
	CHECK(cw.nr_chunks == 0, "no cut before the seconds limit");
	chunk_writer_tick(&cw, 1200000);
	CHECK(cw.nr_chunks == 0, "no cut while a partial line is pending");
	chunk_writer_feed(&cw, "\n", 1, 1200001);
	chunk_writer_tick(&cw, 1200002);
	CHECK(cw.nr_chunks == 1 && cw.chunks[0].lines == 1,
	      "cut before the first line past the seconds limit");
	chunk_writer_feed(&cw, "tail", 4, 1300000);
	chunk_writer_finish(&cw, 1300001);
	CHECK(cw.nr_chunks == 2 && cw.unterminated, "an unterminated last line is closed");
	buf = unpack(dfd, cw.chunks[1].name, CHUNK_NONE, &len);
	/* "ghi" came after the limit passed, so it opened the second chunk */
	CHECK(buf && len == 9 && !memcmp(buf, "ghi\ntail\n", 9), "it gets its newline");
	free(buf);
	CHECK(!count_parts(dir), "no .part left");
	chunk_writer_feed(&cw, "x\n", 2, 1400000);
	CHECK(count_parts(dir) == 1 && !strncmp(cw.part_name, "trace-000003.txt.", 17) &&
	      strlen(cw.part_name) == 17 + 6 + 5 &&
	      faccessat(dfd, cw.part_name, F_OK, AT_SYMLINK_NOFOLLOW) == 0,
	      "open chunk is a trace-000003.txt.XXXXXX.part");
	chunk_writer_abort(&cw);
	CHECK(!count_parts(dir) && cw.discarded_events == 1,
	      "abort removes the .part and counts what it held");
	chunk_writer_release(&cw);
	close(dfd);
	rmdir_all(dir);
}

/* What the decoder writes is what every reader parses: one grammar. */
static void grammar_round_trip(void)
{
	static const uint64_t counts[] = { 0, 1, 339, UINT64_MAX };
	char buf[64];
	uint64_t n;
	size_t i;
	int cpu;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		int len = lost_marker_format(buf, sizeof(buf), 4095, counts[i]);
		CHECK(len > 0 && (size_t)len < sizeof(buf) && buf[len - 1] == '\n' &&
		      lost_marker_parse(buf, (size_t)len, &cpu, &n) && cpu == 4095 && n == counts[i],
		      "a marker the decoder writes parses back to its CPU and count");
	}
	CHECK(trace_line_is_frame(" => do_page_fault\n", 18) && !trace_line_is_frame(" =>", 3) &&
	      !trace_line_is_frame("  => x", 6), "a frame line starts with \" => \", nothing else");
}

int main(void)
{
	struct chunk_limits by_lines = { 100, 0, 0 };
	struct chunk_limits by_bytes = { 0, 16384, 0 };
	struct chunk_limits by_time = { 0, 0, 5000 };

	test_names();
	test_lost();
	round_trip(CHUNK_NONE, &by_lines, "none, 100 lines");
	round_trip(CHUNK_GZIP, &by_lines, "gzip, 100 lines");
	round_trip(CHUNK_ZSTD, &by_bytes, "zstd, 16K");
	round_trip(CHUNK_GZIP, &by_bytes, "gzip, 16K");
	round_trip(CHUNK_NONE, &by_time, "none, 5ms");
	test_partial_and_tick();
	grammar_round_trip();
	return TEST_EXIT();
}
