// SPDX-License-Identifier: GPL-2.0
/*
 * Binary mode's page walk: events and the kernel's missed-event count are
 * read from a ring-buffer sub-buffer built here by hand (64-bit layout:
 * u64 timestamp, u64 commit with the missed flags, 4-byte event headers).
 */
#include <stdint.h>
#include <string.h>

#include "collector/collector.h"
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
	unsigned char page[4096];
	uint64_t events = 0, missed = 0;
	int unknown = 0, rc;

	make_page(page, sizeof(page), 0, 0);
	rc = bin_page_count(page, sizeof(page), &events, &missed, &unknown);
	CHECK(rc == 0 && events == 3 && missed == 0 && unknown == 0, "three events, none missed");
	make_page(page, sizeof(page), MISSED_EVENTS | MISSED_STORED, 7);
	rc = bin_page_count(page, sizeof(page), &events, &missed, &unknown);
	CHECK(rc == 0 && events == 6 && missed == 7 && unknown == 0,
	      "a stored missed count is added");
	make_page(page, sizeof(page), MISSED_EVENTS, 0);
	rc = bin_page_count(page, sizeof(page), &events, &missed, &unknown);
	CHECK(rc == 0 && events == 9 && missed == 7 && unknown == 1,
	      "missed without a count is flagged, not guessed");
	return TEST_EXIT();
}
