// SPDX-License-Identifier: GPL-2.0
/* The contract table: lookups, enumeration words, the common fields first. */
#include <string.h>

#include "mmlock_events.h"
#include "test.h"

int main(void)
{
	const struct mmlock_event *ev;
	int i, common_ok = 1;

	ev = mmlock_event_find("filemap_fault_begin");
	CHECK(ev && !strcmp(ev->system, "filemap"), "bare name resolves to its system");
	ev = mmlock_event_find("mmap_lock:vma_start_write_begin");
	CHECK(ev && ev->id == MMLOCK_EV_VMA_START_WRITE_BEGIN, "system:name resolves");
	CHECK(!mmlock_event_find("filemap:vma_start_write_begin"), "wrong system is refused");
	CHECK(!mmlock_event_find("vma_start_write"), "unknown name is refused");
	CHECK(mmlock_event_find("sched:sched_switch") != NULL, "stock events are listed");
	/* version 1 of the contract printed pid= first; version 2 takes the header's */
	for (i = 0; i < MMLOCK_EV_NR_CUSTOM; i++) {
		unsigned int f;

		ev = &mmlock_events[i];
		f = ev->nr_fields && !strcmp(ev->fields[0].name, "pid");
		if (ev->nr_fields < f + 3 || strcmp(ev->fields[f].name, "tgid") ||
		    strcmp(ev->fields[f + 1].name, "prio") || strcmp(ev->fields[f + 2].name, "mm"))
			common_ok = 0;
	}
	CHECK(common_ok, "every custom event starts with tgid prio mm (after pid in v1)");
	CHECK(mmlock_word_index(mmlock_words_retry_reason, "drop_read_folio") ==
	      MMLOCK_RR_drop_read_folio, "retry reason words follow the enum");
	CHECK(mmlock_word_index(mmlock_words_fallback_reason, "retry") == MMLOCK_FB_retry,
	      "fallback reason retry is value 0");
	CHECK(mmlock_word_index(mmlock_words_fault_lock, "bogus") == -1, "unknown word is -1");
	ev = mmlock_event_find("filemap_fault_wait_end");
	CHECK(ev && mmlock_event_field(ev, "waited_ns") &&
	      mmlock_event_field(ev, "lock")->words == mmlock_words_fault_lock,
	      "wait_end has waited_ns and the lock enumeration");
	return TEST_EXIT();
}
