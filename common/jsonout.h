/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON out of mmlock: always valid UTF-8, written atomically (outfile.h).
 * Strings in a summary come from the trace (a task's comm is any 16 bytes,
 * a reason word, a file name); json-c copies bytes above 0x7f as they are,
 * so the text is repaired once, on its way out.
 */
#ifndef MMLOCK_JSONOUT_H
#define MMLOCK_JSONOUT_H

#include <stddef.h>

struct json_object;

/**
 * utf8_repair() - a copy of @s in which every byte that is not part of a
 * valid UTF-8 sequence (bad lead or continuation byte, overlong form,
 * surrogate, above U+10FFFF, cut at the end) is replaced by U+FFFD
 * @s: the text
 * @len: its length in bytes
 * @out_len: set to the copy's length
 *
 * Return: a new NUL-terminated string (free() it), or NULL when @s is
 * valid UTF-8 already (use it as it is).
 */
char *utf8_repair(const char *s, size_t len, size_t *out_len);

/**
 * utf8_valid() - whether @len bytes of @s are valid UTF-8
 * @s: the text
 * @len: its length in bytes
 *
 * Return: 1 or 0.
 */
int utf8_valid(const char *s, size_t len);

/**
 * json_write() - @obj as JSON text and a newline, in valid UTF-8
 * @path: the output file (written through outfile_open()), or NULL for
 *	standard output
 * @obj: the document
 * @pretty: indented (JSON_C_TO_STRING_PRETTY | SPACED) rather than one line
 * @flags: OUTFILE_* flags (outfile.h) for @path
 *
 * Slashes are not escaped.  Return: 0, or -1 with errno set (the target is
 * untouched when @path is given).
 */
int json_write(const char *path, struct json_object *obj, int pretty, int flags);

/**
 * json_write_at() - json_write() to @name inside directory @dirfd
 * @dirfd: the directory
 * @name: the file's name in it
 * @obj: the document
 * @pretty: as for json_write()
 * @flags: OUTFILE_* flags (outfile.h)
 *
 * Return: 0, or -1 with errno set and the target untouched.
 */
int json_write_at(int dirfd, const char *name, struct json_object *obj, int pretty, int flags);

/**
 * json_path() - the member a dotted path names, e.g. "contention.type_a_count"
 * @obj: where to start (may be NULL)
 * @path: member names joined by '.'
 *
 * Return: the member (borrowed), or NULL when any step is absent, not an
 * object, or a name longer than 127 bytes.
 */
struct json_object *json_path(struct json_object *obj, const char *path);

#endif /* MMLOCK_JSONOUT_H */
