// SPDX-License-Identifier: GPL-2.0
/*
 * Transports of mmlock device: adb and ssh.  Both hand the device's shell one
 * command line (adb shell and ssh join their arguments with blanks and let
 * the remote shell parse them), so every argument is single-quoted here, and
 * the root helper gets the quoted line quoted once more as its own argument.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "device.h"
#include "util.h"

char *shell_quote(const char *s)
{
	size_t n = 3, i;
	char *q, *p;

	for (i = 0; s[i]; i++)
		n += s[i] == '\'' ? 4 : 1;
	q = p = xmalloc(n);
	*p++ = '\'';
	for (i = 0; s[i]; i++) {
		if (s[i] == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = s[i];
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

char *shell_join(char *const *argv)
{
	char *line = xstrdup("");
	size_t i;

	for (i = 0; argv[i]; i++) {
		char *q = shell_quote(argv[i]), *next;

		next = xasprintf("%s%s%s", line, i ? " " : "", q);
		free(q);
		free(line);
		line = next;
	}
	return line;
}

static void push_arg(char ***argv, size_t *n, const char *s)
{
	*argv = xrealloc(*argv, (*n + 2) * sizeof(**argv));
	(*argv)[(*n)++] = xstrdup(s);
	(*argv)[*n] = NULL;
}

void argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

void transport_init_adb(struct transport *t, const char *serial)
{
	const char *env = getenv("ANDROID_SERIAL");

	memset(t, 0, sizeof(*t));
	t->kind = TRANSPORT_ADB;
	t->adb = getenv("MMLOCK_ADB") && *getenv("MMLOCK_ADB") ? getenv("MMLOCK_ADB") : "adb";
	t->serial = serial ? serial : env && *env ? env : NULL;
	t->label = xstrdup(t->serial ? t->serial : "adb");
}

int transport_init_ssh(struct transport *t, const char *spec)
{
	const char *env = getenv("MMLOCK_SSH_OPTS"), *colon;
	size_t n = 0;

	memset(t, 0, sizeof(*t));
	t->kind = TRANSPORT_SSH;
	t->ssh = getenv("MMLOCK_SSH") && *getenv("MMLOCK_SSH") ? getenv("MMLOCK_SSH") : "ssh";
	colon = strrchr(spec, ':');
	if (!*spec || *spec == ':' || *spec == '@')
		return -1;
	if (colon && !strchr(colon, ']')) {
		uint64_t port;

		if (parse_u64(colon + 1, &port) || !port || port > 65535)
			return -1;
		t->ssh_dest = xstrndup(spec, (size_t)(colon - spec));
		t->ssh_port = xstrdup(colon + 1);
	} else {
		t->ssh_dest = xstrdup(spec);
	}
	if (env && *env) {
		char *copy = xstrdup(env), *tok, *save = NULL;

		for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			push_arg(&t->ssh_opts, &n, tok);
		free(copy);
	}
	t->label = xstrdup(spec);
	return 0;
}

void transport_release(struct transport *t)
{
	free(t->ssh_dest);
	free(t->ssh_port);
	argv_free(t->ssh_opts);
	free(t->label);
	memset(t, 0, sizeof(*t));
}

const char *transport_root_name(enum transport_root r)
{
	switch (r) {
	case ROOT_DIRECT:	return "the shell is root";
	case ROOT_SU_C:		return "su -c";
	case ROOT_SU_0:		return "su 0";
	case ROOT_NONE:		return "none";
	default:		return "unknown";
	}
}

/* @cmd as the root helper wants it: one more level of quoting. */
static char *root_wrap(enum transport_root r, const char *cmd)
{
	char *q, *line;

	switch (r) {
	case ROOT_SU_C:
		q = shell_quote(cmd);
		line = xasprintf("su -c %s", q);
		break;
	case ROOT_SU_0:
		q = shell_quote(cmd);
		line = xasprintf("su 0 sh -c %s", q);
		break;
	default:
		return xstrdup(cmd);
	}
	free(q);
	return line;
}

