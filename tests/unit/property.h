/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the analyzer's property tests (analyzer_property.c, stock_property.c)
 * share: a reproducible random generator, growable arrays, running
 * a program quietly and `mmlock analyze`, and looking values up in its summary.
 */
#ifndef MMLOCK_PROPERTY_H
#define MMLOCK_PROPERTY_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

/* ---- random numbers: splitmix64, reproducible from the seed ---- */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [lo, hi] */
static int rr(int lo, int hi)
{
	return lo + (int)(rnd() % (uint64_t)(hi - lo + 1));
}

static int chance(int pct)
{
	return rr(0, 99) < pct;
}

/* ---- growable arrays ---- */
#define VEC(type, name) struct { type *v; size_t n, cap; } name
#define PUSH(vec, val)							\
	do {								\
		if ((vec).n == (vec).cap) {				\
			(vec).cap = (vec).cap ? 2 * (vec).cap : 64;	\
			(vec).v = realloc((vec).v, (vec).cap * sizeof(*(vec).v)); \
			if (!(vec).v)					\
				abort();				\
		}							\
		(vec).v[(vec).n++] = (val);				\
	} while (0)

/* Run a program quietly (no output); its exit status, or -1. */
static int run_quiet(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* `mmlock analyze IN -o OUT`, quietly: its exit status, or -1. */
static int run_analyzer(const char *mmlock, const char *in, const char *out)
{
	char *const argv[] = { (char *)mmlock, "analyze", (char *)in, "-o", (char *)out, NULL };

	return run_quiet(argv);
}

/* Look up a dotted path; *found = 0 when a component is missing. */
static struct json_object *lookup(struct json_object *root, const char *path, int *found)
{
	char buf[256], *save = NULL, *tok;
	struct json_object *o = root;

	snprintf(buf, sizeof(buf), "%s", path);
	*found = 1;
	for (tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		if (!o || !json_object_object_get_ex(o, tok, &o)) {
			*found = 0;
			return NULL;
		}
	}
	return o;
}

#endif /* MMLOCK_PROPERTY_H */
