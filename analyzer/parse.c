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

#ifdef __SSE2__
#include <emmintrin.h>
#endif

const struct parse_field_desc parse_fields[PF_NR] = {
#define PARSE_FIELD_DESC(id, key, conv) [PF_##id] = { #key, PCONV_##conv },
	PARSE_FIELDS(PARSE_FIELD_DESC)
#undef PARSE_FIELD_DESC
};

/*
 * Event names and field keys are found by a hash of their length and three
 * of their bytes, then one compare: no string compares per candidate.  The
 * tables are filled on first use from the contract, the evset additions and
 * PARSE_FIELDS.
 */
#define NAME_SLOTS	256	/* a power of two, several times the names */

struct name_slot {
	const char	*name;		/* NULL: free */
	unsigned int	len;
	int		val;
};

static struct name_slot event_slots[NAME_SLOTS], field_slots[NAME_SLOTS];

/* "name=" of a key as two words and their masks: compared whole, no loop */
struct key_pat {
	uint64_t	w[2], m[2];
	const char	*name;
	unsigned int	len;
	int		pf;		/* enum parse_field, or -1 */
	uint32_t	bit;		/* 1u << pf, 0 for none */
	enum parse_conv	conv;		/* its conversion (PCONV_STR for none) */
};

#define PRED_MAX	16	/* fields of a custom event */
/*
 * Each event's template: the keys it prints, in order.  A custom event's
 * are the contract's fields; the stock mmap_lock events' are their print
 * format since Linux 6.14 ("mm=%p memcg_id=%llu write=%s" and, for
 * acquire_returned, " success=%s").  Another form (memcg_path up to 6.13,
 * android14-6.1's; a field added later) breaks the template at its first
 * difference and is read by the general split, as every line out of a
 * template's order is.
 */
#define STOCK_TEMPLATES(X)						\
	X(MMLOCK_EV_MMAP_LOCK_START_LOCKING,	"mm", "memcg_id", "write", NULL)	\
	X(MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED,	"mm", "memcg_id", "write", "success")	\
	X(MMLOCK_EV_MMAP_LOCK_RELEASED,		"mm", "memcg_id", "write", NULL)
/* one more than PRED_MAX: the entry after an event's last is zero, len 0, its end */
static struct key_pat pred[MMLOCK_EV_NR][PRED_MAX + 1];
static unsigned int nr_pred[MMLOCK_EV_NR];
/* 1: every field of the event has a pattern, so a line in its order parses in one pass */
static unsigned char pred_whole[MMLOCK_EV_NR];
static struct key_pat v1_pid;

#define ONES	0x0101010101010101ULL
#define HIGHS	0x8080808080808080ULL

static uint64_t load8(const char *s)
{
	uint64_t x;

	memcpy(&x, s, sizeof(x));
	return x;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR	1
/* The high bit of each byte of @x that is not 0: exact, no borrow between bytes. */
static uint64_t nonzero_bytes(uint64_t x)
{
	return (((x & ~HIGHS) + ~HIGHS) | x) & HIGHS;
}
#endif

/*
 * The first byte at or after @s that is NUL, @a or @b (@stop 1), or that is
 * neither @a nor @b (@stop 0); @end is the line's NUL.
 */
static inline char *scan_bytes(char *s, const char *end, char a, char b, int stop)
{
#ifdef __SSE2__
	/* sixteen bytes at a time: most values end within the first sixteen */
	const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);

	while (s + 16 <= end + 1) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
		unsigned int ab = (unsigned int)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, va),
									 _mm_cmpeq_epi8(x, vb)));
		unsigned int m = stop ? ab | (unsigned int)_mm_movemask_epi8(
					_mm_cmpeq_epi8(x, _mm_setzero_si128())) : ~ab & 0xffff;

		if (m)
			return s + __builtin_ctz(m);
		s += 16;
	}
#endif
#ifdef SWAR
	while (s + 8 <= end + 1) {
		uint64_t x = load8(s);
		uint64_t ab = ~(nonzero_bytes(x ^ (ONES * (unsigned char)a)) &
				nonzero_bytes(x ^ (ONES * (unsigned char)b))) & HIGHS;
		uint64_t m = stop ? ab | (~nonzero_bytes(x) & HIGHS) : ~ab & HIGHS;

		if (m)
			return s + (__builtin_ctzll(m) >> 3);
		s += 8;
	}
#else
	(void)end;
#endif
	while (*s && (*s == a || *s == b) != stop)
		s++;
	return s;
}

static char *find_byte2(char *s, const char *end, char a, char b)
{
	return scan_bytes(s, end, a, b, 1);
}

/* Inlined (as hex16() and dec8()): a call costs as much as the work in most lines. */
static inline __attribute__((always_inline)) char *skip_blanks(char *s, const char *end)
{
	/* most runs are one blank or none: no vector set-up for them */
	if (*s != ' ' && *s != '\t')
		return s;
	if (s[1] != ' ' && s[1] != '\t')
		return s + 1;
	return scan_bytes(s, end, ' ', '\t', 0);
}
static unsigned char key_char[256];	/* [A-Za-z0-9_] */
static signed char hex_val[256];	/* 0..15, -1 for a byte that is no hex digit */
static int tables_ready;

static unsigned int name_hash(const char *s, size_t len)
{
	uint32_t h = (uint32_t)len * 0x9e3779b1u;

	h ^= (unsigned char)s[0] * 0x85ebca6bu;
	h ^= (unsigned char)s[len - 1] * 0xc2b2ae35u;
	h ^= (unsigned char)s[len / 2] * 0x27d4eb2fu;
	return (h ^ h >> 15) & (NAME_SLOTS - 1);
}

static int same_bytes(const char *a, const char *b, size_t n)
{
	while (n--)
		if (*a++ != *b++)
			return 0;
	return 1;
}

/* The slot holding @s (@len >= 1), or the free one where it would go. */
static unsigned int name_slot(const struct name_slot *t, const char *s, size_t len)
{
	unsigned int i;

	for (i = name_hash(s, len); t[i].name; i = (i + 1) & (NAME_SLOTS - 1))
		if (t[i].len == len && !memcmp(t[i].name, s, len))
			break;
	return i;
}

