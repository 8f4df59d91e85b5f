/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmlock device: a device reached through a transport (adb or ssh).  The
 * core (cmd-device.c) builds argv vectors of what to run on the device; the
 * transport quotes them for the remote shell, wraps them in the root helper
 * the device has, and runs adb or ssh on the host.
 */
#ifndef MMLOCK_DEVICE_H
#define MMLOCK_DEVICE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

struct json_object;

enum transport_kind { TRANSPORT_ADB, TRANSPORT_SSH };

/* How a command gets root on the device. */
enum transport_root {
	ROOT_UNKNOWN,
	ROOT_DIRECT,	/* the shell is uid 0 (ssh as root, adb root) */
	ROOT_SU_C,	/* su -c 'CMD' (Magisk, KernelSU) */
	ROOT_SU_0,	/* su 0 sh -c 'CMD' (AOSP userdebug su) */
	ROOT_NONE,
};

struct transport {
	enum transport_kind	kind;
	const char		*adb;		/* adb program ($MMLOCK_ADB or "adb") */
	const char		*serial;	/* -s SERIAL / $ANDROID_SERIAL, or NULL */
	const char		*ssh;		/* ssh program ($MMLOCK_SSH or "ssh") */
	char			*ssh_dest;	/* [user@]host */
	char			*ssh_port;	/* NULL: ssh's default */
	char			**ssh_opts;	/* $MMLOCK_SSH_OPTS, split on blanks */
	enum transport_root	root;
	char			*label;		/* what the user named: serial or host */
};

/**
 * shell_quote() - quote @s for a POSIX shell.
 * @s: any string.
 *
 * Return: a new string that the shell reads back as exactly @s (single
 * quotes, with ' written as '\'').
 */
char *shell_quote(const char *s);

/**
 * shell_join() - quote and join an argv for a POSIX shell.
 * @argv: NULL-terminated.
 *
 * Return: a new string, the words separated by one blank.
 */
char *shell_join(char *const *argv);

/**
 * transport_init_adb() - an adb transport.
 * @t: filled.
 * @serial: -s SERIAL, or NULL for $ANDROID_SERIAL or adb's only device.
 */
void transport_init_adb(struct transport *t, const char *serial);

/**
 * transport_init_ssh() - an ssh transport.
 * @t: filled.
 * @spec: [user@]host[:port].
 *
 * Return: 0, or -1 when @spec is malformed.
 */
int transport_init_ssh(struct transport *t, const char *spec);

/** transport_release() - free what the transport_init_*() calls allocated. */
void transport_release(struct transport *t);

/**
 * transport_argv() - the host argv that runs @cmd in the device's shell.
 * @t: the transport.
 * @cmd: one shell command line, already quoted.
 * @as_root: wrap @cmd in the root helper found by transport_find_root().
 *
 * Return: a new NULL-terminated argv (free with argv_free()).
 */
char **transport_argv(const struct transport *t, const char *cmd, int as_root);

/** argv_free() - free a NULL-terminated argv and its strings. */
void argv_free(char **argv);

/**
 * transport_spawn() - start @cmd on the device.
 * @t: the transport.
 * @cmd: shell command line.
 * @as_root: run as root.
 * @in_fd: the child's stdin (-1: /dev/null).
 * @out_fd: the child's stdout (-1: inherited).
 * @err_fd: the child's stderr (-1: inherited).
 *
 * For @out_fd and @err_fd, -2 means /dev/null.
 *
 * The child gets its own process group, so a Ctrl-C on the terminal reaches
 * only mmlock, which then ends the device side in order.
 *
 * Return: the host pid of adb or ssh, or -1 with errno.
 */
pid_t transport_spawn(const struct transport *t, const char *cmd, int as_root,
		      int in_fd, int out_fd, int err_fd);

/*
 * Set by the caller's signal handler: a transport_wait() interrupted by a
 * signal while it is set ends the transport process (SIGTERM to its group).
 */
