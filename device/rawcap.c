// SPDX-License-Identifier: GPL-2.0
/*
 * The host half of a host-side binary capture (`mmlock device run -c host
 * --binary-pages`): what the transport brought is laid out as the binary
 * capture `mmlock record --binary` writes and `mmlock analyze DIR` reads
 * (collector/README.md): raw/cpuNNN.raw (written by the transport itself,
 * one session per CPU), tracefs/ and kallsyms (unpacked here from the
 * agent's "mmlock-file NAME SIZE" stream), and trace.status (written here
 * from the device's per-CPU counters and the pages counted here).
 *
 * Everything here came off the device: names are checked before a file is
 * created (relative, no "..", only the names a capture has), sizes are
 * bounded, files are created exclusively and never through a link, and
 * pages are walked only within their own committed size.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "capture.h"
#include "device.h"
#include "jsonout.h"
#include "lost.h"
#include "mmlock_events.h"
#include "outfile.h"
#include "tracestatus.h"
#include "util.h"

/* The decoder's limits (capture/decode.c): bigger files fail the decode. */
#define FS_MAX_KALLSYMS		(64ULL * 1024 * 1024)
#define FS_MAX_OTHER		(1024ULL * 1024)
#define FS_MAX_FILES		4096

void file_stream_init(struct file_stream *fs, int dirfd)
{
	memset(fs, 0, sizeof(*fs));
	fs->dirfd = dirfd;
	fs->fd = -1;
}

static void fs_fail(struct file_stream *fs, char *msg)
{
	if (!fs->error)
		fs->error = msg;
	else
		free(msg);
}

/* A name a capture has: "kallsyms" or tracefs/..., each part [A-Za-z0-9_.-], no dot first. */
static int name_ok(const char *name)
{
	const char *p = name;
	int parts = 0;

	if (!strcmp(name, "kallsyms"))
		return 1;
	if (strncmp(name, "tracefs/", 8))
		return 0;
	for (;;) {
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789_.-");

		if (!n || *p == '.' || ++parts > 5)
			return 0;
		p += n;
		if (!*p)
			return 1;
		if (*p++ != '/')
			return 0;
	}
}

