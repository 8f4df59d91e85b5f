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

#include "capture.h"
#include "infile.h"
#include "input.h"
#include "tracedat.h"
#include "util.h"

enum codec { CODEC_PLAIN, CODEC_GZIP, CODEC_ZSTD };

#define RAW_SIZE	(256 * 1024)
#define TEXT_SIZE	RAW_SIZE

struct input {
	char		**files;
	unsigned char	*in_dir;	/* files[i] came from a capture directory */
	size_t		nr_files;
	size_t		cur;
	char		*status;	/* trace.status beside the chunks, or NULL */
	char		*binary_dir;	/* a binary capture, decoded through a pipe */
	char		*binary_name;	/* its entry in files[] */
	pthread_t	decoder;
	int		decoder_live, decoder_fd, decoder_err;
	uint64_t	decoder_bad;	/* damaged pages the decoder skipped */
	struct tracedat_proc dat;	/* a trace.dat read in a child (tracedat.h) */
	int		dat_live;
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
	int		damaged;	/* it ended early or was corrupt: drop a cut last line */
	int		last_done;	/* the last line, without its newline, was handed out */
	char		*pending;	/* a decode error to report once its text is read */
	enum input_error_kind pending_kind;

	/* decoded text and the line being assembled */
	char		*text;
	size_t		text_len, text_pos;
	char		*line;		/* INPUT_MAX_LINE + 1 bytes */
	size_t		overlong;	/* the last line's length when it was cut */
	/*
	 * A CR inside a line is rare: text is searched for one once per fill,
	 * not once per line.  cr_pos: the offset in text of the first CR at or
	 * after the last search's start (SIZE_MAX: none before cr_end, the end
	 * of what it searched).
	 */
	size_t		cr_pos, cr_end;
	int		line_cr;	/* the last line holds a CR */
	unsigned long	lineno;
	unsigned long	truncated;
	const char	*file;
};

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static void add_file(struct input *in, char *path, size_t *cap, int in_dir)
{
	if (in->nr_files == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		in->files = xrealloc(in->files, *cap * sizeof(*in->files));
		in->in_dir = xrealloc(in->in_dir, *cap);
	}
	in->in_dir[in->nr_files] = (unsigned char)in_dir;
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
		if (!chunk_name_is(de->d_name))
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
		raw = xasprintf("%s/trace.dat", dir);
		if (!binary && !stat(raw, &st) && S_ISREG(st.st_mode)) {
			/* where trace-cmd record writes: read through libtracecmd */
			add_file(in, raw, cap, 1);
			return 0;
		}
		free(raw);
		if (binary) {
			/* mmlock record --binary: decoded on the fly, read as one more chunk */
			in->binary_dir = xstrdup(dir);
			in->binary_name = xasprintf("%s/raw (binary capture, decoded)", dir);
			add_file(in, xstrdup(in->binary_name), cap, 1);
			return 0;
		}
		*err = xasprintf("%s: directory holds no trace chunk (*.txt, *.gz, *.zst), no "
				 "binary capture (raw/) and no trace.dat", dir);
		errno = ENOENT;
		return -1;
	}
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		add_file(in, xasprintf("%s/%s", dir, names[i]), cap, 1);
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
			/* a FIFO or device named here is read as the stream it is */
			add_file(in, xstrdup(paths[i]), &cap, 0);
		}
	}
	/*
	 * read() copies into a buffer that starts on a page several times
	 * faster than into one that does not start on a cache line (measured:
	 * 0.14 s against 0.035 s of system time for 200 MB).
	 */
	if (posix_memalign((void **)&in->raw, 4096, RAW_SIZE))
		in->raw = xmalloc(RAW_SIZE);
	if (posix_memalign((void **)&in->text, 4096, TEXT_SIZE + INPUT_LINE_SLACK))
		in->text = xmalloc(TEXT_SIZE + INPUT_LINE_SLACK);
	memset(in->text + TEXT_SIZE, 0, INPUT_LINE_SLACK);
	in->line = xcalloc(1, INPUT_MAX_LINE + 1 + INPUT_LINE_SLACK);
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
	a->in->decoder_bad = st.bad_pages;
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
	if (in->decoder_bad) {
		char *msg = xasprintf("%llu damaged ring-buffer page%s skipped (a page header or "
				      "event that does not fit its page)",
				      (unsigned long long)in->decoder_bad,
				      in->decoder_bad == 1 ? "" : "s");

		if (in->err_fn)
			in->err_fn(in->err_ctx, INPUT_ERR_CORRUPT, in->binary_name, 0, msg);
		free(msg);
		in->truncated++;
		in->decoder_bad = 0;
	}
	if (in->decoder_err) {
		char *msg = xasprintf("decoding the binary capture failed: %s",
				      infile_strerror(in->decoder_err));

		if (in->err_fn)
			in->err_fn(in->err_ctx, INPUT_ERR_CORRUPT, in->binary_name, 0, msg);
		free(msg);
		in->truncated++;
		in->decoder_err = 0;
	}
}

