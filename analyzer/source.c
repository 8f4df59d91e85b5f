// SPDX-License-Identifier: GPL-2.0
/*
 * Typed records from trace text or from a binary capture (source.h).
 *
 * A binary capture's record is read field by field: each event format is
 * looked at once, when its first record comes: which of the analyzer's keys
 * (PARSE_FIELDS) its print format shows as "key=%...", from which field and
 * how (a number, a true/false ternary, a __print_symbolic word, %pS, the
 * major:minor of a dev_t).  Then every record fills the slots the text
 * parser would fill, with the text parser's conversions.  What this reading
 * cannot vouch for goes the old way, through the text libtraceevent prints
 * and parse_line_n(), which is exact by definition:
 *   - an event whose format shows something not understood here, or that
 *     the analyzer does not know (it only counts those);
 *   - a record whose text would not parse as its fields say: a comm the
 *     line grammar would misread, a string field holding '=' or a line
 *     break, a word not in the format's symbol table, a pid out of range;
 *   - an event whose first VERIFY_RECORDS records did not read the same both
 *     ways (compared field by field; MMLOCK_SOURCE_VERIFY=1 compares every
 *     record and names each difference on standard error: the tests' check).
 * LOST markers, stack blocks, line numbers, damage messages and their order
 * are the text's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "capture.h"
#include "infile.h"
#include "lost.h"
#include "source.h"
#include "util.h"

/* Records of each event compared with their text before it is trusted. */
#define VERIFY_RECORDS	64

#define HEAD_MAX	60

/* parse_ts() refuses a time of 18446744073 s or later (2^64 ns would wrap). */
#define TS_UNPRINTABLE	18446744073000000000ULL

/* How a slot is filled from its field. */
enum slot_kind {
	SK_HEX,		/* a number printed %x/%lx/%p: num */
	SK_HEX_FUNC,	/* %ps read as hex: the symbol's name when there is one */
	SK_DEC,		/* %d/%u/%lu...: num, num_ok */
	SK_DEC_HEX,	/* a decimal key printed %lx (mm_filemap_fault's ino) */
	SK_BOOL_TERN,	/* field ? "true" : "false" */
	SK_BOOL_DEC,	/* version 1: %d of 1 or 0 */
	SK_LOCK_SYM,	/* __print_symbolic into a fault_lock word index */
	SK_STR_SYM,	/* __print_symbolic: the word */
	SK_STR_HEX,	/* %lx as text */
	SK_STR_DEV,	/* MAJOR:MINOR of a dev_t, %u:%u */
	SK_STR_FUNC,	/* %pS / %ps */
	SK_STR_FLAGS,	/* __print_flags, every bit set named: the words joined */
	SK_GUARD,	/* a string shown with %s: no slot, checked for '=' and line breaks */
};

struct sym {
	unsigned long long	val;
	const char		*str;
	int			word;	/* SK_LOCK_SYM: the word's index */
};

struct slot {
	enum slot_kind		kind;
	int			pf;		/* enum parse_field, -1 for SK_GUARD */
	struct tep_format_field	*field;
	int			offset, size;	/* the field's, read once */
	int			sign;		/* %d: sign-extend from bits */
	int			bits;		/* width printed: 32 or 64 */
	int			with_off;	/* %pS (not %ps): +0xOFF */
	struct sym		*syms;
	unsigned int		nr_syms;
	const char		*delim;		/* SK_STR_FLAGS */
	char			buf[256];	/* SK_STR_HEX/DEV/FUNC/FLAGS's text */
};

enum tev_state { TEV_UNSEEN, TEV_TYPED, TEV_TEXT };

/*
 * The decoder an event gets once (fast_build()): its number fields that
 * need no more than a load, in groups by how the load is converted, so a
 * record costs a load and a store for each; the other slots stay on the
 * general path (fields_fill()).
 */
enum fast_class {
	FC_U64,		/* 8 bytes as they are */
	FC_U32,		/* 4 bytes, zero-extended */
	FC_S32,		/* 4 bytes, sign-extended: %d of an int */
	FC_NZ8,		/* 1 byte, true when not 0: a bool's ternary */
	FC_NR
};

struct fast_row {
	uint32_t	off;
	uint32_t	pf;
};

struct tev {
	enum tev_state		state;
	int			id;		/* the parse id (parse.h) */
	const char		*name;
	int			first_pid;	/* its first key is pid= (check_pid) */
	int			contention;	/* lock:contention_*: a pointer without key */
	unsigned int		nr_slots;
	struct slot		*slots;
	unsigned long		checked;
	unsigned long		verify_until;	/* checked below it: compared with its text */
	int			after_checks;	/* contention or first_pid: fields_fill()'s end */
	int			slow_fill;	/* nr_slow or after_checks: fields_slow() */
	/*
	 * TEV_TYPED, its records compared with their text up to verify_until,
	 * and every field one fast_fill() load: typed_known() reads it alone.
	 */
	int			ready;
	/* fast_build()'s decoder: rows by class (each class ends at its fast_end), then the slots it leaves */
	uint32_t		fast_have, fast_num_ok;
	unsigned int		nr_fast[FC_NR];
	struct fast_row		*fast;
	const struct fast_row	*fast_end[FC_NR];
	unsigned int		nr_slow;
	struct slot		**slow;
};

struct pid_ent {
	int		pid;		/* -1: free */
	int		tgid;
	int		tgid_col;	/* the record's tgid: -1 for none */
	int		ok;		/* the header parses back to these */
	char		*comm;		/* as the text parser cuts it */
};

/*
 * The pid entries met last, by the pid's low bits (records switch between
 * a few threads, each a hash probe without it); only entries that are ok.
 * Emptied when the pid table grows (its entries move).
 */
#define PID_CACHE	256

struct pid_slot {
	int		pid, tgid;
	struct pid_ent	*p;		/* NULL: empty (its pid then never matches) */
};

struct source {
	struct input		*in;		/* text */
	char			head[HEAD_MAX + 1];
	int			head_cut;
	char			what[96];

	/* a binary capture */
	struct bin_decoder	*dec;
	struct tep_handle	*tep;
	char			*bin_name;
	char			*status;
	int			open_err;	/* bin_decoder_open()'s errno */
	int			ended;
	input_error_fn		err_fn;
	void			*err_ctx;
	unsigned long		truncated;
	unsigned long		lineno;
	struct bin_event	ev;
	int			ev_pending;	/* ev's line comes next (after its LOST line) */
	int			idle;		/* nothing pending: binary_take() reads on */
	int			stack_pending;	/* ev's frames come next */
	unsigned int		stack_i;
	char			frame_buf[32];
	struct trace_seq	seq;		/* text of a record read the old way */
	size_t			q_pos;
	int			q_live;
	struct tev		**tevs;		/* by format id */
	size_t			nr_tevs;
	struct pid_ent		*pids;
	size_t			pid_cap, nr_pids;
	struct pid_slot		pid_cache[PID_CACHE];
	int			verify_all;
	unsigned long		verify_diffs;
	unsigned long		nr_typed, nr_text;	/* records each way */
};

