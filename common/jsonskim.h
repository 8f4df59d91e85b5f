/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read a few top-level keys of a JSON object in bounded memory.
 *
 * A trace.status lists every chunk of a recording (and a hostile one can
 * hold anything): parsing all of it with json-c costs some 70 bytes of
 * memory per byte of text.  The skimmer streams the text through a small
 * buffer, keeps only the values of the keys asked for (each up to a size
 * limit) and hands those to json-c.
 */
#ifndef MMLOCK_JSONSKIM_H
#define MMLOCK_JSONSKIM_H

#include <stddef.h>

struct json_object;

/**
 * json_skim_fd() - the wanted top-level keys of the JSON object read from @fd
 * @fd: the text (read to its end or to the object's closing brace)
 * @keys: NULL-terminated key names to keep
 * @max_value: the longest value text kept; a longer one is left out and
 *	named in *@skipped
 * @skipped: set to a malloc'ed, comma-separated list of the keys left out
 *	for their size, or NULL (may be NULL itself)
 * @err: set to a malloc'ed message when the text is not a JSON object, or
 *	when it runs past 256 MiB (a status that big is no status)
 *
 * Return: a new object holding the wanted keys that were present and
 * parsed (json_object_put() it), or NULL with *@err set.
 */
struct json_object *json_skim_fd(int fd, const char *const *keys, size_t max_value,
				 char **skipped, char **err);

#endif /* MMLOCK_JSONSKIM_H */
