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

static json_object *jstr(const char *s)
{
	return trace_status_json_string(s);
}

static json_object *jstrv(char *const *v)
{
	json_object *a = json_object_new_array();

	while (v && *v)
		json_object_array_add(a, json_object_new_string(*v++));
	return a;
}

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

/* trace.status's stats.start/end: the CPUs the agent counted */
static json_object *stats_json(const struct raw_status *rs, const char *phase)
{
	json_object *arr = json_object_new_array();
	int i;

	for (i = 0; i < rs->nr_cpus; i++) {
		struct cpu_stats st;

		cpu_stats_of(rs->stats, phase, rs->cpus[i], &st);
		if (st.valid)
			json_object_array_add(arr, trace_status_cpu_json(rs->cpus[i], &st));
	}
	if (!json_object_array_length(arr)) {
		json_object_put(arr);
		return NULL;
	}
	return arr;
}

/*
 * lost_events as the collector counts it, plus what the device read but
 * the host never received (a transport cut between the two): in
 * "discarded", the collector's key for events read but not in the output.
 */
static json_object *lost_json(const struct raw_status *rs, uint64_t *produced, int *have_all,
			      uint64_t *total)
{
	struct lost_cpu *cpus = xcalloc((size_t)rs->nr_cpus + 1, sizeof(*cpus));
	uint64_t markers = 0, undelivered = 0;
	json_object *o;
	int i;

	*have_all = 1;
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
			*have_all = 0;
			continue;
		}
		rd = l->end.read >= l->start.read ? l->end.read - l->start.read : 0;
		l->discarded = rd > rc->events ? rd - rc->events : 0;
		undelivered += l->discarded;
	}
	o = trace_status_lost_json(cpus, rs->nr_cpus, markers, undelivered, 1, produced, total);
	free(cpus);
	return o;
}

