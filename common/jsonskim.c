// SPDX-License-Identifier: GPL-2.0
/*
 * A streaming skimmer over one JSON object's top level: see jsonskim.h.  It
 * tracks only what finds the top-level keys and the extent of their values
 * (strings and their escapes, bracket depth); each kept value is validated
 * and built by json-c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "jsonskim.h"
#include "util.h"

#define SKIM_BUF	(64 * 1024)
/* A status lists a chunk in 200 bytes: 256 MiB is a million chunks. */
#define SKIM_MAX_TEXT	(256 * 1024 * 1024)
#define KEY_MAX		128

enum skim_state {
	S_START,	/* before the opening '{' */
	S_KEY_OR_END,	/* a key, ',' or '}' */
	S_KEY,		/* inside a key string */
	S_COLON,
	S_VALUE_START,
	S_VALUE,	/* inside a value */
	S_DONE,
};

struct skim {
	enum skim_state	state;
	char		key[KEY_MAX + 1];
	size_t		key_len;
	int		key_long;
	int		in_string, escape;
	unsigned long	depth;		/* of brackets inside the value */
	int		scalar;		/* the value is a number or a literal */
	int		keep;		/* the current key is wanted */
	char		*val;
	size_t		val_len, val_cap, max_value;
	int		val_long;
	struct json_object *out;
	char		*skipped;
};

static int wanted(const char *const *keys, const char *k)
{
	for (; *keys; keys++)
		if (!strcmp(*keys, k))
			return 1;
	return 0;
}

static void val_put(struct skim *sk, char c)
{
	if (!sk->keep || sk->val_long)
		return;
	if (sk->val_len == sk->max_value) {
		sk->val_long = 1;
		return;
	}
	if (sk->val_len == sk->val_cap) {
		sk->val_cap = sk->val_cap ? sk->val_cap * 2 : 256;
		if (sk->val_cap > sk->max_value)
			sk->val_cap = sk->max_value;
		sk->val = xrealloc(sk->val, sk->val_cap + 1);
	}
	sk->val[sk->val_len++] = c;
}

static void add_skipped(struct skim *sk, const char *key)
{
	char *s = xasprintf("%s%s%s", sk->skipped ? sk->skipped : "", sk->skipped ? ", " : "",
			    key);

	free(sk->skipped);
	sk->skipped = s;
}

/* The value of the current key ended: keep it if it was wanted and sane. */
static void val_end(struct skim *sk)
{
	if (sk->keep) {
		if (sk->val_long) {
			add_skipped(sk, sk->key);
		} else {
			struct json_tokener *tok = json_tokener_new();
			struct json_object *v;

			v = json_tokener_parse_ex(tok, sk->val, (int)sk->val_len);
			if (json_tokener_get_error(tok) == json_tokener_continue)
				v = json_tokener_parse_ex(tok, "", -1);
			if (json_tokener_get_error(tok) == json_tokener_success)
				json_object_object_add(sk->out, sk->key, v);
			else
				add_skipped(sk, sk->key);
			json_tokener_free(tok);
		}
	}
	sk->val_len = 0;
	sk->val_long = 0;
	sk->keep = 0;
	sk->state = S_KEY_OR_END;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* One character; -1 on text that cannot be a JSON object's top level. */
static int step(struct skim *sk, const char *const *keys, char c)
{
	switch (sk->state) {
	case S_START:
		if (is_space(c))
			return 0;
		if (c != '{')
			return -1;
		sk->state = S_KEY_OR_END;
		return 0;
	case S_KEY_OR_END:
		if (is_space(c) || c == ',')
			return 0;
		if (c == '}') {
			sk->state = S_DONE;
			return 0;
		}
		if (c != '"')
			return -1;
		sk->state = S_KEY;
		sk->key_len = 0;
		sk->key_long = 0;
		sk->escape = 0;
		return 0;
	case S_KEY:
		if (!sk->escape && c == '"') {
			sk->key[sk->key_len] = '\0';
			sk->keep = !sk->key_long && wanted(keys, sk->key);
			sk->state = S_COLON;
			return 0;
		}
		sk->escape = !sk->escape && c == '\\';
		if (sk->key_len < KEY_MAX)
			sk->key[sk->key_len++] = c;
		else
			sk->key_long = 1;
		return 0;
	case S_COLON:
		if (is_space(c))
			return 0;
		if (c != ':')
			return -1;
		sk->state = S_VALUE_START;
		return 0;
	case S_VALUE_START:
		if (is_space(c))
			return 0;
		if (c == ',' || c == '}' || c == ']' || c == ':')
			return -1;
		sk->state = S_VALUE;
		sk->depth = 0;
		sk->in_string = c == '"';
		sk->escape = 0;
		sk->scalar = c != '"' && c != '{' && c != '[';
		if (c == '{' || c == '[')
			sk->depth = 1;
		val_put(sk, c);
		return 0;
	case S_VALUE:
		if (sk->in_string) {
			val_put(sk, c);
			if (sk->escape) {
				sk->escape = 0;
			} else if (c == '\\') {
				sk->escape = 1;
			} else if (c == '"') {
				sk->in_string = 0;
				if (!sk->depth)
					val_end(sk);	/* a string value */
			}
			return 0;
		}
		if (sk->scalar) {
			if (is_space(c) || c == ',' || c == '}') {
				val_end(sk);
				if (c == '}')
					sk->state = S_DONE;
				return 0;
			}
			val_put(sk, c);
			return 0;
		}
		val_put(sk, c);
		if (c == '"') {
			sk->in_string = 1;
		} else if (c == '{' || c == '[') {
			sk->depth++;
		} else if (c == '}' || c == ']') {
			if (!--sk->depth)
				val_end(sk);
		}
		return 0;
	case S_DONE:
		return 0;
	}
	return -1;
}

struct json_object *json_skim_fd(int fd, const char *const *keys, size_t max_value,
				 char **skipped, char **err)
{
	struct skim sk = { .state = S_START, .max_value = max_value };
	char *buf = xmalloc(SKIM_BUF);
	size_t total = 0;
	ssize_t n;

	*err = NULL;
	if (skipped)
		*skipped = NULL;
	sk.out = json_object_new_object();
	while (sk.state != S_DONE) {
		ssize_t i;

		if (total > SKIM_MAX_TEXT) {
			*err = xasprintf("larger than %d MiB: not what it claims to be",
					 SKIM_MAX_TEXT >> 20);
			goto fail;
		}
		n = read(fd, buf, SKIM_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = xasprintf("read error: %s", strerror(errno));
			goto fail;
		}
		if (n == 0) {
			*err = xasprintf(sk.state == S_START ? "empty: no JSON object" :
					 "the JSON object is not closed (cut short?)");
			goto fail;
		}
		total += (size_t)n;
		for (i = 0; i < n && sk.state != S_DONE; i++) {
			if (step(&sk, keys, buf[i])) {
				*err = xasprintf("not a JSON object (unexpected '%c')",
						 buf[i] >= ' ' && buf[i] < 0x7f ? buf[i] : '?');
				goto fail;
			}
		}
	}
	free(buf);
	free(sk.val);
	if (skipped)
		*skipped = sk.skipped;
	else
		free(sk.skipped);
	return sk.out;

fail:
	free(buf);
	free(sk.val);
	free(sk.skipped);
	json_object_put(sk.out);
	return NULL;
}