char **transport_argv(const struct transport *t, const char *cmd, int as_root)
{
	char **argv = NULL, *line = as_root ? root_wrap(t->root, cmd) : xstrdup(cmd);
	size_t n = 0;

	if (t->kind == TRANSPORT_ADB) {
		push_arg(&argv, &n, t->adb);
		if (t->serial) {
			push_arg(&argv, &n, "-s");
			push_arg(&argv, &n, t->serial);
		}
		/* shell protocol v2 without a pty: binary-safe output, exit code */
		push_arg(&argv, &n, "shell");
		push_arg(&argv, &n, "-T");
	} else {
		push_arg(&argv, &n, t->ssh);
		push_arg(&argv, &n, "-T");
		push_arg(&argv, &n, "-o");
		push_arg(&argv, &n, "BatchMode=yes");
		push_arg(&argv, &n, "-o");
		push_arg(&argv, &n, "ConnectTimeout=15");
		push_arg(&argv, &n, "-o");
		push_arg(&argv, &n, "ServerAliveInterval=5");
		push_arg(&argv, &n, "-o");
		push_arg(&argv, &n, "ServerAliveCountMax=6");
		if (t->ssh_port) {
			push_arg(&argv, &n, "-p");
			push_arg(&argv, &n, t->ssh_port);
		}
		for (size_t i = 0; t->ssh_opts && t->ssh_opts[i]; i++)
			push_arg(&argv, &n, t->ssh_opts[i]);
		push_arg(&argv, &n, t->ssh_dest);
		push_arg(&argv, &n, "--");
	}
	push_arg(&argv, &n, line);
	free(line);
	return argv;
}

static pid_t spawn_argv(char **argv, int in_fd, int out_fd, int err_fd)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		/* our own group: the terminal's Ctrl-C is mmlock's to handle */
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		/* -1: /dev/null for stdin, inherited for the others; -2: /dev/null */
		dup2(in_fd >= 0 ? in_fd : null, 0);
		if (out_fd != -1)
			dup2(out_fd >= 0 ? out_fd : null, 1);
		if (err_fd != -1)
			dup2(err_fd >= 0 ? err_fd : null, 2);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", util_prog(), argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}

pid_t transport_spawn(const struct transport *t, const char *cmd, int as_root,
		      int in_fd, int out_fd, int err_fd)
{
	char **argv = transport_argv(t, cmd, as_root);
	pid_t pid;

	if (getenv("MMLOCK_DEVICE_TRACE")) {
		char *line = shell_join(argv);

		fprintf(stderr, "+ %s\n", line);
		free(line);
	}
	pid = spawn_argv(argv, in_fd, out_fd, err_fd);
	argv_free(argv);
	return pid;
}

volatile sig_atomic_t transport_interrupted;