int raw_status_write(int dirfd, const struct raw_status *rs, uint64_t *lost_total)
{
	json_object *o = json_object_new_object(), *a, *b, *files, *lim;
	uint64_t produced, events = 0, bytes = 0, total;
	int i, have_stats, ret;

	json_object_object_add(o, "format", jstr("mmlock-trace-status"));
	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "state", jstr(rs->state));
	json_object_object_add(o, "stop_reason", jstr(rs->stop_reason));
	json_object_object_add(o, "error", jstr(rs->error));
	json_object_object_add(o, "mmlock_version", jstr(MMLOCK_VERSION));
	json_object_object_add(o, "command_line", jstrv(rs->command_line));
	json_object_object_add(o, "kernel_release", jstr(rs->kernel_release));
	json_object_object_add(o, "mode", jstr("binary"));
	json_object_object_add(o, "tracefs", jstr(rs->tracefs));
	json_object_object_add(o, "instance", jstr(rs->instance));
	json_object_object_add(o, "event_set", jstr(rs->event_set));
	a = json_object_new_array();
	for (i = 0; rs->events && rs->events[i]; i++) {
		json_object *ev = json_object_new_object();

		json_object_object_add(ev, "name", jstr(rs->events[i]));
		json_object_object_add(ev, "filter", NULL);
		json_object_object_add(ev, "trigger", NULL);
		json_object_array_add(a, ev);
	}
	json_object_object_add(o, "events", a);
	json_object_object_add(o, "events_missing", jstrv(rs->events_missing));
	if (rs->pid > 0) {
		char *f = xasprintf("set_event_pid %d (+event-fork)", rs->pid);

		json_object_object_add(o, "filter", json_object_new_string(f));
		free(f);
	} else {
		json_object_object_add(o, "filter", NULL);
	}
	json_object_object_add(o, "stack_position", NULL);
	b = json_object_new_object();
	json_object_object_add(b, mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY].name,
			       rs->no_retry >= 0 ? json_object_new_int(rs->no_retry) : NULL);
	json_object_object_add(b, mmlock_sysctls[MMLOCK_SYSCTL_RETRY_VMA_LOCK].name,
			       rs->retry_vma_lock >= 0 ? json_object_new_int(rs->retry_vma_lock) : NULL);
	json_object_object_add(o, "sysctls", b);
	json_object_object_add(o, "stack", NULL);
	json_object_object_add(o, "clock", jstr(rs->clock));
	json_object_object_add(o, "buffer_size_kb",
			       rs->buffer_kb ? json_object_new_uint64(rs->buffer_kb) : NULL);
	json_object_object_add(o, "record_tgid", json_object_new_boolean(1));
	json_object_object_add(o, "event_fork", json_object_new_boolean(1));
	json_object_object_add(o, "tgid", rs->pid > 0 ? json_object_new_int(rs->pid) : NULL);
	a = json_object_new_array();
	if (rs->pid > 0)
		json_object_array_add(a, json_object_new_int(rs->pid));
	json_object_object_add(o, "set_event_pid", a);
	if (rs->command) {
		b = json_object_new_object();
		json_object_object_add(b, "argv", jstrv(rs->command));
		json_object_object_add(b, "pid", rs->pid > 0 ? json_object_new_int(rs->pid) : NULL);
		json_object_object_add(b, "exit_code", rs->exit_code >= 0 ?
				       json_object_new_int(rs->exit_code) : NULL);
		json_object_object_add(b, "signal", NULL);
		json_object_object_add(o, "command", b);
	} else {
		json_object_object_add(o, "command", NULL);
	}
	json_object_object_add(o, "start_time", trace_status_json_time(&rs->start));
	/* the device's CLOCK_MONOTONIC is not known here */
	json_object_object_add(o, "start_clock_ns", NULL);
	json_object_object_add(o, "stop_time", trace_status_json_time(&rs->stop));
	json_object_object_add(o, "stop_clock_ns", NULL);
	json_object_object_add(o, "compression", jstr("none"));
	lim = json_object_new_object();
	json_object_object_add(lim, "lines", NULL);
	json_object_object_add(lim, "bytes", NULL);
	json_object_object_add(lim, "seconds", NULL);
	json_object_object_add(o, "chunk_limits", lim);
	json_object_object_add(o, "chunks", json_object_new_array());
	b = json_object_new_object();
	files = json_object_new_array();
	json_object_object_add(b, "page_size", json_object_new_int(rs->page_size));
	json_object_object_add(b, "formats", jstr("tracefs"));
	json_object_object_add(b, "kallsyms", rs->kallsyms ? jstr("kallsyms") : NULL);
	for (i = 0; i < rs->nr_cpus; i++) {
		const struct raw_count *c = &rs->counts[i];
		json_object *f = json_object_new_object();
		char name[32];

		snprintf(name, sizeof(name), "raw/cpu%03d.raw", rs->cpus[i]);
		json_object_object_add(f, "cpu", json_object_new_int(rs->cpus[i]));
		json_object_object_add(f, "name", jstr(name));
		json_object_object_add(f, "pages", json_object_new_uint64(c->pages));
		json_object_object_add(f, "bytes", json_object_new_uint64(c->bytes));
		json_object_object_add(f, "events", json_object_new_uint64(c->events));
		json_object_object_add(f, "missed", json_object_new_uint64(c->missed));
		json_object_object_add(f, "missed_unknown", json_object_new_int(c->missed_unknown));
		json_object_object_add(f, "damaged_pages", json_object_new_uint64(c->bad_pages));
		json_object_object_add(f, "partial_page_bytes", json_object_new_uint64(c->tail_bytes));
		json_object_array_add(files, f);
		events += c->events;
		bytes += c->bytes;
	}
	json_object_object_add(b, "files", files);
	json_object_object_add(o, "binary", b);
	json_object_object_add(o, "nr_cpus", json_object_new_int(rs->nr_cpus));
	b = json_object_new_object();
	json_object_object_add(b, "start", stats_json(rs, "start"));
	json_object_object_add(b, "end", stats_json(rs, "end"));
	json_object_object_add(o, "stats", b);
	a = lost_json(rs, &produced, &have_stats, &total);
	b = json_object_new_object();
	json_object_object_add(b, "events", json_object_new_uint64(events));
	json_object_object_add(b, "stored_bytes", json_object_new_uint64(bytes));
	json_object_object_add(o, "totals", b);
	json_object_object_add(o, "produced_events",
			       have_stats ? json_object_new_uint64(produced) : NULL);
	json_object_object_add(o, "lost_events", a);
	json_object_object_add(o, "source", rs->source ? json_object_get(rs->source) : NULL);
	ret = json_write_at(dirfd, "trace.status", o, 1, 0);
	json_object_put(o);
	if (lost_total)
		*lost_total = total;
	return ret;
}
