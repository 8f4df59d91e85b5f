// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "collector/collector.h"
#include "input.h"
#include "util.h"

enum codec { CODEC_PLAIN, CODEC_GZIP, CODEC_ZSTD };

#define RAW_SIZE	(256 * 1024)

struct input {
	char		**files;
	size_t		nr_files;
	size_t		cur;
	char		*status;	/* trace.status beside the chunks, or NULL */
	char		*binary_dir;	/* a binary capture, decoded through a pipe */
	char		*binary_name;	/* its entry in files[] */
	pthread_t	decoder;
	int		decoder_live, decoder_fd, decoder_err;
	input_error_fn	err_fn;
	void		*err_ctx;

	/* the file being read */
	int		fd;
	enum codec	codec;
	z_stream	zs;
	int		zs_live;
	int		z_end;		/* gzip member ended; another may follow */
	ZSTD_DStream	*zstd;
	size_t		zstd_last;	/* last ZSTD_decompressStream() hint: 0 = frame done */
	unsigned char	*raw;		/* compressed bytes */
	size_t		raw_len, raw_pos;
	int		raw_eof;
	int		failed;		/* stop reading this file */

	/* decoded text and the line being assembled */
	char		*text;
	size_t		text_len, text_pos;
	char		*line;
	size_t		line_cap;
	unsigned long	lineno;
	unsigned long	truncated;
	const char	*file;
};

static int is_chunk_name(const char *name)
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

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static void add_file(struct input *in, char *path, size_t *cap)
{
	if (in->nr_files == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		in->files = xrealloc(in->files, *cap * sizeof(*in->files));
	}
	in->files[in->nr_files++] = path;
}

static int add_dir(struct input *in, const char *dir, size_t *cap, char **err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, ncap = 0, i;

	if (!d) {
		*err = xasprintf("%s: cannot open directory: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, "trace.status") && !in->status) {
			in->status = xasprintf("%s/%s", dir, de->d_name);
			continue;
		}
		if (!is_chunk_name(de->d_name))
			continue;
		if (n == ncap) {
			ncap = ncap ? ncap * 2 : 16;
			names = xrealloc(names, ncap * sizeof(*names));
		}
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (!n) {
		char *raw = xasprintf("%s/raw", dir);
		struct stat st;
		int binary = !stat(raw, &st) && S_ISDIR(st.st_mode) && !in->binary_dir;

		free(raw);
		free(names);
		if (binary) {
			/* mmlock record --binary: decoded on the fly, read as one more chunk */
			in->binary_dir = xstrdup(dir);
			in->binary_name = xasprintf("%s/raw (binary capture, decoded)", dir);
			add_file(in, xstrdup(in->binary_name), cap);
			return 0;
		}
		*err = xasprintf("%s: directory holds no trace chunk (*.txt, *.gz, *.zst) and no "
				 "binary capture (raw/)", dir);
		errno = ENOENT;
		return -1;
	}
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		add_file(in, xasprintf("%s/%s", dir, names[i]), cap);
		free(names[i]);
	}
	free(names);
	return 0;
}

struct input *input_open(char *const *paths, int npaths, input_error_fn fn, void *ctx,
			 char **err)
{
	struct input *in = xcalloc(1, sizeof(*in));
	size_t cap = 0;
	int i;

	in->err_fn = fn;
	in->err_ctx = ctx;
	in->fd = -1;
	for (i = 0; i < npaths; i++) {
		struct stat st;

		if (stat(paths[i], &st)) {
			*err = xasprintf("%s: %s", paths[i], strerror(errno));
			goto out_free_input;
		}
		if (S_ISDIR(st.st_mode)) {
			if (add_dir(in, paths[i], &cap, err))
				goto out_free_input;
		} else {
			add_file(in, xstrdup(paths[i]), &cap);
		}
	}
	in->raw = xmalloc(RAW_SIZE);
	in->text = xmalloc(RAW_SIZE * 4);
	in->line_cap = 4096;
	in->line = xmalloc(in->line_cap);
	in->cur = (size_t)-1;
	return in;

out_free_input:
	input_close(in);
	return NULL;
}

struct decoder_arg {
	struct input	*in;
	int		fd;
};