/* mkdir -p of @name's folders under the capture folder, never through a link. */
static int make_parents(int dirfd, const char *name)
{
	char *copy = xstrdup(name), *s;
	int ret = 0;

	for (s = strchr(copy, '/'); s && !ret; s = strchr(s + 1, '/')) {
		struct stat st;

		*s = '\0';
		if (mkdirat(dirfd, copy, 0755) && errno != EEXIST)
			ret = -1;
		else if (fstatat(dirfd, copy, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			ret = -1;
		*s = '/';
	}
	free(copy);
	return ret;
}

/* libtracefs reads a system only where it has an "enable" file */
static void system_enable(int dirfd, const char *name)
{
	const char *sys = name + strlen("tracefs/events/"), *slash;
	char *path;
	int fd;

	if (strncmp(name, "tracefs/events/", 15) || !(slash = strchr(sys, '/')) ||
	    !strchr(slash + 1, '/'))
		return;
	path = xasprintf("tracefs/events/%.*s/enable", (int)(slash - sys), sys);
	fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	free(path);
}

/* "mmlock-file NAME SIZE" or "mmlock-files-end"; -1 when it is neither */
static int fs_header(struct file_stream *fs, char *line)
{
	char *name, *size;
	uint64_t n;

	if (!strcmp(line, "mmlock-files-end")) {
		fs->done = 1;
		return 0;
	}
	if (strncmp(line, "mmlock-file ", 12)) {
		fs_fail(fs, xasprintf("expected 'mmlock-file NAME SIZE', got '%.60s'", line));
		return -1;
	}
	name = line + 12;
	size = strrchr(name, ' ');
	if (!size || parse_u64(size + 1, &n)) {
		fs_fail(fs, xasprintf("expected 'mmlock-file NAME SIZE', got '%.60s'", line));
		return -1;
	}
	*size = '\0';
	if (!name_ok(name)) {
		fs_fail(fs, xasprintf("'%.60s' is not a file of a binary capture", name));
		return -1;
	}
	if (++fs->nr_files > FS_MAX_FILES) {
		fs_fail(fs, xasprintf("more than %d files", FS_MAX_FILES));
		return -1;
	}
	fs->left = n;
	fs->fd = -2;	/* skipped */
	if (n > (strcmp(name, "kallsyms") ? FS_MAX_OTHER : FS_MAX_KALLSYMS)) {
		pr_warn("the device's %s is %" PRIu64 " bytes, more than the decoder reads; "
			"left out", name, n);
		return 0;
	}
	if (make_parents(fs->dirfd, name)) {
		fs_fail(fs, xasprintf("cannot create the folders of %s: %s", name,
				      strerror(errno)));
		return -1;
	}
	fs->fd = openat(fs->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0644);
	if (fs->fd < 0) {
		fs_fail(fs, xasprintf("%s: %s", name, strerror(errno)));
		return -1;
	}
	system_enable(fs->dirfd, name);
	return 0;
}

int file_stream_feed(struct file_stream *fs, const char *buf, size_t len)
{
	while (len && !fs->error) {
		if (fs->fd != -1) {
			size_t n = len < fs->left ? len : (size_t)fs->left;

			if (fs->fd >= 0 && write_all(fs->fd, buf, n)) {
				fs_fail(fs, xasprintf("writing the formats: %s", strerror(errno)));
				break;
			}
			buf += n;
			len -= n;
			fs->left -= n;
			if (!fs->left) {
				if (fs->fd >= 0 && close(fs->fd))
					fs_fail(fs, xasprintf("writing the formats: %s",
							      strerror(errno)));
				fs->fd = -1;
			}
			continue;
		}
		if (fs->done) {
			fs_fail(fs, xasprintf("bytes after 'mmlock-files-end'"));
			break;
		}
		if (*buf == '\n') {
			fs->line[fs->llen] = '\0';
			fs->llen = 0;
			buf++;
			len--;
			if (fs_header(fs, fs->line))
				break;
			continue;
		}
		if (fs->llen + 1 >= sizeof(fs->line)) {
			fs_fail(fs, xasprintf("a header line longer than %zu bytes",
					      sizeof(fs->line) - 1));
			break;
		}
		fs->line[fs->llen++] = *buf++;
		len--;
	}
	return fs->error ? -1 : 0;
}

int file_stream_finish(struct file_stream *fs)
{
	if (fs->fd >= 0)
		close(fs->fd);
	if (fs->fd != -1 && !fs->error)
		fs_fail(fs, xasprintf("the stream ended inside a file (%" PRIu64 " bytes short)",
				      fs->left));
	fs->fd = -1;
	if (!fs->done && !fs->error)
		fs_fail(fs, xasprintf("the stream ended before 'mmlock-files-end'"));
	return fs->error ? -1 : 0;
}

void file_stream_release(struct file_stream *fs)
{
	if (fs->fd >= 0)
		close(fs->fd);
	free(fs->error);
	fs->error = NULL;
	fs->fd = -1;
}

/* ---- the pages ---- */

int raw_count_file(int dirfd, const char *name, int page_size, struct raw_count *c)
{
	struct page_count pc;
	int ret = page_count_file(dirfd, name, page_size, &pc);

	c->pages = pc.pages;
	c->bytes = pc.bytes;
	c->events = pc.events;
	c->missed = pc.missed;
	c->bad_pages = pc.bad_pages;
	c->tail_bytes = pc.tail_bytes;
	c->missed_unknown = pc.missed_unknown;
	return ret;
}

/* ---- trace.status ---- */

/* The agent's counters of @cpu in @phase ("start", "end"), with cmd-device.c's keys. */
static json_object *agent_stats(json_object *stats, const char *phase, int cpu)
{
	json_object *arr, *v;
	size_t i;

	if (!stats || !json_object_object_get_ex(stats, phase, &arr))
		return NULL;
	for (i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);

		if (json_object_object_get_ex(o, "cpu", &v) && json_object_get_int(v) == cpu)
			return o;
	}
	return NULL;
}

/* The agent's counters as the collector reads them: valid only when every key came. */
static void cpu_stats_of(json_object *stats, const char *phase, int cpu, struct cpu_stats *st)
{
	static const char *const keys[] = {
		"entries", "overrun", "commit overrun", "bytes", "dropped events", "read events",
	};
	json_object *o = agent_stats(stats, phase, cpu), *v;
	uint64_t val[ARRAY_SIZE(keys)];
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (!o || !json_object_object_get_ex(o, keys[i], &v))
			return;
		val[i] = json_object_get_uint64(v);
	}
	st->entries = val[0];
	st->overrun = val[1];
	st->commit_overrun = val[2];
	st->bytes = val[3];
	st->dropped = val[4];
	st->read = val[5];
	st->valid = 1;
}

