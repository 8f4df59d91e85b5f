// SPDX-License-Identifier: GPL-2.0
/*
 * One trace_pipe / trace-cmd report line into its parts.  The layout is
 *     COMM-PID [CPU] FLAGS SECS.FRAC: EVENT: PAYLOAD
 * with "(TGID)" after COMM-PID when record-tgid is on, FLAGS absent in some
 * trace-cmd output, and COMM free to hold spaces and dashes: the anchor is
 * the first "[digits]" that follows "-digits" (and an optional "(tgid)").
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lost.h"
#include "parse.h"

/* How far back a CPU bracket looks: blanks before it, a "(  TGID)" column. */
#define MAX_GAP		64
#define MAX_TGID_COL	24

static int is_digits(const char *s, const char *end)
{
	if (s >= end)
		return 0;
	for (; s < end; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static const char *skip_spaces(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static int parse_header(const char *s)
{
	s = skip_spaces(s);
	if (!*s || *s == '#')
		return 1;
	if (!strncmp(s, "cpus=", 5) || !strncmp(s, "version = ", 10))
		return 1;
	if (!strncmp(s, "CPU ", 4) && strstr(s, " is empty"))
		return 1;
	return 0;
}

static int parse_lost(const char *s, struct parsed_line *out)
{
	uint64_t n;
	int cpu;

	if (!lost_marker_parse(s, strlen(s), &cpu, &n))
		return 0;
	out->kind = LINE_LOST;
	out->cpu = cpu;
	out->lost = n;
	return 1;
}

/* "123.456789" (µs) or "123.456789012" (ns) into nanoseconds, integers only. */
static int parse_ts(const char *s, const char *end, uint64_t *ns)
{
	const char *dot = memchr(s, '.', (size_t)(end - s));
	uint64_t secs = 0, frac = 0;
	int digits = 0;

	if (!dot || !is_digits(s, dot) || !is_digits(dot + 1, end) || dot - s > 12)
		return -1;
	for (; s < dot; s++)
		secs = secs * 10 + (uint64_t)(*s - '0');
	/* 2^64 ns is 18446744073.7 s: a later time would wrap into the past */
	if (secs > 18446744072ULL)
		return -1;
	for (s = dot + 1; s < end && digits < 9; s++, digits++)
		frac = frac * 10 + (uint64_t)(*s - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = secs * 1000000000ULL + frac;
	return 0;
}

static int is_hex(const char *s, const char *end)
{
	for (; s < end; s++)
		if (!isxdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int is_key_char(int c)
{
	return isalnum(c) || c == '_';
}

/* The last " write=" at or after @s, or NULL. */
static char *last_write_key(char *s)
{
	char *hit = NULL, *q;

	for (q = strstr(s, " write="); q; q = strstr(q + 1, " write="))
		hit = q;
	return hit;
}

static void split_payload(char *p, struct parsed_line *out)
{
	char *tok = p;

	out->nr_fields = 0;
	while (*tok) {
		char *sp = strchr(tok, ' ');
		char *eq = tok;

		while (is_key_char((unsigned char)*eq))
			eq++;
		if (*eq == '=' && eq > tok && (!sp || eq < sp) &&
		    out->nr_fields < PARSE_MAX_FIELDS) {
			/* a new key: end the previous value at the space before it */
			if (tok > p && tok[-1] == ' ')
				tok[-1] = '\0';
			*eq = '\0';
			out->keys[out->nr_fields] = tok;
			out->vals[out->nr_fields] = eq + 1;
			out->nr_fields++;
			/*
			 * The stock mmap_lock events of kernels <= 6.13 print the
			 * memcg's cgroup path with a bare %s: "" without a memcg,
			 * "/" for the root, any byte but '/' and '\n' in a name
			 * (spaces, '=', even " write=" itself), cut at 255 bytes.
			 * Only write= and success= (fixed words) follow it, so
			 * the path runs to the last " write=" of the line.
			 */
			if (!strcmp(tok, "memcg_path")) {
				sp = last_write_key(eq + 1);
				if (!sp)
					break;	/* a cut line: the rest is the path */
			}
		}
		/* else: a continuation of the previous value ("[module]", spaces) */
		if (!sp)
			break;
		tok = sp + 1;
	}
}

/*
 * lock:contention_begin prints "%p (flags=%s)" and contention_end
 * "%p (ret=%d)": no key for the lock.  Its fields become lock_addr= and
 * flags= / ret=; anything else is malformed (a cut line would otherwise
 * read as a wait on no lock).  Flags are __print_flags() words joined by
 * '|' (SPIN READ WRITE RT PERCPU MUTEX), or a number where none matched.
 */
static int split_contention(char *p, struct parsed_line *out, int begin)
{
	const char *key = begin ? "(flags=" : "(ret=";
	char *sp = strchr(p, ' '), *v, *close, *q;

	if (!sp || sp == p)
		return -1;
	q = p;
	if (q[0] == '0' && q[1] == 'x')
		q += 2;		/* libtraceevent prints %p as 0x...: --from-binary */
	if (q == sp || !is_hex(q, sp))
		return -1;
	if (strncmp(sp + 1, key, strlen(key)))
		return -1;
	v = sp + 1 + strlen(key);
	close = strchr(v, ')');
	if (!close || close == v || close[1] || strchr(v, ' '))
		return -1;
	if (!begin) {
		q = v + (*v == '-');
		if (!is_digits(q, close))
			return -1;
	}
	*sp = '\0';
	*close = '\0';
	out->keys[0] = "lock_addr";
	out->vals[0] = p;
	out->keys[1] = begin ? "flags" : "ret";
	out->vals[1] = v;
	out->nr_fields = 2;
	return 0;
}

static int is_bool_word(const char *v)
{
	return v && (!strcmp(v, "true") || !strcmp(v, "false"));
}

/*
 * The analyzer reads a stock mmap_lock event by mm, write and success alone.
 * A line without them (one cut inside a long memcg_path, say) would pass for
 * a read-mode event, so it is malformed instead.
 */
static void check_stock(struct parsed_line *out)
{
	static const char *const what[] = {
		"mm=PTR ... write=true|false in mmap_lock_start_locking",
		"mm=PTR ... write=true|false success=true|false in mmap_lock_acquire_returned",
		"mm=PTR ... write=true|false in mmap_lock_released",
	};
	const char *mm = parsed_get(out, "mm");
	int k;

	if (!strcmp(out->event, "mmap_lock_start_locking"))
		k = 0;
	else if (!strcmp(out->event, "mmap_lock_acquire_returned"))
		k = 1;
	else if (!strcmp(out->event, "mmap_lock_released"))
		k = 2;
	else
		return;
	if (mm && *mm && is_bool_word(parsed_get(out, "write")) &&
	    (k != 1 || is_bool_word(parsed_get(out, "success"))))
		return;
	out->kind = LINE_MALFORMED;
	out->what = what[k];
}

/*
 * Version 1 of the contract prints pid= first, and it then names the task:
 * a value outside the kernel's pid range would be cut silently to an int.
 * (No other event that prints pid= first, task_newtask say, has one outside
 * it either.)
 */
static void check_pid(struct parsed_line *out)
{
	const char *v;
	char *end;
	long long n;

	/* version 1 prints it first, and only there does it name the task */
	if (out->kind != LINE_EVENT || !out->nr_fields || strcmp(out->keys[0], "pid"))
		return;
	v = out->vals[0];
	errno = 0;
	n = strtoll(v, &end, 10);
	if (isdigit((unsigned char)*v) && !*end && !errno && n <= INT_MAX)
		return;
	out->kind = LINE_MALFORMED;
	out->what = "pid=N with 0 <= N <= 2147483647";
}

void parse_line(char *line, struct parsed_line *out)
{
	char *p, *open, *close, *pre_end, *dash, *ts, *ts_end, *name, *colon;

	memset(out, 0, sizeof(*out));
	out->tgid = -1;
	if (parse_header(line)) {
		out->kind = LINE_HEADER;
		return;
	}
	p = (char *)skip_spaces(line);
	if (!strncmp(p, "=> ", 3)) {
		out->kind = LINE_FRAME;
		out->frame = p + 3;
		return;
	}
	if (!strncmp(p, "##### CPU", 9)) {
		out->kind = LINE_HEADER;
		return;
	}
	if (*p == 'C' && parse_lost(p, out))
		return;

	out->kind = LINE_MALFORMED;
	out->what = "COMM-PID [CPU] TIMESTAMP: EVENT: ...";
	/*
	 * Find the CPU bracket that follows COMM-PID or COMM-PID (TGID).  Every
	 * look back from a candidate '[' is bounded (a TGID column is a dozen
	 * bytes, a PID ten digits), so a line full of "[0]"s costs linear time.
	 */
	for (open = strchr(p, '['); open; open = strchr(open + 1, '[')) {
		long long v;

		close = open + 1;
		while (isdigit((unsigned char)*close) && close - open <= 10)
			close++;
		if (close == open + 1 || *close != ']' || open == p || open[-1] != ' ')
			continue;
		pre_end = open;
		while (pre_end > p && pre_end[-1] == ' ' && open - pre_end < MAX_GAP)
			pre_end--;
		if (pre_end > p && pre_end[-1] == ')') {
			char *lp = pre_end - 1;

			while (lp > p && *lp != '(' && pre_end - lp < MAX_TGID_COL)
				lp--;
			if (*lp != '(')
				continue;
			{
				const char *t = skip_spaces(lp + 1);
				long long tv = isdigit((unsigned char)*t) ? strtoll(t, NULL, 10) : -1;

				out->tgid = tv <= INT_MAX ? (int)tv : -1;
			}
			pre_end = lp;
			while (pre_end > p && pre_end[-1] == ' ' && lp - pre_end < MAX_GAP)
				pre_end--;
		}
		dash = pre_end;
		while (dash > p && isdigit((unsigned char)dash[-1]) && pre_end - dash <= 10)
			dash--;
		if (dash == pre_end || dash == p || dash[-1] != '-')
			continue;
		v = strtoll(dash, NULL, 10);
		if (v > INT_MAX)
			continue;
		out->pid = (int)v;
		dash[-1] = '\0';
		out->comm = p;
		out->cpu = atoi(open + 1);
		break;
	}
	if (!open) {
		out->what = "COMM-PID [CPU] at the start of an event line";
		return;
	}
	/* optional flags, then the timestamp ending in ':' */
	ts = (char *)skip_spaces(close + 1);
	ts_end = strchr(ts, ':');
	if (!ts_end) {
		out->what = "a TIMESTAMP: after the CPU";
		return;
	}
	{
		char *sp = strchr(ts, ' ');

		if (sp && sp < ts_end) {
			/* that token was the latency flags */
			ts = (char *)skip_spaces(sp);
			ts_end = strchr(ts, ':');
			if (!ts_end) {
				out->what = "a TIMESTAMP: after the flags";
				return;
			}
		}
	}
	if (parse_ts(ts, ts_end, &out->ts_ns)) {
		out->what = "a timestamp SECS.FRACTION";
		return;
	}
	name = (char *)skip_spaces(ts_end + 1);
	if (!*name) {
		out->what = "an EVENT name after the timestamp";
		return;
	}
	if (!strncmp(name, "<stack trace>", 13) || !strncmp(name, "<user stack trace>", 18)) {
		out->kind = LINE_STACK;
		out->event = "<stack trace>";
		return;
	}
	if (!strcmp(name, "UNKNOWN EVENT")) {
		/* libtraceevent could not decode this record: an event all the same */
		out->kind = LINE_EVENT;
		out->event = "<unknown>";
		return;
	}
	colon = strchr(name, ':');
	if (!colon || (colon[1] && colon[1] != ' ') || colon == name) {
		out->what = "EVENT: after the timestamp";
		return;
	}
	*colon = '\0';
	if (strchr(name, ' ')) {
		out->what = "an EVENT name without spaces";
		return;
	}
	out->event = name;
	out->kind = LINE_EVENT;
	if (!strcmp(name, "contention_begin") || !strcmp(name, "contention_end")) {
		if (!colon[1] || split_contention(colon + 2, out, name[11] == 'b')) {
			out->kind = LINE_MALFORMED;
			out->what = name[11] == 'b' ? "LOCK (flags=WORDS) in contention_begin" :
				    "LOCK (ret=N) in contention_end";
		}
		return;
	}
	if (colon[1])
		split_payload(colon + 2, out);
	check_stock(out);
	check_pid(out);
}

const char *parsed_get(const struct parsed_line *pl, const char *key)
{
	int i;

	for (i = 0; i < pl->nr_fields; i++)
		if (!strcmp(pl->keys[i], key))
			return pl->vals[i];
	return NULL;
}