int transport_wait(pid_t pid)
{
	int status, killed = 0;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
		/* Ctrl-C reached only us (the child has its own group): end it */
		if (transport_interrupted && !killed) {
			kill(-pid, SIGTERM);
			killed = 1;
		}
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int transport_run(const struct transport *t, const char *cmd, int as_root, char **out,
		  int err_fd)
{
	int pfd[2], rc;
	size_t len = 0, cap = 4096;
	char *buf = NULL;
	pid_t pid;

	if (!out) {
		pid = transport_spawn(t, cmd, as_root, -1, -2, err_fd < 0 ? -2 : err_fd);
		return pid < 0 ? -1 : transport_wait(pid);
	}
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	pid = transport_spawn(t, cmd, as_root, -1, pfd[1], err_fd < 0 ? -2 : err_fd);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return -1;
	}
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		n = read(pfd[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(pfd[0]);
	rc = transport_wait(pid);
	*out = buf;
	return rc;
}

int transport_push(const struct transport *t, const char *local, const char *remote,
		   const char *mode)
{
	char *qr = shell_quote(remote), *cmd;
	int rc;
	pid_t pid;

	if (t->kind == TRANSPORT_ADB) {
		char *argv[7];
		int i = 0;

		argv[i++] = (char *)t->adb;
		if (t->serial) {
			argv[i++] = (char *)"-s";
			argv[i++] = (char *)t->serial;
		}
		argv[i++] = (char *)"push";
		argv[i++] = (char *)local;
		argv[i++] = (char *)remote;
		argv[i] = NULL;
		pid = spawn_argv(argv, -1, -2, -1);
		rc = pid < 0 ? -1 : transport_wait(pid);
		if (rc) {
			pr_err("adb push %s %s failed (exit %d)", local, remote, rc);
			free(qr);
			return -1;
		}
		cmd = xasprintf("chmod %s %s", mode, qr);
		rc = transport_run(t, cmd, 0, NULL, 2);
	} else {
		int fd = open(local, O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			pr_err("%s: %s", local, strerror(errno));
			free(qr);
			return -1;
		}
		/* through a temporary name: a running copy is never overwritten */
		cmd = xasprintf("cat > %s.new && chmod %s %s.new && mv -f %s.new %s",
				qr, mode, qr, qr, qr);
		pid = transport_spawn(t, cmd, 0, fd, -1, 2);
		close(fd);
		rc = pid < 0 ? -1 : transport_wait(pid);
	}
	if (rc)
		pr_err("cannot copy %s to the device's %s (exit %d)", local, remote, rc);
	free(cmd);
	free(qr);
	return rc ? -1 : 0;
}

int transport_pull(const struct transport *t, const char *remote, const char *local)
{
	char *qr = shell_quote(remote), *cmd = xasprintf("cat %s", qr);
	int fd, rc;
	pid_t pid;
	struct stat st;

	if (!lstat(local, &st) && !S_ISREG(st.st_mode)) {
		pr_err("%s: exists and is not a regular file; not replaced", local);
		free(cmd);
		free(qr);
		return -1;
	}
	unlink(local);
	fd = open(local, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		pr_err("%s: %s", local, strerror(errno));
		free(cmd);
		free(qr);
		return -1;
	}
	pid = transport_spawn(t, cmd, 1, -1, fd, 2);
	rc = pid < 0 ? -1 : transport_wait(pid);
	if (close(fd) && !rc)
		rc = -1;
	if (rc)
		pr_err("cannot copy the device's %s to %s (exit %d)", remote, local, rc);
	free(cmd);
	free(qr);
	return rc ? -1 : 0;
}

/* "0\n" from `id -u` through one root helper? */
static int root_works(struct transport *t, enum transport_root r)
{
	char *out = NULL;
	int rc;

	t->root = r;
	rc = transport_run(t, "id -u", 1, &out, -1);
	rc = rc == 0 && out && !strcmp(out, "0\n");
	free(out);
	return rc;
}

int transport_connect(struct transport *t, char **why)
{
	char *out = NULL;
	int rc;

	*why = NULL;
	if (t->kind == TRANSPORT_ADB) {
		char *argv[5];
		int i = 0, pfd[2];
		pid_t pid;
		ssize_t n;
		char state[64] = "";

		argv[i++] = (char *)t->adb;
		if (t->serial) {
			argv[i++] = (char *)"-s";
			argv[i++] = (char *)t->serial;
		}
		argv[i++] = (char *)"get-state";
		argv[i] = NULL;
		if (pipe2(pfd, O_CLOEXEC))
			return -1;
		pid = spawn_argv(argv, -1, pfd[1], -2);
		close(pfd[1]);
		n = pid < 0 ? -1 : read(pfd[0], state, sizeof(state) - 1);
		close(pfd[0]);
		rc = pid < 0 ? 127 : transport_wait(pid);
		if (rc == 127) {
			*why = xasprintf("no device: %s is not installed (scripts/install-deps.sh device), "
					 "or use --ssh HOST", t->adb);
			return -1;
		}
		if (n > 0)
			state[n] = '\0';
		if (rc || strncmp(state, "device", 6)) {
			state[strcspn(state, "\n")] = '\0';
			*why = xasprintf("no device: adb%s%s sees %s (USB debugging on and the host "
					 "authorised? `adb devices`; or use --ssh HOST)",
					 t->serial ? " -s " : "", t->serial ? t->serial : "",
					 *state ? state : "none");
			return -1;
		}
	}
	rc = transport_run(t, "id -u", 0, &out, -1);
	if (rc) {
		*why = t->kind == TRANSPORT_SSH ?
			xasprintf("no device: ssh %s failed (exit %d; `ssh %s true` shows why)",
				  t->label, rc, t->ssh_dest) :
			xasprintf("no device: adb shell failed (exit %d)", rc);
		free(out);
		return -1;
	}
	if (!strcmp(out, "0\n")) {
		t->root = ROOT_DIRECT;
	} else if (!root_works(t, ROOT_SU_C) && !root_works(t, ROOT_SU_0)) {
		t->root = ROOT_NONE;
		if (t->kind == TRANSPORT_ADB) {
			/* a userdebug build restarts adbd as root */
			char *argv[5];
			int i = 0;
			pid_t pid;

			argv[i++] = (char *)t->adb;
			if (t->serial) {
				argv[i++] = (char *)"-s";
				argv[i++] = (char *)t->serial;
			}
			argv[i++] = (char *)"root";
			argv[i] = NULL;
			pid = spawn_argv(argv, -1, -2, -2);
			if (pid > 0 && transport_wait(pid) == 0) {
				argv[i - 1] = (char *)"wait-for-device";
				pid = spawn_argv(argv, -1, -2, -2);
				if (pid > 0)
					transport_wait(pid);
				if (root_works(t, ROOT_DIRECT))
					t->root = ROOT_DIRECT;
				else
					t->root = ROOT_NONE;
			}
		}
	}
	free(out);
	return 0;
}
