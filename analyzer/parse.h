/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace text line parsed once into a typed record: its header columns, the
 * event's id in the contract (tracepoints/mmlock_events.h) or among the
 * stock-mode additions (common/evset.h), and the values of the fields the
 * analyzer reads, each converted as the contract prints it when it is first
 * read (pl_*()).  Every key=value pair also stays available as text
 * (parsed_get()).
 */
#ifndef MMLOCK_PARSE_H
#define MMLOCK_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "evset.h"
#include "mmlock_events.h"

enum line_kind {
	LINE_EVENT,		/* COMM-PID [CPU] FLAGS TS: NAME: PAYLOAD */
	LINE_STACK,		/* an event line whose name is <stack trace> */
	LINE_FRAME,		/* " => func" */
	LINE_LOST,		/* CPU:N [LOST n EVENTS] */
	LINE_HEADER,		/* comment, blank, trace-cmd header */
	LINE_MALFORMED,
};

#define PARSE_MAX_FIELDS 32

/* Event ids: the contract's enum mmlock_event_id, then the evset additions. */
#define PARSE_EV_X(x)	(MMLOCK_EV_NR + (x))
#define PARSE_EV_NR	PARSE_EV_X(EVSET_X_NR)

/*
 * How a field's value is converted.  HEX: strtoull(v, 16) semantics (PTR and
 * HEX of the contract); DEC: strtoll(v, 10), valid only when it has digits;
 * BOOL: 1 for "true" or "1" (contract version 1), else 0; LOCK: the index of
 * a fault_lock word, PARSE_WORD_UNKNOWN for "unknown", -1 for anything else;
 * STR: the text only.
 */
enum parse_conv { PCONV_HEX, PCONV_DEC, PCONV_BOOL, PCONV_LOCK, PCONV_STR };

/* The word "unknown", which any enumeration may print (contract version 2). */
#define PARSE_WORD_UNKNOWN	1000

/*
 * X(ID, key, conversion): the fields the analyzer reads.  Their conversion
 * agrees with the contract's print form for every custom event that has the
 * field (tests/unit/analyzer_parse.c checks it); the stock events' fields
 * (sched_switch, lock:contention_*, exceptions:page_fault_*) are printed
 * the same way.  flags is lock:contention_begin's words, read as text.
 */
#define PARSE_FIELDS(X)				\
	X(PID,		pid,		DEC)	\
	X(TGID,		tgid,		DEC)	\
	X(PRIO,		prio,		DEC)	\
	X(MM,		mm,		HEX)	\
	X(VMA,		vma,		HEX)	\
	X(VM_START,	vm_start,	HEX)	\
	X(VM_END,	vm_end,		HEX)	\
	X(ADDRESS,	address,	HEX)	\
	X(INO,		ino,		DEC)	\
	X(DEV,		dev,		STR)	\
	X(LOCK,		lock,		LOCK)	\
	X(REASON,	reason,		STR)	\
	X(CALLER,	caller,		STR)	\
	X(WRITE,	write,		BOOL)	\
	X(SUCCESS,	success,	BOOL)	\
	X(MAJOR,	major,		BOOL)	\
	X(ANON,		anon,		BOOL)	\
	X(LOCK_ADDR,	lock_addr,	HEX)	\
	X(FLAGS,	flags,		STR)	\
	X(USER_PC,	user_pc,	STR)	\
	X(PREV_PID,	prev_pid,	DEC)	\
	X(PREV_PRIO,	prev_prio,	DEC)	\
	X(NEXT_PID,	next_pid,	DEC)	\
	X(NEXT_PRIO,	next_prio,	DEC)

enum parse_field {
#define PARSE_FIELD_ENUM(id, key, conv) PF_##id,
	PARSE_FIELDS(PARSE_FIELD_ENUM)
#undef PARSE_FIELD_ENUM
	PF_NR
};

struct parse_field_desc {
	const char		*key;
	enum parse_conv		conv;
};

/* Indexed by enum parse_field. */
extern const struct parse_field_desc parse_fields[PF_NR];

/*
 * The converted values of a record's fields.  A text line's values are
 * converted when a handler first reads one (most fields of a line are never
 * read), by accessors that take a const record: the cache is the one part
 * of a record they write (parsed_convert()).  A copy of a record has its
 * own cache, as its own values.
 */
struct parsed_vals {
	uint32_t	done;		/* bit per present field converted (a subset of have) */
	uint32_t	num_ok;		/* bit per done DEC field with a number */
	uint64_t	num[PF_NR];	/* the converted value, where done (and num_ok) */
};