/* ------------------------------------------------------------------ text */

/*
 * The checks every line passes before the parser, as the analyzer always
 * made them.  @has_cr: the line holds a carriage return; @slack: HEAD_MAX
 * bytes from @line on may be read, whatever its length (the reader's
 * INPUT_LINE_SLACK).
 */
static void take_line(struct source *src, char *line, size_t len, size_t overlong,
		      int has_cr, int slack, struct parsed_line *pl)
{
	size_t n = len > HEAD_MAX ? HEAD_MAX : len;

	/* parse_line() cuts the line with NULs: keep its start for the report */
	if (slack)
		memcpy(src->head, line, HEAD_MAX);	/* one fixed-size copy, no call */
	else
		memcpy(src->head, line, n);
	src->head[n] = '\0';
	src->head_cut = len > HEAD_MAX;
	if (overlong) {
		memset(pl, 0, sizeof(*pl));
		/* counted and skipped: a real event is a few hundred bytes */
		pl->kind = LINE_MALFORMED;
		snprintf(src->what, sizeof(src->what), "a line of at most %d bytes (this one "
			 "has %zu)", INPUT_MAX_LINE, overlong);
		pl->what = src->what;
	} else if (has_cr) {
		/* CR-only line ends would hide every event after the first */
		memset(pl, 0, sizeof(*pl));
		pl->kind = LINE_MALFORMED;
		pl->what = "a line without a carriage return inside";
	} else {
		parse_line_n(line, len, pl);
	}
}

/* -------------------------------------------------------- binary: setup */

static int key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* The parse id of an event name, as parse_line() looks it up: extras first. */
static int event_parse_id(const char *name)
{
	int i;

	for (i = 0; i < EVSET_X_NR; i++)
		if (!strcmp(evset_extras[i].name, name))
			return PARSE_EV_X(i);
	for (i = 0; i < MMLOCK_EV_NR; i++)
		if (mmlock_events[i].name && !strcmp(mmlock_events[i].name, name))
			return (int)mmlock_events[i].id;
	return -1;
}

/* One conversion of a print format. */
struct spec {
	const char		*at;		/* its '%' */
	char			conv;		/* d i u x X p s c ... */
	char			ext;		/* %pS: 'S' */
	int			ls;		/* how many 'l' */
	int			padded;		/* flags, a width or a precision */
	struct tep_print_arg	*arg;
};

#define MAX_SPECS	48

/* The conversions of @fmt paired with @args; -1 when they cannot be paired. */
static int split_specs(const char *fmt, struct tep_print_arg *args, struct spec *sp)
{
	struct tep_print_arg *a = args;
	const char *p;
	int n = 0;

	for (p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		if (n == MAX_SPECS)
			return -1;
		sp[n].at = p;
		sp[n].ls = 0;
		sp[n].ext = 0;
		p++;
		sp[n].padded = *p == '.' || (*p >= '0' && *p <= '9') || (*p && strchr("-+ #", *p));
		while (*p && strchr("-+ #0", *p))
			p++;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '*' || (*p == '.' && p[1] == '*'))
			return -1;	/* a width argument: not in the events read here */
		if (*p == '.') {
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
		}
		while (*p == 'l' || *p == 'h' || *p == 'z') {
			if (*p == 'l')
				sp[n].ls++;
			else
				return -1;
			p++;
		}
		if (!*p || !a)
			return -1;
		sp[n].conv = *p;
		if (*p == 'p' && ((p[1] >= 'a' && p[1] <= 'z') || (p[1] >= 'A' && p[1] <= 'Z')))
			sp[n].ext = *++p;
		sp[n].arg = a;
		a = a->next;
		n++;
	}
	return a ? -1 : n;
}

static struct tep_print_arg *strip_casts(struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	return a;
}

/* The numeric field an argument prints, or NULL. */
static struct tep_format_field *arg_field(struct tep_event *ev, struct tep_print_arg *a)
{
	struct tep_format_field *f;

	a = strip_casts(a);
	if (!a || a->type != TEP_PRINT_FIELD || !a->field.name)
		return NULL;
	f = tep_find_field(ev, a->field.name);
	if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return NULL;
	return f;
}

static int literal_is(struct tep_print_arg *a, const char *s)
{
	if (!a)
		return 0;
	if (a->type == TEP_PRINT_ATOM)
		return a->atom.atom && !strcmp(a->atom.atom, s);
	if (a->type == TEP_PRINT_STRING || a->type == TEP_PRINT_BSTRING)
		return a->string.string && !strcmp(a->string.string, s);
	return 0;
}

/* field ? "true" : "false" */
static struct tep_format_field *ternary_field(struct tep_event *ev, struct tep_print_arg *a)
{
	struct tep_print_arg *r;

	a = strip_casts(a);
	if (!a || a->type != TEP_PRINT_OP || !a->op.op || strcmp(a->op.op, "?"))
		return NULL;
	r = a->op.right;
	if (!r || r->type != TEP_PRINT_OP || !r->op.op || strcmp(r->op.op, ":") ||
	    !literal_is(r->op.left, "true") || !literal_is(r->op.right, "false"))
		return NULL;
	return arg_field(ev, a->op.left);
}

/* A __print_symbolic's table; -1 when a word could bend the line's grammar. */
static int symbols_take(struct slot *sl, struct tep_print_flag_sym *s)
{
	for (; s; s = s->next) {
		char *end;

		if (!s->value || !s->str || strpbrk(s->str, "= \t\r\n") || !*s->str)
			return -1;
		errno = 0;
		sl->syms = xrealloc(sl->syms, (sl->nr_syms + 1) * sizeof(*sl->syms));
		sl->syms[sl->nr_syms].val = strtoull(s->value, &end, 0);
		if (errno || *end || end == s->value)
			return -1;
		sl->syms[sl->nr_syms].str = s->str;
		sl->syms[sl->nr_syms].word = -1;
		sl->nr_syms++;
	}
	return 0;
}

static struct slot *slot_add(struct tev *t, int pf, enum slot_kind kind,
			     struct tep_format_field *f)
{
	struct slot *sl;

	t->slots = xrealloc(t->slots, (t->nr_slots + 1) * sizeof(*t->slots));
	sl = &t->slots[t->nr_slots++];
	memset(sl, 0, sizeof(*sl));
	sl->kind = kind;
	sl->pf = pf;
	sl->field = f;
	sl->offset = f->offset;
	sl->size = f->size;
	sl->bits = 64;
	return sl;
}

/*
 * Does any argument print something the per-record reading cannot check?
 * Strings are checked per record (SK_GUARD); flags, symbols and numbers
 * print no '='.
 */
