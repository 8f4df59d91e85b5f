// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock record: stream events from a private tracefs instance into DIR.
 *
 * Setup happens with tracing off in instance mmlock-PID (the top-level
 * instance is never written; the events, filters and triggers it gets are
 * events.c's); a COMMAND is forked first and held at a gate
 * (a pipe) until its pid filter is in place.  Text mode reads the instance's
 * trace_pipe with read(2) and feeds the chunk writer; binary mode runs one
 * reader thread per CPU (binary.c).  Every exit path turns tracing off and
 * removes the instance; once recording has started, it also writes
 * trace.status (a normal stop drains the buffer first; an output error does
 * not, and counts what stayed in the buffer as lost).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <tracefs.h>

#include "evset.h"
#include "jsonout.h"
#include "mmlock.h"
#include "mmlock_events.h"
#include "outfile.h"
#include "record.h"
#include "util.h"

#define READ_BUF	(64 * 1024)
#define POLL_MS		100

/*
 * The only state a signal handler may touch.  cmd_record() is called
 * in-process by `mmlock run` (perf's __cmd_record): record_init() resets
 * both, and record_release() puts back the handlers it found.
 */
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t child_changed;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;
	child_changed = 1;
}

static const int record_signals[RECORD_NR_SIGNALS] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE };

/* The run's handlers; the caller's are saved in @r and put back by restore_signals(). */
static int install_signals(struct record *r)
{
	struct sigaction sa;
	int i;

	if (r->signals_saved)
		return 0;
	for (i = 0; i < RECORD_NR_SIGNALS; i++)
		if (sigaction(record_signals[i], NULL, &r->saved_sa[i]))
			return -1;
	r->signals_saved = 1;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;	/* no SA_RESTART: poll() and read() return EINTR */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -1;
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	if (sigaction(SIGCHLD, &sa, NULL))
		return -1;
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	return sigaction(SIGPIPE, &sa, NULL);
}

static void restore_signals(struct record *r)
{
	int i;

	if (!r->signals_saved)
		return;
	for (i = 0; i < RECORD_NR_SIGNALS; i++)
		sigaction(record_signals[i], &r->saved_sa[i], NULL);
	r->signals_saved = 0;
}

int record_stop_signal(void)
{
	return stop_signal;
}

static void default_signals(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

#define set_error record_error

void record_error(struct record *r, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	pr_err("%s", msg);
	if (!r->error)
		r->error = msg;
	else
		free(msg);
}

/* ------------------------------------------------------------ output dir */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* With --force: remove the files a previous recording left, nothing else. */
static int clear_outdir(const char *dir)
{
	static const char *const trees[] = { "raw", "tracefs", "maps" };
	struct dirent *d;
	DIR *dp;
	size_t i;
	int ret = 0;

	dp = opendir(dir);
	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		if (!strncmp(d->d_name, "trace-", 6) || !strncmp(d->d_name, "trace.status", 12) ||
		    !strcmp(d->d_name, "kallsyms")) {
			char *p = xasprintf("%s/%s", dir, d->d_name);

			if (unlink(p))
				ret = -1;
			free(p);
		}
	}
	closedir(dp);
	for (i = 0; i < ARRAY_SIZE(trees); i++) {
		char *p = xasprintf("%s/%s", dir, trees[i]);

		if (!access(p, F_OK) && nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS))
			ret = -1;
		free(p);
	}
	return ret;
}

static int dir_is_empty(const char *path)
{
	struct dirent *d;
	DIR *dp = opendir(path);
	int empty = 1;

	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			empty = 0;
			break;
		}
	}
	closedir(dp);
	return empty;
}

#define RESERVE_NAME	"trace.status.reserve"
#define RESERVE_SIZE	(128 * 1024)

/*
 * Space for the last trace.status: a file of zeros made at the start and
 * deleted just before the final write, so a full disk still gets its status.
 */
static void reserve_space(struct record *r)
{
	int fd = openat(r->outdir_fd, RESERVE_NAME,
			O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0)
		return;
	if (posix_fallocate(fd, 0, RESERVE_SIZE))
		unlinkat(r->outdir_fd, RESERVE_NAME, 0);
	close(fd);
}

static void release_space(struct record *r)
{
	if (r->outdir_fd >= 0)
		unlinkat(r->outdir_fd, RESERVE_NAME, 0);
}

