// SPDX-License-Identifier: GPL-2.0
/*
 * v2-convert: trace text of version 1 of the event contract on stdin, the
 * same trace in version 2's text form on stdout (tracepoints/mmlock_events.h):
 *
 *   - a custom event's leading "pid=N " goes; N becomes the header's PID
 *     (COMM-PID before the CPU), which is where version 2 keeps it;
 *   - its booleans (write, success, major, lock_dropped, anon, detach) print
 *     true|false instead of 1|0.
 *
 * Every other line (stock events, stack frames, LOST markers, comments) is
 * copied unchanged.  The analyzer suite analyzes each golden fixture in both
 * forms and requires byte-identical summaries.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmlock_events.h"

static const char *const bools[] = {
	"write", "success", "major", "lock_dropped", "anon", "detach", NULL
};

/* The custom event named at @p ("NAME: "), or NULL. */
static int custom_event_at(const char *p)
{
	int i;

	for (i = 0; i < MMLOCK_EV_NR_CUSTOM; i++) {
		size_t n = strlen(mmlock_events[i].name);

		if (!strncmp(p, mmlock_events[i].name, n) && !strncmp(p + n, ": ", 2))
			return (int)n;
	}
	return 0;
}

/*
 * In the header (line[0..end)), the PID digits: those after the last '-'
 * that is followed only by digits, then blanks, then '(' or '['.
 */
static void find_pid(const char *line, const char *end, const char **ps, const char **pe)
{
	const char *p;

	*ps = *pe = NULL;
	for (p = line; p < end; p++) {
		const char *d = p + 1, *q;

		if (*p != '-' || !isdigit((unsigned char)*d))
			continue;
		while (d < end && isdigit((unsigned char)*d))
			d++;
		q = d;
		while (q < end && *q == ' ')
			q++;
		if (q < end && q > d && (*q == '(' || *q == '[')) {
			*ps = p + 1;
			*pe = d;
		}
	}
}

static void convert(char *line)
{
	char *ev = NULL, *p, *payload, *pid, *pid_end;
	const char *hs, *he;
	int n = 0, i;

	/* "TIMESTAMP: NAME: payload": the first custom event name after ": " */
	for (p = strstr(line, ": "); p; p = strstr(p + 1, ": ")) {
		n = custom_event_at(p + 2);
		if (n) {
			ev = p + 2;
			break;
		}
	}
	if (!ev) {
		fputs(line, stdout);
		return;
	}
	payload = ev + n + 2;
	if (strncmp(payload, "pid=", 4)) {
		fputs(line, stdout);	/* already version 2 */
		return;
	}
	pid = payload + 4;
	pid_end = pid;
	while (isdigit((unsigned char)*pid_end))
		pid_end++;
	find_pid(line, ev, &hs, &he);
	if (hs)
		printf("%.*s%.*s%.*s", (int)(hs - line), line, (int)(pid_end - pid), pid,
		       (int)(payload - he), he);
	else
		fwrite(line, 1, (size_t)(payload - line), stdout);
	p = *pid_end == ' ' ? pid_end + 1 : pid_end;
	/* the rest, token by token, booleans rewritten */
	while (*p) {
		size_t tl = strcspn(p, " \n");
		const char *eq = memchr(p, '=', tl);
		int done = 0;

		for (i = 0; eq && bools[i]; i++) {
			size_t kl = strlen(bools[i]);

			if ((size_t)(eq - p) == kl && !strncmp(p, bools[i], kl) &&
			    tl == kl + 2 && (eq[1] == '0' || eq[1] == '1')) {
				printf("%s=%s", bools[i], eq[1] == '1' ? "true" : "false");
				done = 1;
				break;
			}
		}
		if (!done)
			fwrite(p, 1, tl, stdout);
		p += tl;
		if (*p)
			putchar(*p++);
	}
}

int main(int argc, char **argv)
{
	char *line = NULL;
	size_t cap = 0;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: v2-convert <v1.trace >v2.trace\n");
		return 2;
	}
	while (getline(&line, &cap, stdin) > 0)
		convert(line);
	free(line);
	return ferror(stdout) ? 1 : 0;
}