static int arg_safe(struct tep_event *ev, struct tep_print_arg *a, struct tev *t)
{
	struct tep_print_flag_sym *s;

	a = strip_casts(a);
	if (!a)
		return 0;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		return !a->atom.atom || !strpbrk(a->atom.atom, "=\r\n");
	case TEP_PRINT_FIELD: {
		struct tep_format_field *f = tep_find_field(ev, a->field.name);

		if (!f)
			return 0;
		if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC))
			slot_add(t, -1, SK_GUARD, f);
		return 1;
	}
	case TEP_PRINT_STRING:
		if (a->string.field) {
			slot_add(t, -1, SK_GUARD, a->string.field);
			return 1;
		}
		return a->string.string && !strpbrk(a->string.string, "=\r\n");
	case TEP_PRINT_FLAGS:
		for (s = a->flags.flags; s; s = s->next)
			if (!s->str || strpbrk(s->str, "=\r\n"))
				return 0;
		return (!a->flags.delim || !strpbrk(a->flags.delim, "=\r\n")) &&
		       arg_safe(ev, a->flags.field, t);
	case TEP_PRINT_SYMBOL:
		for (s = a->symbol.symbols; s; s = s->next)
			if (!s->str || strpbrk(s->str, "=\r\n"))
				return 0;
		return arg_safe(ev, a->symbol.field, t);
	case TEP_PRINT_OP:
		return (!a->op.left || arg_safe(ev, a->op.left, t)) &&
		       (!a->op.right || arg_safe(ev, a->op.right, t));
	default:
		return 0;
	}
}


/*
 * The dev_t that "dev=%u:%u" shows: MAJOR(dev) is the field itself (the
 * contract) or a shift of it (stock events: (unsigned int)(s_dev >> 20)).
 */
static struct tep_format_field *dev_field(struct tep_event *ev, struct tep_print_arg *a)
{
	struct tep_format_field *f;

	a = strip_casts(a);
	if (a && a->type == TEP_PRINT_OP && a->op.op && !strcmp(a->op.op, ">>") &&
	    a->op.right && a->op.right->type == TEP_PRINT_ATOM &&
	    !strcmp(a->op.right->atom.atom, "20"))
		f = arg_field(ev, a->op.left);
	else
		f = tep_find_field(ev, "dev");
	if (!f || f->size != 4 ||
	    (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)))
		return NULL;
	return f;
}

/* The slot of key @pf printed by @sp (right after "key="); -1 when not understood. */
static int slot_make(struct source *src, struct tev *t, struct tep_event *ev, int pf,
		     const struct spec *sp)
{
	enum parse_conv conv = parse_fields[pf].conv;
	struct tep_print_arg *a = strip_casts(sp->arg);
	struct tep_format_field *f;
	struct slot *sl;
	int width = sp->ls ? tep_get_long_size(src->tep) * 8 : 32;

	/* "prio=%5d" would show blanks the parser reads as the end of the value */
	if (sp->padded)
		return -1;
	if (sp->ls >= 2)
		width = 64;
	if (sp->conv == 's' && a && a->type == TEP_PRINT_SYMBOL) {
		f = arg_field(ev, a->symbol.field);
		if (!f || (conv != PCONV_LOCK && conv != PCONV_STR))
			return -1;
		sl = slot_add(t, pf, conv == PCONV_LOCK ? SK_LOCK_SYM : SK_STR_SYM, f);
		if (symbols_take(sl, a->symbol.symbols))
			return -1;
		for (unsigned int i = 0; i < sl->nr_syms; i++) {
			const char *w = sl->syms[i].str;
			int k;

			if (!strcmp(w, "unknown")) {
				sl->syms[i].word = PARSE_WORD_UNKNOWN;
				continue;
			}
			for (k = 0; mmlock_words_fault_lock[k]; k++)
				if (!strcmp(mmlock_words_fault_lock[k], w))
					sl->syms[i].word = k;
		}
		return 0;
	}
	if (sp->conv == 's' && conv == PCONV_BOOL && (f = ternary_field(ev, sp->arg))) {
		slot_add(t, pf, SK_BOOL_TERN, f);
		return 0;
	}
	if (conv == PCONV_STR && pf == PF_DEV && (sp->conv == 'u' || sp->conv == 'd') &&
	    !sp->ls && !strncmp(sp->at + 2, ":%", 2) && (f = dev_field(ev, sp->arg))) {
		/* MAJOR() and MINOR() of the kernel's dev_t: 12 and 20 bits */
		slot_add(t, pf, SK_STR_DEV, f);
		return 0;
	}
	f = arg_field(ev, sp->arg);
	if (!f)
		return -1;
	switch (sp->conv) {
	case 'p':
		if (sp->ext == 's' && conv == PCONV_HEX && tep_get_long_size(src->tep) == 8) {
			slot_add(t, pf, SK_HEX_FUNC, f);
			return 0;
		}
		if (sp->ext == 'S' || sp->ext == 's') {
			if (conv != PCONV_STR || tep_get_long_size(src->tep) != 8)
				return -1;
			sl = slot_add(t, pf, SK_STR_FUNC, f);
			sl->with_off = sp->ext == 'S';
			return 0;
		}
		if (sp->ext || conv != PCONV_HEX)
			return -1;
		slot_add(t, pf, SK_HEX, f);
		return 0;
	case 'x':
		if (conv == PCONV_HEX) {
			sl = slot_add(t, pf, SK_HEX, f);
		} else if (conv == PCONV_STR) {
			sl = slot_add(t, pf, SK_STR_HEX, f);
		} else if (conv == PCONV_DEC) {
			sl = slot_add(t, pf, SK_DEC_HEX, f);
		} else {
			return -1;
		}
		sl->bits = width;
		return 0;
	case 'd':
	case 'i':
	case 'u':
		if (conv == PCONV_DEC)
			sl = slot_add(t, pf, SK_DEC, f);
		else if (conv == PCONV_BOOL)
			sl = slot_add(t, pf, SK_BOOL_DEC, f);
		else
			return -1;
		sl->bits = width;
		sl->sign = sp->conv != 'u';
		return 0;
	default:
		return -1;
	}
}

/*
 * lock:contention_begin "%p (flags=%s)" and contention_end "%p (ret=%d)":
 * the parser takes the pointer as lock_addr and the flags' words as flags
 * (split_contention()).  0: typed.
 */
static int contention_setup(struct tev *t, struct tep_event *ev, int begin)
{
	struct tep_print_arg *a = ev->print_fmt.args, *b;
	struct tep_format_field *f;
	struct slot *sl;

	if (strcmp(ev->print_fmt.format, begin ? "%p (flags=%s)" : "%p (ret=%d)") || !a ||
	    !(f = arg_field(ev, a)) || !(b = a->next) || b->next)
		return -1;
	slot_add(t, PF_LOCK_ADDR, SK_HEX, f);
	if (!begin)
		return arg_field(ev, b) ? 0 : -1;
	if (b->type != TEP_PRINT_FLAGS || !(f = arg_field(ev, b->flags.field)) || !b->flags.delim ||
	    strpbrk(b->flags.delim, " \t\r\n)="))
		return -1;
	sl = slot_add(t, PF_FLAGS, SK_STR_FLAGS, f);
	sl->delim = b->flags.delim;
	if (symbols_take(sl, b->flags.flags))
		return -1;
	return strpbrk(b->flags.delim, ")") ? -1 : 0;
}

