// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd's trace.dat in, the text of a binary capture out (tracedat.h).
 * libtracecmd reads the file's sections, formats and per-CPU pages and
 * merges the CPUs by timestamp; each record is then printed the way
 * bin_decode() prints one, so a trace.dat and the binary capture it was
 * written from analyse alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracedat.h"
#include "util.h"

int tracedat_magic_is(const void *buf, size_t len)
{
	return len >= TRACEDAT_MAGIC_LEN && !memcmp(buf, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN);
}

#ifdef MMLOCK_HAVE_TRACECMD
#include <trace-cmd.h>

#include "infile.h"
#include "lost.h"

struct tracedat_run {
	struct tep_handle	*tep;
	struct tracedat_stats	*st;
	struct trace_seq	s;
	int			stack_id;	/* ftrace:kernel_stack, -1 when absent */
	bin_line_fn		emit;
	void			*ctx;
	int			stopped;	/* emit asked to stop */
};

/*
 * A record shorter than its format's fields: libtraceevent would read the
 * fields past it.  ftrace's own records (kernel_stack) declare full-size
 * arrays and store only what they hold; stack_print() bounds those.
 */
static int fields_fit(const struct tep_format_field *f, int size)
{
	for (; f; f = f->next)
		if (f->offset < 0 || f->size < 0 || f->offset + f->size > size)
			return 0;
	return 1;
}

static int record_fits(const struct tep_event *ev, const struct tep_record *rec)
{
	if (ev->system && !strcmp(ev->system, "ftrace"))
		return 1;
	return fields_fit(ev->format.common_fields, rec->size) &&
	       fields_fit(ev->format.fields, rec->size);
}

/* ftrace:kernel_stack as trace_pipe prints it: the head line, one frame a line. */
static void stack_print(struct tracedat_run *r, struct tep_event *ev, struct tep_record *rec)
{
	struct tep_format_field *size_f = tep_find_field(ev, "size");
	struct tep_format_field *caller = tep_find_field(ev, "caller");
	unsigned long long n = 0, i;

	trace_seq_puts(&r->s, TRACE_STACK_HEAD "\n");
	if (!caller || tep_get_long_size(r->tep) != 8)
		return;
	if (size_f)
		tep_read_number_field(size_f, rec->data, &n);
	for (i = 0; !size_f || i < n; i++) {
		unsigned long long addr;
		int off = caller->offset + (int)(i * 8);
		const char *fn;

		if (off < 0 || off + 8 > rec->size)
			break;
		addr = tep_read_number(r->tep, (char *)rec->data + off, 8);
		if (!addr || addr == ~0ULL)
			break;
		fn = tep_find_function(r->tep, addr);
		if (fn)
			trace_seq_printf(&r->s, TRACE_FRAME_PREFIX "%s\n", fn);
		else
			trace_seq_printf(&r->s, TRACE_FRAME_PREFIX "0x%llx\n", addr);
	}
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *p)
{
	struct tracedat_run *r = p;
	struct tep_event *ev;

	(void)h;
	trace_seq_reset(&r->s);
	if (rec->missed_events > 0) {
		char lost[64];

		lost_marker_format(lost, sizeof(lost), cpu, (uint64_t)rec->missed_events);
		trace_seq_puts(&r->s, lost);
		r->st->missed += (unsigned long long)rec->missed_events;
	} else if (rec->missed_events < 0) {
		r->st->missed_unknown++;
	}
	ev = rec->size >= 8 ? tep_find_event(r->tep, tep_data_type(r->tep, rec)) : NULL;
	if (rec->size < 8 || (ev && !record_fits(ev, rec))) {
		r->st->bad_records++;
	} else {
		unsigned long long ts = rec->ts;

		r->st->events++;
		tep_print_event(r->tep, &r->s, rec, "%16s-%-7d ", TEP_PRINT_COMM, TEP_PRINT_PID);
		trace_seq_printf(&r->s, "(%7s) [%03d] ", "-------", cpu);
		tep_print_event(r->tep, &r->s, rec, "%s", TEP_PRINT_LATENCY);
		trace_seq_printf(&r->s, " %5llu.%06llu: ", ts / 1000000000ULL,
				 ts % 1000000000ULL / 1000);
		if (ev && ev->id == r->stack_id) {
			stack_print(r, ev, rec);
		} else if (ev) {
			trace_seq_printf(&r->s, "%s: ", ev->name);
			tep_print_event(r->tep, &r->s, rec, "%s\n", TEP_PRINT_INFO);
		} else {
			trace_seq_puts(&r->s, "UNKNOWN EVENT\n");
		}
	}
	trace_seq_terminate(&r->s);
	if (r->s.len && r->emit(r->s.buffer, r->s.len, r->ctx)) {
		r->stopped = 1;
		return 1;
	}
	return 0;
}