static void name_put(struct name_slot *t, const char *name, int val)
{
	size_t len = strlen(name);
	unsigned int i = name_slot(t, name, len);

	if (t[i].name)
		return;		/* the first wins, as in a lookup in list order */
	t[i].name = name;
	t[i].len = (unsigned int)len;
	t[i].val = val;
}

static int name_get(const struct name_slot *t, const char *s, size_t len)
{
	unsigned int i = name_slot(t, s, len);

	return t[i].name ? t[i].val : -1;
}

/* A key of at most 15 bytes as a pattern; 0 when it is longer. */
static int key_pat_make(struct key_pat *k, const char *name)
{
	char w[16] = { 0 }, m[16] = { 0 };
	size_t len = strlen(name);

	if (len + 1 > sizeof(w))
		return 0;
	memcpy(w, name, len);
	w[len] = '=';
	memset(m, 0xff, len + 1);
	memcpy(k->w, w, sizeof(w));
	memcpy(k->m, m, sizeof(m));
	k->name = name;
	k->len = (unsigned int)len;
	k->pf = name_get(field_slots, name, len);
	k->bit = k->pf >= 0 ? 1u << k->pf : 0;
	k->conv = k->pf >= 0 ? parse_fields[k->pf].conv : PCONV_STR;
	return 1;
}

/*
 * Event names again, as words: a line's name is found by a hash of its
 * length and its first and last eight bytes, and compared a word at a time
 * without a call.  Filled with event_slots, the same names and values.
 */
#define EV_WORDS	5	/* names of 8 to 40 bytes; others use event_slots */

struct ev_slot {
	uint64_t	w[EV_WORDS];	/* the whole words from the start */
	uint64_t	last;		/* the last eight bytes */
	unsigned int	len;		/* 0: free */
	int		val;
};

static struct ev_slot ev_words[NAME_SLOTS];

static unsigned int ev_hash(uint64_t first, uint64_t last, size_t len)
{
	return (unsigned int)(((first * 0x9e3779b97f4a7c15ULL) ^ (last * 0xc2b2ae3d27d4eb4fULL) ^
			       len) >> 56) & (NAME_SLOTS - 1);
}

/* The slot of the @len (8..40) bytes at @s, or the free one where they would go. */
static inline __attribute__((always_inline)) unsigned int ev_slot_find(const char *s, size_t len)
{
	uint64_t first = load8(s), last = load8(s + len - 8);
	unsigned int i, k;

	for (i = ev_hash(first, last, len); ev_words[i].len; i = (i + 1) & (NAME_SLOTS - 1)) {
		const struct ev_slot *e = &ev_words[i];

		if (e->len != len || e->w[0] != first || e->last != last)
			continue;
		for (k = 1; 8 * k + 8 <= len && e->w[k] == load8(s + 8 * k); k++)
			;
		if (8 * k + 8 > len)
			break;
	}
	return i;
}

static void ev_words_put(const char *name, int val)
{
	size_t len = strlen(name), k;
	unsigned int i;

	if (len < 8 || len > EV_WORDS * 8)
		return;
	i = ev_slot_find(name, len);
	if (ev_words[i].len)
		return;		/* the first wins, as in event_slots */
	for (k = 0; 8 * k + 8 <= len; k++)
		ev_words[i].w[k] = load8(name + 8 * k);
	ev_words[i].last = load8(name + len - 8);
	ev_words[i].len = (unsigned int)len;
	ev_words[i].val = val;
}

/*
 * The id of the event name at @s (@len bytes), as name_get(event_slots)
 * finds it; @end: the line's NUL (words are read up to it).
 */
static inline int event_id(const char *s, size_t len, const char *end)
{
	unsigned int i;

	if (len < 8 || len > EV_WORDS * 8 || s + len > end + 1)
		return len ? name_get(event_slots, s, len) : -1;
	i = ev_slot_find(s, len);
	return ev_words[i].len ? ev_words[i].val : -1;
}

