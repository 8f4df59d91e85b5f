/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analyzer's event source: the paths of a capture in, one typed record
 * (struct parsed_line) out per trace line.  Trace text goes through the
 * capture layer's reader and parse_line_n(); a binary capture is read
 * record by record and each record's fields are read with libtraceevent's
 * field accessors into the same slots, never printed and parsed.  Both give
 * the records the text would give, in its order, with its line numbers:
 * `mmlock analyze` and `mmlock export` read through this one loop.
 */
#ifndef MMLOCK_SOURCE_H
#define MMLOCK_SOURCE_H

#include <stddef.h>

#include "input.h"
#include "parse.h"

struct source;

/**
 * source_open() - a source of typed records from @paths
 * @paths: as input_open() takes them
 * @npaths: how many
 * @fn: called for each damage met while reading (input_error_fn), or NULL
 * @ctx: for @fn
 * @err: set to a message (allocated) naming the path on failure
 *
 * One path that is a binary capture is read record by record; any other
 * list is read as text (input_open()).
 *
 * Return: the source, or NULL with errno set (input_open()'s failures).
 */
struct source *source_open(char *const *paths, int npaths, input_error_fn fn, void *ctx,
			   char **err);

/**
 * source_next() - the next record
 * @src: the source
 * @pl: filled; its strings live until the next call.  A line longer than
 *	INPUT_MAX_LINE, or with a carriage return inside, is LINE_MALFORMED.
 *
 * Return: 1, or 0 at the end of every input (damage met on the way is
 * reported through the error callback before 0 is returned).
 */
int source_next(struct source *src, struct parsed_line *pl);

/**
 * source_head() - the start of the line of the last record, for messages
 * @src: the source
 * @cut: set to 1 when the line is longer than what is returned
 *
 * Return: up to its first 60 bytes, as read (before parsing).
 */
const char *source_head(const struct source *src, int *cut);

/**
 * source_file() - the file the last record came from
 * @src: the source
 *
 * Return: its path (a binary capture: "DIR/raw (binary capture, decoded)").
 */
const char *source_file(const struct source *src);

/**
 * source_lineno() - the line number of the last record in its file's text
 * @src: the source
 *
 * Return: the number, from 1.
 */
unsigned long source_lineno(const struct source *src);

/**
 * source_nr_files() - how many files make up the stream
 * @src: the source
 *
 * Return: the number.
 */
size_t source_nr_files(const struct source *src);

/**
 * source_status_path() - the trace.status found beside the chunks
 * @src: the source
 *
 * Return: its path, or NULL when there was none.
 */
const char *source_status_path(const struct source *src);

/**
 * source_truncated() - how many damaged inputs were met so far
 * @src: the source
 *
 * Return: as input_truncated().
 */
unsigned long source_truncated(const struct source *src);

/**
 * source_close() - free the source (NULL is fine)
 * @src: the source
 */
void source_close(struct source *src);

#endif /* MMLOCK_SOURCE_H */