/* Look at an event's format once: TEV_TYPED with its slots, or TEV_TEXT. */
static void tev_setup(struct source *src, struct tev *t, struct tep_event *ev)
{
	struct spec sp[MAX_SPECS];
	const char *fmt = ev->print_fmt.format, *p;
	uint32_t seen = 0;
	int n, i, first = 1;

	t->state = TEV_TEXT;
	t->name = ev->name;
	t->id = event_parse_id(ev->name);
	/*
	 * The analyzer only counts events it has no handler for: text is exact.
	 * ftrace's own records are not size-checked against their format
	 * (decode.c record_fits()): their fields are not read here.
	 */
	if (t->id < 0 || !fmt || (ev->system && !strcmp(ev->system, "ftrace")))
		return;
	if (t->id == PARSE_EV_X(EVSET_X_CONTENTION_BEGIN) ||
	    t->id == PARSE_EV_X(EVSET_X_CONTENTION_END)) {
		t->contention = 1;
		if (!contention_setup(t, ev, t->id == PARSE_EV_X(EVSET_X_CONTENTION_BEGIN)))
			t->state = TEV_TYPED;
		return;
	}
	n = split_specs(fmt, ev->print_fmt.args, sp);
	/*
	 * The parser reads a stock event's memcg_path up to the last " write="
	 * (split_payload()): only the layouts where write= follows it directly.
	 */
	if (n < 0 || (strstr(fmt, "memcg_path=") && !strstr(fmt, "memcg_path=%s write=")))
		return;
	for (i = 0; i < n; i++)
		if (!arg_safe(ev, sp[i].arg, t))
			return;
	/* each " key=%" (or one at the start): the parser's keys, first one wins */
	for (i = 0; i < n; i++) {
		const char *eq = sp[i].at - 1, *k;
		size_t len;
		int pf;

		if (eq < fmt || *eq != '=')
			continue;
		for (k = eq; k > fmt && key_char(k[-1]); k--)
			;
		if (k == eq || (k > fmt && k[-1] != ' '))
			continue;
		len = (size_t)(eq - k);
		if (first && len == 3 && !memcmp(k, "pid", 3))
			t->first_pid = 1;
		first = 0;
		for (pf = 0; pf < PF_NR; pf++)
			if (strlen(parse_fields[pf].key) == len &&
			    !memcmp(parse_fields[pf].key, k, len))
				break;
		if (pf == PF_NR || seen >> pf & 1)
			continue;
		seen |= 1u << pf;
		if (slot_make(src, t, ev, pf, &sp[i]))
			return;
	}
	/* a key of the analyzer's that the text shows without a conversion right after '=' */
	for (p = fmt; (p = strchr(p, '=')); p++) {
		const char *k = p;
		int pf;

		while (k > fmt && key_char(k[-1]))
			k--;
		if (k == p || (k > fmt && k[-1] != ' ') || p[1] == '%')
			continue;
		for (pf = 0; pf < PF_NR; pf++)
			if (strlen(parse_fields[pf].key) == (size_t)(p - k) &&
			    !memcmp(parse_fields[pf].key, k, (size_t)(p - k)))
				return;
	}
	/* check_stock(): a stock mmap_lock event is read by mm, write and success */
	if (t->id == MMLOCK_EV_MMAP_LOCK_START_LOCKING ||
	    t->id == MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED || t->id == MMLOCK_EV_MMAP_LOCK_RELEASED) {
		int ok = (seen >> PF_MM & 1) && (seen >> PF_WRITE & 1) &&
			 (t->id != MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED || (seen >> PF_SUCCESS & 1));

		for (i = 0; i < (int)t->nr_slots; i++)
			if ((t->slots[i].pf == PF_WRITE || t->slots[i].pf == PF_SUCCESS) &&
			    t->slots[i].kind != SK_BOOL_TERN)
				ok = 0;
		if (!ok)
			return;
	}
	t->state = TEV_TYPED;
}

/* The class of @sl's one-load decoding, -1 when it needs the general path. */
static int fast_class_of(const struct slot *sl)
{
	switch (sl->kind) {
	case SK_HEX:
		if (sl->size == 8 && sl->bits == 64)
			return FC_U64;
		return sl->size == 4 ? FC_U32 : -1;
	case SK_DEC:
		/* an unsigned 64-bit value past LLONG_MAX saturates: general */
		if (sl->size == 8 && sl->bits == 64 && sl->sign)
			return FC_U64;
		if (sl->size != 4)
			return -1;
		return sl->sign && sl->bits == 32 ? FC_S32 : FC_U32;
	case SK_BOOL_TERN:
		return sl->size == 1 ? FC_NZ8 : -1;
	default:
		return -1;
	}
}

/*
 * Build a typed event's decoder once: its one-load slots as rows grouped by
 * class, what they set as masks, the rest (strings, symbols, guards) kept in
 * their order for fields_fill()'s general loop, where the key order counts.
 */
static void fast_build(struct tev *t)
{
	unsigned int i, at[FC_NR], n = 0;
	int c;

	t->fast = xcalloc(t->nr_slots + 1, sizeof(*t->fast));
	t->slow = xcalloc(t->nr_slots + 1, sizeof(*t->slow));
	for (i = 0; i < t->nr_slots; i++) {
		c = fast_class_of(&t->slots[i]);
		if (c >= 0)
			t->nr_fast[c]++;
		else
			t->slow[t->nr_slow++] = &t->slots[i];
	}
	for (c = 0; c < FC_NR; c++) {
		at[c] = n;
		n += t->nr_fast[c];
	}
	for (i = 0; i < t->nr_slots; i++) {
		const struct slot *sl = &t->slots[i];

		c = fast_class_of(sl);
		if (c < 0)
			continue;
		t->fast[at[c]].off = (uint32_t)sl->offset;
		t->fast[at[c]++].pf = (uint32_t)sl->pf;
		t->fast_have |= 1u << sl->pf;
		if (sl->kind == SK_DEC)
			t->fast_num_ok |= 1u << sl->pf;
	}
	for (c = 0; c < FC_NR; c++)
		t->fast_end[c] = t->fast + at[c];
}

static struct tev * __attribute__((noinline)) tev_load(struct source *src, struct tep_event *ev)
{
	struct tev *t;

