// SPDX-License-Identifier: GPL-2.0
/*
 * adbd for the arm64 device guest of tests/device: test-only, just enough of
 * the device side of the adb protocol (AOSP adb/protocol.txt, SYNC.TXT,
 * shell protocol v2) for the real adb client to `adb connect` to it over TCP
 * and run what mmlock device runs: `adb shell -T CMD` (shell,v2,raw:),
 * `adb push` (sync: STAT, SEND/DATA/DONE, QUIT) and `adb root` (refused, as
 * on a production build).  Shell commands run as uid 2000, like adbd's shell
 * user on a phone, so root comes through su.  No authentication (the guest is
 * reached only through QEMU's forwarded port on 127.0.0.1).
 *
 *   adbd [PORT]      (default 5555; one host connection at a time)
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define A_CNXN 0x4e584e43
#define A_OPEN 0x4e45504f
#define A_OKAY 0x59414b4f
#define A_CLSE 0x45534c43
#define A_WRTE 0x45545257
#define A_VERSION 0x01000001	/* no payload checksum */
#define MAX_PAYLOAD (256 * 1024)
#define CHUNK (64 * 1024)
#define SHELL_UID 2000
#define NSTREAMS 64

enum kind { K_FREE, K_SHELL, K_SYNC };

struct buf {
	unsigned char	*p;
	size_t		len, cap;
};

struct stream {
	enum kind	kind;
	uint32_t	local, remote;
	pid_t		pid;
	int		in, out, err;	/* child's stdin (ours to write), stdout, stderr */
	int		status_sent, closing, wait_okay, exited, exit_code;
	struct buf	obuf;		/* bytes to send in WRTEs */
	struct buf	ibuf;		/* shell v2 packets / sync requests not yet complete */
	int		fd;		/* sync: file being received */
	char		*path;
	unsigned int	mode;
};

static struct stream st[NSTREAMS];
static pid_t orphans[NSTREAMS];	/* commands of closed streams, reaped later */
static uint32_t next_id = 1;
static int sock = -1;
static uint32_t host_max = 4096;