extern volatile sig_atomic_t transport_interrupted;

/**
 * transport_wait() - wait for a spawned transport process.
 * @pid: from transport_spawn().
 *
 * Return: its exit code, 128+signal, or -1.
 */
int transport_wait(pid_t pid);

/**
 * transport_run() - run @cmd on the device, collecting its standard output.
 * @t: the transport.
 * @cmd: shell command line.
 * @as_root: run as root.
 * @out: if not NULL, receives the output (NUL-terminated, caller frees).
 * @err_fd: where the command's stderr goes (-1: /dev/null).
 *
 * Return: the remote exit code as adb/ssh report it (ssh: 255 when the
 * connection failed), or -1 with errno.
 */
int transport_run(const struct transport *t, const char *cmd, int as_root, char **out,
		  int err_fd);

/**
 * transport_push() - copy a host file to the device.
 * @t: the transport.
 * @local: host path.
 * @remote: device path (replaced).
 * @mode: octal mode string for chmod, e.g. "755".
 *
 * Return: 0, or -1 (message printed).
 */
int transport_push(const struct transport *t, const char *local, const char *remote,
		   const char *mode);

/**
 * transport_pull() - copy a device file (read as root) to the host.
 * @t: the transport.
 * @remote: device path.
 * @local: host path, created or replaced (never through a symlink).
 *
 * Return: 0, or -1 (message printed).
 */
int transport_pull(const struct transport *t, const char *remote, const char *local);

/**
 * transport_connect() - is the device there, and how does it get root?
 * @t: the transport; t->root is set.
 * @why: on failure, one line saying what is missing (caller frees).
 *
 * Return: 0 reachable, -1 no device (@why says why).
 */
int transport_connect(struct transport *t, char **why);

/** transport_root_name() - how root is reached, in words. */
const char *transport_root_name(enum transport_root r);

/* ---- host-side binary capture: the host half (rawcap.c) ---- */

/**
 * struct file_stream - the agent's files ("mmlock-file NAME SIZE\n" and SIZE
 * bytes each, then "mmlock-files-end\n") being unpacked into a capture
 * @dirfd: the capture folder
 * @line: the header line being read
 * @llen: its length so far
 * @fd: the file being written; -1 reading a header, -2 skipping a file
 * @left: bytes of the current file still to come
 * @done: "mmlock-files-end" seen
 * @error: the first problem (the rest of the stream is ignored), or NULL
 * @nr_files: files announced
 */
struct file_stream {
	int		dirfd;
	char		line[512];
	size_t		llen;
	int		fd;
	uint64_t	left;
	int		done;
	char		*error;
	unsigned int	nr_files;
};

/**
 * file_stream_init() - start unpacking into @dirfd.
 * @fs: filled.
 * @dirfd: the capture folder (tracefs/ and kallsyms are made there).
 */
void file_stream_init(struct file_stream *fs, int dirfd);

/**
 * file_stream_feed() - unpack the next @len bytes of the stream.
 * @fs: the stream.
 * @buf: bytes as they came.
 * @len: how many.
 *
 * Names are checked (kallsyms or tracefs/..., no "..", no link followed),
 * files are created exclusively; one larger than the decoder reads is left
 * out with a warning.
 *
 * Return: 0, or -1 after the first problem (@fs->error says it).
 */
int file_stream_feed(struct file_stream *fs, const char *buf, size_t len);

/**
 * file_stream_finish() - the stream ended: was it complete?
 * @fs: the stream.
 *
 * Return: 0, or -1 (@fs->error says why).
 */
int file_stream_finish(struct file_stream *fs);

/** file_stream_release() - close and free what @fs holds. */
void file_stream_release(struct file_stream *fs);

/**
 * struct raw_count - one raw/cpuNNN.raw, walked page by page
 * @pages: whole pages
 * @bytes: the file's size
 * @events: events in the pages
 * @missed: events the pages say the kernel overwrote (kbuffer's count)
 * @bad_pages: pages whose commit or an event does not fit the page
 * @tail_bytes: bytes after the last whole page (a stream cut mid-page)
 * @missed_unknown: pages flagged with an unknown missed count
 */