	if (ev->id < 0 || ev->id > 65535)
		return NULL;
	if ((size_t)ev->id >= src->nr_tevs) {
		size_t n = (size_t)ev->id + 64;

		src->tevs = xrealloc(src->tevs, n * sizeof(*src->tevs));
		memset(src->tevs + src->nr_tevs, 0, (n - src->nr_tevs) * sizeof(*src->tevs));
		src->nr_tevs = n;
	}
	t = src->tevs[ev->id];
	if (!t) {
		t = xcalloc(1, sizeof(*t));
		src->tevs[ev->id] = t;
		tev_setup(src, t, ev);
		if (t->state == TEV_TYPED)
			fast_build(t);
		t->verify_until = src->verify_all ? ULONG_MAX : VERIFY_RECORDS;
		t->after_checks = t->contention || t->first_pid;
		t->slow_fill = t->nr_slow || t->after_checks;
	}
	return t;
}

/* The event's reading, set up by tev_load() when its first record comes. */
static inline struct tev *tev_get(struct source *src, struct tep_event *ev)
{
	unsigned int id = (unsigned int)ev->id;

	if (id < src->nr_tevs && src->tevs[id])
		return src->tevs[id];
	return tev_load(src, ev);
}

/* ------------------------------------------------------- binary: header */

/* Empty every slot: each gets a pid that the slot's low bits never hold. */
static void pid_cache_clear(struct source *src)
{
	unsigned int i;

	for (i = 0; i < PID_CACHE; i++) {
		src->pid_cache[i].pid = (int)(i ^ 1);
		src->pid_cache[i].tgid = 0;
		src->pid_cache[i].p = NULL;
	}
}

static unsigned int pid_hash(int pid)
{
	uint32_t h = (uint32_t)pid * 0x9e3779b1u;

	return h ^ h >> 16;
}

/* What the parser makes of this pid's header columns, once per pid. */
static void pid_fill(struct source *src, struct pid_ent *p, int pid, int tgid)
{
	struct parsed_line pl;
	const char *comm = tep_data_comm_from_pid(src->tep, pid);
	char tgid_s[16], *line;

	p->pid = pid;
	p->tgid = tgid;
	p->tgid_col = tgid >= 0 ? tgid : -1;
	p->ok = 0;
	p->comm = NULL;
	if (tgid >= 0)
		snprintf(tgid_s, sizeof(tgid_s), "%d", tgid);
	else
		snprintf(tgid_s, sizeof(tgid_s), "-------");
	line = xasprintf("%16s-%-7d (%7s) [000] .....     1.000000: x: ", comm ? comm : "",
			 pid, tgid_s);
	if (!strpbrk(line, "\r\n") && strlen(line) < 4096) {
		parse_line(line, &pl);
		if (pl.kind == LINE_EVENT && pl.pid == pid && pl.tgid == (tgid >= 0 ? tgid : -1) &&
		    pl.cpu == 0 && pl.comm && pl.event && !strcmp(pl.event, "x")) {
			p->ok = 1;
			p->comm = xstrdup(pl.comm);
		}
	}
	free(line);
}

static struct pid_ent *pid_get(struct source *src, int pid, int tgid)
{
	struct pid_ent *p;
	size_t i;

	if (src->nr_pids * 2 >= src->pid_cap) {
		struct pid_ent *old = src->pids;
		size_t cap = src->pid_cap, n = cap ? cap * 2 : 1024;

		pid_cache_clear(src);
		src->pids = xmalloc(n * sizeof(*src->pids));
		for (i = 0; i < n; i++)
			src->pids[i].pid = -1;
		src->pid_cap = n;
		for (i = 0; i < cap; i++) {
			size_t j;

			if (old[i].pid == -1)
				continue;
			for (j = pid_hash(old[i].pid) & (n - 1); src->pids[j].pid != -1;
			     j = (j + 1) & (n - 1))
				;
			src->pids[j] = old[i];
		}
		free(old);
	}
	for (i = pid_hash(pid) & (src->pid_cap - 1); src->pids[i].pid != -1;
	     i = (i + 1) & (src->pid_cap - 1))
		if (src->pids[i].pid == pid)
			break;
	p = &src->pids[i];
	if (p->pid == -1) {
		pid_fill(src, p, pid, tgid);
		src->nr_pids++;
	}
	return p->tgid == tgid ? p : NULL;
}

/* A record of @kind with the header columns its line would show. */
static void header_fill(struct parsed_line *pl, enum line_kind kind, const struct pid_ent *p,
			const struct bin_event *e)
{
	parsed_line_reset(pl, kind);
	/* pid_fill()'s copy, freed by source_close() only */
	pl->comm = p->comm;
	pl->comm_stable = 1;
	pl->pid = p->pid;
	pl->tgid = p->tgid_col;
	pl->cpu = e->cpu;
	/* the text shows microseconds */
	pl->ts_ns = e->ts / 1000 * 1000;
}

/* ------------------------------------------------------- binary: fields */

static uint64_t field_raw(const struct slot *sl, const void *data)
{
	const char *p = (const char *)data + sl->offset;

	switch (sl->size) {
	case 1:
		return *(const uint8_t *)p;
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return v;
	}
	default: {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	}
}

/* The value printed: cut to the conversion's width, sign-extended for %d. */
static uint64_t printed(const struct slot *sl, uint64_t v)
{
	/* libtraceevent reads the field unsigned and hands printf the conversion's type */
	if (sl->bits == 32)
		v = sl->sign ? (uint64_t)(int64_t)(int32_t)(uint32_t)v : (uint32_t)v;
	return v;
}

static void hex_text(char *buf, uint64_t v)
{
	char tmp[17];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*buf++ = tmp[--n];
	*buf = '\0';
}

static const struct sym *sym_find(const struct slot *sl, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < sl->nr_syms; i++)
		if (sl->syms[i].val == v)
			return &sl->syms[i];
	return NULL;
}

/* A string field's bytes as %s shows them: 0 when they would bend the grammar. */
static int guard_ok(const struct slot *sl, const struct tep_record *rec)
{
	const struct tep_format_field *f = sl->field;
	const char *p;
	int len;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t dl;

		memcpy(&dl, (const char *)rec->data + f->offset, 4);
		len = (int)(dl >> 16);
		p = (const char *)rec->data + (dl & 0xffff);
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			p += f->offset + f->size;
		if (p < (const char *)rec->data || p + len > (const char *)rec->data + rec->size)
			return 0;
	} else {
		p = (const char *)rec->data + f->offset;
		len = f->size;
	}
	for (; len > 0 && *p; p++, len--)
		if (*p == '=' || *p == '\n' || *p == '\r')
			return 0;
	return 1;
}

/* The one-load fields of fast_build(): a load and a store each, no choice per field. */
static inline __attribute__((always_inline)) void fast_fill(const struct tev *t, const char *data,
							   struct parsed_line *pl)
{
	const struct fast_row *r = t->fast, *u32 = t->fast_end[FC_U64],
		*s32 = t->fast_end[FC_U32], *nz8 = t->fast_end[FC_S32], *end = t->fast_end[FC_NZ8];
	uint64_t *num = pl->v.num;

