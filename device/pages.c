// SPDX-License-Identifier: GPL-2.0
/*
 * `mmlock device pages INSTANCE CPU`: the device half of a host-side binary
 * capture, run by the agent (agent.sh reader) once per CPU, each in its own
 * transport session.  It copies one CPU's per_cpu/cpuN/trace_pipe_raw of
 * the private instance to standard output, whole ring-buffer pages as the
 * kernel hands them out, and holds nothing: the pages go straight into the
 * transport, and the host writes them to raw/cpuNNN.raw.
 *
 * Not dd: read(2) on trace_pipe_raw returns 0 whenever the reader has
 * caught up with the writer on the page being filled, with events still to
 * come (6.12, seen in the arm64 guest: dd stopped after one or two pages).
 * dd takes that 0 for the end of the file.  Here a 0 (or EAGAIN) only means
 * "nothing now": the reader waits and reads again, as the collector's
 * binary readers do.
 *
 * SIGUSR1 (sent by the agent after the workload ended and tracing was
 * turned off) means: read what is left, then exit 0 once the CPU's stats
 * say no entry is left unread.  SIGTERM, SIGINT, SIGHUP and SIGPIPE end it
 * at once (restore, a lost transport).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "util.h"

#define PAGES_BUF	(64 * 1024)	/* one read(2) returns at most one page */
#define PAGES_POLL_MS	100
#define PAGES_STALL_S	30		/* draining: give up after this long without a page */

static volatile sig_atomic_t finishing;

static void on_usr1(int sig)
{
	(void)sig;
	finishing = 1;
}

/* "entries: N" of per_cpu/cpuN/stats: events not yet read; -1 unknown. */
static long long unread_entries(const char *stats)
{
	char buf[1024], *p;
	int fd = open(stats, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "entries:");
	return p ? strtoll(p + 8, NULL, 10) : -1;
}

/*
 * write_all(), for a standard output the transport may have made
 * non-blocking (dropbear does): wait on EAGAIN rather than fail.
 */
static int put_all(const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(STDOUT_FILENO, buf, len);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = STDOUT_FILENO, .events = POLLOUT };

			poll(&pfd, 1, 1000);
			continue;
		}
		return -1;
	}
	return 0;
}

/*
 * Less than half of the page's data area committed: the kernel copied out
 * the page the writer is still filling, so the reader has caught up.  The
 * commit word follows the 8-byte timestamp (header_page).
 */
static int page_partial(const char *page, ssize_t len)
{
	uint64_t commit;

	if (len < 16)
		return 1;
	memcpy(&commit, page + 8, sizeof(commit));
	return (commit & ((1ULL << 27) - 1)) < (uint64_t)(len - 16) / 2;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int device_pages(const char *instance, const char *cpu)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	char *raw, *stats, *buf;
	double last_page = 0, asked = 0;
	int fd, rc = MMLOCK_EXIT_FAILURE, idle = 0;
	uint64_t v;

	if (parse_u64(cpu, &v) || v > 65535 || !strstr(instance, "/instances/")) {
		pr_err("pages: expected INSTANCE (a tracefs instance folder) and a CPU number");
		return MMLOCK_EXIT_USAGE;
	}
	raw = xasprintf("%s/per_cpu/cpu%s/trace_pipe_raw", instance, cpu);
	stats = xasprintf("%s/per_cpu/cpu%s/stats", instance, cpu);
	fd = open(raw, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		pr_err("%s: %s", raw, strerror(errno));
		free(raw);
		free(stats);
		return MMLOCK_EXIT_ENV;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_DFL);
	buf = xmalloc(PAGES_BUF);
	for (;;) {
		ssize_t n = read(fd, buf, PAGES_BUF);

		if (n > 0) {
			if (put_all(buf, (size_t)n)) {
				pr_err("writing CPU %s's pages: %s", cpu, strerror(errno));
				break;
			}
			idle = 0;
			last_page = now_s();
			/* a page the writer had left: more may be waiting */
			if (!page_partial(buf, n))
				continue;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && errno != EAGAIN) {
			pr_err("%s: %s", raw, strerror(errno));
			break;
		} else {
			idle++;
		}
		if (finishing && n <= 0) {
			/* the stall is counted from the request on */
			if (!asked)
				asked = last_page = now_s();
			if (unread_entries(stats) == 0) {
				rc = MMLOCK_EXIT_OK;
				break;
			}
			if (now_s() - last_page > PAGES_STALL_S) {
				pr_err("CPU %s: entries left unread for %d s; giving up", cpu,
				       PAGES_STALL_S);
				break;
			}
		}
		/*
		 * Caught up with the writer (a partial page, or nothing): wait
		 * until the buffer is buffer_percent full (poll's watermark) or
		 * the timeout, so that pages go out mostly full rather than one
		 * per wakeup.  poll() may also say "readable" while read() still
		 * gives 0: a second empty read in a row sleeps a little.
		 */
		{
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			if (poll(&pfd, 1, finishing ? PAGES_POLL_MS / 10 : PAGES_POLL_MS) > 0 &&
			    idle > 1) {
				struct timespec ts = { 0, 2 * 1000 * 1000 };

				nanosleep(&ts, NULL);
			}
		}
	}
	free(buf);
	close(fd);
	free(raw);
	free(stats);
	return rc;
}