static int decoder_emit(const char *line, size_t len, void *ctx)
{
	int fd = *(int *)ctx;

	while (len) {
		ssize_t n = write(fd, line, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;	/* the reader went away: stop decoding */
		line += n;
		len -= (size_t)n;
	}
	return 0;
}

static void *decoder_thread(void *p)
{
	struct decoder_arg *a = p;
	struct bin_decode_stats st = { 0 };
	sigset_t pipe_set;

	/* a write to a closed pipe must fail with EPIPE in this thread, not kill us */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
	if (bin_decode(a->in->binary_dir, decoder_emit, &a->fd, &st))
		a->in->decoder_err = errno ? errno : EIO;
	close(a->fd);
	free(a);
	return NULL;
}

/* Start decoding the binary capture; its text comes out of the returned fd. */
static int start_decoder(struct input *in)
{
	struct decoder_arg *a;
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -1;
	a = xmalloc(sizeof(*a));
	a->in = in;
	a->fd = p[1];
	if (pthread_create(&in->decoder, NULL, decoder_thread, a)) {
		close(p[0]);
		close(p[1]);
		free(a);
		errno = EAGAIN;
		return -1;
	}
	in->decoder_live = 1;
	in->decoder_fd = p[0];
	return p[0];
}

static void stop_decoder(struct input *in)
{
	if (!in->decoder_live)
		return;
	/* closing the read end (done by the caller) makes the writer stop */
	pthread_join(in->decoder, NULL);
	in->decoder_live = 0;
	if (in->decoder_err) {
		char *msg = xasprintf("decoding the binary capture failed: %s",
				      strerror(in->decoder_err));

		if (in->err_fn)
			in->err_fn(in->err_ctx, INPUT_ERR_CORRUPT, in->binary_name, 0, msg);
		free(msg);
		in->truncated++;
		in->decoder_err = 0;
	}
}

static void close_current(struct input *in)
{
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
	stop_decoder(in);
	if (in->zs_live)
		inflateEnd(&in->zs);
	in->zs_live = 0;
	if (in->zstd)
		ZSTD_freeDStream(in->zstd);
	in->zstd = NULL;
}

void input_close(struct input *in)
{
	size_t i;

	if (!in)
		return;
	close_current(in);
	for (i = 0; i < in->nr_files; i++)
		free(in->files[i]);
	free(in->files);
	free(in->status);
	free(in->binary_dir);
	free(in->binary_name);
	free(in->raw);
	free(in->text);
	free(in->line);
	free(in);
}

static void report(struct input *in, enum input_error_kind kind, const char *what)
{
	if (in->err_fn)
		in->err_fn(in->err_ctx, kind, in->file, in->lineno, what);
}

static int fill_raw(struct input *in)
{
	ssize_t n;

	if (in->raw_pos < in->raw_len || in->raw_eof)
		return 0;
	do {
		n = read(in->fd, in->raw, RAW_SIZE);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		char *msg = xasprintf("read error: %s", strerror(errno));

		report(in, INPUT_ERR_OPEN, msg);
		free(msg);
		in->failed = 1;
		return -1;
	}
	in->raw_len = (size_t)n;
	in->raw_pos = 0;
	in->raw_eof = n == 0;
	return 0;
}

/* Open the next file and sniff its codec from the first bytes. */
static int open_next(struct input *in)
{
	for (;;) {
		close_current(in);
		if (++in->cur >= in->nr_files)
			return -1;
		in->file = in->files[in->cur];
		in->lineno = 0;
		in->failed = 0;
		in->raw_len = in->raw_pos = 0;
		in->raw_eof = 0;
		in->text_len = in->text_pos = 0;
		if (in->binary_name && !strcmp(in->file, in->binary_name))
			in->fd = start_decoder(in);
		else
			in->fd = open(in->file, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			char *msg = xasprintf("cannot open: %s", strerror(errno));

			report(in, INPUT_ERR_OPEN, msg);
			free(msg);
			continue;
		}
		if (strlen(in->file) > 5 && !strcmp(in->file + strlen(in->file) - 5, ".part"))
			report(in, INPUT_ERR_UNFINISHED, "unfinished chunk: the recording did not end "
			       "cleanly; the complete lines it holds are used");
		if (fill_raw(in))
			continue;
		if (in->raw_len >= 2 && in->raw[0] == 0x1f && in->raw[1] == 0x8b) {
			in->codec = CODEC_GZIP;
			memset(&in->zs, 0, sizeof(in->zs));
			if (inflateInit2(&in->zs, 15 + 32) != Z_OK) {
				report(in, INPUT_ERR_CORRUPT, "zlib initialisation failed");
				continue;
			}
			in->zs_live = 1;
			in->z_end = 0;
		} else if (in->raw_len >= 4 && in->raw[0] == 0x28 && in->raw[1] == 0xb5 &&
			   in->raw[2] == 0x2f && in->raw[3] == 0xfd) {
			in->codec = CODEC_ZSTD;
			in->zstd = ZSTD_createDStream();
			if (!in->zstd) {
				report(in, INPUT_ERR_CORRUPT, "zstd initialisation failed");
				continue;
			}
			ZSTD_initDStream(in->zstd);
			in->zstd_last = 1;
		} else {
			in->codec = CODEC_PLAIN;
		}
		return 0;
	}
}

static void report_truncated(struct input *in, const char *codec, size_t partial)
{
	/* zstd decodes whole blocks (up to 128 KiB): the cut block's lines are gone */
	char *msg = xasprintf("%s data ends early after line %lu%s%s", codec, in->lineno,
			      partial ? "; the incomplete line after it was dropped" : "",
			      in->codec == CODEC_ZSTD ?
			      "; lines in the cut zstd block cannot be recovered" : "");

	in->truncated++;
	report(in, INPUT_ERR_TRUNCATED, msg);
	free(msg);
}

/*
 * Decode more text into in->text.  Returns 1 when text was added, 0 at the
 * end of the file (complete or not), -1 on a read error.
 */
static int decode_more(struct input *in, size_t *partial)
{
	size_t room = RAW_SIZE * 4 - in->text_len;

	if (in->failed)
		return 0;
	for (;;) {
		if (fill_raw(in))
			return -1;
		switch (in->codec) {
		case CODEC_PLAIN: {
			size_t n = in->raw_len - in->raw_pos;

			if (in->raw_eof)
				return 0;
			if (n > room)
				n = room;
			memcpy(in->text + in->text_len, in->raw + in->raw_pos, n);
			in->raw_pos += n;
			in->text_len += n;
			return 1;
		}
		case CODEC_GZIP: {
			int zr;

			if (in->raw_eof) {
				if (!in->z_end)
					report_truncated(in, "gzip", *partial);
				in->failed = 1;
				return 0;
			}
			if (in->z_end) {
				/* concatenated gzip members (a chunk appended to) */
				inflateReset(&in->zs);
				in->z_end = 0;
			}
			in->zs.next_in = in->raw + in->raw_pos;
			in->zs.avail_in = (uInt)(in->raw_len - in->raw_pos);
			in->zs.next_out = (Bytef *)in->text + in->text_len;
			in->zs.avail_out = (uInt)room;
			zr = inflate(&in->zs, Z_NO_FLUSH);
			in->raw_pos = in->raw_len - in->zs.avail_in;
			in->text_len = RAW_SIZE * 4 - in->zs.avail_out;
			if (zr == Z_STREAM_END) {
				in->z_end = 1;
			} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
				char *msg = xasprintf("gzip data is corrupt after line %lu: %s",
						      in->lineno, in->zs.msg ? in->zs.msg : "error");

				in->truncated++;
				report(in, INPUT_ERR_CORRUPT, msg);
				free(msg);
				in->failed = 1;
				return 0;
			}
			if (RAW_SIZE * 4 - room != in->text_len)
				return 1;
			break;
		}
		case CODEC_ZSTD: {
			ZSTD_inBuffer zin = { in->raw, in->raw_len, in->raw_pos };
			ZSTD_outBuffer zout = { in->text + in->text_len, room, 0 };
			size_t zr;

			if (in->raw_eof) {
				if (in->zstd_last)
					report_truncated(in, "zstd", *partial);
				in->failed = 1;
				return 0;
			}
			zr = ZSTD_decompressStream(in->zstd, &zout, &zin);
			in->raw_pos = zin.pos;
			if (ZSTD_isError(zr)) {
				char *msg = xasprintf("zstd data is corrupt after line %lu: %s",
						      in->lineno, ZSTD_getErrorName(zr));

				in->truncated++;
				report(in, INPUT_ERR_CORRUPT, msg);
				free(msg);
				in->failed = 1;
				return 0;
			}
			in->zstd_last = zr;
			in->text_len += zout.pos;
			if (zout.pos)
				return 1;
			break;
		}
		}
	}
}

