/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MMLOCK_INPUT_H
#define MMLOCK_INPUT_H

#include <stddef.h>
#include <stdio.h>

/*
 * Reads trace text line by line from a list of inputs (files and directories
 * of numbered chunks), plain, gzip or zstd, as one stream.  Damage (a
 * compressed chunk that ends early, an unreadable file) is reported through
 * the error callback and reading goes on with the next input.
 */
struct input;

enum input_error_kind {
	INPUT_ERR_OPEN,		/* cannot open or read: fatal for that input */
	INPUT_ERR_TRUNCATED,	/* compressed data ends early: lines before it kept */
	INPUT_ERR_CORRUPT,	/* compressed data is invalid */
	INPUT_ERR_UNFINISHED,	/* a .part chunk: the recording did not end cleanly */
};

typedef void (*input_error_fn)(void *ctx, enum input_error_kind kind,
			       const char *file, unsigned long line, const char *what);

/*
 * Expand @paths (files, or directories whose trace chunks are read in name
 * order) into a reader.  Returns NULL with errno set and a message in @err
 * (allocated) when a path does not exist or a directory holds no chunk.
 */
struct input *input_open(char *const *paths, int npaths, input_error_fn fn, void *ctx,
			 char **err);
void input_close(struct input *in);

#include "lost.h"

/* The longest line kept; a trace event is a few hundred bytes. */
#define INPUT_MAX_LINE	TRACE_LINE_MAX

/*
 * Next line without its newline, NUL-terminated and writable until the next
 * call.  Returns its length, or -1 at the end of every input.  A line longer
 * than INPUT_MAX_LINE is read through in constant memory and returned cut
 * there, with input_overlong() giving its real length.
 */
long input_next_line(struct input *in, char **line);
/* The length of the line returned last when it was cut, else 0. */
size_t input_overlong(const struct input *in);

/* Where the line returned last came from. */
const char *input_file(const struct input *in);
unsigned long input_lineno(const struct input *in);

/* How many files make up the stream, and the trace.status found beside them. */
size_t input_nr_files(const struct input *in);
const char *input_status_path(const struct input *in);
unsigned long input_truncated(const struct input *in);

#endif /* MMLOCK_INPUT_H */
