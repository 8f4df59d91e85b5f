// SPDX-License-Identifier: GPL-2.0
/*
 * Binary mode's page walk: events and the kernel's missed-event count are
 * read from a ring-buffer sub-buffer built here by hand (64-bit layout:
 * u64 timestamp, u64 commit with the missed flags, 4-byte event headers).
 */
#include <stdint.h>
#include <string.h>

#include <kbuffer.h>

#include "capture.h"
#include "test.h"

#define MISSED_EVENTS	(1ULL << 31)
#define MISSED_STORED	(1ULL << 30)

/* Three 8-byte events (type_len 2), then optionally a stored missed count. */
static void make_page(unsigned char *page, int size, uint64_t flags, uint64_t missed)
{
	uint64_t ts = 1000, commit = 3 * 12;
	int i;

	memset(page, 0, (size_t)size);
	memcpy(page, &ts, 8);
	for (i = 0; i < 3; i++) {
		uint32_t hdr = 2 | (uint32_t)(10 + i) << 5;	/* type_len 2, delta */

		memcpy(page + 16 + i * 12, &hdr, 4);
		memset(page + 16 + i * 12 + 4, 0xa0 + i, 8);
	}
	if (flags & MISSED_STORED)
		memcpy(page + 16 + commit, &missed, 8);
	commit |= flags;
	memcpy(page + 8, &commit, 8);
}

int main(void)
{
	static unsigned char page[4096 + PAGE_COUNT_SLACK];
	struct kbuffer *kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST,
					     KBUFFER_ENDIAN_SAME_AS_HOST);
	struct page_count c = { 0 };
	int rc;

	make_page(page, 4096, 0, 0);
	rc = page_count_one(kbuf, page, 4096, &c);
	CHECK(rc == 0 && c.events == 3 && c.missed == 0 && c.missed_unknown == 0, "three events, none missed");
	make_page(page, 4096, MISSED_EVENTS | MISSED_STORED, 7);
	rc = page_count_one(kbuf, page, 4096, &c);
	CHECK(rc == 0 && c.events == 6 && c.missed == 7 && c.missed_unknown == 0,
	      "a stored missed count is added");
	make_page(page, 4096, MISSED_EVENTS, 0);
	rc = page_count_one(kbuf, page, 4096, &c);
	CHECK(rc == 0 && c.events == 9 && c.missed == 7 && c.missed_unknown == 1,
	      "missed without a count is flagged, not guessed");
	make_page(page, 4096, 0, 0);
	memset(page + 8, 0xff, 3);	/* a commit size far beyond the page */
	rc = page_count_one(kbuf, page, 4096, &c);
	CHECK(rc == -1 && c.events == 9 && c.bad_pages == 1,
	      "a commit beyond the page: counted damaged, its events not counted");
	kbuffer_free(kbuf);
	return TEST_EXIT();
}