static void report(struct input *in, enum input_error_kind kind, const char *what);

/* The trace.dat's child is done, or stopped when the reader stopped early. */
static void stop_tracedat(struct input *in)
{
	unsigned long long bad = 0;
	char *msg = NULL;

	if (!in->dat_live)
		return;
	in->dat_live = 0;
	if (tracedat_reap(&in->dat, !in->raw_eof, &bad, &msg)) {
		/* nothing read from it: no trace at all, as an unreadable file */
		report(in, in->lineno ? INPUT_ERR_CORRUPT : INPUT_ERR_OPEN, msg);
		free(msg);
		in->truncated++;
	}
	if (bad) {
		msg = xasprintf("%llu record%s shorter than %s event format skipped", bad,
				bad == 1 ? "" : "s", bad == 1 ? "its" : "their");
		report(in, INPUT_ERR_CORRUPT, msg);
		free(msg);
		in->truncated++;
	}
}

static void close_current(struct input *in)
{
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
	stop_tracedat(in);
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
	free(in->in_dir);
	free(in->pending);
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

/* read() into @buf, again after a signal; a failure is reported and ends the file. */
static ssize_t read_some(struct input *in, void *buf, size_t size)
{
	ssize_t n;

	do {
		n = read(in->fd, buf, size);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		char *msg = xasprintf("read error: %s", strerror(errno));

		report(in, INPUT_ERR_OPEN, msg);
		free(msg);
		in->failed = 1;
	}
	return n;
}

static int fill_raw(struct input *in)
{
	ssize_t n;

	if (in->raw_pos < in->raw_len || in->raw_eof)
		return 0;
	n = read_some(in, in->raw, RAW_SIZE);
	if (n < 0)
		return -1;
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
		in->damaged = 0;
		in->last_done = 0;
		in->raw_len = in->raw_pos = 0;
		in->raw_eof = 0;
		in->text_len = in->text_pos = 0;
		in->cr_end = 0;
		free(in->pending);
		in->pending = NULL;
		if (in->binary_name && !strcmp(in->file, in->binary_name))
			in->fd = start_decoder(in);
		else
			in->fd = infile_open(AT_FDCWD, in->file,
					     in->in_dir[in->cur] ? INFILE_REGULAR : 0);
		if (in->fd < 0) {
			char *msg = xasprintf("cannot open: %s", infile_strerror(errno));

			report(in, INPUT_ERR_OPEN, msg);
			free(msg);
			continue;
		}
		if (strlen(in->file) > 5 && !strcmp(in->file + strlen(in->file) - 5, ".part"))
			report(in, INPUT_ERR_UNFINISHED, "unfinished chunk: the recording did not end "
			       "cleanly; the complete lines it holds are used");
		if (fill_raw(in))
			continue;
		if (tracedat_magic_is(in->raw, in->raw_len)) {
			char *msg;

			/* trace-cmd's trace.dat: libtracecmd reads it, we read its text */
			close(in->fd);
			in->raw_len = in->raw_pos = 0;
			in->fd = tracedat_spawn(in->file, &in->dat, &msg);
			if (in->fd < 0) {
				report(in, INPUT_ERR_OPEN, msg);
				free(msg);
				continue;
			}
			in->dat_live = 1;
			if (fill_raw(in))
				continue;
		}
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
	in->damaged = 1;
	report(in, INPUT_ERR_TRUNCATED, msg);
	free(msg);
}

/*
 * A decode error: the text decoded before it is still handed out (zcat and
 * zstd -dc print it too), the error is reported once that text is read.
 */
static void defer_error(struct input *in, enum input_error_kind kind, char *msg)
{
	in->truncated++;
	in->damaged = 1;
	free(in->pending);
	in->pending = msg;
	in->pending_kind = kind;
	in->failed = 1;
}

/*
 * Decode more text into in->text.  Returns 1 when text was added, 0 at the
 * end of the file (complete or not), -1 on a read error.
 */
static int decode_more(struct input *in, size_t *partial)
{
	size_t room = TEXT_SIZE - in->text_len;

	if (in->pending) {
		report(in, in->pending_kind, in->pending);
		free(in->pending);
		in->pending = NULL;
		return 0;
	}
	if (in->failed)
		return 0;
	if (in->codec == CODEC_PLAIN && in->raw_pos >= in->raw_len && !in->raw_eof) {
		/* plain text is read straight where the lines are handed out from */
		ssize_t n = read_some(in, in->text + in->text_len, room);

		if (n < 0)
			return -1;
		in->raw_eof = n == 0;
		in->text_len += (size_t)n;
		return n > 0;
	}
	for (;;) {
		if (fill_raw(in))
			return -1;
		switch (in->codec) {
		case CODEC_PLAIN: {
			/* the bytes read to sniff the codec */
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
			size_t before = in->text_len;
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
			in->text_len = TEXT_SIZE - in->zs.avail_out;
			if (zr == Z_STREAM_END) {
				in->z_end = 1;
			} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
				defer_error(in, INPUT_ERR_CORRUPT,
					    xasprintf("gzip data is corrupt after line %lu: %s",
						      in->lineno, in->zs.msg ? in->zs.msg : "error"));
				return in->text_len > before ? 1 : decode_more(in, partial);
			}
			if (in->text_len > before)
				return 1;
			break;
		}
		case CODEC_ZSTD: {
			/*
			 * At most one block per call: with room for a whole frame
			 * zstd decodes it in one go, and a corrupt block would
			 * then take every good one before it along.
			 */
			ZSTD_inBuffer zin = { in->raw, in->raw_len, in->raw_pos };
			ZSTD_outBuffer zout = { in->text + in->text_len,
						room < ZSTD_BLOCKSIZE_MAX ? room : ZSTD_BLOCKSIZE_MAX,
						0 };
			size_t zr;

			if (in->raw_eof) {
				if (in->zstd_last)
					report_truncated(in, "zstd", *partial);
				in->failed = 1;
				return 0;
			}
			zr = ZSTD_decompressStream(in->zstd, &zout, &zin);
			in->raw_pos = zin.pos;
			in->text_len += zout.pos;
			if (ZSTD_isError(zr)) {
				defer_error(in, INPUT_ERR_CORRUPT,
					    xasprintf("zstd data is corrupt after line %lu: %s",
						      in->lineno, ZSTD_getErrorName(zr)));
				return zout.pos ? 1 : decode_more(in, partial);
			}
			in->zstd_last = zr;
			if (zout.pos)
				return 1;
			break;
		}
		}
	}
}