/* trace.status's stats.start/end: the CPUs the agent counted (-1: none, null) */
static struct ts_cpu *stats_of(const struct raw_status *rs, const char *phase, int *nr)
{
	struct ts_cpu *v = xcalloc((size_t)rs->nr_cpus + 1, sizeof(*v));
	int i;

	*nr = 0;
	for (i = 0; i < rs->nr_cpus; i++) {
		struct ts_cpu *c = &v[*nr];

		cpu_stats_of(rs->stats, phase, rs->cpus[i], &c->st);
		if (c->st.valid) {
			c->cpu = rs->cpus[i];
			(*nr)++;
		}
	}
	if (!*nr) {
		free(v);
		*nr = -1;
		return NULL;
	}
	return v;
}

/*
 * lost_events as the collector counts it, plus what the device read but
 * the host never received (a transport cut between the two): in
 * "discarded", the collector's key for events read but not in the output.
 */
static void fill_lost(const struct raw_status *rs, struct trace_status *st)
{
	struct lost_cpu *cpus = xcalloc((size_t)rs->nr_cpus + 1, sizeof(*cpus));
	uint64_t markers = 0, undelivered = 0;
	int i, have_all = 1;

	for (i = 0; i < rs->nr_cpus; i++) {
		const struct raw_count *rc = &rs->counts[i];
		struct lost_cpu *l = &cpus[i];
		uint64_t rd;

		markers = u64_add_sat(markers, rc->missed);
		l->cpu = rs->cpus[i];
		l->markers = rc->missed;
		cpu_stats_of(rs->stats, "start", rs->cpus[i], &l->start);
		cpu_stats_of(rs->stats, "end", rs->cpus[i], &l->end);
		l->valid = l->start.valid && l->end.valid;
		if (!l->valid) {
			have_all = 0;
			continue;
		}
		rd = l->end.read >= l->start.read ? l->end.read - l->start.read : 0;
		l->discarded = rd > rc->events ? rd - rc->events : 0;
		undelivered += l->discarded;
	}
	trace_status_lost(st, cpus, rs->nr_cpus, markers, undelivered, 1);
	st->produced.known = have_all;
	free(cpus);
}

/* The device's "source" object (cmd-device.c) as the struct's device form, strings borrowed. */
static void source_of(json_object *o, struct ts_source *src)
{
	const char *const keys[] = { "mode", "transport", "device", "reader" };
	const char **slots[] = { &src->mode, &src->transport, &src->device, &src->reader };
	json_object *v;
	size_t i;

	src->present = 1;
	src->device_form = 1;
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (json_object_object_get_ex(o, keys[i], &v) && json_object_is_type(v, json_type_string))
			*slots[i] = json_object_get_string(v);
	src->streams_complete = json_object_object_get_ex(o, "streams_complete", &v) &&
				json_object_get_boolean(v);
}

/* The NULL-terminated @v as the struct's array (the strings borrowed). */
static const char **strv(char *const *v, int *nr)
{
	const char **a;

	for (*nr = 0; v && v[*nr]; (*nr)++)
		;
	a = xcalloc((size_t)*nr + 1, sizeof(*a));
	if (*nr)
		memcpy(a, v, (size_t)*nr * sizeof(*a));
	return a;
}

