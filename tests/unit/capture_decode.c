// SPDX-License-Identifier: GPL-2.0
/*
 * The binary decoder's own walk of a page's plain data events against
 * kbuffer's reading: a fixture's pages rewritten with the records the
 * kernel may also write (a padding record, an event in the long form,
 * a time extend carrying the next event's delta) decode to the same text,
 * record for record, as the pages as recorded.  The walk hands each page
 * to kbuffer at its first such record.
 *
 * And the CPUs' records come merged by time, ties to the lower CPU, in
 * every binary fixture (two CPUs, or three), and in a copy whose records
 * are retimed so that each of CPU 0's ties one of CPU 1's.  And a record
 * shorter than its format's fields is damaged, never handed out to be read
 * past its end.  And a page deep in a CPU's stream that says events were
 * missed before it gives its first record that LOST count.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "capture.h"
#include "test.h"

#define FIXTURE		"tests/fixtures/binary-stock-stacks.capture"
#define PAGE		4096
#define HDR		16		/* timestamp and commit word: 8-byte longs */

struct text {
	char	*buf;
	size_t	len, cap;
};

static int collect(const char *line, size_t len, void *ctx)
{
	struct text *t = ctx;

	if (t->len + len + 1 > t->cap) {
		t->cap = (t->len + len + 1) * 2;
		t->buf = realloc(t->buf, t->cap);
		if (!t->buf)
			return -1;
	}
	memcpy(t->buf + t->len, line, len);
	t->len += len;
	t->buf[t->len] = '\0';
	return 0;
}

