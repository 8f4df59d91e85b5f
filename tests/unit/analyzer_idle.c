// SPDX-License-Identifier: GPL-2.0
/*
 * The idle tasks the analyzer forgets past MAX_IDLE_TASKS (65536): the one
 * idle longest goes first.  Until there are that many tasks the idle list
 * is not kept (analyzer/task.c): it is made when the 65537th task comes, in
 * the order the tasks went idle, not the order they were made in.  A
 * forgotten task takes its last timestamp with it, so a later step back in
 * time of its pid is not counted (anomalies.time_went_backwards): that is
 * what tells which task went.
 *
 * Environment: MMLOCK (the binary; "skip" when unset), TMPDIR.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "property.h"
#include "test.h"

#define MAX_IDLE	65536

/* One stock event that opens nothing (a release without a hold): its task goes idle. */
static void event(FILE *f, int pid, unsigned long long us)
{
	fprintf(f, "          t-%d     [000] .....  %llu.%06llu: mmap_lock_released: "
		"mm=0xffff888100078000 memcg_id=1 write=true\n", pid, us / 1000000, us % 1000000);
}

/*
 * Pid 1 first, pids 2..MAX_IDLE after it, then pid 1 again at 2 s: pid 2
 * is the task idle longest, pid 1 the one idle least, though pid 1 was made
 * first.  Pid MAX_IDLE + 1 is one task too many: pid 2 must go.  Then
 * @late's events, each a step back in time for its pid.
 */
static long long backwards_after(const char *mmlock, const char *dir, const int *late,
				 const unsigned long long *late_us, int nr_late)
{
	char in[512], out[512];
	struct json_object *root, *o;
	long long v = -1;
	int i, found;
	FILE *f;

	snprintf(in, sizeof(in), "%s/idle.trace", dir);
	snprintf(out, sizeof(out), "%s/idle.json", dir);
	f = fopen(in, "w");
	if (!f)
		return -1;
	event(f, 1, 1000001);
	for (i = 2; i <= MAX_IDLE; i++)
		event(f, i, 1000000 + (unsigned long long)i);
	event(f, 1, 2000000);
	event(f, MAX_IDLE + 1, 3000000);
	for (i = 0; i < nr_late; i++)
		event(f, late[i], late_us[i]);
	if (fclose(f))
		return -1;
	if (run_analyzer(mmlock, in, out))
		return -1;
	root = json_object_from_file(out);
	o = lookup(root, "anomalies.time_went_backwards", &found);
	v = found ? json_object_get_int64(o) : 0;	/* a kind with 0 is left out */
	json_object_put(root);
	unlink(in);
	unlink(out);
	return v;
}

int main(void)
{
	const char *mmlock = getenv("MMLOCK");
	const char *tmp = getenv("TMPDIR");
	char dir[256];
	/* pid 1 kept: both of its steps back count (a forgotten pid 1 would count one) */
	static const int kept[] = { 1, 1 };
	static const unsigned long long kept_us[] = { 1500000, 1400000 };
	/* pid 2 forgotten: its step back is not seen */
	static const int gone[] = { 2 };
	static const unsigned long long gone_us[] = { 1000000 };

	(void)chance;	/* property.h's generator: not needed here */
	if (!mmlock) {
		printf("skip - idle tasks forgotten oldest first: MMLOCK not set\n");
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/mmlock-idle.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		CHECK(0, "idle tasks: a scratch folder");
		return TEST_EXIT();
	}
	CHECK(backwards_after(mmlock, dir, kept, kept_us, 2) == 2,
	      "idle tasks: past %d the one idle longest is forgotten, not the one made first",
	      MAX_IDLE);
	CHECK(backwards_after(mmlock, dir, gone, gone_us, 1) == 0,
	      "idle tasks: past %d the one idle longest is forgotten (its step back unseen)",
	      MAX_IDLE);
	rmdir(dir);
	return TEST_EXIT();
}