	for (; r < u32; r++) {
		uint64_t v;

		memcpy(&v, data + r->off, 8);
		num[r->pf] = v;
	}
	for (; r < s32; r++) {
		uint32_t v;

		memcpy(&v, data + r->off, 4);
		num[r->pf] = v;
	}
	for (; r < nz8; r++) {
		int32_t v;

		memcpy(&v, data + r->off, 4);
		num[r->pf] = (uint64_t)(int64_t)v;
	}
	for (; r < end; r++)
		num[r->pf] = data[r->off] != 0;
	pl->have = t->fast_have;
	pl->v.num_ok = t->fast_num_ok;
}

/* fields_fill() past fast_fill(): the other slots, the checks after them. */
static int __attribute__((noinline)) fields_slow(struct source *src, const struct tev *t,
						 const struct bin_event *e, struct parsed_line *pl)
{
	const void *data = e->rec->data;
	unsigned int i;

	for (i = 0; i < t->nr_slow; i++) {
		struct slot *sl = t->slow[i];
		int pf = sl->pf;
		uint64_t v;

		if (sl->kind == SK_GUARD) {
			if (!guard_ok(sl, e->rec))
				return 0;
			continue;
		}
		v = field_raw(sl, data);
		pl->have |= 1u << pf;
		switch (sl->kind) {
		case SK_HEX:
			pl->v.num[pf] = sl->bits == 32 ? (uint32_t)v : v;
			break;
		case SK_HEX_FUNC: {
			const char *fn = bin_function(src->dec, v, NULL);

			/* conv_hex() of the name: strtoull() of its leading hex digits */
			pl->v.num[pf] = fn ? strtoull(fn, NULL, 16) : v;
			break;
		}
		case SK_DEC:
			v = printed(sl, v);
			if (!sl->sign && v > (uint64_t)LLONG_MAX)
				v = (uint64_t)LLONG_MAX;	/* strtoll() saturates */
			pl->v.num[pf] = v;
			pl->v.num_ok |= 1u << pf;
			break;
		case SK_DEC_HEX: {
			/* conv_dec() of hex digits: the leading decimal ones, if any */
			const char *q;
			uint64_t n = 0;

			hex_text(sl->buf, sl->bits == 32 ? (uint32_t)v : v);
			for (q = sl->buf; *q >= '0' && *q <= '9'; q++)
				n = n * 10 + (uint64_t)(*q - '0');
			if (q != sl->buf) {
				pl->v.num[pf] = n;
				pl->v.num_ok |= 1u << pf;
			}
			break;
		}
		case SK_BOOL_TERN:
			pl->v.num[pf] = v != 0;
			break;
		case SK_BOOL_DEC:
			pl->v.num[pf] = printed(sl, v) == 1;
			break;
		case SK_LOCK_SYM: {
			const struct sym *s = sym_find(sl, v);

			pl->v.num[pf] = (uint64_t)(int64_t)(s ? s->word : -1);
			break;
		}
		case SK_STR_SYM: {
			const struct sym *s = sym_find(sl, v);

			if (!s)
				return 0;	/* printed as a number: the text decides */
			pl->str[pf] = s->str;
			goto keyed;
		}
		case SK_STR_HEX:
			hex_text(sl->buf, sl->bits == 32 ? (uint32_t)v : v);
			pl->str[pf] = sl->buf;
			goto keyed;
		case SK_STR_DEV:
			snprintf(sl->buf, sizeof(sl->buf), "%u:%u", (unsigned int)(v >> 20),
				 (unsigned int)(v & 0xfffff));
			pl->str[pf] = sl->buf;
			goto keyed;
		case SK_STR_FUNC: {
			unsigned long long start = 0;
			const char *fn = bin_function(src->dec, v, &start);
			int n;

			if (!fn) {
				snprintf(sl->buf, sizeof(sl->buf), "0x%llx", (unsigned long long)v);
			} else {
				n = sl->with_off ?
				    snprintf(sl->buf, sizeof(sl->buf), "%s+0x%llx", fn,
					     (unsigned long long)(v - start)) :
				    snprintf(sl->buf, sizeof(sl->buf), "%s", fn);
				if (n < 0 || (size_t)n >= sizeof(sl->buf) || strpbrk(sl->buf, "= \r\n"))
					return 0;
			}
			pl->str[pf] = sl->buf;
			goto keyed;
		}
		case SK_STR_FLAGS: {
			char *o = sl->buf, *end = sl->buf + sizeof(sl->buf);
			unsigned int k;

			/* libtraceevent names the bits in table order and prints what is left as a number */
			for (k = 0; k < sl->nr_syms && v; k++) {
				uint64_t fv = sl->syms[k].val;
				int n;

				if (!fv || (v & fv) != fv)
					continue;
				n = snprintf(o, (size_t)(end - o), "%s%s", o == sl->buf ? "" : sl->delim,
					     sl->syms[k].str);
				if (n < 0 || n >= end - o)
					return 0;
				o += n;
				v &= ~fv;
			}
			if (v || o == sl->buf)
				return 0;	/* a number in the words, or none: the text decides */
			pl->str[pf] = sl->buf;
			goto keyed;
		}
		case SK_GUARD:
			break;
		}
		continue;
keyed:
		if (pl->nr_fields < PARSE_MAX_FIELDS) {
			pl->keys[pl->nr_fields] = parse_fields[pf].key;
			pl->vals[pl->nr_fields++] = pl->str[pf];
		}
	}
	/* every value is read from the record, none from text: the accessors never convert */
	pl->v.done = pl->have;
	if (!t->after_checks)
		return 1;
	/* split_contention() wants hex digits where %p of NULL prints "(nil)" */
	if (t->contention && !pl->v.num[PF_LOCK_ADDR])
		return 0;
	/* check_pid(): a first pid= outside 0..INT_MAX makes the line malformed */
	if (t->first_pid && (!(pl->v.num_ok >> PF_PID & 1) || (int64_t)pl->v.num[PF_PID] < 0 ||
			     (int64_t)pl->v.num[PF_PID] > INT_MAX))
		return 0;
	return 1;
}

/* Fill @pl's slots from the record; 0 when it must be read as text. */
static inline int fields_fill(struct source *src, const struct tev *t, const struct bin_event *e,
			      struct parsed_line *pl)
{
	fast_fill(t, e->rec->data, pl);
	if (t->slow_fill)
		return fields_slow(src, t, e, pl);
	/* every value is read from the record, none from text */
	pl->v.done = pl->have;
	return 1;
}

/* ------------------------------------------------------- binary: verify */

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Does the typed record say what the text's parse says?  Names the first difference. */
static const char *differs(const struct parsed_line *a, const struct parsed_line *b)
{
	uint32_t m;

	if (a->kind != b->kind || a->id != b->id || !same_str(a->event, b->event))
		return "event";
	if (!same_str(a->comm, b->comm))
		return "comm";
	if (a->pid != b->pid || a->tgid != b->tgid || a->cpu != b->cpu)
		return "pid, tgid or cpu";
	if (a->ts_ns != b->ts_ns)
		return "timestamp";
	parsed_convert_all(a);
	parsed_convert_all(b);
	if (a->have != b->have || a->v.num_ok != b->v.num_ok)
		return "which fields";
	for (m = a->have; m; m &= m - 1) {
		int f = __builtin_ctz(m);

		if (parse_fields[f].conv == PCONV_STR ? !same_str(a->str[f], b->str[f]) :
		    (parse_fields[f].conv != PCONV_DEC || (a->v.num_ok >> f & 1)) &&
		    a->v.num[f] != b->v.num[f])
			return parse_fields[f].key;
	}
	return NULL;
}