int tracedat_decode(const char *path, bin_line_fn emit, void *ctx, struct tracedat_stats *st,
		    char **err)
{
	struct tracedat_run r = { .st = st, .emit = emit, .ctx = ctx, .stack_id = -1 };
	struct tracecmd_input *h;
	struct tep_event *stack_ev;
	int fd, ret, e;

	memset(st, 0, sizeof(*st));
	*err = NULL;
	fd = infile_open(AT_FDCWD, path, INFILE_REGULAR);
	if (fd < 0) {
		e = errno;
		*err = xasprintf("cannot open the trace.dat: %s%s", infile_strerror(e),
				 e == ENOTBLK ? " (libtracecmd seeks in it: expected a regular "
				 "file)" : "");
		errno = e;
		return -1;
	}
	/* our message names the file and what was wrong; libtracecmd's would not */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* no plugins: the text must not depend on what this host has installed */
	h = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!h) {
		*err = xstrdup("not a trace.dat libtracecmd can read: expected trace-cmd's "
			       "headers, event formats and CPU data after its magic "
			       "(a truncated or damaged file?)");
		errno = EINVAL;
		return -1;
	}
	r.tep = tracecmd_get_tep(h);
	if (!r.tep) {
		tracecmd_close(h);
		*err = xstrdup("the trace.dat holds no event formats");
		errno = EINVAL;
		return -1;
	}
	stack_ev = tep_find_event_by_name(r.tep, "ftrace", "kernel_stack");
	if (stack_ev)
		r.stack_id = stack_ev->id;
	trace_seq_init(&r.s);
	errno = 0;
	ret = tracecmd_iterate_events(h, NULL, 0, on_record, &r);
	e = errno;
	trace_seq_destroy(&r.s);
	tracecmd_close(h);
	if (r.stopped) {
		errno = e ? e : EPIPE;
		*err = xasprintf("the reader stopped: %s", strerror(errno));
		return -1;
	}
	if (ret < 0) {
		*err = xstrdup("libtracecmd could not read the CPU data");
		errno = e ? e : EINVAL;
		return -1;
	}
	return 0;
}

/* What the child tells its parent at the end, in one write (< PIPE_BUF). */
struct tracedat_report {
	int			done;
	int			err;
	unsigned long long	bad_records;
	char			msg[400];
};

static int child_emit(const char *line, size_t len, void *ctx)
{
	return write_all(*(int *)ctx, line, len) ? 1 : 0;
}

/*
 * The file is mapped and its sections copied: a few times its size plus
 * the formats' parsed form.  A damaged size field asks for far more.
 * AddressSanitizer reserves terabytes of address space: no limit there.
 */
static void child_limit(const char *path)
{
#ifndef __SANITIZE_ADDRESS__
	struct stat st;
	struct rlimit rl;

	if (stat(path, &st))
		return;
	rl.rlim_cur = rl.rlim_max = (rlim_t)st.st_size * 16 + (1ULL << 30);
	setrlimit(RLIMIT_AS, &rl);
#else
	(void)path;
#endif
}

