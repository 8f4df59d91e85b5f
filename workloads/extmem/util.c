// SPDX-License-Identifier: GPL-2.0
/* Verdict rows, payload patterns and small helpers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "extmem.h"

const char *status_name(enum status s)
{
	switch (s) {
	case S_OK: return "OK";
	case S_PARTIAL: return "PARTIAL";
	case S_UNSUPPORTED: return "UNSUPPORTED";
	case S_FAIL: return "FAIL";
	case S_SKIP: return "SKIP";
	}
	return "?";
}

const char *leg_value(const struct leg *l)
{
	if (!l->ran)
		return "notrun";
	if (l->read && l->write)
		return "rt";
	if (l->read)
		return "read-only";
	if (l->write)
		return "write-only";
	return "no";
}

void row_init(struct row *r, const char *route, int iteration)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->route, sizeof(r->route), "%s", route);
	r->iteration = iteration;
	r->st = S_FAIL;
}

struct leg *row_leg(struct row *r, const char *name, bool decisive)
{
	struct leg *l = &r->legs[r->nlegs < MAXLEGS ? r->nlegs++ : MAXLEGS - 1];

	l->name = name;
	l->decisive = decisive;
	return l;
}

void row_force(struct row *r, enum status st)
{
	r->st = st;
	r->forced = true;
}

/*
 * The strict rule: OK only when every decisive leg round-tripped bytes both
 * ways, PARTIAL when some did, FAIL when none did (and FAIL names a step).
 */
void row_finish(struct row *r)
{
	int decisive = 0, rt = 0;

	if (r->forced)
		goto why;
	for (int i = 0; i < r->nlegs; i++) {
		if (!r->legs[i].decisive)
			continue;
		decisive++;
		if (r->legs[i].ran && r->legs[i].read && r->legs[i].write)
			rt++;
	}
	if (decisive > 0 && rt == decisive)
		r->st = S_OK;
	else if (rt > 0)
		r->st = S_PARTIAL;
	else
		r->st = S_FAIL;
why:
	if ((r->st == S_FAIL || r->st == S_PARTIAL) && !r->why[0])
		appendf(r->why, sizeof(r->why), "a decisive leg did not round-trip bytes");
}

void row_trace(const struct row *r, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int i = 0; i < r->nlegs && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s[%s]=%s", i ? " " : "", r->legs[i].name,
				 r->legs[i].decisive ? "D" : "i", leg_value(&r->legs[i]));

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

void appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	if (used > 0 && used + 3 < len) {
		memcpy(buf + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

void hexstr(const uint8_t *b, size_t n, char *out)
{
	static const char hx[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hx[b[i] >> 4];
		out[2 * i + 1] = hx[b[i] & 15];
	}
	out[2 * n] = 0;
}

uint32_t pat_word(uint32_t seed, unsigned tag, size_t i)
{
	uint32_t x = seed ^ ((uint32_t)(tag + 1) << 24) ^ ((uint32_t)i * 0x9e3779b1u);

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return x | 1u;		/* never 0: a zeroed page never matches */
}

uint32_t fill_word(uint32_t seed)
{
	return (seed * 0x01000193u) ^ 0xe5e5e5e5u;
}

uint32_t fill_value(uint32_t seed, enum selftest st)
{
	return fill_word(seed) ^ (st == SELFTEST_CORRUPT ? 0x10u : 0u);
}

void pat_expect(void *out, enum region r, uint32_t seed)
{
	uint32_t *w = out;

	for (size_t i = 0; i < REGION / 4; i++)
		w[i] = pat_word(seed, r, i);
}

/* --self-test=corrupt flips one word of everything written: it must not read OK. */
void pat_write(void *base, enum region r, uint32_t seed, enum selftest st)
{
	volatile uint32_t *w = (volatile uint32_t *)((char *)base + (size_t)r * REGION);

	for (size_t i = 0; i < REGION / 4; i++)
		w[i] = pat_word(seed, r, i);
	if (st == SELFTEST_CORRUPT)
		w[7] ^= 0x100u;
}

bool pat_check(const void *base, enum region r, uint32_t seed)
{
	return pat_check_at((const char *)base + (size_t)r * REGION, r, seed);
}

/* p points at the region itself (a staging copy, a read-back) */
bool pat_check_at(const void *p, enum region r, uint32_t seed)
{
	const volatile uint32_t *w = p;

	for (size_t i = 0; i < REGION / 4; i++)
		if (w[i] != pat_word(seed, r, i))
			return false;
	return true;
}

bool fill_check(const void *base, enum region r, uint32_t seed)
{
	return fill_check_at((const char *)base + (size_t)r * REGION, seed);
}

bool fill_check_at(const void *p, uint32_t seed)
{
	const volatile uint32_t *w = p;
	uint32_t v = fill_word(seed);

	for (size_t i = 0; i < REGION / 4; i++)
		if (w[i] != v)
			return false;
	return true;
}

/* Where in a mapping does the exporter's payload (region A) start?  -1: nowhere. */
long payload_scan(const void *base, size_t len, uint32_t seed)
{
	const volatile uint32_t *w = base;
	uint32_t w0 = pat_word(seed, REG_A, 0);

	for (size_t i = 0; i + REGION / 4 <= len / 4; i++) {
		if (w[i] != w0)
			continue;
		if (pat_check_at((const char *)base + i * 4, REG_A, seed))
			return (long)(i * 4);
	}
	return -1;
}

uint32_t new_seed(void)
{
	static uint32_t n;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)ts.tv_nsec ^ ((uint32_t)getpid() << 16) ^ (++n * 0x85ebca6bu);
}

/* The size an fd reports for itself (memfd, dma-buf); -1 and errno when it has none. */
int fd_size(int fd, uint64_t *size)
{
	off_t end = lseek(fd, 0, SEEK_END);

	if (end < 0)
		return -1;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	if (end == 0) {
		errno = ENODATA;
		return -1;
	}
	*size = (uint64_t)end;
	return 0;
}

/* memfd_create(2); bionic has the wrapper from API 30 only */
int memfd(const char *name)
{
#if defined(__ANDROID__) && __ANDROID_API__ < 30
	return (int)syscall(__NR_memfd_create, name, MFD_CLOEXEC);
#else
	return memfd_create(name, MFD_CLOEXEC);
#endif
}