/* The first CR of the text from @pos on, searched once for the lines that follow. */
static __attribute__((noinline)) void cr_search(struct input *in, size_t pos)
{
	const char *cr = memchr(in->text + pos, '\r', in->text_len - pos);

	in->cr_pos = cr ? (size_t)(cr - in->text) : SIZE_MAX;
	in->cr_end = in->text_len;
}

/* The end of line_in_place(): the line at text_pos @pos, @take bytes without its CR, handed out. */
static inline long line_hand_out(struct input *in, char *start, size_t pos, size_t take,
				 char **line)
{
	in->line_cr = in->cr_pos < pos + take;
	start[take] = '\0';
	in->lineno++;
	*line = start;
	return (long)take;
}

/* line_hand_out() after the search for the next CR: its own function, out of the common path */
static __attribute__((noinline)) long line_after_cr_search(struct input *in, char *start,
							    size_t pos, size_t take, char **line)
{
	cr_search(in, pos);
	return line_hand_out(in, start, pos, take, line);
}

/*
 * The line from @start to its newline @nl, handed out in place (inside the
 * buffer), no CR kept.  No call on its common path but a tail call: the
 * reader keeps only what lives across its memchr().
 */
static inline long line_in_place(struct input *in, char *start, const char *nl, char **line)
{
	size_t take = (size_t)(nl - start), pos = in->text_pos;

	in->text_pos += take + 1;
	if (take && start[take - 1] == '\r')
		take--;
	if (pos + take > in->cr_end || in->cr_pos < pos)
		return line_after_cr_search(in, start, pos, take, line);
	return line_hand_out(in, start, pos, take, line);
}

