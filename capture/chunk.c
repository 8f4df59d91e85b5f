// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk writer: a text stream in, numbered files out.
 *
 * A chunk is written as NAME.XXXXXX.part (outfile.h: created exclusively
 * under a random name) and renamed to NAME once it is complete, after an
 * fsync, so a reader that lists the directory in name order sees
 * only whole chunks.  Chunks are cut only between lines, and never inside a
 * stack-trace block (lines starting with " => " stay with the line before
 * them).  Every line is counted: events, stack frames, and the kernel's
 * "CPU:N [LOST M EVENTS]" markers, whose counts are summed per CPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "capture.h"
#include "lost.h"
#include "util.h"

#define CHUNK_OBUF	(256 * 1024)

struct chunk_stream {
	z_stream	z;
	ZSTD_CCtx	*zc;
	int		z_live;
	unsigned char	*obuf;
	size_t		obuf_len;
};

const char *chunk_compress_name(enum chunk_compress c)
{
	switch (c) {
	case CHUNK_GZIP:
		return "gzip";
	case CHUNK_ZSTD:
		return "zstd";
	case CHUNK_NONE:
	default:
		return "none";
	}
}

int chunk_compress_parse(const char *s, enum chunk_compress *c)
{
	if (!strcmp(s, "gzip") || !strcmp(s, "gz"))
		*c = CHUNK_GZIP;
	else if (!strcmp(s, "zstd") || !strcmp(s, "zst"))
		*c = CHUNK_ZSTD;
	else if (!strcmp(s, "none"))
		*c = CHUNK_NONE;
	else {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

const char *chunk_suffix(enum chunk_compress c)
{
	switch (c) {
	case CHUNK_GZIP:
		return ".gz";
	case CHUNK_ZSTD:
		return ".zst";
	case CHUNK_NONE:
	default:
		return "";
	}
}

char *chunk_name(char *buf, size_t size, unsigned int index, enum chunk_compress c)
{
	snprintf(buf, size, "trace-%06u.txt%s", index, chunk_suffix(c));
	return buf;
}

int chunk_option_parse(const char *name, const char *arg, enum chunk_compress *c, int *level,
		       struct chunk_limits *limits, const char **why)
{
	uint64_t v;

	if (!strcmp(name, "compress")) {
		*why = "expected gzip, zstd or none";
		return chunk_compress_parse(arg, c) ? -1 : 0;
	}
	if (!strcmp(name, "level")) {
		*why = "expected 1-9 (gzip) or 1-19 (zstd)";
		if (parse_u64(arg, &v) || !v || v > 19)
			return -1;
		*level = (int)v;
		return 0;
	}
	if (!strcmp(name, "chunk-lines")) {
		*why = "expected a number of lines";
		if (parse_u64(arg, &v) || !v)
			return -1;
		limits->lines = v;
		return 0;
	}
	if (!strcmp(name, "chunk-bytes")) {
		*why = "expected a size such as 64M";
		if (parse_size(arg, &v) || !v)
			return -1;
		limits->bytes = v;
		return 0;
	}
	if (!strcmp(name, "chunk-seconds")) {
		*why = "expected a time such as 60s";
		if (parse_duration_us(arg, &v) || !v)
			return -1;
		limits->usecs = v;
		return 0;
	}
	*why = "not a chunk option";
	return 1;
}

int chunk_name_is(const char *name)
{
	static const char *const exts[] = {
		".txt", ".txt.gz", ".txt.zst", ".gz", ".zst", ".trace", ".part", NULL
	};
	size_t len = strlen(name);
	int i;

	if (name[0] == '.')
		return 0;
	for (i = 0; exts[i]; i++) {
		size_t el = strlen(exts[i]);

		if (len > el && !strcmp(name + len - el, exts[i]))
			return 1;
	}
	return 0;
}

int chunk_writer_init(struct chunk_writer *cw, int dirfd, enum chunk_compress c,
		      int level, const struct chunk_limits *limits)
{
	memset(cw, 0, sizeof(*cw));
	cw->dirfd = dirfd;
	cw->compress = c;
	cw->level = level > 0 ? level : 1;
	cw->do_fsync = 1;
	if (limits)
		cw->limits = *limits;
	cw->fd = -1;
	cw->next_index = 1;
	cw->stream = calloc(1, sizeof(*cw->stream));
	if (!cw->stream)
		return -1;
	cw->stream->obuf = malloc(CHUNK_OBUF);
	if (!cw->stream->obuf)
		goto free_stream;
	if (c == CHUNK_ZSTD) {
		cw->stream->zc = ZSTD_createCCtx();
		if (!cw->stream->zc) {
			errno = ENOMEM;
			goto free_obuf;
		}
	}
	return 0;

free_obuf:
	free(cw->stream->obuf);
free_stream:
	free(cw->stream);
	cw->stream = NULL;
	return -1;
}

static int flush_obuf(struct chunk_writer *cw)
{
	struct chunk_stream *s = cw->stream;

	if (!s->obuf_len)
		return 0;
	if (write_all(cw->fd, s->obuf, s->obuf_len))
		return -1;
	cw->cur.stored_bytes += s->obuf_len;
	s->obuf_len = 0;
	return 0;
}

static int chunk_open(struct chunk_writer *cw, uint64_t now_us)
{
	struct chunk_stream *s = cw->stream;
	char name[48];

	chunk_name(name, sizeof(name), cw->next_index, cw->compress);
	/*
	 * NAME.XXXXXX.part, created exclusively: a name planted in the output
	 * directory is never opened, and a reader still sees an unfinished
	 * chunk by its ".part".
	 */
	if (outfile_open(&cw->out, cw->dirfd, name, ".part",
			 OUTFILE_NO_REPLACE | (cw->do_fsync ? 0 : OUTFILE_NO_FSYNC)))
		return -1;
	cw->fd = cw->out.fd;
	snprintf(cw->part_name, sizeof(cw->part_name), "%s", cw->out.tmp);
	memset(&cw->cur, 0, sizeof(cw->cur));
	cw->cur.name = strdup(name);
	if (!cw->cur.name)
		goto close_fd;
	cw->cur.start_us = now_us;
	s->obuf_len = 0;
	if (cw->compress == CHUNK_GZIP) {
		memset(&s->z, 0, sizeof(s->z));
		if (deflateInit2(&s->z, cw->level, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK) {
			errno = ENOMEM;
			goto free_name;
		}
		s->z_live = 1;
	} else if (cw->compress == CHUNK_ZSTD) {
		ZSTD_CCtx_reset(s->zc, ZSTD_reset_session_only);
		ZSTD_CCtx_setParameter(s->zc, ZSTD_c_compressionLevel, cw->level);
	}
	return 0;

free_name:
	free(cw->cur.name);
	cw->cur.name = NULL;
close_fd:
	outfile_abort(&cw->out);
	cw->fd = -1;
	cw->part_name[0] = '\0';
	return -1;
}

/* Push @len bytes (or, with @end, the end of the stream) through the compressor. */
static int chunk_put(struct chunk_writer *cw, const char *data, size_t len, int end)
{
	struct chunk_stream *s = cw->stream;

	if (cw->compress == CHUNK_NONE) {
		if (end)
			return flush_obuf(cw);
		if (s->obuf_len + len > CHUNK_OBUF && flush_obuf(cw))
			return -1;
		if (len > CHUNK_OBUF) {
			if (write_all(cw->fd, data, len))
				return -1;
			cw->cur.stored_bytes += len;
			return 0;
		}
		memcpy(s->obuf + s->obuf_len, data, len);
		s->obuf_len += len;
		return 0;
	}
	if (cw->compress == CHUNK_GZIP) {
		int ret;

		s->z.next_in = (unsigned char *)data;
		s->z.avail_in = (unsigned int)len;
		do {
			s->z.next_out = s->obuf + s->obuf_len;
			s->z.avail_out = (unsigned int)(CHUNK_OBUF - s->obuf_len);
			ret = deflate(&s->z, end ? Z_FINISH : Z_NO_FLUSH);
			if (ret == Z_STREAM_ERROR) {
				errno = EIO;
				return -1;
			}
			s->obuf_len = CHUNK_OBUF - s->z.avail_out;
			if (s->obuf_len == CHUNK_OBUF || end) {
				if (flush_obuf(cw))
					return -1;
			}
		} while (s->z.avail_in || (end && ret != Z_STREAM_END));
		return 0;
	}
	{
		ZSTD_inBuffer in = { data, len, 0 };
		size_t left;

		do {
			ZSTD_outBuffer out = { s->obuf, CHUNK_OBUF, s->obuf_len };

			left = ZSTD_compressStream2(s->zc, &out, &in,
						    end ? ZSTD_e_end : ZSTD_e_continue);
			if (ZSTD_isError(left)) {
				errno = EIO;
				return -1;
			}
			s->obuf_len = out.pos;
			if (s->obuf_len == CHUNK_OBUF || end) {
				if (flush_obuf(cw))
					return -1;
			}
		} while (in.pos < in.size || (end && left));
	}
	return 0;
}

static int chunk_append(struct chunk_writer *cw, const struct chunk_info *info)
{
	if (cw->nr_chunks == cw->chunks_cap) {
		size_t cap = cw->chunks_cap ? cw->chunks_cap * 2 : 64;
		struct chunk_info *p = realloc(cw->chunks, cap * sizeof(*p));

		if (!p)
			return -1;
		cw->chunks = p;
		cw->chunks_cap = cap;
	}
	cw->chunks[cw->nr_chunks++] = *info;
	return 0;
}

/* Finish, fsync and rename the open chunk into place. */
static int chunk_close(struct chunk_writer *cw, uint64_t now_us)
{
	struct chunk_stream *s = cw->stream;
	int ret;

	if (cw->fd < 0)
		return 0;
	ret = chunk_put(cw, NULL, 0, 1);
	if (s->z_live) {
		deflateEnd(&s->z);
		s->z_live = 0;
	}
	if (ret)
		return -1;
	/* fsync, rename into place (never over anything), fsync the directory */
	cw->fd = -1;
	if (outfile_commit(&cw->out))
		return -1;
	cw->part_name[0] = '\0';
	cw->cur.end_us = now_us;
	if (chunk_append(cw, &cw->cur))
		return -1;
	memset(&cw->cur, 0, sizeof(cw->cur));
	cw->next_index++;
	if (cw->on_chunk)
		cw->on_chunk(cw->ctx);
	return 0;
}

static int count_lost(struct chunk_writer *cw, int cpu, uint64_t n)
{
	cw->lost_markers = u64_add_sat(cw->lost_markers, n);
	cw->cur.lost_markers = u64_add_sat(cw->cur.lost_markers, n);
	if (cpu < 0 || cpu > 65535)
		return 0;
	if (cpu >= cw->nr_lost_cpu) {
		uint64_t *p = realloc(cw->lost_cpu, (size_t)(cpu + 1) * sizeof(*p));

		if (!p)
			return -1;
		memset(p + cw->nr_lost_cpu, 0, (size_t)(cpu + 1 - cw->nr_lost_cpu) * sizeof(*p));
		cw->lost_cpu = p;
		cw->nr_lost_cpu = cpu + 1;
	}
	cw->lost_cpu[cpu] = u64_add_sat(cw->lost_cpu[cpu], n);
	return 0;
}

static int is_frame(const char *line, size_t len)
{
	return trace_line_is_frame(line, len);
}

static int chunk_full(const struct chunk_writer *cw, size_t len, uint64_t now_us)
{
	const struct chunk_limits *l = &cw->limits;

	if (!cw->cur.lines)
		return 0;
	if (l->lines && cw->cur.lines >= l->lines)
		return 1;
	if (l->bytes && cw->cur.bytes + len > l->bytes)
		return 1;
	if (l->usecs && now_us - cw->cur.start_us >= l->usecs)
		return 1;
	return 0;
}

/*
 * Write the complete lines of buf[0..len) (len ends on '\n'), cutting a new
 * chunk before a line that would overflow a limit.  Runs of lines are handed
 * to the compressor together.
 */
/*
 * After a write error, the lines from @p on were read but will never be
 * written: count them, so chunk_writer_abort() can report them discarded.
 */
static int put_failed(struct chunk_writer *cw, const char *p, const char *end)
{
	int err = errno;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)(nl - p) + 1;
		uint64_t lost;
		int cpu;

		cw->lines++;
		if (!lost_marker_parse(p, l, &cpu, &lost) && !is_frame(p, l))
			cw->events++;
		p = nl + 1;
	}
	errno = err;
	return -1;
}

static int put_lines(struct chunk_writer *cw, const char *buf, size_t len, uint64_t now_us)
{
	const char *p = buf, *end = buf + len, *run = buf;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)(nl - p) + 1;
		uint64_t lost;
		int cpu;

		if (l > TRACE_LINE_MAX + 1) {
			/* no event is that long: counted, not written (see carry_add) */
			if (p > run && cw->fd >= 0 && chunk_put(cw, run, (size_t)(p - run), 0))
				return put_failed(cw, p, end);
			cw->overlong_lines++;
			p = run = nl + 1;
			continue;
		}
		if (cw->fd >= 0 && !is_frame(p, l) && chunk_full(cw, l, now_us)) {
			if (p > run && chunk_put(cw, run, (size_t)(p - run), 0))
				return put_failed(cw, p, end);
			run = p;
			if (chunk_close(cw, now_us))
				return put_failed(cw, p, end);
		}
		if (cw->fd < 0 && chunk_open(cw, now_us))
			return put_failed(cw, p, end);
		cw->cur.lines++;
		cw->cur.bytes += l;
		cw->lines++;
		cw->bytes += l;
		if (lost_marker_parse(p, l, &cpu, &lost)) {
			if (count_lost(cw, cpu, lost))
				return -1;
		} else if (!is_frame(p, l)) {
			cw->cur.events++;
			cw->events++;
		}
		p = nl + 1;
	}
	if (p > run && chunk_put(cw, run, (size_t)(p - run), 0))
		return -1;
	return 0;
}