long input_next_line(struct input *in, char **line)
{
	size_t len = 0;

	if (in->cur == (size_t)-1 && open_next(in))
		return -1;
	for (;;) {
		char *start = in->text + in->text_pos;
		size_t avail = in->text_len - in->text_pos;
		char *nl = memchr(start, '\n', avail);
		size_t take = nl ? (size_t)(nl - start) : avail;
		int r;

		if (len + take + 1 > in->line_cap) {
			while (len + take + 1 > in->line_cap)
				in->line_cap *= 2;
			in->line = xrealloc(in->line, in->line_cap);
		}
		memcpy(in->line + len, start, take);
		len += take;
		in->text_pos += take + (nl ? 1 : 0);
		if (nl) {
			if (len && in->line[len - 1] == '\r')
				len--;
			in->line[len] = '\0';
			in->lineno++;
			*line = in->line;
			return (long)len;
		}
		in->text_pos = in->text_len = 0;
		r = decode_more(in, &len);
		if (r > 0)
			continue;
		/*
		 * End of this file.  A plain file may lack the final newline;
		 * a compressed one that ended early has its partial line
		 * dropped (decode_more reported it).
		 */
		if (len && in->codec == CODEC_PLAIN && !in->failed) {
			in->line[len] = '\0';
			in->lineno++;
			*line = in->line;
			in->failed = 1;
			return (long)len;
		}
		len = 0;
		if (open_next(in))
			return -1;
	}
}

const char *input_file(const struct input *in)
{
	return in->file;
}

unsigned long input_lineno(const struct input *in)
{
	return in->lineno;
}

size_t input_nr_files(const struct input *in)
{
	return in->nr_files;
}

const char *input_status_path(const struct input *in)
{
	return in->status;
}

unsigned long input_truncated(const struct input *in)
{
	return in->truncated;
}