/* ------------------------------------------------------- binary: reading */

/* Queue the record's text (without its LOST line, already given) to be read as lines. */
static void queue_text(struct source *src, const struct bin_event *e)
{
	struct bin_event copy = *e;

	copy.lost = 0;
	trace_seq_reset(&src->seq);
	bin_event_format(src->dec, &copy, &src->seq);
	trace_seq_terminate(&src->seq);
	src->q_pos = 0;
	src->q_live = 1;
}

/* The next queued line; 0 when the queue is empty. */
static int queued_line(struct source *src, struct parsed_line *pl)
{
	char *start, *nl;
	size_t len, avail;

	if (!src->q_live || src->q_pos >= (size_t)src->seq.len) {
		src->q_live = 0;
		return 0;
	}
	start = src->seq.buffer + src->q_pos;
	avail = (size_t)src->seq.len - src->q_pos;
	nl = memchr(start, '\n', avail);
	len = nl ? (size_t)(nl - start) : avail;
	src->q_pos += len + (nl ? 1 : 0);
	/* as the reader hands a line out: one CR before the newline dropped */
	start[len] = '\0';
	if (len > INPUT_MAX_LINE) {
		take_line(src, start, INPUT_MAX_LINE, len, 0, 0, pl);
	} else {
		if (len && start[len - 1] == '\r')
			start[--len] = '\0';
		take_line(src, start, len, 0, memchr(start, '\r', len) != NULL, 0, pl);
	}
	src->lineno++;
	return 1;
}

/*
 * One of an event's first records (all of them under MMLOCK_SOURCE_VERIFY=1)
 * compared with the parse of its text: 0 when they differ, and the event is
 * read as text from now on.
 */
static int __attribute__((noinline)) typed_verify(struct source *src, struct tev *t,
						  const struct bin_event *e,
						  const struct parsed_line *pl)
{
	struct parsed_line tl;
	const char *why;

	t->checked++;
	queue_text(src, e);
	if (!queued_line(src, &tl)) {
		why = "no line";
	} else {
		why = differs(pl, &tl);
		src->lineno--;
	}
	src->q_live = 0;
	if (!why) {
		t->ready = t->checked >= t->verify_until && !t->slow_fill;
		return 1;
	}
	/* the text is right by definition: this event is read as text from now */
	if (src->verify_all)
		pr_warn("%s: %s: the typed record differs from the text in %s",
			src->bin_name, t->name, why);
	src->verify_diffs++;
	t->state = TEV_TEXT;
	return 0;
}

/* The pid's entry where its header columns read back (pid_get()), else NULL. */
static inline struct pid_ent *pid_ok(struct source *src, int pid, int tgid)
{
	struct pid_slot *s = &src->pid_cache[(unsigned int)pid & (PID_CACHE - 1)];
	struct pid_ent *p;

	if (s->pid == pid && s->tgid == tgid)
		return s->p;
	p = pid_get(src, pid, tgid);
	if (!p || !p->ok)
		return NULL;
	s->pid = pid;
	s->tgid = tgid;
	s->p = p;
	return p;
}

/* A record read typed: its line counted, no text to show for it. */
static inline void typed_done(struct source *src)
{
	src->lineno++;
	src->head[0] = '\0';
	src->head_cut = 0;
	src->nr_typed++;
}

/*
 * typed_known() of an event that is not ready (struct tev): its format
 * looked at first, fields past fast_fill(), records compared with their
 * text.
 */
static int __attribute__((noinline)) typed_checked(struct source *src,
						   const struct bin_event *e,
						   struct parsed_line *pl, const struct pid_ent *p)
{
	struct tev *t = tev_get(src, e->ev);

	if (!t || t->state != TEV_TYPED)
		return 0;
	header_fill(pl, LINE_EVENT, p, e);
	pl->event = t->name;
	pl->id = t->id;
	if (!fields_fill(src, t, e, pl))
		return 0;
	if (t->checked < t->verify_until && !typed_verify(src, t, e, pl))
		return 0;
	typed_done(src);
	return 1;
}

/*
 * The typed record of @e, whose format is known (e->ev); 0 when it must be
 * read as text.  Inlined into binary_take(): the common record's whole path
 * is one function.
 */
static inline __attribute__((always_inline)) int typed_known(struct source *src,
							     const struct bin_event *e,
							     struct parsed_line *pl)
{
	unsigned int id = (unsigned int)e->ev->id;
	struct pid_ent *p;
	struct tev *t;

	if (e->ts >= TS_UNPRINTABLE)
		return 0;
	p = pid_ok(src, e->pid, e->tgid);
	if (!p)
		return 0;
	t = id < src->nr_tevs ? src->tevs[id] : NULL;
	if (!t || !t->ready)
		return typed_checked(src, e, pl, p);
	header_fill(pl, LINE_EVENT, p, e);
	pl->event = t->name;
	pl->id = t->id;
	fast_fill(t, e->rec->data, pl);
	/* every value is read from the record, none from text */
	pl->v.done = pl->have;
	typed_done(src);
	return 1;
}

/* The typed record of @e; 0 when it must be read as text. */
static int typed_event(struct source *src, const struct bin_event *e, struct parsed_line *pl)
{
	return e->ev && typed_known(src, e, pl);
}

/* A stack block typed: every frame must read back as itself. */
static int typed_stack(struct source *src, const struct bin_event *e, struct parsed_line *pl)
{
	const struct pid_ent *p;
	const char *fn;
	unsigned int i;

	if (e->ts >= TS_UNPRINTABLE)
		return 0;
	p = pid_get(src, e->pid, e->tgid);
	if (!p || !p->ok)
		return 0;
	for (i = 0; (fn = bin_stack_frame(src->dec, e, i, src->frame_buf,
					  sizeof(src->frame_buf))); i++)
		if (!*fn || strpbrk(fn, "\r\n") || strlen(fn) > 1024 || fn[0] == ' ' ||
		    fn[0] == '\t')
			return 0;
	header_fill(pl, LINE_STACK, p, e);
	pl->event = "<stack trace>";
	pl->id = -1;
	src->nr_typed++;
	src->lineno++;
	src->head[0] = '\0';
	src->head_cut = 0;
	return 1;
}