/* input_next_line() at a file's start and of a line that does not lie whole in the buffer */
static long next_line_slow(struct input *in, char **line)
{
	size_t len = 0, total = 0;

	if (in->cur == (size_t)-1 && open_next(in))
		return -1;
	for (;;) {
		char *start = in->text + in->text_pos;
		size_t avail = in->text_len - in->text_pos;
		char *nl = memchr(start, '\n', avail);
		size_t take = nl ? (size_t)(nl - start) : avail;
		int r;

		if (nl && !total && take <= INPUT_MAX_LINE)
			return line_in_place(in, start, nl, line);
		/* past INPUT_MAX_LINE the bytes are counted, not kept: constant memory */
		if (len < INPUT_MAX_LINE) {
			size_t keep = take < INPUT_MAX_LINE - len ? take : INPUT_MAX_LINE - len;

			memcpy(in->line + len, start, keep);
			len += keep;
		}
		total += take;
		in->text_pos += take + (nl ? 1 : 0);
		if (nl) {
			if (total > INPUT_MAX_LINE)
				in->overlong = total;
			else if (len && in->line[len - 1] == '\r')
				len--;
			in->line[len] = '\0';
			in->line_cr = memchr(in->line, '\r', len) != NULL;
			in->lineno++;
			*line = in->line;
			return (long)len;
		}
		in->text_pos = in->text_len = 0;
		in->cr_end = 0;
		r = decode_more(in, &total);
		if (r > 0)
			continue;
		/*
		 * End of this file.  Its last line may lack the newline; one
		 * cut by damage (a compressed chunk that ends early) is dropped
		 * (decode_more reported it).
		 */
		if (total && !in->damaged && !in->last_done) {
			if (total > INPUT_MAX_LINE)
				in->overlong = total;
			in->line[len] = '\0';
			in->line_cr = memchr(in->line, '\r', len) != NULL;
			in->lineno++;
			*line = in->line;
			in->last_done = 1;
			in->failed = 1;
			return (long)len;
		}
		len = total = 0;
		if (open_next(in))
			return -1;
	}
}

long input_next_line(struct input *in, char **line)
{
	char *start, *nl;

	in->overlong = 0;
	if (in->cur == (size_t)-1)
		return next_line_slow(in, line);
	/* most lines lie whole in the buffer: this path saves no registers for the rest */
	start = in->text + in->text_pos;
	nl = memchr(start, '\n', in->text_len - in->text_pos);
	if (!nl || (size_t)(nl - start) > INPUT_MAX_LINE)
		return next_line_slow(in, line);
	return line_in_place(in, start, nl, line);
}

size_t input_overlong(const struct input *in)
{
	return in->overlong;
}

int input_line_has_cr(const struct input *in)
{
	return in->line_cr;
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