int raw_status_write(int dirfd, const struct raw_status *rs, uint64_t *lost_total)
{
	struct trace_status st;
	struct ts_binary *b = &st.binary;
	int i, ret, err;

	trace_status_init(&st);
	st.state = rs->state;
	st.stop_reason = rs->stop_reason;
	st.error = rs->error;
	st.mmlock_version = MMLOCK_VERSION;
	st.command_line = strv(rs->command_line, &st.nr_command_line);
	st.kernel_release = rs->kernel_release;
	st.mode = "binary";
	st.tracefs = rs->tracefs;
	st.instance = rs->instance;
	st.event_set = rs->event_set;
	for (i = 0; rs->events && rs->events[i]; i++)
		;
	st.ev = xcalloc((size_t)i + 1, sizeof(*st.ev));
	for (i = 0; rs->events && rs->events[i]; i++)
		st.ev[st.nr_events++].name = rs->events[i];
	st.events_missing = strv(rs->events_missing, &st.nr_events_missing);
	if (rs->pid > 0)
		st.filter = trace_status_keep(&st, xasprintf("set_event_pid %d (+event-fork)",
							    rs->pid));
	st.has_sysctls = 1;
	*trace_status_sysctl(&st, MMLOCK_SYSCTL_NO_RETRY) = rs->no_retry;
	*trace_status_sysctl(&st, MMLOCK_SYSCTL_RETRY_VMA_LOCK) = rs->retry_vma_lock;
	st.clock = rs->clock;
	st.buffer_kb = (struct ts_count){ rs->buffer_kb, rs->buffer_kb != 0 };
	st.record_tgid = 1;
	st.event_fork = 1;
	st.tgid = rs->pid > 0 ? rs->pid : 0;
	st.pids = xcalloc(2, sizeof(*st.pids));
	if (rs->pid > 0)
		st.pids[st.nr_pids++] = rs->pid;
	if (rs->command) {
		st.has_command = 1;
		st.cmd_argv = strv(rs->command, &st.cmd_argc);
		st.cmd_pid = rs->pid > 0 ? rs->pid : 0;
		st.cmd_exit_code = rs->exit_code;
	}
	st.start_time = trace_status_keep(&st, trace_status_time(&rs->start));
	/* the device's CLOCK_MONOTONIC is not known here */
	st.stop_time = trace_status_keep(&st, trace_status_time(&rs->stop));
	st.compression = "none";
	b->present = 1;
	b->page_size = rs->page_size;
	b->formats = "tracefs";
	b->kallsyms = rs->kallsyms ? "kallsyms" : NULL;
	b->files = xcalloc((size_t)rs->nr_cpus + 1, sizeof(*b->files));
	for (i = 0; i < rs->nr_cpus; i++) {
		const struct raw_count *c = &rs->counts[i];
		struct ts_file *f = &b->files[b->nr_files++];

		f->cpu = rs->cpus[i];
		f->name = trace_status_keep(&st, xasprintf("raw/cpu%03d.raw", rs->cpus[i]));
		f->pages = c->pages;
		f->bytes = c->bytes;
		f->events = c->events;
		f->missed = c->missed;
		f->missed_unknown = c->missed_unknown;
		f->device = 1;
		f->damaged_pages = c->bad_pages;
		f->partial_page_bytes = c->tail_bytes;
		st.tot_events += c->events;
		st.tot_stored_bytes += c->bytes;
	}
	st.binary_totals = 1;
	st.nr_cpus = rs->nr_cpus;
	st.stats_start = stats_of(rs, "start", &st.nr_stats_start);
	st.stats_end = stats_of(rs, "end", &st.nr_stats_end);
	fill_lost(rs, &st);
	if (rs->source)
		source_of(rs->source, &st.source);
	ret = trace_status_write_at(&st, dirfd, 0);
	err = errno;
	if (lost_total)
		*lost_total = st.lost_events.total;
	trace_status_release(&st);
	errno = err;
	return ret;
}
