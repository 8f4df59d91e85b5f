// SPDX-License-Identifier: GPL-2.0
/* The line parser on the layouts a capture can hold, and the histogram. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/hist.h"
#include "analyzer/parse.h"
#include "test.h"

static struct parsed_line pl;
static char buf[1024];

static void parse(const char *s)
{
	strcpy(buf, s);
	parse_line(buf, &pl);
}

/*
 * The keys an event prints in order, which the parser reads in one pass: a
 * custom event's contract fields; the stock mmap_lock events' print format
 * of Linux 6.14 on ("mm=%p memcg_id=%llu write=%s", then " success=%s" in
 * acquire_returned).  How many (0: no template), and the one at @i.
 */
static int template_len(const struct mmlock_event *ev)
{
	if (ev->custom)
		return (int)ev->nr_fields;
	if (ev->id == MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED)
		return 4;
	if (ev->id == MMLOCK_EV_MMAP_LOCK_START_LOCKING || ev->id == MMLOCK_EV_MMAP_LOCK_RELEASED)
		return 3;
	return 0;
}

static const char *template_key(const struct mmlock_event *ev, int i)
{
	static const char *const stock[] = { "mm", "memcg_id", "write", "success" };

	return ev->custom ? ev->fields[i].name : stock[i];
}

/*
 * Up to 20 bytes of @alphabet (@n bytes) into @val: mostly its first 16,
 * the hex digits, sometimes any of it.
 */
static void random_value(char *val, unsigned int *seed, const char *alphabet, unsigned int n)
{
	int len = (int)((*seed = *seed * 1103515245 + 12345) >> 16) % 21, j;

	for (j = 0; j < len; j++) {
		*seed = *seed * 1103515245 + 12345;
		val[j] = alphabet[(*seed >> 16) % ((*seed >> 8) % 4 ? 16 : n)];
	}
	val[len] = '\0';
}

/*
 * Parse @line; when it is an event, count in *@bad an mm= whose value is
 * not strtoull()'s of its text.  Return: 1 for an event.
 */
static int parse_event_mm_bad(const char *line, unsigned int *bad)
{
	const char *v;

	parse(line);
	if (pl.kind != LINE_EVENT)
		return 0;
	v = parsed_get(&pl, "mm");
	if (pl_hex(&pl, PF_MM) != strtoull(v, NULL, 16))
		++*bad, printf("# mm=%s: %llx\n", v, (unsigned long long)pl_hex(&pl, PF_MM));
	return 1;
}

/*
 * Lines the parser must call malformed, each with the part of its reason
 * that names what was expected (NULL: any reason).
 */
