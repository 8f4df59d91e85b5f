// SPDX-License-Identifier: GPL-2.0
/*
 * common/: number parsing (issue 13 L5), UTF-8 repair (L3), bounded input
 * files (M4), the status skimmer (L6), the atomic output helper (H3/H4), and
 * the event sources (evset.h: the module's system, the stock additions).
 * The device cases need root (mknod); they skip without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <json-c/json.h>

#include "evset.h"
#include "infile.h"
#include "jsonout.h"
#include "jsonskim.h"
#include "outfile.h"
#include "test.h"
#include "util.h"

static void test_numbers(void)
{
	static const char *const bad[] = { " 5", " -1", "-1", "+1", "\t3", "", "5 ", "1x", NULL };
	uint64_t u;
	int64_t i;
	int k, ok = 1;

	for (k = 0; bad[k]; k++)
		if (!parse_u64(bad[k], &u) || !parse_size(bad[k], &u) ||
		    !parse_duration_us(bad[k], &u))
			ok = 0;
	CHECK(ok, "a blank, a sign or trailing text is refused by parse_u64/size/duration");
	CHECK(parse_duration_us(" -5us", &u) && parse_u64("18446744073709551616", &u) &&
	      !parse_u64("18446744073709551615", &u) && u == UINT64_MAX,
	      "\" -5us\" is no duration (it was 584,000 years); 2^64 is out of range");
	CHECK(!parse_i64("-3", &i) && i == -3 && parse_i64(" -3", &i) && parse_i64("+3", &i) &&
	      parse_i64("- 3", &i), "parse_i64 takes '-' then digits only");
	CHECK(!parse_size("64K", &u) && u == 65536 && !parse_duration_us("500ms", &u) &&
	      u == 500000, "suffixes still work");
}

static void test_utf8(void)
{
	size_t n;
	char *r;

	CHECK(utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14), "valid UTF-8 is valid");
	CHECK(!utf8_repair("plain", 5, &n), "valid text is not copied");
	r = utf8_repair("re\xff\xfe-\xc0\xaf-\xed\xa0\x80-\xe2\x82", 14, &n);
	CHECK(r && utf8_valid(r, n) && !strncmp(r, "re\xef\xbf\xbd\xef\xbf\xbd-", 9) &&
	      n == 2 + 2 * 3 + 1 + 2 * 3 + 1 + 3 * 3 + 1 + 2 * 3,
	      "bad bytes, an overlong, a surrogate and a cut sequence become U+FFFD each");
	free(r);
}

static int file_is(const char *path, const char *want)
{
	char buf[256] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n >= 0 && !strcmp(buf, want);
}

static int count_entries(const char *dir)
{
	char cmd[300];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

static void test_outfile(void)
{
	char dir[] = "/tmp/mmlock-outfile-XXXXXX", p[512], q[512], v[512];
	struct outfile of;
	struct stat st;
	int root = geteuid() == 0;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(p, sizeof(p), "%s/out.json", dir);
	CHECK(!outfile_write_all(AT_FDCWD, p, "one\n", 4, 0) && file_is(p, "one\n"),
	      "a new file is written");
	CHECK(!outfile_write_all(AT_FDCWD, p, "two\n", 4, 0) && file_is(p, "two\n") &&
	      count_entries(dir) == 1, "an existing file is replaced; no temporary file is left");
	/* the old predictable temporary name, planted as a link to a victim */
	snprintf(v, sizeof(v), "%s/victim", dir);
	snprintf(q, sizeof(q), "%s/out.json.tmp", dir);
	outfile_write_all(AT_FDCWD, v, "ORIG\n", 5, 0);
	CHECK(!symlink(v, q) && !outfile_write_all(AT_FDCWD, p, "three\n", 6, 0) &&
	      file_is(v, "ORIG\n") && file_is(p, "three\n") && !lstat(q, &st) &&
	      S_ISLNK(st.st_mode), "a link planted at OUT.tmp is never followed (H3)");
	/* the temporary file is random and exclusive */
	CHECK(!outfile_open(&of, AT_FDCWD, p, NULL, 0) && of.tmp &&
	      strncmp(of.tmp, "out.json.tmp", 12) && strlen(of.tmp) == strlen("out.json.XXXXXX.tmp"),
	      "the temporary name is OUT.XXXXXX.tmp");
	outfile_abort(&of);
	CHECK(count_entries(dir) == 3, "abort leaves nothing behind");
	/* a directory: refused */
	snprintf(q, sizeof(q), "%s/sub", dir);
	mkdir(q, 0755);
	CHECK(outfile_write_all(AT_FDCWD, q, "x", 1, 0) && errno == EISDIR,
	      "a directory target is refused (EISDIR)");
	/* a FIFO: written in place, still a FIFO */
	snprintf(q, sizeof(q), "%s/fifo", dir);
	if (!mkfifo(q, 0600)) {
		int rd = open(q, O_RDONLY | O_NONBLOCK);
		char buf[16] = "";

		CHECK(!outfile_write_all(AT_FDCWD, q, "pipe\n", 5, 0) &&
		      read(rd, buf, sizeof(buf) - 1) == 5 && !strcmp(buf, "pipe\n") &&
		      !lstat(q, &st) && S_ISFIFO(st.st_mode), "a FIFO is written in place (H4)");
		close(rd);
	}
	/* a link of our own is followed: its target is replaced, the link stays */
	snprintf(q, sizeof(q), "%s/mine.json", dir);
	CHECK(!symlink(v, q) && !outfile_write_all(AT_FDCWD, q, "via link\n", 9, 0) &&
	      file_is(v, "via link\n") && !lstat(q, &st) && S_ISLNK(st.st_mode),
	      "the caller's own link is followed; the link stays a link");
	CHECK(outfile_write_all(AT_FDCWD, q, "x", 1, OUTFILE_REGULAR_ONLY) && errno == EEXIST,
	      "OUTFILE_REGULAR_ONLY refuses a link");
	CHECK(outfile_write_all(AT_FDCWD, p, "x", 1, OUTFILE_NO_REPLACE) && errno == EEXIST &&
	      file_is(p, "three\n"), "OUTFILE_NO_REPLACE refuses an existing target");
	if (root) {
		/* someone else's link (a planted one in a shared directory): refused */
		snprintf(q, sizeof(q), "%s/theirs.json", dir);
		CHECK(!symlink(v, q) && !lchown(q, 65534, 65534) &&
		      outfile_write_all(AT_FDCWD, q, "x", 1, 0) && errno == EPERM &&
		      file_is(v, "via link\n"), "another user's link is refused (EPERM)");
		/* a copy of /dev/null and of /dev/full: written in place, never replaced */
		snprintf(q, sizeof(q), "%s/null", dir);
		CHECK(!mknod(q, S_IFCHR | 0666, makedev(1, 3)) &&
		      !outfile_write_all(AT_FDCWD, q, "x\n", 2, 0) && !lstat(q, &st) &&
		      S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3),
		      "a character device (1,3) is written in place and stays a device (H4)");
		snprintf(q, sizeof(q), "%s/full", dir);
		CHECK(!mknod(q, S_IFCHR | 0666, makedev(1, 7)) &&
		      outfile_write_all(AT_FDCWD, q, "x\n", 2, 0) && errno == ENOSPC &&
		      !lstat(q, &st) && S_ISCHR(st.st_mode),
		      "/dev/full's copy: ENOSPC reported, the device stays");
		CHECK(outfile_write_all(AT_FDCWD, q, "x", 1, OUTFILE_REGULAR_ONLY) &&
		      errno == EEXIST, "OUTFILE_REGULAR_ONLY refuses a device");
	} else {
		printf("skip - outfile: devices and other users' links: needs root\n");
	}
	snprintf(q, sizeof(q), "rm -rf '%s'", dir);
	if (system(q))
		printf("# could not remove %s\n", dir);
}

