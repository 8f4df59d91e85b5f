// SPDX-License-Identifier: GPL-2.0
/*
 * JSON text out: valid UTF-8, atomic files.  See jsonout.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "jsonout.h"
#include "outfile.h"
#include "util.h"

/* Length of the valid UTF-8 sequence at @p (at most @n bytes), 0 if invalid. */
static size_t seq_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	/* the second byte's range rules out overlongs, surrogates and > U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

int utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t l = seq_len(p + i, len - i);

		if (!l)
			return 0;
		i += l;
	}
	return 1;
}

char *utf8_repair(const char *s, size_t len, size_t *out_len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0;
	char *out;

	if (utf8_valid(s, len))
		return NULL;
	/* each bad byte grows to the three bytes of U+FFFD at most */
	out = xmalloc(len * 3 + 1);
	while (i < len) {
		size_t l = seq_len(p + i, len - i);

		if (l) {
			memcpy(out + o, p + i, l);
			o += l;
			i += l;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	*out_len = o;
	return out;
}

/* The text of @obj plus "\n", valid UTF-8; *@buf is what the caller frees. */
static const char *render(struct json_object *obj, int pretty, size_t *len, char **buf)
{
	int flags = (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			      JSON_C_TO_STRING_PLAIN) | JSON_C_TO_STRING_NOSLASHESCAPE;
	const char *text = json_object_to_json_string_length(obj, flags, len);
	char *fixed;
	size_t n;

	fixed = utf8_repair(text, *len, &n);
	if (fixed) {
		text = fixed;
		*len = n;
	}
	*buf = xmalloc(*len + 2);
	memcpy(*buf, text, *len);
	(*buf)[(*len)++] = '\n';
	(*buf)[*len] = '\0';
	free(fixed);
	return *buf;
}

int json_write_at(int dirfd, const char *name, struct json_object *obj, int pretty, int flags)
{
	char *buf;
	size_t len;
	int ret;

	render(obj, pretty, &len, &buf);
	ret = outfile_write_all(dirfd, name, buf, len, flags);
	free(buf);
	return ret;
}

int json_write(const char *path, struct json_object *obj, int pretty, int flags)
{
	char *buf;
	size_t len;
	int ret = 0;

	if (path)
		return json_write_at(AT_FDCWD, path, obj, pretty, flags);
	render(obj, pretty, &len, &buf);
	/* past stdio: a failure is reported once here, not again at exit */
	if (fflush(stdout) || write_all(STDOUT_FILENO, buf, len))
		ret = -1;
	free(buf);
	return ret;
}

struct json_object *json_path(struct json_object *obj, const char *path)
{
	char key[128];

	while (obj && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		if (!json_object_is_type(obj, json_type_object) ||
		    !json_object_object_get_ex(obj, key, &obj))
			return NULL;
		path += n + (path[n] == '.');
	}
	return obj;
}