static void tables_fill(void)
{
	unsigned int f;
	int i;

	for (i = 0; i < 256; i++) {
		key_char[i] = isalnum(i) || i == '_';
		hex_val[i] = (signed char)(isdigit(i) ? i - '0' :
					   isxdigit(i) ? (i | 0x20) - 'a' + 10 : -1);
	}
	/* the stock-mode additions first: analysis always looked them up first */
	for (i = 0; i < EVSET_X_NR; i++) {
		name_put(event_slots, evset_extras[i].name, PARSE_EV_X(i));
		ev_words_put(evset_extras[i].name, PARSE_EV_X(i));
	}
	for (i = 0; i < MMLOCK_EV_NR; i++) {
		if (!mmlock_events[i].name)
			continue;
		name_put(event_slots, mmlock_events[i].name, (int)mmlock_events[i].id);
		ev_words_put(mmlock_events[i].name, (int)mmlock_events[i].id);
	}
	for (i = 0; i < PF_NR; i++)
		name_put(field_slots, parse_fields[i].key, i);
	for (i = 0; i < MMLOCK_EV_NR; i++) {
		const char *const *keys = NULL;
		unsigned int nk = mmlock_events[i].nr_fields;
		const char *names[PRED_MAX];

		switch (i) {
#define STOCK_TEMPLATE_CASE(id, k0, k1, k2, k3)			\
		case id: {						\
			static const char *const k[] = { k0, k1, k2, k3 };	\
									\
			keys = k;					\
			nk = k[3] ? 4 : 3;				\
			break;						\
		}
		STOCK_TEMPLATES(STOCK_TEMPLATE_CASE)
#undef STOCK_TEMPLATE_CASE
		default:
			break;
		}
		for (f = 0; f < nk && f < PRED_MAX; f++)
			names[f] = keys ? keys[f] : mmlock_events[i].fields[f].name;
		for (f = 0; f < nk && nr_pred[i] < PRED_MAX; f++)
			if (!key_pat_make(&pred[i][nr_pred[i]++], names[f]))
				nr_pred[i]--;
		pred_whole[i] = nr_pred[i] && nr_pred[i] == nk;
	}
	for (i = 0; i < MMLOCK_EV_NR; i++) {
		for (f = 0; f < nr_pred[i]; f++) {
			unsigned int g;

			if (pred[i][f].len == 10 && !memcmp(pred[i][f].name, "memcg_path", 10))
				pred_whole[i] = 0;	/* its value may hold spaces */
			/* the one pass takes each key's value as its field's first */
			if (!strcmp(pred[i][f].name, MMLOCK_V1_PID_FIELD))
				pred_whole[i] = 0;
			for (g = 0; g < f; g++)
				if (!strcmp(pred[i][f].name, pred[i][g].name))
					pred_whole[i] = 0;
		}
	}
	key_pat_make(&v1_pid, MMLOCK_V1_PID_FIELD);
	tables_ready = 1;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
	!(defined(__SSE2__) && defined(__x86_64__))
#define HEX_WORDS	1
/*
 * Eight hex digits at a time (little-endian words: the first byte is the
 * lowest).  hex_valid() sets the high bit of each byte that is a hex digit;
 * hex_pack() is the value of the first @n (1..8) bytes, all digits.
 */
static uint64_t hex_valid(uint64_t x)
{
	uint64_t x7 = x & ~HIGHS, l = x7 | ONES * 0x20;
	uint64_t digit = (x7 + ONES * (0x80 - '0')) & ~(x7 + ONES * (0x7f - '9'));
	uint64_t alpha = (l + ONES * (0x80 - 'a')) & ~(l + ONES * (0x7f - 'f'));

	return (digit | alpha) & ~x & HIGHS;
}

static uint64_t hex_pack(uint64_t x, unsigned int n)
{
	uint64_t v = (x & ONES * 0x0f) + ((x >> 6) & ONES) * 9;

	v <<= 8 * (8 - n);			/* leading zero digits */
	v = ((v << 4) | (v >> 8)) & 0x00ff00ff00ff00ffULL;
	v = (v | (v >> 8)) & 0x0000ffff0000ffffULL;
	v = (v | (v >> 16)) & 0xffffffffULL;
	return __builtin_bswap32((uint32_t)v);
}
#endif

#if defined(__SSE2__) && defined(__x86_64__)
#define HEX_SSE2	1
/*
 * The hex digits that begin the sixteen bytes at @v: how many (0..16), and
 * in *@val their value.  Each byte's digit value, then pairs of nibbles into
 * bytes, the first digit the highest.
 */
static inline __attribute__((always_inline)) unsigned int hex16(const char *v, uint64_t *val)
{
	const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)v);
	const __m128i l = _mm_or_si128(x, _mm_set1_epi8(0x20));
	const __m128i dig = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
					  _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), x));
	const __m128i alp = _mm_and_si128(_mm_cmpgt_epi8(l, _mm_set1_epi8('a' - 1)),
					  _mm_cmpgt_epi8(_mm_set1_epi8('f' + 1), l));
	__m128i d = _mm_or_si128(_mm_and_si128(dig, _mm_sub_epi8(x, _mm_set1_epi8('0'))),
				 _mm_and_si128(alp, _mm_sub_epi8(l, _mm_set1_epi8('a' - 10))));
	unsigned int ok = (unsigned int)_mm_movemask_epi8(_mm_or_si128(dig, alp));
	unsigned int n = (unsigned int)__builtin_ctz(~ok);	/* bit 16 is always clear */
	uint64_t w;

	d = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(d, _mm_set1_epi16(0xff)), 4),
			 _mm_srli_epi16(d, 8));
	d = _mm_packus_epi16(d, d);
	w = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(d));
	*val = n ? w >> (4 * (16 - n)) : 0;
	return n;
}
#endif

#ifdef HEX_SSE2
/*
 * The hex digits at @v as strtoull(v, 16) reads them, for the forms the
 * kernel and libtraceevent print: the end of the digits, with *@val their
 * value; NULL (no digit, sixteen and more, fewer than sixteen bytes before
 * @end, the line's NUL) leaves the value to strtoull().  A "0x" is skipped
 * as strtoull() skips it before a digit (libtraceevent prints %p so); "0x"
 * before no digit, which strtoull() reads as 0, is left to it.
 */
static inline __attribute__((always_inline)) const char *hex_digits(const char *v, const char *end,
								   uint64_t *val)
{
	unsigned int n;

	if (v[0] == '0' && (v[1] | 0x20) == 'x')
		v += 2;
	if (v + 16 > end || !(n = hex16(v, val)))
		return NULL;
	if (n == 16 && hex_val[(unsigned char)v[16]] >= 0)
		return NULL;		/* saturation */
	return v + n;
}
#endif

#ifdef SWAR
/* The high bit of each byte of @x that is a decimal digit. */
static uint64_t digit_bytes(uint64_t x)
{
	uint64_t x7 = x & ~HIGHS;

	return (x7 + ONES * (0x80 - '0')) & ~(x7 + ONES * (0x7f - '9')) & ~x & HIGHS;
}

/*
 * The decimal digits that begin the eight bytes at @v: how many (0..8), and
 * in *@val their value (eight digits at once: pairs, then quads, then the
 * two halves, the first digit the highest).  Inlined: a call would cost
 * as much as the conversion.
 */
/*
 * The value of the @n (1..8) digits that begin the word @x, less '0' each
 * (pairs, then quads, then the two halves, the first digit the highest).
 */
static inline __attribute__((always_inline)) uint64_t dec_value(uint64_t x, unsigned int n)
{
	x <<= 8 * (8 - n);			/* leading zero digits */
	x = x * 10 + (x >> 8);
	return (((x & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32))) +
		(((x >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32)))) >> 32;
}

static inline __attribute__((always_inline)) unsigned int dec8(const char *v, uint64_t *val)
{
	uint64_t x = load8(v) - ONES * '0';
	/* a byte below '0' borrows only from the bytes after it: the first non-digit is exact */
	uint64_t nd = (x | (x + ONES * (0x80 - 10))) & HIGHS;
	unsigned int n = nd ? (unsigned int)__builtin_ctzll(nd) >> 3 : 8;

	if (!n)
		return 0;
	*val = dec_value(x, n);
	return n;
}
#endif

static int is_end(char c)
{
	return c == ' ' || !c;
}

/*
 * A BOOL value that ends at a blank or the line's end: "0" or "1" (version
 * 1), "true" or "false" (version 2, the stock events), as convert_slow()
 * reads them.  Return: its length with *@val set, or 0 for any other value.
 */
