// SPDX-License-Identifier: GPL-2.0
/*
 * The second process: /proc/self/exe re-executed with --child=<route> and one
 * end of a socketpair on fd 3.  Never a bare fork(): neither side's Vulkan
 * driver survives one, and both sides need live Vulkan.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "extmem.h"

extern char **environ;

#define IO_TIMEOUT_S 60

void sock_timeout(int sock)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };

	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

int child_spawn(struct child *c, const char *route, char *err)
{
	char arg[96];
	char *argv[] = { "extmem-probe", arg, NULL };
	posix_spawn_file_actions_t fa;
	int sv[2], rc;

	c->pid = -1;
	c->sock = -1;
	snprintf(arg, sizeof(arg), "--child=%s", route);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		appendf(err, ERRLEN, "socketpair -> %s", strerror(errno));
		return -1;
	}
	/* dup2(3, 3) would keep FD_CLOEXEC on some libcs: keep the child's end off fd 3 */
	if (sv[1] == 3) {
		int fd = fcntl(sv[1], F_DUPFD_CLOEXEC, 4);

		if (fd < 0) {
			appendf(err, ERRLEN, "fcntl(F_DUPFD) -> %s", strerror(errno));
			goto close_pair;
		}
		close(sv[1]);
		sv[1] = fd;
	}
	rc = posix_spawn_file_actions_init(&fa);
	if (rc) {
		appendf(err, ERRLEN, "posix_spawn_file_actions_init -> %s", strerror(rc));
		goto close_pair;
	}
	rc = posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
	if (!rc)
		rc = posix_spawn(&c->pid, "/proc/self/exe", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		appendf(err, ERRLEN, "posix_spawn(/proc/self/exe %s) -> %s", arg, strerror(rc));
		c->pid = -1;
		goto close_pair;
	}
	close(sv[1]);
	c->sock = sv[0];
	sock_timeout(c->sock);
	return 0;

close_pair:
	close(sv[0]);
	close(sv[1]);
	errno = EIO;
	return -1;
}

/* Close the socket, reap the child; a child that did not exit 0 is named in err. */
int child_finish(struct child *c, char *err)
{
	int status, ret = 0;

	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
	if (c->pid <= 0)
		return 0;
	for (int i = 0; i < 100; i++) {
		pid_t w = waitpid(c->pid, &status, WNOHANG);

		if (w == c->pid)
			goto reaped;
		if (w < 0)
			goto gone;
		usleep(50 * 1000);
	}
	appendf(err, ERRLEN, "child %d did not exit: killed", (int)c->pid);
	kill(c->pid, SIGKILL);
	if (waitpid(c->pid, &status, 0) < 0)
		goto gone;
	c->pid = -1;
	return -1;
reaped:
	if (WIFSIGNALED(status)) {
		appendf(err, ERRLEN, "child killed by signal %d (%s)", WTERMSIG(status),
			strsignal(WTERMSIG(status)));
		ret = -1;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		appendf(err, ERRLEN, "child exited %d", WEXITSTATUS(status));
		ret = -1;
	}
	c->pid = -1;
	return ret;
gone:
	appendf(err, ERRLEN, "waitpid(%d) -> %s", (int)c->pid, strerror(errno));
	c->pid = -1;
	return -1;
}

void msg_init(struct msg *m, enum msg_op op)
{
	memset(m, 0, sizeof(*m));
	m->op = op;
	m->payload_at = -1;
	for (int i = 0; i < NRES; i++)
		m->res[i] = -1;
}

/* One message, with an fd passed by SCM_RIGHTS when fd >= 0. */
int msg_send(int sock, const struct msg *m, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	memset(&u, 0, sizeof(u));
	if (fd >= 0) {
		struct cmsghdr *cm;

		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n != sizeof(*m)) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

/* 0 and a message (and *fd, or -1); -1 and errno; EOF reads as EPIPE. */
int msg_recv(int sock, struct msg *m, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	ssize_t n;

	if (fd)
		*fd = -1;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n == 0) {
		errno = EPIPE;
		return -1;
	}
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			int got;

			memcpy(&got, CMSG_DATA(cm), sizeof(int));
			if (fd && *fd < 0)
				*fd = got;
			else
				close(got);
		}
	}
	if ((size_t)n != sizeof(*m) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (fd && *fd >= 0)
			close(*fd);
		if (fd)
			*fd = -1;
		errno = EBADMSG;
		return -1;
	}
	m->text[sizeof(m->text) - 1] = 0;
	m->note[sizeof(m->note) - 1] = 0;
	m->ladder[sizeof(m->ladder) - 1] = 0;
	m->accepted[sizeof(m->accepted) - 1] = 0;
	return 0;
}
