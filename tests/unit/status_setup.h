/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the trace.status tests (collector_status.c, collector_status_percpu.c)
 * share: a finished text recording to hand to record_write_status().
 */
#ifndef MMLOCK_STATUS_SETUP_H
#define MMLOCK_STATUS_SETUP_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "collector/record.h"

/*
 * status_setup - a text recording of @text, chunked into a new directory
 * @dir (a mkdtemp() template that becomes its name), with @opts and @argv
 * (@argc words) as its command line.  The caller then sets the CPUs and the
 * buffer statistics.  0, or -1 when the directory cannot be made.
 */
static inline int status_setup(struct record *r, struct record_opts *opts, int argc,
			       char **argv, char *dir, const char *text, size_t len)
{
	memset(r, 0, sizeof(*r));
	memset(opts, 0, sizeof(*opts));
	opts->compress = CHUNK_NONE;
	opts->output = dir;
	r->opts = opts;
	r->argc = argc;
	r->argv = argv;
	r->mode = "text";
	r->state = "complete";
	if (!mkdtemp(dir))
		return -1;
	r->outdir_fd = open(dir, O_RDONLY | O_DIRECTORY);
	chunk_writer_init(&r->cw, r->outdir_fd, CHUNK_NONE, 1, NULL);
	r->cw.do_fsync = 0;
	r->cw_live = 1;
	chunk_writer_feed(&r->cw, text, len, 1);
	chunk_writer_finish(&r->cw, 2);
	return 0;
}

#endif