static inline __attribute__((always_inline)) unsigned int bool_word(const char *v, uint64_t *val)
{
	/* each byte compared only while the ones before it matched: no read past the NUL */
	if ((v[0] == '0' || v[0] == '1') && is_end(v[1])) {
		*val = v[0] == '1';
		return 1;
	}
	if (v[0] == 't' && v[1] == 'r' && v[2] == 'u' && v[3] == 'e' && is_end(v[4])) {
		*val = 1;
		return 4;
	}
	if (v[0] == 'f' && v[1] == 'a' && v[2] == 'l' && v[3] == 's' && v[4] == 'e' &&
	    is_end(v[5])) {
		*val = 0;
		return 5;
	}
	return 0;
}

/* strtoull(v, NULL, 16), without the call for the plain digits the kernel prints. */
static uint64_t conv_hex(const char *v, const char *end)
{
	uint64_t n = 0;
	int i, d;

	if (v[0] == '0' && (v[1] | 0x20) == 'x')
		return strtoull(v, NULL, 16);	/* a 0x prefix */
#ifdef HEX_SSE2
	if (end && v + 16 <= end) {
		unsigned int nd = hex16(v, &n);

		if (!nd || (nd == 16 && hex_val[(unsigned char)v[16]] >= 0))
			return strtoull(v, NULL, 16);	/* blanks, a sign, saturation */
		return n;
	}
#elif defined(HEX_WORDS)
	if (end && v + 16 <= end) {
		uint64_t x0 = load8(v), x1, m;
		unsigned int n1;

		m = ~hex_valid(x0) & HIGHS;
		if (m)
			return m & 0x80 ? strtoull(v, NULL, 16) :
			       hex_pack(x0, (unsigned int)__builtin_ctzll(m) >> 3);
		x1 = load8(v + 8);
		m = ~hex_valid(x1) & HIGHS;
		n1 = m ? (unsigned int)__builtin_ctzll(m) >> 3 : 8;
		if (n1 == 8 && hex_val[(unsigned char)v[16]] >= 0)
			return strtoull(v, NULL, 16);	/* saturation */
		return n1 ? hex_pack(x0, 8) << (4 * n1) | hex_pack(x1, n1) : hex_pack(x0, 8);
	}
#else
	(void)end;
#endif
	for (i = 0; i < 16 && (d = hex_val[(unsigned char)v[i]]) >= 0; i++)
		n = n << 4 | (uint64_t)d;
	if (!i || (i == 16 && hex_val[(unsigned char)v[16]] >= 0))
		return strtoull(v, NULL, 16);	/* blanks, a sign, saturation */
	return n;
}

/* strtoll(v, &end, 10) when it reads digits: 1 and *out, else 0. */
static int conv_dec(const char *v, long long *out)
{
	long long n = 0;
	char *end;
	int i;

	if (!*v)
		return 0;
	for (i = 0; i < 18 && (unsigned int)(v[i] - '0') < 10; i++)
		n = n * 10 + (v[i] - '0');
	if (i && (unsigned int)(v[i] - '0') >= 10) {
		*out = n;
		return 1;
	}
	n = strtoll(v, &end, 10);		/* blanks, a sign, saturation */
	if (end == v)
		return 0;
	*out = n;
	return 1;
}

/*
 * The index of @v in an enumeration's words, PARSE_WORD_UNKNOWN for
 * "unknown", -1 for anything else: mmlock_word_index() with the first byte
 * compared before the rest.
 */
static int word_id(const char *const *words, const char *v)
{
	int i;

	if (v[0] == 'u' && !strcmp(v, "unknown"))
		return PARSE_WORD_UNKNOWN;
	for (i = 0; words[i]; i++)
		if (words[i][0] == v[0] && !strcmp(words[i], v))
			return i;
	return -1;
}

/* parsed_convert() of the forms its fast paths leave: strtoull(), strtoll(), words. */
static __attribute__((noinline)) void convert_slow(struct parsed_vals *c, enum parse_field f,
						  const char *v, const char *end)
{
	long long n;

	switch (parse_fields[f].conv) {
	case PCONV_HEX:
		c->num[f] = conv_hex(v, end);
		break;
	case PCONV_DEC:
		if (conv_dec(v, &n)) {
			c->num[f] = (uint64_t)n;
			c->num_ok |= 1u << f;
		}
		break;
	case PCONV_BOOL:
		c->num[f] = (v[0] == '1' && !v[1]) || (v[0] == 't' && !strcmp(v, "true"));
		break;
	case PCONV_LOCK:
		c->num[f] = (uint64_t)(int64_t)word_id(mmlock_words_fault_lock, v);
		break;
	case PCONV_STR:
		break;
	}
}

void parsed_convert(const struct parsed_line *pl, enum parse_field f)
{
	/* the cache of a record defined writable: parsed_line's comment */
	struct parsed_vals *c = (struct parsed_vals *)&pl->v;
	const char *v = pl->str[f];
	unsigned int n;
	uint64_t x;

	c->done |= 1u << f;
	/* the kernel's plain forms here, without a call that would cost more than they do */
	switch (parse_fields[f].conv) {
	case PCONV_HEX:
#ifdef HEX_SSE2
		/* digits up to any other byte are the value, as strtoull() reads them */
		if (pl->end && hex_digits(v, pl->end, &x)) {
			c->num[f] = x;
			return;
		}
#endif
		break;
	case PCONV_DEC:
#ifdef SWAR
		if (pl->end && v + 8 <= pl->end + 1 && (n = dec8(v, &x)) && n < 8) {
			c->num[f] = x;
			c->num_ok |= 1u << f;
			return;
		}
#endif
		break;
	case PCONV_BOOL:
		/* a value is its text up to its NUL: bool_word()'s blank is never in it */
		if ((n = bool_word(v, &x)) && !v[n]) {
			c->num[f] = x;
			return;
		}
		break;
	default:
		break;
	}
	convert_slow(c, f, v, pl->end);
}

void parsed_convert_all(const struct parsed_line *pl)
{
	uint32_t m;

	for (m = pl->have & ~pl->v.done; m; m &= m - 1)
		parsed_convert(pl, (enum parse_field)__builtin_ctz(m));
}