struct raw_count {
	uint64_t	pages, bytes, events, missed, bad_pages, tail_bytes;
	int		missed_unknown;
};

/**
 * raw_count_file() - count the pages, events and missed events of a raw file.
 * @dirfd: the capture folder.
 * @name: e.g. "raw/cpu000.raw".
 * @page_size: the device's ring-buffer page size.
 * @c: filled.
 *
 * Return: 0, or -1 with errno (the file cannot be read).
 */
int raw_count_file(int dirfd, const char *name, int page_size, struct raw_count *c);

/**
 * struct raw_status - what trace.status says of a host-side binary capture
 * @state: "complete", "stopped" or "error"
 * @stop_reason: "command-exited", "signal SIGINT", "error"
 * @error: the message, or NULL
 * @command_line: mmlock's own argv (NULL-terminated)
 * @kernel_release: the device's uname -r
 * @tracefs: the device's tracefs
 * @instance: the instance's name
 * @event_set: "custom", "stock" or "mixed"
 * @events: the events enabled, "system:name", NULL-terminated
 * @events_missing: events of the default set the device lacks
 * @no_retry: the policy's value of mmlock_sysctls[MMLOCK_SYSCTL_NO_RETRY];
 *	-1: no such sysctl
 * @retry_vma_lock: that of mmlock_sysctls[MMLOCK_SYSCTL_RETRY_VMA_LOCK]; -1: none
 * @buffer_kb: buffer_size_kb as read back
 * @pid: the workload's pid on the device (set_event_pid), 0 unknown
 * @command: the workload's argv, or NULL
 * @exit_code: its exit code, -1 unknown
 * @start: when tracing started (this host's clock)
 * @stop: when the workload ended
 * @clock: trace_clock as read back
 * @page_size: the ring buffer's page size
 * @kallsyms: DIR/kallsyms came
 * @nr_cpus: CPUs (readers)
 * @cpus: their numbers
 * @counts: what raw_count_file() found, per CPU
 * @stats: {"start": [...], "end": [...]}: the agent's per-CPU counters
 *	(keys "cpu", "entries", "overrun", "commit overrun", "bytes",
 *	"dropped events", "read events")
 * @source: the "source" object (a reference is taken), or NULL
 */
struct raw_status {
	const char		*state, *stop_reason, *error;
	char *const		*command_line;
	const char		*kernel_release, *tracefs, *instance, *event_set;
	char *const		*events, *const *events_missing;
	int			no_retry, retry_vma_lock;
	uint64_t		buffer_kb;
	int			pid;
	char *const		*command;
	int			exit_code;
	struct timespec		start, stop;
	const char		*clock;
	int			page_size, kallsyms, nr_cpus;
	const int		*cpus;
	const struct raw_count	*counts;
	struct json_object	*stats, *source;
};

/**
 * raw_status_write() - write DIR/trace.status of a host-side binary capture.
 * @dirfd: the capture folder.
 * @rs: what to say.
 * @lost_total: if not NULL, receives lost_events.total: the collector's
 *	count, plus what the device read and the host never received
 *
 * Return: 0, or -1 with errno.
 */
int raw_status_write(int dirfd, const struct raw_status *rs, uint64_t *lost_total);

/* ---- host-side binary capture: the device half (pages.c) ---- */

/**
 * device_pages() - copy one CPU's trace_pipe_raw to standard output.
 * @instance: the instance folder (tracefs/instances/NAME).
 * @cpu: the CPU number, as text.
 *
 * Runs on the device (`mmlock device pages`, started by the agent).
 * SIGUSR1: read what is left, exit once the CPU's stats count no unread
 * entry.
 *
 * Return: an exit code (enum mmlock_exit).
 */
int device_pages(const char *instance, const char *cpu);

#endif /* MMLOCK_DEVICE_H */