int tracedat_spawn(const char *path, struct tracedat_proc *pr, char **err)
{
	int text[2], rep[2];
	pid_t pid;

	pr->pid = 0;
	pr->report_fd = -1;
	*err = NULL;
	if (pipe2(text, O_CLOEXEC))
		goto no_child;
	if (pipe2(rep, O_CLOEXEC))
		goto close_text;
	pid = fork();
	if (pid < 0)
		goto close_rep;
	if (!pid) {
		struct tracedat_report r = { .done = 1 };
		struct tracedat_stats st;
		char *err = NULL;

		close(text[0]);
		close(rep[0]);
		child_limit(path);
		if (tracedat_decode(path, child_emit, &text[1], &st, &err)) {
			r.err = errno ? errno : EIO;
			snprintf(r.msg, sizeof(r.msg), "%s", err ? err : strerror(r.err));
		}
		r.bad_records = st.bad_records;
		close(text[1]);
		write_all(rep[1], &r, sizeof(r));
		_exit(0);
	}
	close(text[1]);
	close(rep[1]);
	pr->pid = pid;
	pr->report_fd = rep[0];
	return text[0];

close_rep:
	close(rep[0]);
	close(rep[1]);
close_text:
	close(text[0]);
	close(text[1]);
no_child:
	*err = xasprintf("cannot start reading the trace.dat: %s", strerror(errno));
	return -1;
}

int tracedat_reap(struct tracedat_proc *pr, int early, unsigned long long *bad_records,
		  char **msg)
{
	struct tracedat_report r = { 0 };
	size_t got = 0;
	int ws = 0;

	*bad_records = 0;
	*msg = NULL;
	if (!pr->pid)
		return 0;
	if (early)
		kill(pr->pid, SIGKILL);
	while (!early && got < sizeof(r)) {
		ssize_t n = read(pr->report_fd, (char *)&r + got, sizeof(r) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(pr->report_fd);
	while (waitpid(pr->pid, &ws, 0) < 0 && errno == EINTR)
		;
	pr->pid = 0;
	pr->report_fd = -1;
	if (early)
		return 0;
	if (got == sizeof(r) && r.done) {
		*bad_records = r.bad_records;
		if (!r.err)
			return 0;
		r.msg[sizeof(r.msg) - 1] = '\0';
		*msg = xasprintf("reading the trace.dat failed: %s", r.msg);
		errno = r.err;
		return -1;
	}
	if (WIFSIGNALED(ws))
		*msg = xasprintf("libtracecmd died (%s) reading the trace.dat: the file is damaged "
				 "(expected trace-cmd's headers, event formats and CPU data)",
				 strsignal(WTERMSIG(ws)));
	else
		*msg = xasprintf("libtracecmd's reader stopped (exit %d) before the end of the "
				 "trace.dat: damaged, or it asked for more memory than the file "
				 "can need", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
	errno = EIO;
	return -1;
}

#else /* !MMLOCK_HAVE_TRACECMD */

static const char no_tracecmd[] =
	"a trace.dat, but this mmlock was built without libtracecmd (make ARCH=arm64): "
	"analyse it with the native mmlock, or convert it with `trace-cmd report` first";

int tracedat_decode(const char *path, bin_line_fn emit, void *ctx, struct tracedat_stats *st,
		    char **err)
{
	(void)path;
	(void)emit;
	(void)ctx;
	memset(st, 0, sizeof(*st));
	*err = xstrdup(no_tracecmd);
	errno = ENOTSUP;
	return -1;
}

int tracedat_spawn(const char *path, struct tracedat_proc *pr, char **err)
{
	(void)path;
	pr->pid = 0;
	pr->report_fd = -1;
	*err = xstrdup(no_tracecmd);
	errno = ENOTSUP;
	return -1;
}

int tracedat_reap(struct tracedat_proc *pr, int early, unsigned long long *bad_records,
		  char **msg)
{
	(void)pr;
	(void)early;
	*bad_records = 0;
	*msg = NULL;
	return 0;
}

#endif /* MMLOCK_HAVE_TRACECMD */