/* The first value of a field is its value, as parsed_get() finds it. */
static void set_field(struct parsed_line *out, int f, const char *v)
{
	if (f < 0 || out->have >> f & 1)
		return;
	out->have |= 1u << f;
	out->str[f] = v;
}

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

static int is_digit(char c)
{
	return (unsigned int)(c - '0') < 10;
}

/* The TGID column's number: strtoll() of its digits, -1 without or past INT_MAX. */
static int read_int(const char *t)
{
	uint64_t v = 0;

	if (!is_digit(*t))
		return -1;
	for (; is_digit(*t); t++)
		if ((v = v * 10 + (uint64_t)(*t - '0')) > INT_MAX)
			return -1;
	return (int)v;
}

static const char *skip_spaces(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* @s: the line from its first byte that is no blank */
static int parse_header(const char *s)
{
	switch (*s) {
	case '\0':
	case '#':
		return 1;
	case 'c':
		return !strncmp(s, "cpus=", 5);
	case 'v':
		return !strncmp(s, "version = ", 10);
	case 'C':
		return !strncmp(s, "CPU ", 4) && strstr(s, " is empty");
	default:
		return 0;
	}
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
	uint64_t secs = 0, frac = 0;
	const char *q = s, *f;
	int digits = 0;

	/* SECS: 1 to 12 digits up to the first '.'; FRACTION: digits to the end */
	while (q < end && is_digit(*q))
		secs = secs * 10 + (uint64_t)(*q++ - '0');
	if (q == s || q == end || *q != '.' || q - s > 12)
		return -1;
	/* 2^64 ns is 18446744073.7 s: a later time would wrap into the past */
	if (secs > 18446744072ULL)
		return -1;
	for (f = ++q; q < end && is_digit(*q); q++)
		if (digits < 9)
			frac = frac * 10 + (uint64_t)(*q - '0'), digits++;
	if (q == f || q != end)
		return -1;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = secs * 1000000000ULL + frac;
	return 0;
}

#ifdef SWAR
/*
 * parse_ts() of the usual "SECS.FRACTION:" at @s (up to 7 digits each),
 * eight bytes at once and without a search for the ':' first.  Return: the
 * ':', or NULL to leave the timestamp to the search and parse_ts().
 */
static char *ts_fast(char *s, const char *end, uint64_t *ns)
{
	static const uint64_t scale[8] = { 0, 100000000, 10000000, 1000000, 100000, 10000, 1000,
					   100 };
	uint64_t secs, frac;
	unsigned int n, m;
	char *f;

	if (s + 8 > end + 1 || !(n = dec8(s, &secs)) || n == 8 || s[n] != '.')
		return NULL;
	f = s + n + 1;
	if (f + 8 > end + 1 || !(m = dec8(f, &frac)) || m == 8 || f[m] != ':')
		return NULL;
	*ns = secs * 1000000000ULL + frac * scale[m];
	return f + m;
}
#endif

static int is_hex(const char *s, const char *end)
{
	for (; s < end; s++)
		if (!isxdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* The last " write=" at or after @s, or NULL. */
static char *last_write_key(char *s)
{
	char *hit = NULL, *q;

	for (q = strstr(s, " write="); q; q = strstr(q + 1, " write="))
		hit = q;
	return hit;
}

/* The first ' ' or NUL at or after @s; @end is the line's NUL (readable). */
static char *find_space(char *s, const char *end)
{
	return find_byte2(s, end, ' ', ' ');
}

static int pat_match(const struct key_pat *k, const char *tok)
{
	/* most keys fit the first word: no second load for them */
	return !((load8(tok) ^ k->w[0]) & k->m[0]) &&
	       (!k->m[1] || !((load8(tok + 8) ^ k->w[1]) & k->m[1]));
}

/*
 * The last number the one pass read for each DEC field, with the eight
 * bytes dec8() read it from: a trace repeats a tgid, a priority, a pid line
 * after line, and comparing a word costs less than converting it again.
 * The word decides the value and its end (len, 1 to 7 digits, the byte
 * after them within the word), so a hit reads what dec8() would.  len 0:
 * nothing remembered.  (Not for HEX fields: a real capture's mm changes
 * from one line to the next, and a miss there costs more than a hit
 * saves.)  Per thread: parse_line() may run in any thread.
 */
#ifdef SWAR
struct num_memo {
	uint64_t	w;
	uint64_t	val;
	unsigned int	len;
};

static _Thread_local struct num_memo memo[PF_NR];
#endif

/*
 * The one pass of a line whose payload is exactly the contract's fields in
 * order ("key=value" separated by single spaces, no value holding a space,
 * version 1's pid= allowed first): each key compared whole, each value's
 * end found by one scan (its conversion waits for a read: parsed_convert()).
 * Nothing is written into the line until
 * the whole payload is known to be of that form, so anything else (a
 * [module] after a caller, a field out of order, a damaged line) goes to
 * split_payload() untouched.  The record is then what split_payload() makes
 * of the line.  Return: 0 with *@pid_end as split_payload() returns it, or
 * -1 with @out as it was.
 */
static int split_payload_fast(char *p, const char *end, int id, struct parsed_line *out,
			      char **pid_end, uint32_t *words)
{
	/* the event's template: its keys in the contract's order, kq the one expected next */
	const struct key_pat *kq = pred[id], *kp;
	unsigned int n = 0, i;
	uint32_t have = 0, done = 0, ok = 0, wd = 0;
	char *tok = p, *v, *v0, *e, c;
#ifdef HEX_SSE2
	const char *h;
#endif
#ifdef SWAR
	struct num_memo *mo;
#endif
	/* the last place a key pattern's sixteen bytes may be loaded */
	const char *wide_end = end + 1 - 16;
#ifdef SWAR
	uint64_t x;
#endif

	*pid_end = NULL;
	if (tok <= wide_end && !pat_match(kq, tok) && pat_match(&v1_pid, tok)) {
		/* version 1's pid= before the contract's fields: the one key off the template */
		kp = &v1_pid;
		v0 = tok + kp->len + 1;
		goto matched;
	}
	v0 = tok + kq->len + 1;	/* the first value, when the first key matches */
	for (;;) {
		/* the zero entry after the last key: one load, no end kept in a register */
		if (!kq->len)
			goto restore;
		if (tok <= wide_end ? !pat_match(kq, tok) :
		    /* near the end: a key of one word, or byte by byte */
		    !kq->m[1] && tok + 8 <= end + 1 ? (load8(tok) ^ kq->w[0]) & kq->m[0] :
		    !same_bytes(kq->name, tok, kq->len) || tok[kq->len] != '=')
			goto restore;
		kp = kq++;
matched:
		v = tok + kp->len + 1;
		if (kp->bit) {
			/*
			 * A field the analyzer reads, and its first value: the
			 * template's keys are distinct and none is version 1's
			 * pid (tables_fill()).  A number whose end its
			 * conversion finds costs no more than the search for the
			 * end: converted here; other values when read
			 * (parsed_convert()).
			 */
			have |= kp->bit;
			out->str[kp->pf] = v;
			switch (kp->conv) {
#ifdef HEX_SSE2
			case PCONV_HEX:
				if ((h = hex_digits(v, end, &x)) && is_end(*h)) {
					out->v.num[kp->pf] = x;
					done |= kp->bit;
					e = v + (h - v);
					goto stored;
				}
				break;
#endif
#ifdef SWAR
			case PCONV_DEC:
				if (v + 8 > end + 1)
					break;
				mo = &memo[kp->pf];
				if (mo->len && load8(v) == mo->w) {
					x = mo->val;
					i = mo->len;
				} else if ((i = dec8(v, &x)) && i < 8 && is_end(v[i])) {
					mo->w = load8(v);
					mo->len = i;
					mo->val = x;
				} else {
					break;
				}
				out->v.num[kp->pf] = x;
				done |= kp->bit;
				ok |= kp->bit;
				e = v + i;
				if (!n && kp->pf == PF_PID)
					*pid_end = e;
				goto stored;
#endif
			case PCONV_BOOL:
				if ((i = bool_word(v, &x))) {
					out->v.num[kp->pf] = x;
					done |= kp->bit;
					wd |= i > 1 ? kp->bit : 0;
					e = v + i;
					goto stored;
				}
				break;
			default:
				break;
			}
		}
		e = find_space(v, end);
stored:
		/* split as split_payload() does; undone below if the form breaks */
		n++;
		v[-1] = '\0';
		c = *e;
		*e = '\0';
		if (!c)
			break;
		tok = e + 1;
	}
	out->nr_fields = (int)n;
	out->packed = 1;
	out->keys[0] = p;	/* check_pid() reads the first pair */
	out->vals[0] = v0;
	out->have |= have;
	out->v.done |= done;
	out->v.num_ok |= ok;
	*words = wd;
	return 0;
restore:
	/* every value split so far ended at a blank before the next key */
	for (e = p, i = 0; i < n; i++) {
		e += strlen(e);
		*e = '=';
		e += strlen(e);
		*e++ = ' ';
	}
	return -1;
}

/*
 * KEY=VALUE pairs, VALUE running to the next KEY=.  A custom event prints
 * its fields in the contract's order: the key expected next is compared
 * whole (two words), and only a key out of that order is scanned and looked
 * up; both find the same key.
 */
static void split_payload(char *p, const char *end, int id, struct parsed_line *out)
{
	const struct key_pat *pk = id >= 0 && id < MMLOCK_EV_NR ? pred[id] : NULL;
	unsigned int k = 0, nk = pk ? nr_pred[id] : 0, j;
	char *tok = p, *sp, *eq;

	while (*tok) {
		int room = out->nr_fields < PARSE_MAX_FIELDS, f, wide = tok + 16 <= end + 1;
		size_t len;

		if (room && k < nk && (wide ? pat_match(&pk[k], tok) :
				       same_bytes(pk[k].name, tok, pk[k].len) && tok[pk[k].len] == '=')) {
			len = pk[k].len;
			f = pk[k++].pf;
		} else if (room && wide && pk && !k && pat_match(&v1_pid, tok)) {
			len = v1_pid.len;	/* version 1's pid= before the contract's fields */
			f = v1_pid.pf;
		} else {
			for (eq = tok; key_char[(unsigned char)*eq]; eq++)
				;
			if (*eq != '=' || eq == tok || !room) {
				/*
				 * A continuation of the previous value ("[module]",
				 * spaces): the value is converted when read, whole.
				 */
				sp = find_space(eq, end);
				if (!*sp)
					break;
				tok = sp + 1;
				continue;
			}
			len = (size_t)(eq - tok);
			f = name_get(field_slots, tok, len);
			for (j = 0; j < nk; j++)
				if (pk[j].len == len && same_bytes(pk[j].name, tok, len))
					k = j + 1;	/* the expected order goes on from here */
		}
		eq = tok + len;
		/* a new key: end the previous value at the space before it */
		if (tok > p && tok[-1] == ' ')
			tok[-1] = '\0';
		*eq = '\0';
		out->keys[out->nr_fields] = tok;
		out->vals[out->nr_fields] = eq + 1;
		out->nr_fields++;
		set_field(out, f, eq + 1);
		/*
		 * The stock mmap_lock events of kernels <= 6.13 print the
		 * memcg's cgroup path with a bare %s: "" without a memcg,
		 * "/" for the root, any byte but '/' and '\n' in a name
		 * (spaces, '=', even " write=" itself), cut at 255 bytes.
		 * Only write= and success= (fixed words) follow it, so
		 * the path runs to the last " write=" of the line.
		 */
		if (len == 10 && !memcmp(tok, "memcg_path", 10)) {
			sp = last_write_key(eq + 1);
			if (!sp)
				break;	/* a cut line: the rest is the path */
			tok = sp + 1;
			continue;
		}
		sp = find_space(eq + 1, end);
		if (!*sp)
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
	set_field(out, PF_LOCK_ADDR, p);
	if (begin)
		set_field(out, PF_FLAGS, v);
	return 0;
}

/* "true" or "false", byte by byte: a call to strcmp() would cost more than the compare */
static int is_bool_word(const char *v)
{
	return v && (v[0] == 't' ? v[1] == 'r' && v[2] == 'u' && v[3] == 'e' && !v[4] :
		     v[0] == 'f' && v[1] == 'a' && v[2] == 'l' && v[3] == 's' && v[4] == 'e' &&
		     !v[5]);
}

/*
 * The analyzer reads a stock mmap_lock event by mm, write and success alone.
 * A line without them (one cut inside a long memcg_path, say) would pass for
 * a read-mode event, so it is malformed instead.
 */
static void check_stock(struct parsed_line *out, uint32_t words)
{
	const uint32_t write = 1u << PF_WRITE, both = write | 1u << PF_SUCCESS;
	static const char *const what[] = {
		"mm=PTR ... write=true|false in mmap_lock_start_locking",
		"mm=PTR ... write=true|false success=true|false in mmap_lock_acquire_returned",
		"mm=PTR ... write=true|false in mmap_lock_released",
	};
	const char *mm = pl_str(out, PF_MM);
	int k;

	if (out->id == MMLOCK_EV_MMAP_LOCK_START_LOCKING)
		k = 0;
	else if (out->id == MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED)
		k = 1;
	else if (out->id == MMLOCK_EV_MMAP_LOCK_RELEASED)
		k = 2;
	else
		return;
	/* words: the BOOL fields the one pass read as true/false, no compare again */
	if (mm && *mm && ((words & (k == 1 ? both : write)) == (k == 1 ? both : write) ||
			  (is_bool_word(pl_str(out, PF_WRITE)) &&
			   (k != 1 || is_bool_word(pl_str(out, PF_SUCCESS))))))
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
static void check_pid(struct parsed_line *out, const char *pid_end)
{
	const char *v;
	uint64_t n = 0;

	/* version 1 prints it first, and only there does it name the task */
	if (out->kind != LINE_EVENT || !out->nr_fields)
		return;
	v = out->keys[0];
	if (v[0] != 'p' || v[1] != 'i' || v[2] != 'd' || v[3])
		return;
	/* converted while splitting, digits up to the value's end: its number decides */
	if (pid_end && !*pid_end && out->v.num[PF_PID] <= INT_MAX)
		return;
	/* what strtoll() accepts whole, without a sign or blanks, up to INT_MAX */
	for (v = out->vals[0]; isdigit((unsigned char)*v) && n <= INT_MAX; v++)
		n = n * 10 + (uint64_t)(*v - '0');
	if (v != out->vals[0] && !*v && n <= INT_MAX)
		return;
	out->kind = LINE_MALFORMED;
	out->what = "pid=N with 0 <= N <= 2147483647";
}

#ifdef SWAR
/* How many of the top bytes of @x a high bit in @m does not mark (0..7; @m not 0). */
static unsigned int top_unmarked(uint64_t m)
{
	return 7 - ((63 - (unsigned int)__builtin_clzll(m)) >> 3);
}

/*
 * The blanks that end at @s (0 to 7 of them, none before @line): the first
 * of them, or NULL when eight bytes before @s are blanks or lie before @line.
 */
static char *blanks_back(const char *line, char *s)
{
	uint64_t m;

	if (s - 8 < line)
		return NULL;
	m = nonzero_bytes(load8(s - 8) ^ ONES * ' ');	/* the bytes that are no blank */
	return m ? s - top_unmarked(m) : NULL;
}

/* "(-------)", the TGID column of a task whose TGID was not saved, as a word from its '(' */
#define NO_TGID_COL	((ONES * '-' & ~0xffULL) | '(')

/*
 * The usual "COMM-PID<blanks>[CPU]" or "COMM-PID<blanks>(<blanks>TGID)<blanks>[CPU]"
 * at the line's first '[' @open, read a word at a time: up to 7 CPU digits,
 * up to 7 blanks before the bracket and before the '(', a TGID column of
 * up to 7 blanks and 7 digits or "(-------)", up to 7 PID digits after a
 * '-'.  Within those bounds the general search below takes this same
 * bracket (the '(' is the last one of the column) and reads the same values.
 * Return: 1 with @out's comm, pid, tgid and cpu and *@close set, 0 (nothing
 * written) to leave the line to the general search.
 */
static int header_fast(const char *line, char *p, char *open, const char *end,
		       struct parsed_line *out, char **close)
{
	uint64_t cpu, m;
	unsigned int n, k;
	char *pre_end, *dash, *lp;
	int tg = -1;

	if (open == p || open + 9 > end + 1 || open[-1] != ' ')
		return 0;
	n = dec8(open + 1, &cpu);
	if (!n || n == 8 || open[1 + n] != ']')
		return 0;
	pre_end = blanks_back(line, open);
	if (!pre_end || pre_end <= p)
		return 0;
	if (pre_end[-1] == ')') {
		/* the TGID column: from its ')' back over digits and blanks to its '(' */
		lp = pre_end - 1;
		if (lp - 8 < line)
			return 0;
		if (load8(lp - 8) == NO_TGID_COL) {
			lp -= 8;
		} else {
			m = ~digit_bytes(load8(lp - 8)) & HIGHS;
			if (!m || !(k = top_unmarked(m)))
				return 0;
			/* the k digits found: their value without a second search for their end */
			tg = (int)dec_value(load8(lp - k) - ONES * '0', k);
			lp = blanks_back(line, lp - k);
			if (!lp || lp[-1] != '(')
				return 0;
			lp--;
		}
		if (lp <= p)
			return 0;
		pre_end = blanks_back(line, lp);
		if (!pre_end || pre_end <= p)
			return 0;
	}
	if (pre_end - 8 < line)
		return 0;
	m = ~digit_bytes(load8(pre_end - 8)) & HIGHS;
	if (!m)
		return 0;
	k = top_unmarked(m);
	dash = pre_end - k;
	if (!k || dash <= p || dash[-1] != '-')
		return 0;
	out->pid = (int)dec_value(load8(dash) - ONES * '0', k);
	out->tgid = tg;
	dash[-1] = '\0';
	out->comm = p;
	out->cpu = (int)cpu;
	*close = open + 1 + n;
	return 1;
}
#endif

void parse_line(char *line, struct parsed_line *out)
{
	parse_line_n(line, strlen(line), out);
}

void parse_line_n(char *line, size_t len, struct parsed_line *out)
{
	char *p, *open, *close, *pre_end, *dash, *ts, *ts_end, *name, *colon, *pid_end = NULL;
	uint32_t words = 0;
	/* a NUL inside ends the line all the same: scans stop at any NUL */
	const char *end = line + len;
	int space;

	parsed_line_reset(out, LINE_HEADER);
	out->end = end;
	if (!tables_ready)
		tables_fill();
	p = skip_blanks(line, end);
	if (parse_header(p)) {
		out->kind = LINE_HEADER;
		return;
	}
	if (p[0] == '=' && p[1] == '>' && p[2] == ' ') {
		out->kind = LINE_FRAME;
		out->frame = p + 3;
		return;
	}
	if (p[0] == '#' && !strncmp(p, "##### CPU", 9)) {
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
	/* no call: the bracket lies within the first 32 bytes of most lines */
	open = find_byte2(p, end, '[', '[');
	if (!*open)
		open = NULL;
#ifdef SWAR
	if (open && header_fast(line, p, open, end, out, &close))
		goto cpu_found;
#endif
	for (; open; open = strchr(open + 1, '[')) {
		uint64_t v = 0;
		char *q;

		close = open + 1;
		while (is_digit(*close) && close - open <= 10)
			close++;
		if (close == open + 1 || *close != ']' || open == p || open[-1] != ' ')
			continue;
		pre_end = open;
		while (pre_end > p && pre_end[-1] == ' ' && open - pre_end < MAX_GAP)
			pre_end--;
		if (pre_end > p && pre_end[-1] == ')') {
			/* the last '(' of the MAX_TGID_COL bytes before: one call, not a loop per candidate */
			char *from = pre_end - p > MAX_TGID_COL ? pre_end - MAX_TGID_COL : p;
			char *lp = memrchr(from, '(', (size_t)(pre_end - from));

			if (!lp)
				continue;
			out->tgid = read_int(skip_spaces(lp + 1));
			pre_end = lp;
			while (pre_end > p && pre_end[-1] == ' ' && lp - pre_end < MAX_GAP)
				pre_end--;
		}
		dash = pre_end;
		while (dash > p && is_digit(dash[-1]) && pre_end - dash <= 10)
			dash--;
		if (dash == pre_end || dash == p || dash[-1] != '-')
			continue;
		/* at most 11 digits: no overflow */
		for (q = dash; q < pre_end; q++)
			v = v * 10 + (uint64_t)(*q - '0');
		if (v > INT_MAX)
			continue;
		out->pid = (int)v;
		dash[-1] = '\0';
		out->comm = p;
		/* atoi() of at most 10 digits, as it always was */
		for (v = 0, q = open + 1; q < close; q++)
			v = v * 10 + (uint64_t)(*q - '0');
		out->cpu = (int)(long)v;
		break;
	}
	if (!open) {
		out->what = "COMM-PID [CPU] at the start of an event line";
		return;
	}
#ifdef SWAR
cpu_found:
#endif
	/* optional flags, then the timestamp ending in ':' */
	ts = skip_blanks(close + 1, end);
	ts_end = find_byte2(ts, end, ':', ' ');
	if (*ts_end == ' ') {
		/* that token was the latency flags (or the line has no ':') */
		ts = skip_blanks(ts_end, end);
#ifdef SWAR
		ts_end = ts_fast(ts, end, &out->ts_ns);
		if (ts_end)
			goto ts_read;
#endif
		ts_end = strchr(ts, ':');
		if (!ts_end) {
			out->what = "a TIMESTAMP: after the CPU";
			return;
		}
	} else if (!*ts_end) {
		out->what = "a TIMESTAMP: after the CPU";
		return;
	}
	if (parse_ts(ts, ts_end, &out->ts_ns)) {
		out->what = "a timestamp SECS.FRACTION";
		return;
	}
#ifdef SWAR
ts_read:
#endif
	name = (char *)skip_spaces(ts_end + 1);
	if (!*name) {
		out->what = "an EVENT name after the timestamp";
		return;
	}
	if (*name == '<' && (!strncmp(name, "<stack trace>", 13) ||
			     !strncmp(name, "<user stack trace>", 18))) {
		out->kind = LINE_STACK;
		out->event = "<stack trace>";
		return;
	}
	if (*name == 'U' && !strcmp(name, "UNKNOWN EVENT")) {
		/* libtraceevent could not decode this record: an event all the same */
		out->kind = LINE_EVENT;
		out->event = "<unknown>";
		return;
	}
	colon = find_byte2(name, end, ':', ' ');
	space = *colon == ' ';
	if (space)
		colon = find_byte2(colon, end, ':', ':');
	if (!*colon || (colon[1] && colon[1] != ' ') || colon == name) {
		out->what = "EVENT: after the timestamp";
		return;
	}
	*colon = '\0';
	if (space) {
		out->what = "an EVENT name without spaces";
		return;
	}
	out->event = name;
	out->kind = LINE_EVENT;
	out->id = event_id(name, (size_t)(colon - name), end);
	if (out->id == PARSE_EV_X(EVSET_X_CONTENTION_BEGIN) ||
	    out->id == PARSE_EV_X(EVSET_X_CONTENTION_END)) {
		int begin = out->id == PARSE_EV_X(EVSET_X_CONTENTION_BEGIN);

		if (!colon[1] || split_contention(colon + 2, out, begin)) {
			out->kind = LINE_MALFORMED;
			out->what = begin ? "LOCK (flags=WORDS) in contention_begin" :
				    "LOCK (ret=N) in contention_end";
		}
		return;
	}
	if (colon[1] && (out->id < 0 || out->id >= MMLOCK_EV_NR || !pred_whole[out->id] ||
			 split_payload_fast(colon + 2, end, out->id, out, &pid_end, &words))) {
		pid_end = NULL;
		words = 0;
		split_payload(colon + 2, end, out->id, out);
	}
	check_stock(out, words);
	check_pid(out, pid_end);
}

const char *parsed_get(const struct parsed_line *pl, const char *key)
{
	const char *k, *v;
	int i;

	if (!pl->packed) {
		for (i = 0; i < pl->nr_fields; i++)
			if (!strcmp(pl->keys[i], key))
				return pl->vals[i];
		return NULL;
	}
	/* split_payload_fast() left "key\0value\0" after each other */
	for (i = 0, k = pl->nr_fields ? pl->keys[0] : NULL; i < pl->nr_fields; i++) {
		v = k + strlen(k) + 1;
		if (!strcmp(k, key))
			return v;
		k = v + strlen(v) + 1;
	}
	return NULL;
}
