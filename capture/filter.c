// SPDX-License-Identifier: GPL-2.0
/*
 * A capture's process filter: see filter.h.
 */
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "tracestatus.h"
#include "util.h"

#define PID_LIST	"set_event_pid"
#define TGID_TEST	"tgid == "

char *trace_filter_tgids(const int *tgids, size_t n)
{
	char *f = xstrdup(""), *next;
	size_t i;

	for (i = 0; i < n; i++) {
		next = xasprintf("%s%s" TGID_TEST "%d", f, i ? " || " : "", tgids[i]);
		free(f);
		f = next;
	}
	return f;
}

char *trace_filter_line(const int *pids, size_t nr_pids, int event_fork,
			const struct ts_event *ev, size_t nr_ev)
{
	char *s = NULL, *n;
	size_t i;

	if (nr_pids) {
		s = xstrdup(PID_LIST);
		for (i = 0; i < nr_pids; i++) {
			n = xasprintf("%s %d", s, pids[i]);
			free(s);
			s = n;
		}
		if (event_fork) {
			n = xasprintf("%s (+event-fork)", s);
			free(s);
			s = n;
		}
	}
	for (i = 0; i < nr_ev; i++) {
		if (!ev[i].filter)
			continue;
		n = xasprintf("%s%s%s: %s", s ? s : "", s ? "; " : "", ev[i].name, ev[i].filter);
		free(s);
		s = n;
	}
	return s;
}

size_t trace_filter_pids(const char *line, int64_t *out, size_t max)
{
	const char *p = strstr(line, PID_LIST);
	size_t n = 0;
	char *end;

	if (p) {
		for (p += strlen(PID_LIST); n < max; p = end) {
			long long v;

			while (*p == ' ')
				p++;
			v = strtoll(p, &end, 10);
			if (end == p || (*end && *end != ' ' && *end != ';'))
				break;
			out[n++] = v;
		}
	}
	for (p = strstr(line, TGID_TEST); p && n < max; p = strstr(p + 1, TGID_TEST)) {
		long long v = strtoll(p + strlen(TGID_TEST), &end, 10);

		if (end != p + strlen(TGID_TEST))
			out[n++] = v;
	}
	return n;
}