/* The end of a binary capture: its damage reported as the text reader reports it. */
static void binary_end(struct source *src)
{
	const struct bin_decode_stats *st = src->dec ? bin_decoder_stats(src->dec) : NULL;

	src->ended = 1;
	if (st && st->bad_pages) {
		char *msg = xasprintf("%llu damaged ring-buffer page%s skipped (a page header or "
				      "event that does not fit its page)",
				      (unsigned long long)st->bad_pages,
				      st->bad_pages == 1 ? "" : "s");

		if (src->err_fn)
			src->err_fn(src->err_ctx, INPUT_ERR_CORRUPT, src->bin_name, 0, msg);
		free(msg);
		src->truncated++;
	}
	if (src->open_err) {
		char *msg = xasprintf("decoding the binary capture failed: %s",
				      infile_strerror(src->open_err));

		if (src->err_fn)
			src->err_fn(src->err_ctx, INPUT_ERR_CORRUPT, src->bin_name, 0, msg);
		free(msg);
		src->truncated++;
	}
}

/*
 * The next record of the capture, typed where it can be: 1 with @pl filled
 * (the record, or its LOST line), 0 when it is left to binary_slow() (its
 * text queued, its stack or its event after the LOST line pending), -1 at
 * the end.  Only a typed record leaves src->idle as it was.
 */
static inline __attribute__((always_inline)) int binary_take(struct source *src,
							      struct parsed_line *pl)
{
	struct bin_event *e = &src->ev;
	int r = bin_decoder_next(src->dec, e);

	if (!r) {
		src->idle = 0;
		binary_end(src);
		return -1;
	}
	/* the common record (a format, no LOST line, no stack, not damaged): typed straight away */
	if (r == BIN_PLAIN && typed_known(src, e, pl))
		return 1;
	src->idle = 0;
	src->ev_pending = !e->damaged;
	if (e->lost) {
		parsed_line_reset(pl, LINE_LOST);
		pl->cpu = e->cpu;
		pl->lost = e->lost;
		src->lineno++;
		src->head[0] = '\0';
		return 1;
	}
	if (src->ev_pending && !e->stack) {
		/* typed_event() said no above: its text */
		src->ev_pending = 0;
		src->nr_text++;
		queue_text(src, e);
	}
	return 0;
}

/*
 * What is pending first: the lines of a record read as text, a stack's
 * frames, an event after its LOST line; then the next record, from when
 * nothing is pending on through binary_take() alone (src->idle).
 */
static int __attribute__((noinline)) binary_slow(struct source *src, struct parsed_line *pl)
{
	struct bin_event *e = &src->ev;
	int r;

	for (;;) {
		if (src->q_live && queued_line(src, pl))
			return 1;
		if (src->stack_pending) {
			const char *fn = bin_stack_frame(src->dec, e, src->stack_i++, src->frame_buf,
							 sizeof(src->frame_buf));

			if (fn) {
				parsed_line_reset(pl, LINE_FRAME);
				pl->frame = fn;
				src->lineno++;
				src->head[0] = '\0';
				return 1;
			}
			src->stack_pending = 0;
			continue;
		}
		if (src->ev_pending) {
			src->ev_pending = 0;
			if (e->stack && typed_stack(src, e, pl)) {
				src->stack_pending = 1;
				src->stack_i = 0;
				return 1;
			}
			if (!e->stack && typed_event(src, e, pl))
				return 1;
			src->nr_text++;
			queue_text(src, e);
			continue;
		}
		if (src->ended || !src->dec) {
			if (!src->ended)
				binary_end(src);
			return 0;
		}
		src->idle = 1;
		r = binary_take(src, pl);
		if (r)
			return r > 0;
	}
}

static inline int binary_next(struct source *src, struct parsed_line *pl)
{
	if (src->idle) {
		int r = binary_take(src, pl);

		if (r)
			return r > 0;
	}
	return binary_slow(src, pl);
}

/* ------------------------------------------------------------------ API */

struct source *source_open(char *const *paths, int npaths, input_error_fn fn, void *ctx,
			   char **err)
{
	struct source *src = xcalloc(1, sizeof(*src));
	const char *v = getenv("MMLOCK_SOURCE_VERIFY");
	struct stat st;
	char *status;

	if (npaths != 1 || !bin_capture_is(paths[0])) {
		src->in = input_open(paths, npaths, fn, ctx, err);
		if (!src->in) {
			free(src);
			return NULL;
		}
		return src;
	}
	src->err_fn = fn;
	src->err_ctx = ctx;
	src->verify_all = v && !strcmp(v, "1");
	src->bin_name = xasprintf("%s/raw (binary capture, decoded)", paths[0]);
	status = xasprintf("%s/trace.status", paths[0]);
	if (!lstat(status, &st))
		src->status = status;
	else
		free(status);
	src->dec = bin_decoder_open(paths[0]);
	if (!src->dec)
		src->open_err = errno ? errno : EIO;
	else
		src->tep = bin_decoder_tep(src->dec);
	trace_seq_init(&src->seq);
	pid_cache_clear(src);
	return src;
}

int source_next(struct source *src, struct parsed_line *pl)
{
	char *line;
	long len;

	if (!src->in)
		return binary_next(src, pl);
	len = input_next_line(src->in, &line);
	if (len < 0)
		return 0;
	take_line(src, line, (size_t)len, input_overlong(src->in), input_line_has_cr(src->in),
		  HEAD_MAX <= INPUT_LINE_SLACK, pl);
	return 1;
}

const char *source_head(const struct source *src, int *cut)
{
	*cut = src->head_cut;
	return src->head;
}

const char *source_file(const struct source *src)
{
	return src->in ? input_file(src->in) : src->bin_name;
}

unsigned long source_lineno(const struct source *src)
{
	return src->in ? input_lineno(src->in) : src->lineno;
}

size_t source_nr_files(const struct source *src)
{
	return src->in ? input_nr_files(src->in) : 1;
}

const char *source_status_path(const struct source *src)
{
	return src->in ? input_status_path(src->in) : src->status;
}

unsigned long source_truncated(const struct source *src)
{
	return src->in ? input_truncated(src->in) : src->truncated;
}

void source_close(struct source *src)
{
	size_t i;

	if (!src)
		return;
	if (src->verify_all && !src->in)
		pr_info("%s: %lu records read typed, %lu as text, %lu typed records differed "
			"from their text", src->bin_name, src->nr_typed, src->nr_text,
			src->verify_diffs);
	input_close(src->in);
	if (!src->in)
		trace_seq_destroy(&src->seq);
	bin_decoder_close(src->dec);
	for (i = 0; i < src->nr_tevs; i++) {
		struct tev *t = src->tevs[i];
		unsigned int k;

		if (!t)
			continue;
		for (k = 0; k < t->nr_slots; k++)
			free(t->slots[k].syms);
		free(t->slots);
		free(t->fast);
		free(t->slow);
		free(t);
	}
	free(src->tevs);
	for (i = 0; i < src->pid_cap; i++)
		if (src->pids[i].pid != -1)
			free(src->pids[i].comm);
	free(src->pids);
	free(src->bin_name);
	free(src->status);
	free(src);
}