static void check_malformed(void)
{
	static const struct {
		const char *line, *what, *name;
	} cases[] = {
		{ "   a-1 [000] 1.x: ev: k=v",
		  NULL, "bad timestamp is malformed, with a reason" },
		{ "     kworker 12     [000] .....   1.000001: ev: k=v",
		  "COMM-PID", "PID digits before the CPU bracket without a '-' are no COMM-PID" },
		{ "  a-5 (                          7) [003] .....   1.000001: ev: k=v",
		  NULL, "a '(' more than MAX_TGID_COL bytes back opens no TGID column" },
		{ "half a line without the layout",
		  NULL, "free text is malformed" },
		{ "  a-1 [000] .....  1.000001: mmap_lock_start_locking: mm=00000000aa memcg_path=/uid_10",
		  "write=true|false", "a stock event cut inside memcg_path is malformed" },
		{ "  a-1 [000] .....  1.000001: mmap_lock_acquire_returned: mm=00000000aa memcg_id=5 write=true",
		  "success=true|false", "acquire_returned without success= is malformed" },
		{ "  a-1 [000] .....  1.000001: mmap_lock_released: memcg_id=5 write=1",
		  NULL, "a stock event without mm= or with write=1 is malformed" },
		{ "  a-1 [000] d..5.  1.000001: contention_end: 00000000c0c0c0c0 (ret=",
		  "contention_end", "a cut contention_end is malformed, not a wait on no lock" },
		{ "  a-1 [000] d..5.  1.000001: contention_begin: lock (flags=READ)",
		  "contention_begin", "contention_begin with no hex lock is malformed" },
		{ "  a-1 [000] d..5.  1.000001: contention_end: 00000000c0c0c0c0 (ret=x)",
		  NULL, "contention_end with a non-number ret is malformed" },
		{ "  r-7 [001] .....  1.000001: filemap_fault_wait_start: pid=7 junk tgid=5",
		  "pid=N", "version 1 pid=\"7 junk\" is malformed" },
		{ "  r-7 [001] .....  1.000001: filemap_fault_wait_start: pid=2147483648 tgid=5",
		  NULL, "version 1 pid past INT_MAX is malformed" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse(cases[i].line);
		CHECK(pl.kind == LINE_MALFORMED && pl.what &&
		      (!cases[i].what || strstr(pl.what, cases[i].what)), "%s", cases[i].name);
	}
}

int main(void)
{
	struct hist h = { 0 };
	int i;

	parse("     Binder:12_3-456   [001] d..2.   1234.000567: mmap_lock_hold_start: pid=456 tgid=12 prio=120 mm=00000000aa write=1");
	CHECK(pl.kind == LINE_EVENT && pl.pid == 456 && !strcmp(pl.comm, "Binder:12_3") &&
	      pl.cpu == 1 && pl.ts_ns == 1234000567000ULL, "comm with colon and dash, flags");
	CHECK(!strcmp(pl.event, "mmap_lock_hold_start") && !strcmp(parsed_get(&pl, "write"), "1"),
	      "event name and a payload value");
	parse("  my app-worker-77 (     70) [003] .....    5.100000: vma_start_write_begin: pid=77 caller=dup_mmap+0x2f4/0x5a0 [mymod] user_pc=0");
	CHECK(pl.kind == LINE_EVENT && pl.pid == 77 && pl.tgid == 70 &&
	      !strcmp(pl.comm, "my app-worker"), "comm with space and dashes, tgid column");
	CHECK(!strcmp(parsed_get(&pl, "caller"), "dup_mmap+0x2f4/0x5a0 [mymod]") &&
	      !strcmp(parsed_get(&pl, "user_pc"), "0"), "a [module] token belongs to caller=");
	parse("  kworker/u8:2-12 (-------) [000]   10.5: sched_switch: prev_comm=a b prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=c next_pid=6 next_prio=100");
	CHECK(pl.kind == LINE_EVENT && pl.tgid == -1 && pl.ts_ns == 10500000000ULL &&
	      !strcmp(parsed_get(&pl, "prev_comm"), "a b") &&
	      !strcmp(parsed_get(&pl, "next_prio"), "100"),
	      "unknown tgid, no flags, short fraction, values with spaces");
	parse("CPU:3 [LOST 1234 EVENTS]");
	CHECK(pl.kind == LINE_LOST && pl.cpu == 3 && pl.lost == 1234, "lost-events marker");
	parse("           a-1     [000] .....   1.000001: <stack trace>");
	CHECK(pl.kind == LINE_STACK && pl.pid == 1, "stack block header");
	parse(" => do_syscall_64+0x5d/0x170");
	CHECK(pl.kind == LINE_FRAME && !strcmp(pl.frame, "do_syscall_64+0x5d/0x170"), "frame");
	parse("# tracer: nop");
	CHECK(pl.kind == LINE_HEADER, "comment header");
	parse("cpus=2");
	CHECK(pl.kind == LINE_HEADER, "trace-cmd header");
	check_malformed();
	{
		/* a NUL inside the length given ends the line: no bracket is looked for past it */
		static const char cut[] = "x\0  a-1 [000] .....  1.000001: ev: k=v";

		memcpy(buf, cut, sizeof(cut));
		parse_line_n(buf, sizeof(cut) - 1, &pl);
		CHECK(pl.kind == LINE_MALFORMED, "a CPU bracket after a NUL inside the line is not read");
	}
	parse("  a-b-1234567     [123] .....   1.000001: ev: k=v");
	CHECK(pl.kind == LINE_EVENT && pl.pid == 1234567 && pl.cpu == 123 && !strcmp(pl.comm, "a-b") &&
	      pl.ts_ns == 1000001000ULL, "seven PID digits, a dash in the comm, three CPU digits");
	parse("  a-5 (                 7) [003] .....   1.000001: ev: k=v");
	CHECK(pl.kind == LINE_EVENT && pl.pid == 5 && pl.tgid == 7 && pl.cpu == 3,
	      "a TGID column 20 bytes wide");
	parse("  a-1 [000] ..... 1234567.123456789: ev: k=");
	CHECK(pl.kind == LINE_EVENT && pl.ts_ns == 1234567123456789ULL &&
	      !strcmp(parsed_get(&pl, "k"), ""), "nanosecond timestamp, empty value");

	/* Linux 6.1's stock events: memcg_path=%s, a bare cgroup path */
	parse("  RenderThread-4512 (   4480) [002] .....  200.000100: mmap_lock_acquire_returned: mm=00000000d5ee3255 memcg_path=/uid_10123/pid_4480 write=false success=true");
	CHECK(pl.kind == LINE_EVENT && !strcmp(parsed_get(&pl, "memcg_path"), "/uid_10123/pid_4480") &&
	      !strcmp(parsed_get(&pl, "write"), "false") &&
	      !strcmp(parsed_get(&pl, "success"), "true"), "6.1 stock event with memcg_path");
	parse("  a-1 [000] .....  1.000001: mmap_lock_released: mm=00000000aa memcg_path= write=true");
	CHECK(pl.kind == LINE_EVENT && !strcmp(parsed_get(&pl, "memcg_path"), "") &&
	      !strcmp(parsed_get(&pl, "write"), "true"), "empty memcg_path");
	parse("  a-1 [000] .....  1.000001: mmap_lock_start_locking: mm=00000000aa memcg_path=/x pid=9 prio=1 write=false  y write=false write=true");
	CHECK(pl.kind == LINE_EVENT && pl.nr_fields == 3 &&
	      !strcmp(parsed_get(&pl, "memcg_path"), "/x pid=9 prio=1 write=false  y write=false") &&
	      !strcmp(parsed_get(&pl, "write"), "true") && !parsed_get(&pl, "pid"),
	      "memcg_path with spaces, '=' and \" write=\" runs to the last write=");
	parse("  a-1 [000] .....  1.000001: mmap_lock_acquire_returned: mm=00000000aa memcg_path=/a write=true ip=f+0x1/0x2 success=false");
	CHECK(pl.kind == LINE_EVENT && !strcmp(parsed_get(&pl, "memcg_path"), "/a") &&
	      !strcmp(parsed_get(&pl, "ip"), "f+0x1/0x2") &&
	      !strcmp(parsed_get(&pl, "success"), "false"), "5.x layout with ip= after write=");
	parse("              sh-6041    (   6041) [001] .....   269.477053: mmap_lock_acquire_returned: mm=0xffff888100078000 memcg_id=3335 write=true success=false");
	CHECK(pl.kind == LINE_EVENT && pl.packed && pl.nr_fields == 4 && pl.pid == 6041 &&
	      pl.tgid == 6041 && pl.cpu == 1 && pl.ts_ns == 269477053000ULL &&
	      pl_hex(&pl, PF_MM) == 0xffff888100078000ULL && pl_bool(&pl, PF_WRITE) &&
	      pl_has(&pl, PF_SUCCESS) && !pl_bool(&pl, PF_SUCCESS) &&
	      !strcmp(parsed_get(&pl, "memcg_id"), "3335"),
	      "6.14 stock event read in one pass by its template, a 0x pointer");
	parse("  a-1 [000] .....  1.000001: mmap_lock_start_locking: mm=0x1 memcg_id=0 write=false");
	i = pl.packed && pl.nr_fields == 3 && pl_hex(&pl, PF_MM) == 1 && !pl_bool(&pl, PF_WRITE);
	parse("  a-1 [000] .....  1.000001: mmap_lock_released: mm=0x2 memcg_id=0 write=true");
	CHECK(i && pl.packed && pl.nr_fields == 3 && pl_hex(&pl, PF_MM) == 2 && pl_bool(&pl, PF_WRITE),
	      "6.14 start_locking and released read in one pass");
	parse("  a-1 [000] .....  1.000001: mmap_lock_hold_end: pid=1 tgid=1 prio=120 mm=00000000aa write=1");
	CHECK(pl.kind == LINE_EVENT, "our mmap_lock events keep write=0|1");

	/* lock:contention_*: "%p (flags=%s)" and "%p (ret=%d)", no key for the lock */
	parse("  reader-202 (  200) [000] ...1.  100.000111: contention_begin: 00000000c0c0c0c0 (flags=READ)");
	CHECK(pl.kind == LINE_EVENT && pl.nr_fields == 2 &&
	      !strcmp(parsed_get(&pl, "lock_addr"), "00000000c0c0c0c0") &&
	      !strcmp(parsed_get(&pl, "flags"), "READ"), "contention_begin: lock_addr and flags");
	parse("  a-1 [000] d..1.  1.000001: contention_begin: 0xffff8881 (flags=SPIN|WRITE)");
	CHECK(pl.kind == LINE_EVENT && !strcmp(parsed_get(&pl, "lock_addr"), "0xffff8881") &&
	      !strcmp(parsed_get(&pl, "flags"), "SPIN|WRITE"),
	      "contention_begin as libtraceevent prints it (0x...), flag words joined by |");
	parse("  a-1 [000] d..5.  1.000001: contention_end: 00000000c0c0c0c0 (ret=-4)");
	CHECK(pl.kind == LINE_EVENT && !strcmp(parsed_get(&pl, "ret"), "-4") &&
	      !strcmp(parsed_get(&pl, "lock_addr"), "00000000c0c0c0c0"), "contention_end: ret");

	/* the typed record: event ids and fields converted once, as the contract prints them */
	parse("  r-7 [001] .....  1.000001: filemap_fault_begin: tgid=5 prio=120 mm=00000000aaaa0001 vma=00000000bbbb0001 vm_start=7f0000000000 vm_end=7f0010000000 address=7f0000008730 pgoff=1 dev=254:16 ino=12 lock=unknown user_pc=0");
	CHECK(pl.kind == LINE_EVENT && pl.id == MMLOCK_EV_FILEMAP_FAULT_BEGIN &&
	      pl_dec(&pl, PF_TGID, -1) == 5 && pl_dec(&pl, PF_PRIO, -1) == 120 &&
	      pl_hex(&pl, PF_MM) == 0xaaaa0001ULL && pl_hex(&pl, PF_VM_END) == 0x7f0010000000ULL &&
	      pl_dec(&pl, PF_INO, 0) == 12 && !strcmp(pl_str(&pl, PF_DEV), "254:16") &&
	      pl_lock(&pl, PF_LOCK) == PARSE_WORD_UNKNOWN && !pl_has(&pl, PF_PID) &&
	      pl_dec(&pl, PF_PID, 7) == 7, "typed fields of a version 2 line");
	parse("  r-7 [001] .....  1.000001: filemap_fault_wait_start: pid=7 tgid=5 prio= mm=0x1F vma= address=-1 reason=folio_lock lock=vma tgid=9");
	CHECK(pl.kind == LINE_EVENT && pl.id == MMLOCK_EV_FILEMAP_FAULT_WAIT_START &&
	      pl_dec(&pl, PF_PID, -1) == 7 && pl_dec(&pl, PF_TGID, -1) == 5 &&
	      pl_dec(&pl, PF_PRIO, -2) == -2 && pl_hex(&pl, PF_MM) == 0x1f &&
	      pl_has(&pl, PF_VMA) && pl_hex(&pl, PF_VMA) == 0 &&
	      pl_hex(&pl, PF_ADDRESS) == ~0ULL && pl_lock(&pl, PF_LOCK) == MMLOCK_FL_vma,
	      "version 1 pid, the first of a repeated key, empty and unusual numbers as strto*ll read them");
	parse("  w-8 [000] .....  1.000001: mmap_lock_wait_end: pid=8 tgid=5 prio=100 mm=00000000aaaa0001 write=1 success=true waited_ns=99999999999999999999");
	CHECK(pl.id == MMLOCK_EV_MMAP_LOCK_WAIT_END && pl_bool(&pl, PF_WRITE) &&
	      pl_bool(&pl, PF_SUCCESS) && !pl_bool(&pl, PF_MAJOR) && pl_lock(&pl, PF_LOCK) == -1,
	      "booleans of both versions, absent ones false");
	parse("  w-8 [000] .....  1.000001: sched_switch: prev_comm=a prev_pid=8 prev_prio=120 prev_state=S ==> next_comm=b next_pid=99999999999 next_prio=x");
	CHECK(pl.id == MMLOCK_EV_SCHED_SWITCH && pl_dec(&pl, PF_PREV_PID, -1) == 8 &&
	      pl_dec(&pl, PF_NEXT_PID, -1) == 99999999999LL && pl_dec(&pl, PF_NEXT_PRIO, -1) == -1,
	      "stock fields, a long number and one without digits");
	parse("  a-1 [000] d..1.  1.000001: contention_begin: 00000000c0c0c0c0 (flags=WRITE)");
	CHECK(pl.id == PARSE_EV_X(EVSET_X_CONTENTION_BEGIN) && pl_hex(&pl, PF_LOCK_ADDR) == 0xc0c0c0c0 &&
	      !strcmp(pl_str(&pl, PF_FLAGS), "WRITE"), "contention_begin's typed lock_addr and flags");
	parse("  a-1 [000] d..1.  1.000001: page_fault_user: address=0x7f00 ip=0x1 error_code=0x4");
	CHECK(pl.id == PARSE_EV_X(EVSET_X_PAGE_FAULT_USER) && pl_hex(&pl, PF_ADDRESS) == 0x7f00,
	      "an evset addition's id, a 0x address");
	parse("  a-1 [000] d..1.  1.000001: filemap_fault_beginx: tgid=1");
	CHECK(pl.kind == LINE_EVENT && pl.id == -1 && pl_dec(&pl, PF_TGID, -1) == 1,
	      "an event outside the contract: no id, fields still read");
	{
		/* the word-at-a-time conversions against strtoull/strtoll, on odd values too */
		static const char alphabet[] = "0123456789abcdefABCDEFxX-+ g\t";
		unsigned int seed = 12345, bad = 0, n;
		char val[40], line[200];

		for (n = 0; n < 20000; n++) {
			const char *v;
			char *end;

			random_value(val, &seed, alphabet, sizeof(alphabet) - 1);
			snprintf(line, sizeof(line), "  a-1 [000] .....  1.000001: mmap_lock_hold_end: "
				 "tgid=%s prio=1 mm=%s write=1", val, val);
			if (!parse_event_mm_bad(line, &bad))
				continue;
			v = parsed_get(&pl, "tgid");
			if (pl_dec(&pl, PF_TGID, -7) != (*v && (strtoll(v, &end, 10), end != v) ?
							 strtoll(v, NULL, 10) : -7))
				bad++, printf("# tgid=%s: %lld\n", v, pl_dec(&pl, PF_TGID, -7));
		}
		CHECK(!bad, "hex and decimal fields read as strtoull/strtoll read them (20000 values)");
		/*
		 * The same values after "0x" (libtraceevent's %p), in a stock
		 * event read in one pass by its template, and lazily in one
		 * read by the general split (a key out of the template's order)
		 */
		for (n = bad = 0; n < 20000; n++) {
			random_value(val, &seed, alphabet, sizeof(alphabet) - 1);
			snprintf(line, sizeof(line), "  a-1 [000] .....  1.000001: mmap_lock_released: "
				 "mm=0%c%s memcg_id=1 write=true%s", n % 3 ? 'x' : 'X', val,
				 n % 2 ? "" : " zz=1");
			parse_event_mm_bad(line, &bad);
		}
		CHECK(!bad, "hex fields after 0x read as strtoull reads them (20000 values)");
	}
	{
		/*
		 * The word-at-a-time header (one blank before the CPU bracket)
		 * against the general search (eight blanks there, which the
		 * word-at-a-time one leaves to it): the same record of random
		 * COMM-PID and TGID columns.
		 */
		static const char alphabet[] = "ab-(0)19 [";
		unsigned int seed = 99, bad = 0, fast = 0, n;
		char head[64], line[200], copy[200];

		for (n = 0; n < 20000; n++) {
			struct parsed_line a;
			int len, j, k;

			seed = seed * 1103515245 + 12345;
			len = (int)(seed >> 16) % 12;
			for (j = 0; j < len; j++) {
				seed = seed * 1103515245 + 12345;
				head[j] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
			}
			seed = seed * 1103515245 + 12345;
			k = (int)(seed >> 16) % 6;
			/* a COMM-PID, mostly, then a TGID column, mostly */
			len += snprintf(head + len, sizeof(head) - (size_t)len, "%s%s",
					k ? "-" : "", (seed >> 20) % 3 ? "4041" : "12345678");
			seed = seed * 1103515245 + 12345;
			switch ((seed >> 16) % 7) {
			case 0:
				break;
			case 1:
				snprintf(head + len, sizeof(head) - (size_t)len, " (-------)");
				break;
			case 2:
				snprintf(head + len, sizeof(head) - (size_t)len, "%*s(%7d)",
						(int)(seed >> 8) % 9, "", (int)(seed >> 4) % 100000);
				break;
			case 3:
				snprintf(head + len, sizeof(head) - (size_t)len, " (%*d)",
						(int)(seed >> 8) % 18, (int)(seed >> 4) % 1000);
				break;
			case 4:
				snprintf(head + len, sizeof(head) - (size_t)len, " (12345678)");
				break;
			case 5:
				snprintf(head + len, sizeof(head) - (size_t)len, " ( 1%c)",
						alphabet[(seed >> 8) % (sizeof(alphabet) - 1)]);
				break;
			default:
				/* no '(': no TGID column */
				snprintf(head + len, sizeof(head) - (size_t)len, " %c%*d)",
						alphabet[(seed >> 8) % (sizeof(alphabet) - 1)],
						(int)(seed >> 10) % 9, (int)(seed >> 4) % 1000);
				break;
			}
			snprintf(line, sizeof(line), "%*s%s [003] .....  1.000001: ev: k=v",
				 (int)(seed >> 12) % 20, "", head);
			snprintf(copy, sizeof(copy), "%*s%s        [003] .....  1.000001: ev: k=v",
				 (int)(seed >> 12) % 20, "", head);
			parse(line);
			a = pl;
			fast += a.kind == LINE_EVENT;
			memcpy(line, buf, sizeof(line));	/* a's comm points into buf */
			parse(copy);
			if (a.kind != pl.kind || (a.kind == LINE_EVENT &&
						  (a.pid != pl.pid || a.tgid != pl.tgid || a.cpu != pl.cpu ||
						   strcmp(line + (a.comm - buf), pl.comm))))
				bad++, printf("# [%s]\n", copy);
		}
		CHECK(!bad && fast > 5000, "the word-at-a-time header reads COMM-PID (TGID) as the "
		      "general search does (%u events)", fast);
	}
	/* fields converted while the payload is split, then a later token continues the value */
	parse("  r-7 [001] .....  1.000001: mmap_lock_wait_end: pid=7 tgid=5 x prio=120 [m] mm=1f y write=1 z success=true waited_ns=1");
	CHECK(pl.kind == LINE_EVENT && pl_dec(&pl, PF_TGID, -1) == 5 &&
	      pl_dec(&pl, PF_PRIO, -1) == 120 && pl_hex(&pl, PF_MM) == 0x1f &&
	      !pl_bool(&pl, PF_WRITE) && pl_bool(&pl, PF_SUCCESS) &&
	      !strcmp(parsed_get(&pl, "write"), "1 z"),
	      "a value continued by a token that is no key: numbers as before, \"1 z\" is not true");
	{
		/*
		 * The one pass remembers each number's word: values sharing a
		 * prefix, a value at the line's end, and one met again.
		 */
		static const char *const tg[] = { "1234", "12345", "1234", "123", "1234567", "12345678" };
		char line[200];
		int bad = 0;

		for (i = 0; i < (int)(sizeof(tg) / sizeof(tg[0])); i++) {
			snprintf(line, sizeof(line), "  r-7 [001] .....  1.000001: mmap_lock_hold_end: "
				 "pid=7 tgid=%s prio=%s mm=1 write=1", tg[i], tg[i]);
			parse(line);
			bad += !pl.packed || pl_dec(&pl, PF_TGID, -1) != strtoll(tg[i], NULL, 10) ||
			       pl_dec(&pl, PF_PRIO, -1) != strtoll(tg[i], NULL, 10);
			snprintf(line, sizeof(line), "  r-7 [001] .....  1.000001: mmap_lock_hold_end: "
				 "pid=%s", tg[i]);
			parse(line);
			bad += pl.kind != LINE_EVENT || pl_dec(&pl, PF_PID, -1) != strtoll(tg[i], NULL, 10);
		}
		CHECK(!bad, "numbers met again, or sharing a prefix, read as their own digits");
	}
	/* values converted when first read: each record's own, never the previous line's */
	parse("  r-7 [001] .....  1.000001: filemap_fault_wait_start: pid=7 tgid=5 prio=1 mm=1 vma=2 address=3 reason=io lock=mmap");
	CHECK(pl_lock(&pl, PF_LOCK) == pl_lock(&pl, PF_LOCK) && pl_hex(&pl, PF_ADDRESS) == 3 &&
	      pl_lock(&pl, PF_LOCK) >= 0 && pl_dec(&pl, PF_INO, -4) == -4 && !pl_bool(&pl, PF_WRITE),
	      "a value read twice reads the same; an absent one its default");
	i = pl_lock(&pl, PF_LOCK);
	parse("  r-7 [001] .....  1.000001: filemap_fault_wait_start: pid=7 tgid=5 prio=1 mm=1 vma=2 address=4a reason=io lock=vma");
	CHECK(pl_hex(&pl, PF_ADDRESS) == 0x4a && pl_lock(&pl, PF_LOCK) >= 0 && pl_lock(&pl, PF_LOCK) != i,
	      "the next line's values are its own, not those read on the line before");
	parse("  r-7 [001] .....  1.000001: filemap_fault_wait_start: pid=7 tgid=5 prio=1 mm=1 vma=2 address=3 reason=io lock=vma extra");
	CHECK(pl.kind == LINE_EVENT && pl_lock(&pl, PF_LOCK) == -1 && pl_str(&pl, PF_LOCK) &&
	      !strcmp(pl_str(&pl, PF_LOCK), "vma extra"), "lock=\"vma extra\" is no fault_lock word");
	parse("  r-7 [001] .....  1.000001: filemap_fault_wait_start: pid=0002147483647");
	CHECK(pl.kind == LINE_EVENT && pl_dec(&pl, PF_PID, -1) == 2147483647LL,
	      "version 1 pid with leading zeros, INT_MAX, at the line's end");
	{
		/* every typed field as its text, once split, reads: random tokens and spacing */
		static const char *const vals[] = {
			"0", "1", "12", "true", "false", "vma", "mmap", "unknown", "7f00", "-3", "",
			"x", "[m]", "00000000aaaa0001", "ffffffffffffffffff", "0x1f", "1 2", "vma  1",
		};
		static const char *const keys[] = {
			"pid", "tgid", "prio", "mm", "vma", "address", "lock", "write", "success",
			"major", "ino", "dev", "reason",
		};
		unsigned int seed = 777, bad = 0, n;
		char line[600];

		for (n = 0; n < 20000; n++) {
			int len, j, nk;

			len = snprintf(line, sizeof(line), "  a-1 [000] .....  1.000001: %s:",
				       n % 2 ? "filemap_fault_end" : "mmap_lock_wait_end");
			seed = seed * 1103515245 + 12345;
			nk = (int)(seed >> 16) % 9;
			for (j = 0; j < nk; j++) {
				seed = seed * 1103515245 + 12345;
				len += snprintf(line + len, sizeof(line) - (size_t)len, " %s=%s",
						keys[(seed >> 8) % (sizeof(keys) / sizeof(keys[0]))],
						vals[(seed >> 16) % (sizeof(vals) / sizeof(vals[0]))]);
			}
			parse(line);
			if (pl.kind != LINE_EVENT)
				continue;
			for (j = 0; j < PF_NR; j++) {
				const char *v = pl_str(&pl, (enum parse_field)j);
				long long d;
				char *end;
				int w;

				if (!v)
					continue;
				switch (parse_fields[j].conv) {
				case PCONV_HEX:
					bad += pl_hex(&pl, (enum parse_field)j) != strtoull(v, NULL, 16);
					break;
				case PCONV_DEC:
					d = strtoll(v, &end, 10);
					bad += pl_dec(&pl, (enum parse_field)j, -7) != (*v && end != v ? d : -7);
					break;
				case PCONV_BOOL:
					bad += pl_bool(&pl, (enum parse_field)j) !=
					       (!strcmp(v, "1") || !strcmp(v, "true"));
					break;
				case PCONV_LOCK:
					w = !strcmp(v, "unknown") ? PARSE_WORD_UNKNOWN : -1;
					for (d = 0; w == -1 && mmlock_words_fault_lock[d]; d++)
						if (!strcmp(mmlock_words_fault_lock[d], v))
							w = (int)d;
					bad += pl_lock(&pl, (enum parse_field)j) != w;
					break;
				case PCONV_STR:
					break;
				}
			}
		}
		CHECK(!bad, "typed fields equal their text's conversion (20000 random payloads)");
	}
	{
		/*
		 * Payloads in the contract's order (the one-pass parse), each
		 * compared with the same line plus a trailing key that breaks
		 * that order at its very end: the one pass has split every
		 * value by then, puts the line back and leaves it to the
		 * general split.  Both must read every typed field alike.
		 */
		static const char *const vals[] = {
			"0", "1", "12", "true", "false", "vma", "mmap", "unknown", "7f0000008730", "-3",
			"", "x", "00000000aaaa0001", "ffffffffffffffffff", "0x1f", "1 2", "f+0x1/0x2 [m]",
			"2147483648", "99999999", "123456789012345678", "1e", "254:16",
		};
		unsigned int seed = 4242, bad = 0, fast = 0, n, packed = 0, packed_bad = 0;
		static struct parsed_line a;
		char line[900], other[sizeof(line) + 8];
		const char *chosen[64];

		for (n = 0; n < 20000; n++) {
			const struct mmlock_event *ev = &mmlock_events[n % MMLOCK_EV_NR];
			int len, j, f, nf, v1, nk = template_len(ev);

			if (!nk)
				continue;
			seed = seed * 1103515245 + 12345;
			v1 = seed >> 9 & 1;
			len = snprintf(line, sizeof(line), "  a-1 [000] .....  1.000001: %s:%s", ev->name,
				       v1 ? " pid=17" : "");
			nf = (int)(seed >> 16) % (nk + 2);
			for (j = 0; j < nf && j < nk; j++) {
				seed = seed * 1103515245 + 12345;
				chosen[j] = (seed >> 8) % 4 ? "12" :
					    vals[(seed >> 16) % (sizeof(vals) / sizeof(vals[0]))];
				len += snprintf(line + len, sizeof(line) - (size_t)len, " %s=%s",
						template_key(ev, j), chosen[j]);
			}
			snprintf(other, sizeof(other), "%s zz=1", line);
			parse(line);
			/* converted before the copy: the texts lie in buf, which the next parse rewrites */
			parsed_convert_all(&pl);
			a = pl;
			if (a.kind == LINE_EVENT && a.packed) {
				/* the pairs left in the line are found as the arrays would find them */
				int k;

				packed++;
				for (k = 0; k < j; k++) {
					const char *key = template_key(ev, k), *got = parsed_get(&a, key);
					const char *want = v1 && !strcmp(key, "pid") ? "17" : chosen[k];

					if (!got || strcmp(got, want))
						packed_bad++;
				}
				if (parsed_get(&a, "zz") || (v1 && strcmp(parsed_get(&a, "pid"), "17")))
					packed_bad++;
			}
			fast += a.kind == LINE_EVENT && a.nr_fields == j + v1;
			memcpy(line, buf, sizeof(line));	/* a's strings point into buf */
			parse(other);
			parsed_convert_all(&pl);
			if (a.kind != pl.kind || a.have != pl.have || a.v.num_ok != pl.v.num_ok ||
			    !a.what != !pl.what || (a.what && strcmp(a.what, pl.what)) ||
			    (a.kind == LINE_EVENT && (pl.nr_fields != a.nr_fields + 1 ||
						      !parsed_get(&pl, "zz") ||
						      strcmp(parsed_get(&pl, "zz"), "1")))) {
				bad++;
				continue;
			}
			for (f = 0; f < PF_NR; f++) {
				if (!(a.have >> f & 1))
					continue;
				if (strcmp(line + (a.str[f] - buf), pl.str[f]) ||
				    (parse_fields[f].conv != PCONV_STR &&
				     (parse_fields[f].conv != PCONV_DEC || (a.v.num_ok >> f & 1)) &&
				     a.v.num[f] != pl.v.num[f]))
					bad++, printf("# %s: %s\n", parse_fields[f].key, other);
			}
		}
		CHECK(!bad && fast > 1000, "the contract's order read in one pass as the general split reads it");
		CHECK(!packed_bad && packed > 1000, "a line read in one pass gives every key's text on "
		      "demand (%u lines, %u wrong)", packed, packed_bad);
	}
	{
		static const enum parse_conv of_fmt[] = {
			[MMLOCK_FMT_DEC] = PCONV_DEC, [MMLOCK_FMT_HEX] = PCONV_HEX,
			[MMLOCK_FMT_PTR] = PCONV_HEX, [MMLOCK_FMT_BOOL] = PCONV_BOOL,
		};
		int bad = 0, e, f, k;

		for (e = 0; e < MMLOCK_EV_NR; e++) {
			const struct mmlock_event *ev = &mmlock_events[e];

			for (f = 0; ev->custom && f < (int)ev->nr_fields; f++) {
				const struct mmlock_field *fd = &ev->fields[f];

				for (k = 0; k < PF_NR && strcmp(parse_fields[k].key, fd->name); k++)
					;
				if (k == PF_NR || parse_fields[k].conv == PCONV_STR)
					continue;
				if (parse_fields[k].conv == PCONV_LOCK ?
				    fd->words != mmlock_words_fault_lock :
				    (fd->fmt >= sizeof(of_fmt) / sizeof(of_fmt[0]) ||
				     of_fmt[fd->fmt] != parse_fields[k].conv ||
				     (fd->fmt == MMLOCK_FMT_DEC && fd->words))) {
					printf("# %s %s: conversion disagrees with the contract\n",
					       ev->name, fd->name);
					bad++;
				}
			}
		}
		CHECK(!bad, "every typed field converts as the contract prints it");
	}

	for (i = 1; i <= 100; i++)
		hist_add(&h, (uint64_t)i);
	CHECK(h.count == 100 && h.min == 1 && h.max == 100 && h.sum == 5050, "hist count/min/max/sum");
	CHECK(hist_percentile(&h, 50) == 50 && hist_percentile(&h, 90) == 90 &&
	      hist_percentile(&h, 99) == 99, "nearest-rank percentiles below 4096 are exact");
	hist_add(&h, 1000000);
	CHECK(hist_percentile(&h, 100) == 1000000, "max is exact above 4096");
	hist_free(&h);
	memset(&h, 0, sizeof(h));
	hist_add(&h, 123456789);
	hist_add(&h, 123456790);
	CHECK(hist_percentile(&h, 50) <= 123456789 &&
	      hist_percentile(&h, 50) >= 123456789 - 123456789 / 2048,
	      "large values within 1/2048 of their bucket");
	hist_free(&h);
	return TEST_EXIT();
}
