// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_record() called twice (and more) in one process, as `mmlock run`
 * calls it in-process: each call parses its own argv (getopt starts afresh),
 * leaves no file descriptor open, puts the caller's signal handlers back,
 * and a call that failed does not spoil the next one.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "collector/collector.h"
#include "mmlock.h"
#include "test.h"
#include "util.h"

static int nr_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

static void caller_handler(int sig)
{
	(void)sig;
}

/* @sig's handler is the caller's (1), or the default one (0) */
static int handler_is(int sig, int caller)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa))
		return 0;
	return caller ? sa.sa_handler == caller_handler : sa.sa_handler == SIG_DFL;
}

/* trace.status's state and totals.events of @dir, or -1 */
static long long status_events(const char *dir, const char **state)
{
	char *p = xasprintf("%s/trace.status", dir);
	struct json_object *o = json_object_from_file(p), *v, *t;
	static char buf[32];
	long long n = -1;

	free(p);
	*state = "";
	if (!o)
		return -1;
	if (json_object_object_get_ex(o, "state", &v) && json_object_get_string(v)) {
		snprintf(buf, sizeof(buf), "%s", json_object_get_string(v));
		*state = buf;
	}
	if (json_object_object_get_ex(o, "totals", &t) &&
	    json_object_object_get_ex(t, "events", &v))
		n = json_object_get_int64(v);
	json_object_put(o);
	return n;
}

/* cmd_record() with stdin from @in (rewound) and stderr silenced */
static int call_record(int in, char **argv)
{
	int argc = 0, saved_in = dup(0), saved_err = dup(2), devnull, ret;

	while (argv[argc])
		argc++;
	lseek(in, 0, SEEK_SET);
	dup2(in, 0);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 2);
		close(devnull);
	}
	ret = cmd_record(argc, argv);
	dup2(saved_in, 0);
	dup2(saved_err, 2);
	close(saved_in);
	close(saved_err);
	return ret;
}

int main(void)
{
	char tmpl[] = "/tmp/mmlock-reentrant-XXXXXX", *top = mkdtemp(tmpl), *in_path, *d1, *d2;
	static const char trace[] =
		"  load-1  [000] .....  1.000001: mmap_lock_start_locking: mm_id=1 memcg_path= write=false\n"
		"  load-1  [000] .....  1.000002: mmap_lock_acquire_returned: mm_id=1 memcg_path= write=false success=true\n"
		"  load-1  [001] .....  1.000003: mmap_lock_released: mm_id=1 memcg_path= write=false\n";
	struct sigaction sa = { .sa_handler = caller_handler };
	const char *state;
	int in, fds, rc1, rc2;
	long long n1, n2;

	if (!top) {
		perror("mkdtemp");
		return 1;
	}
	in_path = xasprintf("%s/in", top);
	d1 = xasprintf("%s/one", top);
	d2 = xasprintf("%s/two", top);
	in = open(in_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (in < 0 || write(in, trace, sizeof(trace) - 1) != (ssize_t)sizeof(trace) - 1) {
		perror(in_path);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_DFL);
	fds = nr_fds();

	{
		char *a1[] = { "record", "--stdin", "--no-fsync", "-o", d1, NULL };
		char *a2[] = { "record", "--no-fsync", "--stdin", "-z", "none", "-o", d2, NULL };

		rc1 = call_record(in, a1);
		rc2 = call_record(in, a2);
	}
	n1 = status_events(d1, &state);
	CHECK(rc1 == 0 && n1 == 3 && !strcmp(state, "complete"),
	      "first in-process record --stdin: exit %d, %lld events, state %s", rc1, n1, state);
	n2 = status_events(d2, &state);
	CHECK(rc2 == 0 && n2 == 3 && !strcmp(state, "complete"),
	      "second call in the same process parses its own argv: exit %d, %lld events", rc2, n2);
	{
		char *p = xasprintf("%s/trace-000001.txt", d2);

		CHECK(!access(p, F_OK), "the second call's own options hold (-z none: %s)", p);
		free(p);
	}
	CHECK(nr_fds() == fds, "no file descriptor left open by two runs (%d before, %d after)",
	      fds, nr_fds());
	CHECK(handler_is(SIGINT, 1) && handler_is(SIGCHLD, 1) &&
	      handler_is(SIGPIPE, 0) && handler_is(SIGTERM, 0),
	      "the caller's signal handlers are back after the runs");
	CHECK(record_stop_signal() == 0, "no stop signal reported after runs that ended by themselves");

	{
		char *bad[] = { "record", "--stdin", "--no-such-option", "-o", d1, NULL };
		char *again[] = { "record", "--stdin", "--force", "--no-fsync", "-o", d1, NULL };
		char *nofs[] = { "record", "--tracefs", "/nonexistent-tracefs", "-o", d2, "--force",
				 "--", "true", NULL };
		int rc;

		rc = call_record(in, bad);
		CHECK(rc == 2, "a bad option is a usage error in process (exit %d)", rc);
		rc = call_record(in, again);
		n1 = status_events(d1, &state);
		CHECK(rc == 0 && n1 == 3, "a run after a failed parse starts afresh (exit %d, %lld "
		      "events)", rc, n1);
		rc = call_record(in, nofs);
		CHECK(rc == 5, "a run whose setup fails returns its exit code (%d), never exits", rc);
	}
	CHECK(nr_fds() == fds, "no file descriptor left open after failed runs (%d before, %d after)",
	      fds, nr_fds());
	CHECK(handler_is(SIGINT, 1) && handler_is(SIGPIPE, 0),
	      "the caller's handlers are back after failed runs");

	close(in);
	{
		char *cmd = xasprintf("rm -rf '%s'", top);

		if (system(cmd))
			printf("# could not remove %s\n", top);
		free(cmd);
	}
	free(in_path);
	free(d1);
	free(d2);
	return TEST_EXIT();
}
