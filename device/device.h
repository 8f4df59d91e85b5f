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
#include <sys/types.h>

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

#endif /* MMLOCK_DEVICE_H */