static void test_infile(void)
{
	char dir[] = "/tmp/mmlock-infile-XXXXXX", p[512];
	size_t len = 0;
	char *buf;

	if (!mkdtemp(dir))
		return;
	snprintf(p, sizeof(p), "%s/f", dir);
	outfile_write_all(AT_FDCWD, p, "0123456789", 10, OUTFILE_NO_FSYNC);
	buf = infile_read(AT_FDCWD, p, 10, &len, INFILE_REGULAR);
	CHECK(buf && len == 10 && !strcmp(buf, "0123456789"), "a file within the bound is read");
	free(buf);
	CHECK(!infile_read(AT_FDCWD, p, 9, &len, INFILE_REGULAR) && errno == EFBIG,
	      "a file beyond the bound: EFBIG");
	CHECK(!infile_read(AT_FDCWD, "/dev/zero", 1 << 20, &len, INFILE_REGULAR) &&
	      errno == ENOTBLK, "/dev/zero inside a capture: refused at once (ENOTBLK)");
	CHECK(!infile_read(AT_FDCWD, "/dev/zero", 1 << 20, &len, 0) && errno == EFBIG,
	      "/dev/zero as a stream: stops at the bound");
	snprintf(p, sizeof(p), "%s/fifo", dir);
	mkfifo(p, 0600);
	CHECK(infile_open(AT_FDCWD, p, INFILE_REGULAR) < 0 && errno == ENOTBLK,
	      "a FIFO inside a capture is refused without blocking");
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	if (system(p))
		printf("# could not remove %s\n", dir);
}