/*
 * Keep the start of a line that continues in the next feed.  A line longer
 * than TRACE_LINE_MAX (no real event is) is counted and dropped, and the rest
 * of it skipped up to its newline: memory stays constant whatever a
 * --stdin stream holds.
 */
static int carry_add(struct chunk_writer *cw, const char *buf, size_t len)
{
	if (cw->carry_len + len > TRACE_LINE_MAX + 1) {
		cw->overlong_lines++;
		cw->carry_len = 0;
		cw->skipping = 1;
		return 0;
	}
	if (cw->carry_len + len + 1 > cw->carry_cap) {
		size_t cap = (cw->carry_len + len + 1) * 2;
		char *p = realloc(cw->carry, cap);

		if (!p)
			return -1;
		cw->carry = p;
		cw->carry_cap = cap;
	}
	memcpy(cw->carry + cw->carry_len, buf, len);
	cw->carry_len += len;
	return 0;
}

int chunk_writer_feed(struct chunk_writer *cw, const char *buf, size_t len, uint64_t now_us)
{
	const char *last;

	if (!len)
		return 0;
	if (cw->skipping) {
		const char *nl = memchr(buf, '\n', len);

		if (!nl)
			return 0;
		cw->skipping = 0;
		len -= (size_t)(nl - buf) + 1;
		buf = nl + 1;
		if (!len)
			return 0;
	}
	if (cw->carry_len) {
		const char *nl = memchr(buf, '\n', len);

		if (!nl)
			return carry_add(cw, buf, len);
		if (carry_add(cw, buf, (size_t)(nl - buf) + 1))
			return -1;
		if (cw->skipping) {
			cw->skipping = 0;	/* that long line ended here */
		} else if (put_lines(cw, cw->carry, cw->carry_len, now_us)) {
			last = memrchr(buf, '\n', len);
			cw->carry_len = 0;
			return put_failed(cw, nl + 1, last + 1);
		}
		cw->carry_len = 0;
		len -= (size_t)(nl - buf) + 1;
		buf = nl + 1;
		if (!len)
			return 0;
	}
	last = memrchr(buf, '\n', len);
	if (!last)
		return carry_add(cw, buf, len);
	if (put_lines(cw, buf, (size_t)(last - buf) + 1, now_us))
		return -1;
	if (last + 1 < buf + len)
		return carry_add(cw, last + 1, (size_t)(buf + len - last - 1));
	return 0;
}