struct parsed_line {
	enum line_kind	kind;
	const char	*comm;		/* NUL-terminated inside the line buffer */
	/*
	 * 1: comm is text that lives, unchanged, until the source is closed
	 * (a binary capture's name per pid), so the same pointer is the same
	 * name; 0: it lies in the line, rewritten by the next one.
	 */
	int		comm_stable;
	int		pid;
	int		tgid;		/* -1 when the line has no TGID column */
	int		cpu;
	uint64_t	ts_ns;
	const char	*event;		/* event name */
	int		id;		/* LINE_EVENT: mmlock_event_id or PARSE_EV_X(), -1 */
	const char	*frame;		/* LINE_FRAME: the function */
	uint64_t	lost;		/* LINE_LOST: how many */
	const char	*what;		/* LINE_MALFORMED: what was expected */
	/* the fields of enum parse_field, the first of each key; see pl_*() */
	uint32_t	have;		/* bit per field present */
	const char	*str[PF_NR];	/* the text, where have */
	/* the line's NUL: a value's conversion may read words up to it (NULL: none) */
	const char	*end;
	struct parsed_vals v;		/* filled by the producer, or on a first read */
	/*
	 * Every key=value pair as text, in line order: read them with
	 * parsed_get().  Packed (a line in the contract's order, read in one
	 * pass): only the first pair is in the arrays; the others follow it
	 * in the line, "key\0value\0key\0value...", and are found on demand.
	 */
	int		nr_fields;
	int		packed;
	const char	*keys[PARSE_MAX_FIELDS];
	const char	*vals[PARSE_MAX_FIELDS];
};

/**
 * parsed_line_reset() - an empty record of a kind
 * @pl:		the record
 * @kind:	its kind
 *
 * Not memset: the key and value arrays are read only up to nr_fields.  Every
 * producer of records (the text parser, the binary source) starts here, so a
 * new field cannot be left unset by one of them.
 */
static inline void parsed_line_reset(struct parsed_line *pl, enum line_kind kind)
{
	pl->kind = kind;
	pl->comm = NULL;
	pl->comm_stable = 0;
	pl->pid = 0;
	pl->tgid = -1;
	pl->cpu = 0;
	pl->ts_ns = 0;
	pl->event = NULL;
	pl->id = -1;
	pl->frame = NULL;
	pl->lost = 0;
	pl->what = NULL;
	pl->have = 0;
	pl->end = NULL;
	pl->v.done = 0;
	pl->v.num_ok = 0;
	pl->nr_fields = 0;
	pl->packed = 0;
}

/**
 * parse_line() - parse one trace line in place
 * @line:	the line, NUL-terminated; NULs are written into it to split it
 * @out:	the record; its pointers point into @line
 *
 * Never fails: an unrecognised line is LINE_MALFORMED with @out->what set.
 */
void parse_line(char *line, struct parsed_line *out);

/**
 * parse_line_n() - parse_line() of a line whose length is known
 * @line:	the line; @line[@len] is NUL
 * @len:	its length (a NUL before it ends the line all the same)
 * @out:	the record
 */
void parse_line_n(char *line, size_t len, struct parsed_line *out);

/**
 * parsed_get() - the text of a key
 * @pl:		a parsed line
 * @key:	the key
 *
 * Return: the value of the first @key of the line, or NULL.
 */
const char *parsed_get(const struct parsed_line *pl, const char *key);

/**
 * parsed_convert() - convert a field's text into its value, once
 * @pl:		a record whose field @f is present and not converted yet
 * @f:		the field
 *
 * The conversion of enum parse_conv, into @pl's cache @pl->v: the record
 * stays const for its readers, and no record is an object defined const
 * (each is a producer's, written by parse_line() or the binary source), so
 * its cache may be written.  pl_hex() and the others call it on a field's
 * first read.
 */
void parsed_convert(const struct parsed_line *pl, enum parse_field f);

/**
 * parsed_convert_all() - convert every present field not converted yet
 * @pl:		the record
 *
 * For the readers that compare every field's value (the binary source's
 * check against the text, tests) rather than reading them through pl_*().
 */
void parsed_convert_all(const struct parsed_line *pl);

/* Is field @f present? */
static inline int pl_has(const struct parsed_line *pl, enum parse_field f)
{
	return (int)(pl->have >> f & 1);
}

/*
 * 1 when field @f is present, its value converted (on this first read if
 * not before); 0 when absent.  done is a subset of have: one test for a
 * value read before or filled typed.
 */
static inline int pl_ready(const struct parsed_line *pl, enum parse_field f)
{
	if (__builtin_expect(pl->v.done >> f & 1, 1))
		return 1;
	if (!(pl->have >> f & 1))
		return 0;
	parsed_convert(pl, f);
	return 1;
}

/* A HEX field's value, 0 when absent. */
static inline uint64_t pl_hex(const struct parsed_line *pl, enum parse_field f)
{
	return pl_ready(pl, f) ? pl->v.num[f] : 0;
}

/* A DEC field's value, @dflt when absent, empty or without digits. */
static inline long long pl_dec(const struct parsed_line *pl, enum parse_field f, long long dflt)
{
	return pl_ready(pl, f) && (pl->v.num_ok >> f & 1) ? (long long)pl->v.num[f] : dflt;
}

/* A BOOL field: 1 for true (1 in version 1), 0 for false or absent. */
static inline int pl_bool(const struct parsed_line *pl, enum parse_field f)
{
	return pl_ready(pl, f) && pl->v.num[f];
}

/* A LOCK field: the fault_lock index, PARSE_WORD_UNKNOWN, or -1 (also when absent). */
static inline int pl_lock(const struct parsed_line *pl, enum parse_field f)
{
	return pl_ready(pl, f) ? (int)(int64_t)pl->v.num[f] : -1;
}

/* A field's text, NULL when absent. */
static inline const char *pl_str(const struct parsed_line *pl, enum parse_field f)
{
	return pl_has(pl, f) ? pl->str[f] : NULL;
}

#endif /* MMLOCK_PARSE_H */