static int open_outdir(struct record *r)
{
	const char *path = r->opts->output;
	struct stat st;
	int fd;

	if (lstat(path, &st)) {
		if (errno != ENOENT || mkdir_p(path)) {
			set_error(r, "cannot create output directory %s: %s", path, strerror(errno));
			return -1;
		}
		r->made_outdir = 1;
	} else if (S_ISLNK(st.st_mode) && !r->opts->force) {
		set_error(r, "refusing output %s: it is a symbolic link (give --force to write "
			  "where it points)", path);
		return -1;
	} else {
		if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
			set_error(r, "output %s exists and is not a directory", path);
			return -1;
		}
		if (!dir_is_empty(path)) {
			if (!r->opts->force) {
				set_error(r, "refusing output %s: the directory is not empty (give "
					  "--force to replace a previous recording there)", path);
				return -1;
			}
			if (clear_outdir(path)) {
				set_error(r, "cannot clear %s: %s", path, strerror(errno));
				return -1;
			}
		}
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || faccessat(fd, ".", W_OK, AT_EACCESS)) {
		set_error(r, "cannot write to output directory %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	r->outdir_fd = fd;
	reserve_space(r);
	return 0;
}

/* --------------------------------------------------------------- command */

static int start_command(struct record *r)
{
	int gate[2], errp[2];
	pid_t pid;

	if (pipe2(gate, O_CLOEXEC))
		return -1;
	if (pipe2(errp, O_CLOEXEC))
		goto close_gate;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		goto close_errp;
	if (pid == 0) {
		char c;
		int err;

		default_signals();
		close(gate[1]);
		close(errp[0]);
		if (read(gate[0], &c, 1) != 1)
			_exit(126);	/* mmlock gave up before releasing us */
		execvp(r->opts->cmd[0], r->opts->cmd);
		err = errno;
		if (write(errp[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(gate[0]);
	close(errp[1]);
	r->gate_fd = gate[1];
	r->exec_err_fd = errp[0];
	r->child = pid;
	return 0;

close_errp:
	close(errp[0]);
	close(errp[1]);
close_gate:
	close(gate[0]);
	close(gate[1]);
	return -1;
}

/* Let the COMMAND run; -1 when exec failed. */
static int release_command(struct record *r)
{
	ssize_t n;
	int err = 0;

	if (write(r->gate_fd, "g", 1) != 1)
		err = errno;
	close(r->gate_fd);
	r->gate_fd = -1;
	do {
		n = read(r->exec_err_fd, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(r->exec_err_fd);
	r->exec_err_fd = -1;
	if (n == (ssize_t)sizeof(err)) {
		set_error(r, "cannot run '%s': %s", r->opts->cmd[0], strerror(err));
		return -1;
	}
	return 0;
}

static void reap_child(struct record *r, int block)
{
	pid_t p;

	if (r->child <= 0 || r->child_done)
		return;
	do {
		p = waitpid(r->child, &r->child_status, block ? 0 : WNOHANG);
	} while (p < 0 && errno == EINTR);
	if (p == r->child)
		r->child_done = 1;
}

/* Stop a COMMAND still running when the recording ends. */
static void end_child(struct record *r)
{
	int i;

	if (r->gate_fd >= 0) {		/* never released: closing the gate ends it */
		close(r->gate_fd);
		r->gate_fd = -1;
	}
	if (r->exec_err_fd >= 0) {
		close(r->exec_err_fd);
		r->exec_err_fd = -1;
	}
	if (r->child <= 0)
		return;
	reap_child(r, 0);
	if (r->child_done)
		return;
	kill(r->child, SIGTERM);
	r->child_killed = 1;
	for (i = 0; i < 20 && !r->child_done; i++) {
		usleep(50000);
		reap_child(r, 0);
	}
	if (!r->child_done) {
		kill(r->child, SIGKILL);
		reap_child(r, 1);
	}
}

/* --------------------------------------------------------- maps snapshots */

/*
 * CAPTURE/maps: copies of /proc/TGID/maps of the traced process, so that the
 * analyzer can turn a user_pc into a file, a function and a line after the
 * process is gone (capture/README.md).  Reading /proc/PID/maps takes the
 * very locks being measured (mmap_lock, or the VMA locks on 6.17+: a maps
 * reader is one of the seed's known contention paths), so it is read
 * rarely: at the start (after the exec of a COMMAND), once more a second
 * later (what a dynamic loader or an early dlopen() mapped), after an exec
 * and a second after that -- an exec is seen by polling /proc/TGID/exe every
 * MAPS_POLL_US, which takes no mmap_lock -- and at the end, with tracing already off, while the process
 * still lives.  A copy whose executable file mappings equal the last one's
 * is not kept.  Each copy is TGID.N.txt, created exclusively; maps/index
 * lists them ("NAME TGID MONO_NS WHY") and is replaced atomically after each
 * one, so a killed run keeps a valid index.
 */
#define MAPS_POLL_US	250000
#define MAPS_SETTLE_US	1000000		/* the second copy, after the start */
#define MAPS_MAX_FILES	64		/* per run; the end snapshot may take one more */
#define MAPS_MAX_BYTES	(8u << 20)	/* ~65530 VMAs of long paths */

static struct maps_saver {
	int		tgid;		/* 0: none saved */
	int		dirfd;
	int		flags;		/* OUTFILE_* */
	unsigned int	n;
	char		*index;		/* the index's text so far */
	char		*last;		/* file-backed lines of the last snapshot */
	char		exe[256];	/* /proc/TGID/exe then */
	uint64_t	last_us, start_us, check_us;
	int		settled;	/* the copy a second after the start was taken */
	int		warned;
} maps_saver = { .dirfd = -1 };

/* /proc/TGID/exe's target into @exe ("" when it cannot be read). */
static void read_exe(int tgid, char *exe, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", tgid);
	n = readlink(link, exe, size - 1);
	exe[n > 0 ? n : 0] = '\0';
}

/* The whole of /proc/TGID/maps; NULL when the process is gone (or a zombie). */
static char *read_proc_maps(int tgid, size_t *len)
{
	char path[64], *buf = NULL;
	size_t cap = 0, n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t got;

		if (cap - n < 4096) {
			if (cap >= MAPS_MAX_BYTES)
				break;
			cap = cap ? cap * 2 : 65536;
			buf = xrealloc(buf, cap + 1);
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (!n) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * The executable lines naming a file: what a user_pc resolves through.
 * Data mappings that mprotect() or mmap() churn do not make a new snapshot.
 */
static char *file_lines(const char *text)
{
	size_t len = strlen(text), o = 0;
	char *out = xmalloc(len + 1);
	const char *l = text;

	while (*l) {
		const char *nl = strchr(l, '\n'), *end = nl ? nl + 1 : l + strlen(l);

		const char *sp = memchr(l, ' ', (size_t)(end - l));

		/* "START-END rwxp ...": the x of the permissions */
		if (sp && end - sp > 4 && sp[3] == 'x' && memchr(l, '/', (size_t)(end - l))) {
			memcpy(out + o, l, (size_t)(end - l));
			o += (size_t)(end - l);
		}
		l = end;
	}
	out[o] = '\0';
	return out;
}

/* Does a line of the maps @text map @path (the line ends with it)? */
static int maps_names_file(const char *text, const char *path)
{
	size_t n = strlen(path);

	for (const char *p = strstr(text, path); p; p = strstr(p + 1, path))
		if (p > text && p[-1] == ' ' && (p[n] == '\n' || !p[n]))
			return 1;
	return 0;
}

static void maps_warn(const char *what, int err)
{
	if (!maps_saver.warned)
		pr_warn("maps snapshot: %s: %s; user_pc of later events may not resolve", what,
			strerror(err));
	maps_saver.warned = 1;
}

/* Save /proc/TGID/maps as maps/TGID.N.txt unless its executable file lines are the last copy's. */
static void maps_snapshot(const char *why)
{
	struct maps_saver *ms = &maps_saver;
	char name[48], exe[256], *text, *files, *idx;
	int end = !strcmp(why, "end");
	size_t len;

	if (!ms->tgid || ms->dirfd < 0 || (ms->n >= MAPS_MAX_FILES && !end) ||
	    ms->n > MAPS_MAX_FILES)
		return;
	ms->last_us = mono_us();
	text = read_proc_maps(ms->tgid, &len);
	if (!text)
		return;
	read_exe(ms->tgid, exe, sizeof(exe));
	if (!strcmp(why, "exec") && exe[0] && !maps_names_file(text, exe)) {
		/*
		 * Caught inside the exec: /proc/TGID/exe names the new image
		 * before its segments are mapped.  ms->exe stays the old one,
		 * so the next tick sees the exec again and retries.
		 */
		free(text);
		return;
	}
	files = file_lines(text);
	if (ms->last && !strcmp(ms->last, files)) {
		/* an exec of a copy of the same file: nothing new to keep */
		memcpy(ms->exe, exe, sizeof(exe));
		free(files);
		free(text);
		return;
	}
	snprintf(name, sizeof(name), "%d.%u.txt", ms->tgid, ms->n);
	if (outfile_write_all(ms->dirfd, name, text, len, ms->flags | OUTFILE_NO_REPLACE |
			      OUTFILE_REGULAR_ONLY)) {
		maps_warn(name, errno);
		free(files);
		free(text);
		return;
	}
	ms->n++;
	free(ms->last);
	ms->last = files;
	memcpy(ms->exe, exe, sizeof(exe));
	idx = xasprintf("%s%s %d %" PRIu64 " %s\n", ms->index ? ms->index :
			"# NAME TGID CLOCK_MONOTONIC_NS WHY (start, changed, exec, end)\n", name,
			ms->tgid, ms->last_us * 1000, why);
	free(ms->index);
	ms->index = idx;
	if (outfile_write_all(ms->dirfd, "index", idx, strlen(idx), ms->flags |
			      OUTFILE_REGULAR_ONLY))
		maps_warn("index", errno);
	free(text);
}

/* Start saving the maps of @tgid into CAPTURE/maps, with the first snapshot. */
static void maps_start(struct record *r, int tgid)
{
	struct maps_saver *ms = &maps_saver;

	if (mkdirat(r->outdir_fd, "maps", 0755) && errno != EEXIST) {
		maps_warn("cannot create maps/", errno);
		return;
	}
	ms->dirfd = openat(r->outdir_fd, "maps", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (ms->dirfd < 0) {
		maps_warn("cannot open maps/", errno);
		return;
	}
	ms->tgid = tgid;
	ms->flags = r->opts->no_fsync ? OUTFILE_NO_FSYNC : 0;
	ms->start_us = ms->check_us = mono_us();
	maps_snapshot("start");
}

/* From the main loop: an exec (by /proc/TGID/exe), or the second copy due. */
static void maps_tick(void)
{
	struct maps_saver *ms = &maps_saver;
	uint64_t now = mono_us();
	char exe[256];

	if (!ms->tgid || now - ms->check_us < MAPS_POLL_US)
		return;
	ms->check_us = now;
	read_exe(ms->tgid, exe, sizeof(exe));
	if (exe[0] && ms->exe[0] && strcmp(exe, ms->exe)) {
		maps_snapshot("exec");
		/* and a second later, what the new image's loader mapped */
		ms->settled = 0;
		ms->start_us = now;
	} else if (!ms->settled && now - ms->start_us >= MAPS_SETTLE_US) {
		ms->settled = 1;
		maps_snapshot("changed");
	}
}

static void maps_stop(void)
{
	struct maps_saver *ms = &maps_saver;

	if (ms->dirfd >= 0)
		close(ms->dirfd);
	free(ms->index);
	free(ms->last);
	memset(ms, 0, sizeof(*ms));
	ms->dirfd = -1;
}

/* -------------------------------------------------------------- progress */

struct progress {
	int		on;
	int		tty;
	uint64_t	last_us;
	uint64_t	last_events;
	uint64_t	start_us;
};

/* Events and bytes written so far, text writer and binary readers together. */
static void totals_so_far(struct record *r, uint64_t *events, uint64_t *bytes)
{
	int cpu;

	*events = r->cw_live ? r->cw.events : 0;
	*bytes = r->cw_live ? r->cw.bytes : 0;
	for (cpu = 0; r->bin_live && cpu < r->bin.nr_cpus; cpu++) {
		*events += r->bin.cpus[cpu].events;
		*bytes += r->bin.cpus[cpu].bytes;
	}
}

static uint64_t lost_so_far(struct record *r)
{
	struct cpu_stats *st;
	uint64_t lost = 0;
	int cpu;

	if (!r->col.inst)
		return r->cw_live ? r->cw.lost_markers : 0;
	st = xcalloc((size_t)r->col.nr_cpus, sizeof(*st));
	collector_read_stats(&r->col, st);
	for (cpu = 0; cpu < r->col.nr_cpus; cpu++)
		lost += st[cpu].overrun + st[cpu].dropped + st[cpu].commit_overrun;
	free(st);
	return lost;
}

static void progress_tick(struct record *r, struct progress *p, uint64_t now, int last)
{
	uint64_t ev, bytes, dt;
	double mb;

	if (!p->on || (!last && now - p->last_us < 1000000))
		return;
	totals_so_far(r, &ev, &bytes);
	dt = (now > p->last_us) ? (now - p->last_us) : 1;
	mb = (double)bytes / (1 << 20);
	fprintf(stderr, "%s%s: %llu events, %.0f/s, %.1f MiB, %zu chunks, lost %llu%s",
		p->tty ? "\r\033[K" : "", util_prog(), (unsigned long long)ev,
		(double)(ev - p->last_events) * 1e6 / (double)dt, mb,
		r->cw_live ? r->cw.nr_chunks : 0, (unsigned long long)lost_so_far(r),
		p->tty && !last ? "" : "\n");
	p->last_us = now;
	p->last_events = ev;
}

/* ------------------------------------------------------------- recording */

/*
 * After each chunk, so a run killed with SIGKILL still describes its
 * complete chunks; at most once a second, since the file grows with them.
 */
static void on_chunk(void *ctx)
{
	struct record *r = ctx;
	uint64_t now = mono_us();

	if (r->status_us && now - r->status_us < 1000000)
		return;
	r->status_us = now;
	if (record_write_status(r))
		pr_warn("cannot update trace.status: %s", strerror(errno));
}

static int open_chunks(struct record *r)
{
	if (chunk_writer_init(&r->cw, r->outdir_fd, r->opts->compress, r->opts->level,
			      &r->opts->limits)) {
		set_error(r, "cannot set up the chunk writer: %s", strerror(errno));
		return -1;
	}
	r->cw.do_fsync = !r->opts->no_fsync;
	r->cw.on_chunk = on_chunk;
	r->cw.ctx = r;
	r->cw_live = 1;
	return 0;
}

static void chunk_write_error(struct record *r)
{
	int err = errno;
	char name[sizeof(r->cw.part_name)];

	if (r->cw.part_name[0])
		snprintf(name, sizeof(name), "%s", r->cw.part_name);
	else
		chunk_name(name, sizeof(name), r->cw.next_index, r->opts->compress);
	chunk_writer_abort(&r->cw);
	set_error(r, "cannot write %s/%s: %s; stopped, %zu complete chunk%s kept",
		  r->opts->output, name, strerror(err), r->cw.nr_chunks,
		  r->cw.nr_chunks == 1 ? "" : "s");
}

/* Why the loop should end, or NULL to go on. */
static const char *should_stop(struct record *r, uint64_t now, uint64_t start)
{
	if (stop_signal)
		return sigabbrev_np(stop_signal);
	if (r->opts->duration_us && now - start >= r->opts->duration_us)
		return "duration";
	if (child_changed) {
		child_changed = 0;
		reap_child(r, 0);
	}
	if (r->child_done)
		return "command-exited";
	return NULL;
}

static void set_stop_reason(struct record *r, const char *why)
{
	free(r->stop_reason);
	if (stop_signal && why && !strcmp(why, sigabbrev_np(stop_signal)))
		r->stop_reason = xasprintf("signal SIG%s", why);
	else
		r->stop_reason = why ? xstrdup(why) : NULL;
}

/*
 * Read what is there: up to @max reads.  1 when the pipe is empty, 0 when
 * there may be more, -1 on a chunk write error.
 */
static int drain_fd(struct record *r, int fd, char *buf, int max)
{
	int i;

	for (i = 0; i < max; i++) {
		ssize_t n = read(fd, buf, READ_BUF);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		if (chunk_writer_feed(&r->cw, buf, (size_t)n, mono_us())) {
			chunk_write_error(r);
			return -1;
		}
	}
	return 0;
}

/* The main loop shared by the modes: @fd is trace_pipe or stdin, or -1. */
static int stream_loop(struct record *r, int fd, int is_stdin)
{
	struct progress pg = { 0 };
	char *buf = xmalloc(READ_BUF);
	uint64_t start = mono_us();
	const char *why = NULL;
	int ret = 0, more = 0;

	pg.on = r->opts->progress || isatty(STDERR_FILENO);
	pg.tty = isatty(STDERR_FILENO);
	pg.last_us = pg.start_us = start;
	while (!why) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now;
		int n;

		/* poll() waits for buffer_percent; while data keeps coming, do not wait */
		n = poll(&pfd, fd >= 0 ? 1 : 0, more ? 0 : POLL_MS);
		more = 0;
		if (n > 0 && fd >= 0) {
			if (is_stdin) {
				ssize_t got = read(fd, buf, READ_BUF);

				if (got == 0) {
					why = "end-of-input";
				} else if (got > 0 &&
					   chunk_writer_feed(&r->cw, buf, (size_t)got, mono_us())) {
					chunk_write_error(r);
					ret = -1;
					break;
				}
			} else {
				int d = drain_fd(r, fd, buf, 256);

				if (d < 0) {
					ret = -1;
					break;
				}
				more = d == 0;
			}
		}
		if (r->bin_live && r->bin.failed) {
			ret = -1;
			break;
		}
		now = mono_us();
		if (r->cw_live && chunk_writer_tick(&r->cw, now)) {
			chunk_write_error(r);
			ret = -1;
			break;
		}
		progress_tick(r, &pg, now, 0);
		maps_tick();
		if (!why)
			why = should_stop(r, now, start);
	}
	if (why)
		set_stop_reason(r, why);
	else
		set_stop_reason(r, "error");
	/* tracing off, then what the buffer still holds */
	if (r->col.inst)
		tracefs_trace_off(r->col.inst);
	if (!ret && fd >= 0 && !is_stdin) {
		int d;

		while ((d = drain_fd(r, fd, buf, 1024)) == 0)
			;
		if (d < 0)
			ret = -1;
	}
	free(buf);
	if (!ret && r->cw_live && chunk_writer_finish(&r->cw, mono_us())) {
		chunk_write_error(r);
		ret = -1;
	}
	progress_tick(r, &pg, mono_us(), 1);
	return ret;
}

static void read_clocks(struct timespec *rt, uint64_t *mono_ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, rt);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	*mono_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void mark_start(struct record *r)
{
	read_clocks(&r->start_rt, &r->start_mono_ns);
	r->started = 1;
}

static void mark_stop(struct record *r)
{
	read_clocks(&r->stop_rt, &r->stop_mono_ns);
	r->stopped = 1;
}

/*
 * --stdin: a producer elsewhere (a phone's trace_pipe behind adb) enabled the
 * events; -e names them, -F and -s say which filters and stack triggers it
 * wrote, so trace.status describes that capture.  Nothing is written to a
 * kernel here.  Without -e the set is unknowable: trace.status says null,
 * never [] (which would read as "nothing recorded").
 */
static int stdin_events(struct record *r)
{
	struct record_opts *o = r->opts;
	struct collector *c = &r->col;
	int custom = 0, stock = 0, other = 0;
	size_t i;

	if (!o->nr_events) {
		if (o->nr_filters || o->nr_stacks) {
			set_error(r, "--stdin: --filter and --stack describe events named with -e; "
				  "give -e LIST");
			return -1;
		}
		r->events_unknown = 1;
		/* --source says which set the producer enabled, if not which events */
		if (o->source != EVSET_SRC_AUTO)
			r->event_source = evset_source_name(o->source);
		return 0;
	}
	for (i = 0; i < o->nr_events; i++) {
		const char *spec = o->events[i], *colon = strchr(spec, ':');
		const struct mmlock_event *ev = mmlock_event_find(spec);
		char *full;

		if (evset_is_module(spec)) {
			full = xstrdup(spec);	/* the module's copy keeps its system */
		} else if (ev) {
			full = xasprintf("%s:%s", ev->system, ev->name);
		} else if (colon && colon > spec && colon[1] && !strchr(colon + 1, ':') &&
			   !strpbrk(spec, " \t\n/")) {
			full = xstrdup(spec);	/* a vendor event the contract does not list */
		} else {
			set_error(r, "--stdin: event '%s' is not in the contract (mmlock events): "
				  "name it as SYSTEM:NAME", spec);
			return -1;
		}
		c->available = xrealloc(c->available, (c->nr_available + 1) *
					sizeof(*c->available));
		c->available[c->nr_available++] = full;
		colon = strchr(full, ':');
		record_event_add(c, xstrndup(full, (size_t)(colon - full)), xstrdup(colon + 1));
	}
	for (i = 0; i < c->nr_events; i++) {
		char *full = xasprintf("%s:%s", c->events[i].system, c->events[i].name);
		const struct mmlock_event *ev = evset_find(full);

		if (ev && ev->custom)
			custom++;
		else if (ev || evset_extra_find(full) >= 0)
			stock++;
		else
			other++;
		free(full);
	}
	r->event_set = custom == MMLOCK_EV_NR_CUSTOM ? "custom" : custom && stock ? "mixed" :
		       !custom && stock && !other ? "stock" : "user";
	r->event_source = o->source != EVSET_SRC_AUTO ? evset_source_name(o->source) :
			  record_events_source(c);
	return record_filters_build(r);
}

/* The end every stream run shares: stopped now, the final trace.status. */
static int finish_status(struct record *r, int failed)
{
	mark_stop(r);
	r->state = failed ? "error" : stop_signal ? "stopped" : "complete";
	release_space(r);
	if (record_write_status(r) && !failed) {
		set_error(r, "cannot write %s/trace.status: %s", r->opts->output, strerror(errno));
		failed = 1;
	}
	return failed ? -1 : 0;
}

static int record_stdin(struct record *r)
{
	int ret;

	r->mode = "stdin";
	if (stdin_events(r))
		return MMLOCK_EXIT_USAGE;
	ret = record_begin(r);
	if (ret != MMLOCK_EXIT_OK)
		return ret;
	record_write_status(r);
	ret = stream_loop(r, STDIN_FILENO, 1);
	return finish_status(r, ret != 0) ? MMLOCK_EXIT_OUTPUT : MMLOCK_EXIT_OK;
}

static void report_stale(const char *name, void *ctx)
{
	(void)ctx;
	pr_warn("removed tracing instance %s left by a killed mmlock record", name);
}

/*
 * --dry-run: the events, filters and triggers a recording would set, as the
 * trace.status keys that say so, on standard output.  Only the top-level
 * available_events (and the module's sysfs files) are read: no instance,
 * no output directory, nothing written to the kernel.
 */
static int record_dry_run(struct record *r, char *dir)
{
	static const char *const keys[] = {
		"event_source", "event_set", "events", "events_missing", "set_event_pid",
		"module_caps", "module_version",
	};
	json_object *o, *all;
	int ret = MMLOCK_EXIT_KERNEL;
	size_t i;

	r->col.tracing_dir = dir;
	if (record_events_resolve(r) || record_filters_build(r)) {
		if (r->env_failure)
			ret = MMLOCK_EXIT_ENV;
		goto out;
	}
	if (r->opts->tgid) {
		int stock = 0;

		for (i = 0; i < r->col.nr_events; i++)
			stock |= !r->col.events[i].custom;
		if (stock)
			record_threads_add(r, r->opts->tgid);
	}
	/* the keys of the trace.status it would write, from the one writer */
	all = record_status_json(r);
	o = json_object_new_object();
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		json_object_object_add(o, keys[i], json_object_get(json_object_object_get(all, keys[i])));
	json_object_put(all);
	ret = json_write(NULL, o, 1, 0) ? MMLOCK_EXIT_OUTPUT : MMLOCK_EXIT_OK;
	json_object_put(o);
out:
	/* collector_destroy() frees it with the event list */
	return ret;
}

static int record_trace(struct record *r)
{
	struct record_opts *o = r->opts;
	char *dir = NULL, *pipe_path;
	int ret = MMLOCK_EXIT_FAILURE, fd = -1, loop;

	r->mode = o->binary ? "binary" : "text";
	if (geteuid() != 0) {
		set_error(r, "must run as root: tracing needs CAP_SYS_ADMIN and tracefs is "
			  "root-only");
		return MMLOCK_EXIT_ENV;
	}
	if (collector_find_tracefs(o->tracefs, &dir)) {
		set_error(r, "no tracefs at %s: %s%s", o->tracefs ? o->tracefs :
			  "/sys/kernel/tracing", strerror(errno),
			  o->tracefs ? "" : " (mount -t tracefs nodev /sys/kernel/tracing failed)");
		return MMLOCK_EXIT_ENV;
	}
	if (o->dry_run)
		return record_dry_run(r, dir);
	if (collector_remove_stale(dir, 0, report_stale, NULL) < 0)
		pr_warn("could not remove every stale mmlock instance: %s", strerror(errno));
	if (open_outdir(r)) {
		free(dir);
		return MMLOCK_EXIT_OUTPUT;
	}
	if (install_signals(r)) {
		free(dir);
		return MMLOCK_EXIT_FAILURE;
	}
	if (collector_create(&r->col, dir)) {
		set_error(r, "cannot create tracing instance in %s/instances: %s", dir,
			  strerror(errno));
		free(dir);
		return MMLOCK_EXIT_ENV;
	}
	free(dir);
	r->stats_start = xcalloc((size_t)r->col.nr_cpus, sizeof(struct cpu_stats));
	r->stats_end = xcalloc((size_t)r->col.nr_cpus, sizeof(struct cpu_stats));
	r->state = "setup";

	ret = MMLOCK_EXIT_KERNEL;
	if (record_events_resolve(r) || record_filters_build(r)) {
		if (r->env_failure)
			ret = MMLOCK_EXIT_ENV;
		goto destroy_instance;
	}
	if (o->cmd) {
		if (start_command(r)) {
			set_error(r, "cannot start '%s': %s", o->cmd[0], strerror(errno));
			ret = MMLOCK_EXIT_CHILD;
			goto destroy_instance;
		}
		r->tgid = r->child;
		record_threads_add(r, r->child);
	} else if (o->tgid) {
		size_t i;
		int stock = 0;

		if (kill(o->tgid, 0) && errno == ESRCH) {
			set_error(r, "--tgid %d: no such process", o->tgid);
			ret = MMLOCK_EXIT_USAGE;
			goto destroy_instance;
		}
		r->tgid = o->tgid;
		for (i = 0; i < r->col.nr_events; i++)
			stock |= !r->col.events[i].custom;
		if (stock)
			record_threads_add(r, o->tgid);
	}
	if (record_settings_write(r))
		goto end_child;
	if (!o->binary) {
		pipe_path = tracefs_instance_get_file(r->col.inst, "trace_pipe");
		fd = pipe_path ? open(pipe_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
		tracefs_put_tracing_file(pipe_path);
		if (fd < 0) {
			set_error(r, "cannot open the instance's trace_pipe: %s", strerror(errno));
			ret = MMLOCK_EXIT_ENV;
			goto end_child;
		}
		if (open_chunks(r)) {
			ret = MMLOCK_EXIT_FAILURE;
			goto close_pipe;
		}
	} else if (bin_reader_start(&r->bin, &r->col, r->outdir_fd)) {
		set_error(r, "cannot start the per-CPU readers: %s", strerror(errno));
		ret = MMLOCK_EXIT_FAILURE;
		goto end_child;
	} else {
		r->bin_live = 1;
	}
	if (stop_signal) {
		set_stop_reason(r, sigabbrev_np(stop_signal));
		ret = MMLOCK_EXIT_OK;
		goto stop_readers;
	}
	collector_read_stats(&r->col, r->stats_start);
	r->state = "recording";
	mark_start(r);
	if (tracefs_trace_on(r->col.inst)) {
		set_error(r, "cannot turn tracing on in %s: %s", r->col.name, strerror(errno));
		ret = MMLOCK_EXIT_KERNEL;
		goto stop_readers;
	}
	if (record_write_status(r)) {
		set_error(r, "cannot write %s/trace.status: %s", o->output, strerror(errno));
		ret = MMLOCK_EXIT_OUTPUT;
		goto stop_readers;
	}
	if (o->cmd && release_command(r)) {
		ret = MMLOCK_EXIT_CHILD;
		tracefs_trace_off(r->col.inst);
		goto stop_readers;
	}
	/* released: the COMMAND has exec'd, its maps are its own */
	if (r->tgid)
		maps_start(r, r->tgid);
	loop = stream_loop(r, fd, 0);
	/* before end_child() stops a COMMAND still running */
	maps_snapshot("end");
	ret = loop ? MMLOCK_EXIT_OUTPUT : MMLOCK_EXIT_OK;

stop_readers:
	tracefs_trace_off(r->col.inst);
	if (r->bin_live && bin_reader_stop(&r->bin)) {
		set_error(r, "cannot write the raw pages to %s/raw: %s; stopped, the complete pages "
			  "are kept", o->output, strerror(r->bin.failed));
		ret = MMLOCK_EXIT_OUTPUT;
	}
	if (r->bin_live && bin_save_formats(&r->col, r->outdir_fd) && ret == MMLOCK_EXIT_OK) {
		set_error(r, "cannot save the event formats: %s", strerror(errno));
		ret = MMLOCK_EXIT_OUTPUT;
	}
	collector_read_stats(&r->col, r->stats_end);
	mark_stop(r);
close_pipe:
	if (fd >= 0)
		close(fd);
end_child:
	end_child(r);
	/* a COMMAND that crashed by itself (not stopped by us or by the user) */
	if (ret == MMLOCK_EXIT_OK && r->child_done && WIFSIGNALED(r->child_status) &&
	    !r->child_killed && !stop_signal) {
		pr_warn("'%s' was killed by SIG%s", o->cmd[0],
			sigabbrev_np(WTERMSIG(r->child_status)));
		ret = MMLOCK_EXIT_CHILD;
	}
destroy_instance:
	release_space(r);
	if (r->started) {
		r->state = r->error ? "error" : stop_signal ? "stopped" : "complete";
		if (record_write_status(r) && ret == MMLOCK_EXIT_OK) {
			set_error(r, "cannot write %s/trace.status: %s", o->output,
				  strerror(errno));
			ret = MMLOCK_EXIT_OUTPUT;
		}
	}
	maps_stop();
	collector_destroy(&r->col);
	return ret;
}

void record_init(struct record *r, struct record_opts *o, int argc, char **argv)
{
	struct utsname un;

	memset(r, 0, sizeof(*r));
	r->opts = o;
	r->outdir_fd = -1;
	r->gate_fd = -1;
	r->exec_err_fd = -1;
	stop_signal = 0;
	child_changed = 0;
	r->argc = argc + 1;
	r->argv = xcalloc((size_t)argc + 2, sizeof(char *));
	r->argv[0] = "mmlock";
	memcpy(r->argv + 1, argv, (size_t)argc * sizeof(char *));
	if (!uname(&un))
		snprintf(r->kernel_release, sizeof(r->kernel_release), "%s", un.release);
}

void record_release(struct record *r, int ret)
{
	end_child(r);			/* closes the gate, even of a run cut short */
	maps_stop();
	collector_destroy(&r->col);	/* --stdin fills its event list too */
	if (r->cw_live)
		chunk_writer_release(&r->cw);
	if (r->bin_live)
		bin_reader_release(&r->bin);
	if (r->outdir_fd >= 0)
		close(r->outdir_fd);
	/* a run that failed before recording leaves no empty directory behind */
	if (ret != MMLOCK_EXIT_OK && r->made_outdir && !r->started)
		rmdir(r->opts->output);
	free(r->stats_start);
	free(r->stats_end);
	free(r->stop_reason);
	free(r->error);
	free(r->clock);
	free(r->pids);
	free(r->module_caps);
	free(r->module_version);
	free(r->argv);
	while (r->nr_events_missing)
		free(r->events_missing[--r->nr_events_missing]);
	free(r->events_missing);
	if (r->source) {
		trace_status_release(r->source);
		free(r->source);
	}
	restore_signals(r);
}

int record_begin(struct record *r)
{
	if (open_outdir(r))
		return MMLOCK_EXIT_OUTPUT;
	if (install_signals(r) || open_chunks(r))
		return MMLOCK_EXIT_FAILURE;
	r->state = "recording";
	mark_start(r);
	return MMLOCK_EXIT_OK;
}

int record_feed(struct record *r, const char *buf, size_t len)
{
	if (stop_signal) {
		errno = EINTR;
		return -1;
	}
	if (chunk_writer_feed(&r->cw, buf, len, mono_us())) {
		chunk_write_error(r);
		errno = EIO;
		return -1;
	}
	return 0;
}

int record_end(struct record *r, int failed)
{
	if (!failed && chunk_writer_finish(&r->cw, mono_us())) {
		chunk_write_error(r);
		failed = 1;
	}
	set_stop_reason(r, failed ? "error" : stop_signal ? sigabbrev_np(stop_signal) :
			"end-of-input");
	return finish_status(r, failed);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts opts;
	struct record r;
	int ret;

	if (record_parse_args(argc, argv, &opts)) {
		record_opts_release(&opts);
		return MMLOCK_EXIT_USAGE;
	}
	if (opts.help) {
		record_usage(stdout);
		record_opts_release(&opts);
		return MMLOCK_EXIT_OK;
	}
	record_init(&r, &opts, argc, argv);
	if (opts.use_stdin)
		ret = record_stdin(&r);
	else if (opts.from_binary)
		ret = record_convert(&r, opts.from_binary);	/* mmlock convert's alias */
	else
		ret = record_trace(&r);
	record_release(&r, ret);
	record_opts_release(&opts);
	return ret;
}