int chunk_writer_tick(struct chunk_writer *cw, uint64_t now_us)
{
	if (cw->fd < 0 || cw->carry_len || !cw->limits.usecs)
		return 0;
	if (now_us - cw->cur.start_us < cw->limits.usecs)
		return 0;
	return chunk_close(cw, now_us);
}

int chunk_writer_finish(struct chunk_writer *cw, uint64_t now_us)
{
	if (cw->carry_len) {
		cw->unterminated = 1;
		if (carry_add(cw, "\n", 1))
			return -1;
		if (put_lines(cw, cw->carry, cw->carry_len, now_us))
			return -1;
		cw->carry_len = 0;
	}
	return chunk_close(cw, now_us);
}

void chunk_writer_abort(struct chunk_writer *cw)
{
	struct chunk_stream *s = cw->stream;
	uint64_t lines = 0, events = 0, bytes = 0;
	size_t i;

	if (s && s->z_live) {
		deflateEnd(&s->z);
		s->z_live = 0;
	}
	if (cw->fd >= 0)
		outfile_abort(&cw->out);
	cw->fd = -1;
	cw->part_name[0] = '\0';
	free(cw->cur.name);
	memset(&cw->cur, 0, sizeof(cw->cur));
	/* the totals keep only what is in complete chunks; the rest was discarded */
	for (i = 0; i < cw->nr_chunks; i++) {
		lines += cw->chunks[i].lines;
		events += cw->chunks[i].events;
		bytes += cw->chunks[i].bytes;
	}
	cw->discarded_events += cw->events - events;
	cw->lines = lines;
	cw->events = events;
	cw->bytes = bytes;
}

void chunk_writer_release(struct chunk_writer *cw)
{
	size_t i;

	chunk_writer_abort(cw);
	if (cw->stream) {
		if (cw->stream->zc)
			ZSTD_freeCCtx(cw->stream->zc);
		free(cw->stream->obuf);
		free(cw->stream);
		cw->stream = NULL;
	}
	for (i = 0; i < cw->nr_chunks; i++)
		free(cw->chunks[i].name);
	free(cw->chunks);
	free(cw->carry);
	free(cw->lost_cpu);
	cw->chunks = NULL;
	cw->carry = NULL;
	cw->lost_cpu = NULL;
	cw->nr_chunks = 0;
}
