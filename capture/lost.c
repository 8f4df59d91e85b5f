// SPDX-License-Identifier: GPL-2.0
/*
 * The capture-level line grammar: see lost.h.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lost.h"

/* Decimal digits at *p into *v, saturating at @max; 0 when there are none. */
static int digits(const char **p, const char *end, uint64_t max, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned int d = (unsigned int)(*s - '0');

		*v = *v > (max - d) / 10 ? max : *v * 10 + d;
		s++;
	}
	if (s == *p)
		return 0;
	*p = s;
	return 1;
}

static int take(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - *p) < n || memcmp(*p, word, n))
		return 0;
	*p += n;
	return 1;
}

int lost_marker_parse(const char *line, size_t len, int *cpu, uint64_t *count)
{
	const char *p = line, *end = line + len;
	uint64_t c, n;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!take(&p, end, "CPU:") || !digits(&p, end, UINT64_MAX, &c) || c > INT_MAX ||
	    !take(&p, end, " [LOST ") || !digits(&p, end, UINT64_MAX, &n) ||
	    !take(&p, end, " EVENTS]"))
		return 0;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	if (p != end)
		return 0;
	*cpu = (int)c;
	*count = n;
	return 1;
}

int lost_marker_format(char *buf, size_t size, int cpu, uint64_t count)
{
	return snprintf(buf, size, "CPU:%d [LOST %" PRIu64 " EVENTS]\n", cpu, count);
}
