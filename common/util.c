// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static const char *prog = "mmlock";
static int quiet;

void util_set_quiet(int on)
{
	quiet = on;
}

void util_set_prog(const char *name)
{
	prog = name;
}

const char *util_prog(void)
{
	return prog;
}

static void vreport(const char *level, const char *fmt, va_list ap)
{
	if (quiet)
		return;
	fprintf(stderr, "%s: %s", prog, level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void pr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void pr_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

static void oom(size_t size)
{
	fprintf(stderr, "%s: out of memory allocating %zu bytes (exit %d)\n", prog, size,
		MMLOCK_EXIT_NOMEM);
	exit(MMLOCK_EXIT_NOMEM);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom(strlen(s) + 1);
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		oom(n + 1);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return p;
}

/* strtoull/strtoll over the whole string; errno EINVAL when anything is left. */
static int parse_whole(const char *s, int is_signed, unsigned long long *u, long long *i)
{
	char *end;

	/*
	 * strto*() skip blanks and take a sign: " -5" would read as 2^64 - 5.
	 * A number starts with a digit ('-' then a digit where signed).
	 */
	if (!s || !(isdigit((unsigned char)*s) ||
		    (is_signed && *s == '-' && isdigit((unsigned char)s[1])))) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	if (is_signed)
		*i = strtoll(s, &end, 0);
	else
		*u = strtoull(s, &end, 0);
	if (errno)
		return -1;
	if (*end) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;

	if (parse_whole(s, 0, &v, NULL))
		return -1;
	*out = v;
	return 0;
}

int parse_i64(const char *s, int64_t *out)
{
	long long v;

	if (parse_whole(s, 1, NULL, &v))
		return -1;
	*out = v;
	return 0;
}

static int parse_scaled(const char *s, uint64_t *out,
			const char *const *suffixes, const uint64_t *scales)
{
	unsigned long long v;
	char *end;
	int i;

	if (!s || !isdigit((unsigned char)*s)) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	for (i = 0; suffixes[i]; i++) {
		if (strcmp(end, suffixes[i]))
			continue;
		if (scales[i] && v > UINT64_MAX / scales[i]) {
			errno = ERANGE;
			return -1;
		}
		*out = v * scales[i];
		return 0;
	}
	errno = EINVAL;
	return -1;
}

int parse_size(const char *s, uint64_t *bytes)
{
	static const char *const sfx[] = { "", "K", "k", "KB", "M", "MB", "G", "GB", NULL };
	static const uint64_t mul[] = { 1, 1ULL << 10, 1ULL << 10, 1ULL << 10,
					1ULL << 20, 1ULL << 20, 1ULL << 30, 1ULL << 30 };

	return parse_scaled(s, bytes, sfx, mul);
}

int parse_duration_us(const char *s, uint64_t *usecs)
{
	static const char *const sfx[] = { "", "s", "ms", "us", "m", "h", NULL };
	static const uint64_t mul[] = { 1000000, 1000000, 1000, 1, 60000000ULL,
					3600000000ULL };

	return parse_scaled(s, usecs, sfx, mul);
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int mkdir_p(const char *path)
{
	char *p = xstrdup(path), *s;
	struct stat st;
	int ret = 0;

	for (s = p + 1; *s && !ret; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			ret = -1;
		*s = '/';
	}
	if (!ret && mkdir(p, 0755) && (errno != EEXIST || stat(p, &st) || !S_ISDIR(st.st_mode))) {
		if (errno == EEXIST)
			errno = ENOTDIR;
		ret = -1;
	}
	free(p);
	return ret;
}

int close_stdout(void)
{
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		fprintf(stderr, "%s: write failure on standard output: %s\n",
			prog, strerror(errno));
		return -1;
	}
	return 0;
}
