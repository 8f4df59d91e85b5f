/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MMLOCK_INPUT_H
#define MMLOCK_INPUT_H

#include <stddef.h>
#include <stdio.h>

/*
 * The capture layer's reader (capture/README.md): trace text line by line from a list of inputs (files and directories
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

/**
 * input_open() - a reader of @paths as one stream
 * @paths: files, or directories whose trace chunks (chunk_name_is()) are
 *	read in name order, or a binary capture directory (decoded on the fly),
 *	or a directory holding a trace.dat; a file that begins with trace-cmd's
 *	magic is read through libtracecmd (tracedat.h)
 * @npaths: how many
 * @fn: called for each damage met while reading, or NULL
 * @ctx: for @fn
 * @err: set to a message (allocated) naming the path on failure
 *
 * Return: the reader, or NULL with errno set when a path does not exist or
 * a directory holds no chunk, no binary capture and no trace.dat.
 */
struct input *input_open(char *const *paths, int npaths, input_error_fn fn, void *ctx,
			 char **err);

/**
 * input_close() - free the reader (NULL is fine)
 * @in: the reader
 */
void input_close(struct input *in);

#include "lost.h"

/* The longest line kept; a trace event is a few hundred bytes. */
#define INPUT_MAX_LINE	TRACE_LINE_MAX

/* Readable bytes after a line's NUL (their values are no part of it). */
#define INPUT_LINE_SLACK	64

/**
 * input_next_line() - the next line, without its newline
 * @in: the reader
 * @line: set to the line, NUL-terminated and writable until the next call;
 *	INPUT_LINE_SLACK bytes after its first INPUT_MAX_LINE + 1 may be read
 *
 * A line longer than INPUT_MAX_LINE is read through in constant memory and
 * returned cut there, with input_overlong() giving its real length.
 *
 * Return: its length, or -1 at the end of every input.
 */
long input_next_line(struct input *in, char **line);

/**
 * input_overlong() - the real length of the line returned last, if it was cut
 * @in: the reader
 *
 * Return: that length, or 0 when it was not cut.
 */
size_t input_overlong(const struct input *in);

/**
 * input_line_has_cr() - does the line returned last hold a carriage return?
 * @in: the reader
 *
 * One CR just before its newline is no part of the line; a line cut at
 * INPUT_MAX_LINE is not looked at past its cut.
 *
 * Return: 1 when it does, else 0.
 */
int input_line_has_cr(const struct input *in);

/**
 * input_file() - the file the line returned last came from
 * @in: the reader
 *
 * Return: its path, as given or found in a directory.
 */
const char *input_file(const struct input *in);

/**
 * input_lineno() - the line number of the line returned last, in its file
 * @in: the reader
 *
 * Return: the number, from 1.
 */
unsigned long input_lineno(const struct input *in);

/**
 * input_nr_files() - how many files make up the stream
 * @in: the reader
 *
 * Return: the number.
 */
size_t input_nr_files(const struct input *in);

/**
 * input_status_path() - the trace.status found beside the chunks
 * @in: the reader
 *
 * Return: its path, or NULL when there was none.
 */
const char *input_status_path(const struct input *in);

/**
 * input_truncated() - how many damaged inputs were met so far
 * @in: the reader
 *
 * Return: files that ended early or were corrupt, and damaged binary captures.
 */
unsigned long input_truncated(const struct input *in);

#endif /* MMLOCK_INPUT_H */
