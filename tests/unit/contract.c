// SPDX-License-Identifier: GPL-2.0
/* The contract table: lookups, enumeration words, the common fields first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	/* the fault-policy sysctls: one table, found with and without "vm." */
	CHECK(mmlock_sysctl_find("filemap_fault_no_retry", strlen("filemap_fault_no_retry")) ==
	      &mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY], "a sysctl is found by its name");
	CHECK(mmlock_sysctl_find("vm.fault_retry_vma_lock=1", strlen("vm.fault_retry_vma_lock")) ==
	      &mmlock_sysctls[MMLOCK_SYSCTL_RETRY_VMA_LOCK], "and by vm.NAME, the length bounding it");
	CHECK(!mmlock_sysctl_find("filemap_fault_no", strlen("filemap_fault_no")) &&
	      !mmlock_sysctl_find("vm.", 3), "a prefix of a name is no sysctl");
	CHECK(!strcmp(mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY].path,
		      "/proc/sys/vm/filemap_fault_no_retry") &&
	      !strcmp(mmlock_sysctls[MMLOCK_SYSCTL_RETRY_VMA_LOCK].summary_key,
		      "policy.fault_retry_vma_lock") &&
	      !strcmp(mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY].status_key,
		      "sysctls.filemap_fault_no_retry"), "path, summary and trace.status keys");
	{
		const int stock[MMLOCK_SYSCTL_NR] = { 0 }, both[MMLOCK_SYSCTL_NR] = { 1, 1 };
		int rv[MMLOCK_SYSCTL_NR] = { 0 };

		rv[MMLOCK_SYSCTL_RETRY_VMA_LOCK] = 1;
		CHECK(mmlock_policy_of(stock) == &mmlock_policies[MMLOCK_POLICY_STOCK] &&
		      !strcmp(mmlock_policies[MMLOCK_POLICY_STOCK].name, "stock") &&
		      mmlock_policy_of(rv) == &mmlock_policies[MMLOCK_POLICY_RETRY_VMA] &&
		      !strcmp(mmlock_policy_of(rv)->name, "retry-vma") && !mmlock_policy_of(both),
		      "mmlock_policy_of: stock and retry-vma by their sysctls; both set is no policy");
	}
	{
		/* the reader: a number, or -1 for no file, no number, a negative one */
		char path[] = "/tmp/mmlock-contract-XXXXXX";
		struct mmlock_sysctl fake = mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY];
		int fd = mkstemp(path), ok1, okx, okneg;
		FILE *f;

		fake.path = path;
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		ok1 = f && fputs("1\n", f) >= 0 && !fflush(f) && mmlock_sysctl_read(&fake) == 1;
		okx = f && !ftruncate(fd, 0) && !fseek(f, 0, SEEK_SET) && fputs("x\n", f) >= 0 &&
		      !fflush(f) && mmlock_sysctl_read(&fake) == -1;
		okneg = f && !ftruncate(fd, 0) && !fseek(f, 0, SEEK_SET) && fputs("-3\n", f) >= 0 &&
			!fflush(f) && mmlock_sysctl_read(&fake) == -1;
		if (f)
			fclose(f);
		unlink(path);
		CHECK(ok1 && okx && okneg, "mmlock_sysctl_read: 1 reads 1; x and -3 read -1");
		CHECK(mmlock_sysctl_read(&fake) == -1, "mmlock_sysctl_read: no file reads -1");
		CHECK(access(mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY].path, F_OK) ?
		      mmlock_sysctl_read(&mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY]) == -1 :
		      mmlock_sysctl_read(&mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY]) >= 0,
		      "this kernel's vm.filemap_fault_no_retry: -1 when absent, its value when present");
	}
	return TEST_EXIT();
}