static void test_skim(void)
{
	static const char *const keys[] = { "events", "clock", "n", NULL };
	const char *text = "{\"chunks\": [{\"name\": \"a}\\\"]\"}], \"clock\": \"mono\", "
			   "\"n\": 12, \"events\": [\"x:y\", {\"name\": \"s:t\"}], \"big\": \"x\"}";
	char *skipped = NULL, *err = NULL;
	struct json_object *o, *v;
	int fds[2];

	if (pipe(fds))
		return;
	if (write(fds[1], text, strlen(text)) < 0)
		return;
	close(fds[1]);
	o = json_skim_fd(fds[0], keys, 64, &skipped, &err);
	close(fds[0]);
	CHECK(o && json_object_object_length(o) == 3 &&
	      json_object_object_get_ex(o, "clock", &v) && !strcmp(json_object_get_string(v), "mono") &&
	      json_object_object_get_ex(o, "n", &v) && json_object_get_int(v) == 12 &&
	      json_object_object_get_ex(o, "events", &v) && json_object_array_length(v) == 2 &&
	      !json_object_object_get_ex(o, "chunks", NULL) && !skipped,
	      "the skimmer keeps the wanted keys only (strings with brackets and escapes skipped)");
	json_object_put(o);
	if (pipe(fds))
		return;
	if (write(fds[1], text, strlen(text)) < 0)
		return;
	close(fds[1]);
	o = json_skim_fd(fds[0], keys, 8, &skipped, &err);
	close(fds[0]);
	CHECK(o && !json_object_object_get_ex(o, "events", NULL) && skipped &&
	      strstr(skipped, "events"), "a value over the size limit is left out and named");
	json_object_put(o);
	free(skipped);
	if (pipe(fds))
		return;
	if (write(fds[1], "[1, 2]", 6) < 0)
		return;
	close(fds[1]);
	o = json_skim_fd(fds[0], keys, 64, NULL, &err);
	close(fds[0]);
	CHECK(!o && err, "an array is not a status: %s", err ? err : "");
	free(err);
}

static void test_evset(void)
{
	const struct mmlock_event *ev;

	ev = evset_find("mmlock_probe:filemap_fault_begin");
	CHECK(ev && ev->id == MMLOCK_EV_FILEMAP_FAULT_BEGIN && ev->custom,
	      "evset_find: the module's copy is the contract's event");
	ev = evset_find("mmlock_probe:mmap_lock_hold_end");
	CHECK(ev && ev->id == MMLOCK_EV_MMAP_LOCK_HOLD_END, "evset_find: an mmap_lock one too");
	CHECK(!evset_find("mmlock_probe:mmap_lock_released"),
	      "evset_find: a stock event is no module event");
	CHECK(!evset_find("mmlock_probe:nothing"), "evset_find: unknown name");
	CHECK(evset_find("filemap:filemap_fault_begin") == evset_find("filemap_fault_begin"),
	      "evset_find: the kernel's names as mmlock_event_find()");
	CHECK(evset_is_module("mmlock_probe:vma_start_write_begin") &&
	      !evset_is_module("mmap_lock:vma_start_write_begin") &&
	      !evset_is_module("mmlock_probex:vma_start_write_begin") &&
	      !evset_is_module("mmlock_probe"), "evset_is_module");
	CHECK(evset_extra_find("lock:contention_begin") == EVSET_X_CONTENTION_BEGIN &&
	      evset_extra_find("contention_end") == EVSET_X_CONTENTION_END &&
	      evset_extra_find("exceptions:page_fault_user") == EVSET_X_PAGE_FAULT_USER &&
	      evset_extra_find("sched:sched_process_exit") == EVSET_X_PROCESS_EXIT &&
	      evset_extra_find("sched:contention_begin") < 0 &&
	      evset_extra_find("mmap_lock_released") < 0, "evset_extra_find");
	CHECK(evset_source_parse("auto") == EVSET_SRC_AUTO &&
	      evset_source_parse("module") == EVSET_SRC_MODULE &&
	      evset_source_parse("Stock") < 0 && evset_source_parse(NULL) < 0 &&
	      !strcmp(evset_source_name(EVSET_SRC_STOCK), "stock"), "evset_source_parse/name");
	CHECK(evset_caps_has("version=1 vmalock=rwsem writer_begin=contended\n", "writer_begin",
			     "contended") &&
	      evset_caps_has("read_fail=reason_unknown", "read_fail", "reason_unknown") &&
	      !evset_caps_has("writer_begin=contended_x", "writer_begin", "contended") &&
	      !evset_caps_has("xwriter_begin=contended", "writer_begin", "contended") &&
	      !evset_caps_has("writer_begin=all", "writer_begin", "contended") &&
	      !evset_caps_has(NULL, "writer_begin", "contended"), "evset_caps_has: whole words");
}

int main(void)
{
	test_evset();
	test_numbers();
	test_utf8();
	test_outfile();
	test_infile();
	test_skim();
	return TEST_EXIT();
}