static uint32_t get4(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void put4(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/*
 * Rewrite one page: after its first event, by @kind, a padding record (0),
 * its second event in the long form (1), or a time extend carrying the
 * second event's delta (2), each where the walk meets it first.  1 when
 * rewritten; 0 (untouched) for a page without two plain events or without
 * room.
 */
static int page_rewrite(unsigned char *pg, int kind)
{
	unsigned char out[PAGE];
	uint64_t commit, rest;
	uint32_t off[2], len[2], w, o, n = 0, at;
	size_t pos;

	memcpy(&commit, pg + 8, 8);
	if (commit >> 27 || commit + 8 > PAGE - HDR)
		return 0;	/* flags (missed events) or no room */
	for (pos = 0; pos < commit && n < 2; pos += 4 + len[n++]) {
		w = get4(pg + HDR + pos);
		if (!(w & 31) || (w & 31) > 28)
			return 0;
		off[n] = (uint32_t)pos;
		len[n] = 4 * (w & 31);
	}
	if (n < 2)
		return 0;
	memset(out, 0, sizeof(out));
	memcpy(out, pg, HDR + off[1]);
	o = HDR + off[1];
	w = get4(pg + HDR + off[1]);
	at = HDR + off[1];
	switch (kind) {
	case 0:
		/* padding: type 29, no delta, its length word counting the word itself */
		put4(out + o, 29);
		put4(out + o + 4, 4);
		o += 8;
		break;
	case 1:
		/* long form: type 0, then the data's length + 4, then the data */
		put4(out + o, w & ~31u);
		put4(out + o + 4, len[1] + 4);
		o += 8;
		at += 4;
		break;
	default:
		/* the delta in a time extend (type 30) before the event */
		put4(out + o, (w & ~31u) | 30);
		put4(out + o + 4, 0);
		put4(out + o + 8, w & 31);
		o += 12;
		at += 4;
		break;
	}
	/* the rest of the original data after the bytes rewritten above */
	rest = HDR + commit - at;
	memcpy(out + o, pg + at, rest);
	commit = o + rest - HDR;
	memcpy(out + 8, &commit, 8);
	memcpy(pg, out, PAGE);
	return 1;
}

/* page_retime()'s state: the CPU whose pages come now, and its clock. */
struct retime {
	int			cpu;
	unsigned long long	t;
};

/*
 * test_rewrite_pages()'s step: CPU 0's records 10 ns apart, CPU 1's 5 ns
 * apart, from 0 (each page's time where its CPU's last record left it), so
 * that every time of CPU 0 is also one of CPU 1.  A page with other than
 * plain records keeps their deltas (time extends stay after their event).
 */
static void page_retime(unsigned char *pg, long index, void *ctx)
{
	struct retime *rt = ctx;
	unsigned int step;
	uint64_t commit, pos;

	if (!index && rt->t) {
		rt->cpu++;
		rt->t = 0;
	}
	step = rt->cpu ? 5 : 10;
	memcpy(pg, &rt->t, 8);
	memcpy(&commit, pg + 8, 8);
	commit &= (1ULL << 27) - 1;
	for (pos = 0; pos + 4 <= commit && HDR + pos + 4 <= PAGE;) {
		uint32_t w = get4(pg + HDR + pos), len = w & 31;

		if (!len || len > 28)
			break;
		put4(pg + HDR + pos, len | step << 5);
		rt->t += step;
		pos += 4 + 4 * len;
	}
}

/* What bin_decoder_next() said of its records. */
struct answers {
	unsigned long	plain, other, lost, wrong;	/* wrong: BIN_PLAIN where it is not, or not */
};

/*
 * The records of @dir in (timestamp, CPU) order; 0 when they are.  And
 * each answer BIN_PLAIN exactly for a record with a format, no LOST line,
 * no stack and no damage.
 */
static int merged_in_order(const char *dir, unsigned long *records, unsigned long *switches,
			   struct answers *a)
{
	struct bin_decoder *dec = bin_decoder_open(dir);
	unsigned long long ts = 0;
	struct bin_event e;
	int cpu = -1, bad = 0, r;

	if (!dec)
		return 1;
	while ((r = bin_decoder_next(dec, &e))) {
		int plain = e.ev && !e.stack && !e.lost && !e.damaged;

		a->wrong += (r == BIN_PLAIN) != plain || (r != BIN_PLAIN && r != 1);
		a->plain += r == BIN_PLAIN;
		a->other += r != BIN_PLAIN;
		a->lost += e.lost != 0;
		if (e.damaged)
			continue;
		if (e.ts < ts || (e.ts == ts && e.cpu < cpu))
			bad = 1;
		*switches += cpu >= 0 && e.cpu != cpu;
		(*records)++;
		ts = e.ts;
		cpu = e.cpu;
	}
	bin_decoder_close(dec);
	return bad;
}

/* merge_order() on a copy retimed by page_retime(): ties at every time of CPU 0. */
static void retimed_order(struct answers *a)
{
	char dir[] = "/tmp/mmlock-decode.XXXXXX", cmd[256], cap[128];
	struct retime rt = { 0, 0 };
	unsigned long records = 0, sw = 0;
	int bad = 1;

	if (!mkdtemp(dir))
		return;
	snprintf(cmd, sizeof(cmd), "cp -r tests/fixtures/binary-small.capture %s/cap && "
		 "chmod -R u+w %s/cap", dir, dir);
	snprintf(cap, sizeof(cap), "%s/cap", dir);
	if (!system(cmd) && !test_rewrite_pages(cap, PAGE, page_retime, &rt))
		bad = merged_in_order(cap, &records, &sw, a);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		bad = 1;
	CHECK(!bad && rt.cpu == 1 && records > 1000 && sw > 100,
	      "records of two CPUs at equal times: the lower CPU's first (%lu records, "
	      "%lu switches)", records, sw);
}

static void merge_order(void)
{
	static const char *const fixtures[] = {
		"tests/fixtures/binary-small.capture", "tests/fixtures/binary-stock-stacks.capture",
		"tests/fixtures/binary-custom-v1.capture", "tests/fixtures/binary-custom-v2.capture",
	};
	struct answers a = { 0 };
	unsigned long switches = 0;
	size_t i;

	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		unsigned long records = 0;
		int bad = merged_in_order(fixtures[i], &records, &switches, &a);

		CHECK(!bad && records > 50, "%s: the CPUs' records merged by time, ties to the "
		      "lower CPU (%lu records)", fixtures[i], records);
	}
	CHECK(switches > 100, "the merge switched CPUs %lu times", switches);
	retimed_order(&a);
	CHECK(!a.wrong && a.plain > 1000 && a.other > 100 && a.lost >= 2,
	      "BIN_PLAIN exactly for records with a format, no LOST line, no stack, no damage "
	      "(%lu plain, %lu others, %lu after a LOST line, %lu wrong)", a.plain, a.other, a.lost,
	      a.wrong);
}

/* test_rewrite_pages()'s step: each page by the kind its index picks, counted in @ctx */
static void rewrite_one(unsigned char *pg, long index, void *ctx)
{
	*(int *)ctx += page_rewrite(pg, (int)(index % 3));
}

/* page_lost()'s state: pages seen, and the one given a missed count. */
struct lost_page {
	long	pages;
	int	done;
};

/* test_rewrite_pages()'s step: the first page of CPU 0 after its fifth with room says 7 missed. */
static void page_lost(unsigned char *pg, long index, void *ctx)
{
	struct lost_page *lp = ctx;
	uint64_t commit, size, n = 7;

	lp->pages++;
	memcpy(&commit, pg + 8, 8);
	size = commit & ((1ULL << 27) - 1);
	if (lp->done || lp->pages != index + 1 || index < 5 || HDR + size + 8 > PAGE)
		return;
	commit |= 1ULL << 31 | 1ULL << 30;	/* missed, and the count stored after the data */
	memcpy(pg + 8, &commit, 8);
	memcpy(pg + HDR + size, &n, 8);
	lp->done = 1;
}

/* A LOST count on a page whose records' types were all met before. */
static void lost_later(void)
{
	char dir[] = "/tmp/mmlock-decode.XXXXXX", cmd[256], cap[128];
	struct lost_page lp = { 0, 0 };
	unsigned long before = 0, lost = 0, after = 0;
	struct bin_decoder *dec = NULL;
	struct bin_event e;

	if (!mkdtemp(dir))
		return;
	snprintf(cmd, sizeof(cmd), "cp -r tests/fixtures/binary-small.capture %s/cap && "
		 "chmod -R u+w %s/cap", dir, dir);
	snprintf(cap, sizeof(cap), "%s/cap", dir);
	if (!system(cmd) && !test_rewrite_pages(cap, PAGE, page_lost, &lp))
		dec = bin_decoder_open(cap);
	while (dec && bin_decoder_next(dec, &e)) {
		if (e.lost == 7 && e.cpu == 0 && !e.damaged)
			lost++;
		else if (e.lost)
			before = ~0UL;	/* no other LOST count is in the fixture */
		else if (lost)
			after++;
		else
			before++;
	}
	CHECK(lp.done && lost == 1 && before > 100 && after > 100 && dec &&
	      bin_decoder_stats(dec)->missed == 7,
	      "a page deep in the stream that says 7 events were missed: its first record comes "
	      "with LOST 7 (%lu records before it, %lu after)", before, after);
	bin_decoder_close(dec);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return;
}

/*
 * A copy of a fixture whose mmap_lock_acquire_returned format gains a
 * field past the end of its records: each of them is damaged (the rest of
 * its page skipped), none handed out whole.
 */
static void short_records(void)
{
	static const char after[] = "offset:25;\tsize:1;\tsigned:0;\n";
	char dir[] = "/tmp/mmlock-decode.XXXXXX", cmd[256], path[256], buf[4096], *at;
	unsigned long damaged = 0, whole = 0, others = 0;
	struct bin_decoder *dec;
	struct bin_event e;
	size_t n;
	FILE *f;

	if (!mkdtemp(dir))
		return;
	snprintf(cmd, sizeof(cmd), "cp -r tests/fixtures/binary-small.capture %s/cap && "
		 "chmod -R u+w %s/cap", dir, dir);
	if (system(cmd))
		return;
	snprintf(path, sizeof(path), "%s/cap/tracefs/events/mmap_lock/mmap_lock_acquire_returned/"
		 "format", dir);
	f = fopen(path, "r+");
	n = f ? fread(buf, 1, sizeof(buf) - 64, f) : 0;
	buf[n] = '\0';
	at = strstr(buf, after);
	if (f && at) {
		at += sizeof(after) - 1;
		rewind(f);
		fwrite(buf, 1, (size_t)(at - buf), f);
		fputs("\tfield:u64 beyond;\toffset:200;\tsize:8;\tsigned:0;\n", f);
		fputs(at, f);
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/cap", dir);
	dec = bin_decoder_open(path);
	while (dec && bin_decoder_next(dec, &e)) {
		if (e.damaged)
			damaged++;
		else if (e.ev && !strcmp(e.ev->name, "mmap_lock_acquire_returned"))
			whole++;
		else
			others++;
	}
	CHECK(at && dec && damaged > 0 && !whole && others > 0 &&
	      bin_decoder_stats(dec)->bad_pages == damaged,
	      "records shorter than their format's fields are damaged, none handed out "
	      "(%lu damaged, %lu whole, %lu others)", damaged, whole, others);
	bin_decoder_close(dec);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return;
}

int main(void)
{
	char dir[] = "/tmp/mmlock-decode.XXXXXX", cmd[256], raw[128];
	struct text before = { 0 }, after = { 0 };
	struct bin_decode_stats st0, st1;
	int rc0, rc1, rewritten = 0;

	if (!mkdtemp(dir))
		return 1;
	snprintf(cmd, sizeof(cmd), "cp -r %s %s/cap", FIXTURE, dir);
	if (system(cmd))
		return 1;
	snprintf(raw, sizeof(raw), "%s/cap", dir);
	rc0 = bin_decode(raw, collect, &before, &st0);
	if (test_rewrite_pages(raw, PAGE, rewrite_one, &rewritten))
		return 1;
	rc1 = bin_decode(raw, collect, &after, &st1);
	CHECK(rc0 == 0 && rc1 == 0 && rewritten >= 6 && st0.events > 100 &&
	      st1.events == st0.events && st1.bad_pages == st0.bad_pages && after.len == before.len &&
	      !memcmp(after.buf, before.buf, before.len),
	      "pages with a padding record, a long-form event or a time extend mid-page decode "
	      "as the pages recorded (%d pages rewritten, %llu events)", rewritten,
	      (unsigned long long)st1.events);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	free(before.buf);
	free(after.buf);
	merge_order();
	short_records();
	lost_later();
	return TEST_EXIT();
}