static void buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void buf_drop(struct buf *b, size_t n)
{
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static int write_full(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_full(int fd, void *p, size_t n)
{
	char *c = p;

	while (n) {
		ssize_t r = read(fd, c, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

static int send_msg(uint32_t cmd, uint32_t a0, uint32_t a1, const void *data, uint32_t len)
{
	unsigned char h[24];
	uint32_t sum = 0, i;

	for (i = 0; i < len; i++)
		sum += ((const unsigned char *)data)[i];
	put32(h, cmd);
	put32(h + 4, a0);
	put32(h + 8, a1);
	put32(h + 12, len);
	put32(h + 16, sum);
	put32(h + 20, cmd ^ 0xffffffff);
	if (write_full(sock, h, 24) || (len && write_full(sock, data, len)))
		return -1;
	return 0;
}

static struct stream *find(uint32_t local)
{
	int i;

	for (i = 0; i < NSTREAMS; i++)
		if (st[i].kind != K_FREE && st[i].local == local)
			return &st[i];
	return NULL;
}

static void stream_free(struct stream *s)
{
	if (s->in >= 0)
		close(s->in);
	if (s->out >= 0)
		close(s->out);
	if (s->err >= 0)
		close(s->err);
	if (s->fd >= 0)
		close(s->fd);
	/* the host hung up: a hangup for the command's whole session */
	if (s->pid > 0 && !s->exited) {
		int i;

		kill(-s->pid, SIGHUP);
		for (i = 0; i < NSTREAMS; i++)
			if (!orphans[i]) {
				orphans[i] = s->pid;
				break;
			}
	}
	free(s->obuf.p);
	free(s->ibuf.p);
	free(s->path);
	memset(s, 0, sizeof(*s));
	s->in = s->out = s->err = s->fd = -1;
}

/* one WRTE if the host has acknowledged the last; CLSE once all is sent */
static void flush(struct stream *s)
{
	if (!s->wait_okay && s->obuf.len) {
		size_t n = s->obuf.len;

		if (n > CHUNK)
			n = CHUNK;
		if (n > host_max)
			n = host_max;
		send_msg(A_WRTE, s->local, s->remote, s->obuf.p, (uint32_t)n);
		buf_drop(&s->obuf, n);
		s->wait_okay = 1;
	}
	if (s->closing && !s->wait_okay && !s->obuf.len) {
		send_msg(A_CLSE, s->local, s->remote, NULL, 0);
		stream_free(s);
	}
}

static void shell_packet(struct stream *s, int id, const void *p, uint32_t len)
{
	unsigned char h[5];

	h[0] = (unsigned char)id;
	put32(h + 1, len);
	buf_add(&s->obuf, h, 5);
	buf_add(&s->obuf, p, len);
}

static void open_shell(uint32_t remote, const char *cmd)
{
	int pin[2], pout[2], perr[2], i;
	struct stream *s = NULL;
	pid_t pid;

	for (i = 0; i < NSTREAMS && !s; i++)
		if (st[i].kind == K_FREE)
			s = &st[i];
	if (!s || pipe(pin) || pipe(pout) || pipe(perr)) {
		send_msg(A_CLSE, 0, remote, NULL, 0);
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(perr[1], 2);
		setsid();
		for (i = 3; i < 1024; i++)
			close(i);
		if (setgid(SHELL_UID) || setuid(SHELL_UID))
			_exit(126);
		chdir("/data/local/tmp");
		setenv("HOME", "/data/local/tmp", 1);
		setenv("PATH", "/bin:/sbin:/usr/bin:/usr/sbin", 1);
		if (*cmd)
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		else
			execl("/bin/sh", "sh", (char *)NULL);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	s->kind = K_SHELL;
	s->local = next_id++;
	s->remote = remote;
	s->pid = pid;
	s->in = pin[1];
	s->out = pout[0];
	s->err = perr[0];
	s->fd = -1;
	send_msg(A_OKAY, s->local, remote, NULL, 0);
}

static void open_sync(uint32_t remote)
{
	struct stream *s = NULL;
	int i;

	for (i = 0; i < NSTREAMS && !s; i++)
		if (st[i].kind == K_FREE)
			s = &st[i];
	if (!s) {
		send_msg(A_CLSE, 0, remote, NULL, 0);
		return;
	}
	s->kind = K_SYNC;
	s->local = next_id++;
	s->remote = remote;
	s->in = s->out = s->err = s->fd = -1;
	send_msg(A_OKAY, s->local, remote, NULL, 0);
}

static void sync_reply(struct stream *s, const char *id, uint32_t a, const char *msg)
{
	unsigned char h[8];

	memcpy(h, id, 4);
	put32(h + 4, msg ? (uint32_t)strlen(msg) : a);
	buf_add(&s->obuf, h, 8);
	if (msg)
		buf_add(&s->obuf, msg, strlen(msg));
}

/* SYNC.TXT requests: STAT, SEND + DATA... + DONE, QUIT (files as uid 2000) */
static void sync_input(struct stream *s)
{
	while (s->ibuf.len >= 8) {
		const unsigned char *p = s->ibuf.p;
		uint32_t len = get32(p + 4);
		size_t need = memcmp(p, "DONE", 4) && memcmp(p, "QUIT", 4) ? 8 + len : 8;

		if (s->ibuf.len < need)
			return;
		if (!memcmp(p, "STAT", 4)) {
			char *path = strndup((const char *)p + 8, len);
			struct stat sb;
			unsigned char r[16];

			memcpy(r, "STAT", 4);
			if (path && !stat(path, &sb)) {
				put32(r + 4, sb.st_mode);
				put32(r + 8, (uint32_t)sb.st_size);
				put32(r + 12, (uint32_t)sb.st_mtime);
			} else {
				memset(r + 4, 0, 12);
			}
			buf_add(&s->obuf, r, 16);
			free(path);
		} else if (!memcmp(p, "SEND", 4)) {
			char *spec = strndup((const char *)p + 8, len), *comma = strrchr(spec, ',');

			s->mode = comma ? (unsigned int)strtoul(comma + 1, NULL, 10) & 0777 : 0644;
			if (comma)
				*comma = '\0';
			free(s->path);
			s->path = spec;
			setfsuid(SHELL_UID);
			setfsgid(SHELL_UID);
			s->fd = open(spec, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, s->mode);
			setfsuid(0);
			setfsgid(0);
		} else if (!memcmp(p, "DATA", 4)) {
			if (s->fd >= 0 && write_full(s->fd, p + 8, len)) {
				close(s->fd);
				s->fd = -2;
			}
		} else if (!memcmp(p, "DONE", 4)) {
			if (s->fd >= 0) {
				fchmod(s->fd, s->mode);
				close(s->fd);
				s->fd = -1;
				sync_reply(s, "OKAY", 0, NULL);
			} else {
				char msg[300];

				snprintf(msg, sizeof(msg), "cannot write '%s'", s->path ? s->path : "");
				sync_reply(s, "FAIL", 0, msg);
				s->fd = -1;
			}
		} else if (!memcmp(p, "QUIT", 4)) {
			s->closing = 1;
		} else {
			sync_reply(s, "FAIL", 0, "not supported by the test adbd");
		}
		buf_drop(&s->ibuf, need);
	}
}

/* shell v2 packets from the host: stdin (0), close stdin (4), window size (5) */
static void shell_input(struct stream *s)
{
	while (s->ibuf.len >= 5) {
		uint32_t len = get32(s->ibuf.p + 1);
		int id = s->ibuf.p[0];

		if (s->ibuf.len < 5 + (size_t)len)
			return;
		if (id == 0 && s->in >= 0)
			write_full(s->in, s->ibuf.p + 5, len);	/* blocks: mmlock sends little */
		else if (id == 4 && s->in >= 0) {
			close(s->in);
			s->in = -1;
		}
		buf_drop(&s->ibuf, 5 + len);
	}
}

static void message(uint32_t cmd, uint32_t a0, uint32_t a1, unsigned char *data, uint32_t len)
{
	struct stream *s;

	switch (cmd) {
	case A_CNXN: {
		static const char banner[] = "device::ro.product.name=mmlock_guest;"
			"ro.product.model=mmlock arm64 guest;ro.product.device=mmlock-guest;"
			"features=shell_v2,cmd";

		host_max = a1 < MAX_PAYLOAD ? a1 : MAX_PAYLOAD;
		send_msg(A_CNXN, A_VERSION, MAX_PAYLOAD, banner, sizeof(banner) - 1);
		break;
	}
	case A_OPEN: {
		char *svc = strndup((char *)data, len);

		if (!svc)
			break;
		if (getenv("ADBD_DEBUG"))
			fprintf(stderr, "adbd: open '%s'\n", svc);
		/* shell,v2[,TERM=..][,raw|,pty]:CMD (we advertise shell_v2 only) */
		if (!strncmp(svc, "shell,", 6) && strchr(svc, ':') &&
		    strstr(svc, ",v2") && strstr(svc, ",v2") < strchr(svc, ':'))
			open_shell(a0, strchr(svc, ':') + 1);
		else if (!strcmp(svc, "sync:"))
			open_sync(a0);
		else if (!strncmp(svc, "root:", 5)) {
			static const char msg[] = "adbd cannot run as root in production builds\n";
			uint32_t id = next_id++;

			send_msg(A_OKAY, id, a0, NULL, 0);
			send_msg(A_WRTE, id, a0, msg, sizeof(msg) - 1);
			send_msg(A_CLSE, id, a0, NULL, 0);
		} else {
			send_msg(A_CLSE, 0, a0, NULL, 0);	/* refused */
		}
		free(svc);
		break;
	}
	case A_OKAY:
		s = find(a1);
		if (s) {
			s->wait_okay = 0;
			flush(s);
		}
		break;
	case A_WRTE:
		s = find(a1);
		if (!s)
			break;
		send_msg(A_OKAY, s->local, s->remote, NULL, 0);
		buf_add(&s->ibuf, data, len);
		if (s->kind == K_SHELL)
			shell_input(s);
		else
			sync_input(s);
		flush(s);
		break;
	case A_CLSE:
		s = find(a1);
		if (s)
			stream_free(s);
		break;
	default:
		break;
	}
}

/* a child's output: read while the last WRTE was acknowledged */
static void child_output(struct stream *s, int *fd, int id)
{
	unsigned char b[CHUNK - 5];
	ssize_t n = read(*fd, b, sizeof(b) < host_max - 5 ? sizeof(b) : host_max - 5);

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return;
	}
	shell_packet(s, id, b, (uint32_t)n);
}

static void serve(void)
{
	unsigned char h[24], *data = malloc(MAX_PAYLOAD);
	int i;

	for (;;) {
		struct pollfd pf[1 + 2 * NSTREAMS];
		int n = 1;

		pf[0].fd = sock;
		pf[0].events = POLLIN;
		for (i = 0; i < NSTREAMS; i++) {
			struct stream *s = &st[i];
			int ready = s->kind == K_SHELL && !s->wait_okay && !s->obuf.len;

			pf[n].fd = ready ? s->out : -1;
			pf[n++].events = POLLIN;
			pf[n].fd = ready ? s->err : -1;
			pf[n++].events = POLLIN;
		}
		/* a command that closed its output may still run: look again soon */
		if (poll(pf, (nfds_t)n, 200) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[0].revents) {
			uint32_t len;

			if (read_full(sock, h, 24))
				break;
			len = get32(h + 12);
			if (len > MAX_PAYLOAD || get32(h + 20) != (get32(h) ^ 0xffffffff) ||
			    (len && read_full(sock, data, len)))
				break;
			message(get32(h), get32(h + 4), get32(h + 8), data, len);
		}
		for (i = 0; i < NSTREAMS; i++)
			if (orphans[i] && waitpid(orphans[i], NULL, WNOHANG) == orphans[i])
				orphans[i] = 0;
		for (i = 0; i < NSTREAMS; i++) {
			struct stream *s = &st[i];
			int status;

			if (s->kind != K_SHELL)
				continue;
			if (pf[1 + 2 * i].revents && s->out >= 0)
				child_output(s, &s->out, 1);
			else if (pf[2 + 2 * i].revents && s->err >= 0)
				child_output(s, &s->err, 2);
			if (s->out < 0 && s->err < 0 && !s->exited &&
			    waitpid(s->pid, &status, WNOHANG) == s->pid) {
				s->exited = 1;
				s->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) :
					       128 + WTERMSIG(status);
				{
					unsigned char c = (unsigned char)s->exit_code;

					shell_packet(s, 3, &c, 1);
				}
				s->closing = 1;
			}
			flush(s);
		}
	}
	free(data);
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1, i;

	signal(SIGPIPE, SIG_IGN);
	a.sin_port = htons(argc > 1 ? (uint16_t)atoi(argv[1]) : 5555);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 4)) {
		perror("adbd");
		return 1;
	}
	for (i = 0; i < NSTREAMS; i++)
		st[i].in = st[i].out = st[i].err = st[i].fd = -1;
	for (;;) {
		sock = accept(l, NULL, NULL);
		if (sock < 0)
			continue;
		serve();
		for (i = 0; i < NSTREAMS; i++)
			if (st[i].kind != K_FREE)
				stream_free(&st[i]);
		close(sock);
	}
}
