// SPDX-License-Identifier: GPL-2.0
/*
 * common/symbols.h (issue 18): maps files parsed strictly, and a user
 * address of this very program resolved to its function and source line,
 * checked against binutils' addr2line on the same binary and address.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"
#include "test.h"
#include "util.h"

/* The function whose address is resolved: not inlined, not merged. */
__attribute__((noinline, used)) int symbols_test_marker(int x)
{
	return x * 3 + 1;
}

static char *write_tmp(const char *text)
{
	char *path = xstrdup("/tmp/mmlock-maps-XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror("tmp");
		exit(1);
	}
	close(fd);
	return path;
}

static void test_parse(void)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "55d0-55c0 r-xp 00000000 08:01 42 /bin/x\n", "END above START" },
		{ "55d0-55e0 rwzp 00000000 08:01 42 /bin/x\n", "permissions" },
		{ "55d0-55e0 r-xp 0000g000 08:01 42 /bin/x\n", "file offset" },
		{ "55d0-55e0 r-xp 00000000 0801 42 /bin/x\n", "MAJOR:MINOR" },
		{ "5000-6000 r-xp 00000000 08:01 42 /a\n4000-5800 r-xp 0 08:01 43 /b\n",
		  "address order" },
		{ "12345678901234567-5 r-xp 0 08:01 1 /x\n", "START-END" },
	};
	struct maps m;
	char *err, *p;
	size_t i;
	int ok;

	p = write_tmp("00400000-00452000 r-xp 00000000 08:01 173521 /usr/bin/dbus-daemon\n"
		      "00651000-00652000 r--p 00051000 08:01 173521 /usr/bin/dbus-daemon\n"
		      "00e03000-00e24000 rw-p 00000000 00:00 0                                  [heap]\n"
		      "7fff5e1f0000-7fff5e211000 rw-p 00000000 00:00 0\n");
	ok = !maps_parse(p, &m, &err) && m.nr == 4 && m.e[0].exec && !m.e[1].exec &&
	     m.e[1].pgoff == 0x51000 && !strcmp(m.e[2].path, "[heap]") && !strcmp(m.e[3].path, "");
	CHECK(ok, "maps: a /proc/PID/maps text parses (paths, offsets, perms, anonymous)");
	CHECK(ok && maps_find(&m, 0x651000) == &m.e[1] && !maps_find(&m, 0x652000) &&
	      maps_find(&m, 0x7fff5e210fff) == &m.e[3] && !maps_find(&m, 0x3fffff),
	      "maps: the mapping holding an address, none between or outside them");
	if (ok)
		maps_release(&m);
	unlink(p);
	free(p);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		p = write_tmp(bad[i].text);
		ok = maps_parse(p, &m, &err) == -1 && errno == EINVAL;
		ok = ok && err && strstr(err, p) && strstr(err, bad[i].want) &&
		     strstr(err, strchr(bad[i].text, '\n')[1] ? ":2: expected" : ":1: expected");
		CHECK(ok, "maps: malformed (%s) refused with file, line and what was expected: %s",
		      bad[i].want, err ? err : "(no message)");
		free(err);
		unlink(p);
		free(p);
	}
}

#ifdef MMLOCK_HAVE_LIBDW
/* addr2line -f -e FILE ADDR: "function\nfile:line" */
static int addr2line(const char *file, uint64_t addr, char *fn, size_t fnlen, char *src, size_t srclen)
{
	char *cmd = xasprintf("addr2line -f -e '%s' 0x%" PRIx64, file, addr);
	FILE *p = popen(cmd, "r");
	int ok = p && fgets(fn, (int)fnlen, p) && fgets(src, (int)srclen, p);

	free(cmd);
	if (p)
		pclose(p);
	if (!ok)
		return -1;
	fn[strcspn(fn, "\n")] = '\0';
	src[strcspn(src, "\n")] = '\0';
	return 0;
}

/* Function and line of @si (of symbols_test_marker in @exe) against addr2line. */
static void check_lines(const char *exe, const struct symbol_info *si)
{
	char fn[256], src[4096], *want, *s;

	if (system("command -v addr2line >/dev/null 2>&1")) {
		printf("skip - resolve: no addr2line (binutils) to compare with\n");
		return;
	}
	CHECK(si->function && !strcmp(si->function, "symbols_test_marker") && si->function_offset == 0,
	      "resolve: the function, from the ELF symbols (%s+0x%" PRIx64 ")",
	      si->function ? si->function : "none", si->function_offset);
	if (addr2line(exe, si->elf_addr, fn, sizeof(fn), src, sizeof(src))) {
		CHECK(0, "addr2line -f -e %s 0x%" PRIx64 " runs", exe, si->elf_addr);
		return;
	}
	want = si->source ? xasprintf("%s:%d", si->source, si->line) : xstrdup("none");
	/* addr2line may add " (discriminator N)" */
	CHECK(!strcmp(fn, "symbols_test_marker") && !strncmp(src, want, strlen(want)) &&
	      strstr(want, "tests/unit/symbols.c:"),
	      "resolve: source line %s, as addr2line says for the same file and address (%s %s)",
	      want, fn, src);
	s = symbol_format(si);
	CHECK(strstr(s, "symbols_test_marker+0x0 (") && strstr(s, ") in ") && strstr(s, exe),
	      "resolve: printed as \"func+0xoff (file:line) in path+0xoffset\": %s", s);
	free(s);
	free(want);
}
#endif


static void test_resolve_self(void)
{
	struct maps m;
	struct symbolizer *sz;
	struct symbol_info si;
	char *err = NULL;
	uint64_t addr = (uint64_t)(uintptr_t)&symbols_test_marker;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0 || maps_parse("/proc/self/maps", &m, &err)) {
		CHECK(0, "maps: /proc/self/maps parses (%s)", err ? err : "readlink");
		free(err);
		return;
	}
	exe[n] = '\0';
	sz = symbolizer_new(&m, NULL);
	CHECK(sz && !symbolizer_resolve(sz, addr, &si) && si.path && !strcmp(si.path, exe),
	      "resolve: an address of this program is in its own file (%s)", exe);
	if (!sz || !si.path)
		goto free_maps;
	CHECK(symbolizer_resolve(sz, 0, &(struct symbol_info){ 0 }) == -1 && errno == ENOENT,
	      "resolve: an address no file maps: ENOENT");
#ifdef MMLOCK_HAVE_LIBDW
	check_lines(exe, &si);
#else
	printf("skip - resolve: function and line: built without libdw (elfutils)\n");
#endif
	symbol_info_release(&si);
free_maps:
	symbolizer_free(sz);
	maps_release(&m);
}

/* A maps folder: an index and snapshot files, under a fresh temporary folder. */
static char *make_maps_dir(const char *index, const char *snap_name, const char *snap)
{
	char *dir = xstrdup("/tmp/mmlock-mapsdir-XXXXXX"), *p;
	FILE *f;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	p = xasprintf("%s/index", dir);
	f = fopen(p, "w");
	if (!f || fputs(index, f) < 0 || fclose(f)) {
		perror(p);
		exit(1);
	}
	free(p);
	if (snap_name) {
		p = xasprintf("%s/%s", dir, snap_name);
		f = fopen(p, "w");
		if (!f || fputs(snap, f) < 0 || fclose(f)) {
			perror(p);
			exit(1);
		}
		free(p);
	}
	return dir;
}

static void remove_maps_dir(char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	if (system(cmd))
		perror(cmd);
	free(cmd);
	free(dir);
}

/* The index of CAPTURE/maps: each malformed line refused with file, line and what. */
static void test_snapshot_index(void)
{
	static const struct { const char *line, *want; } bad[] = {
		{ "1.0.txt 1 5\n", "NAME TGID MONO_NS WHY" },
		{ "1.0.txt 1 5 start extra\n", "NAME TGID MONO_NS WHY" },
		{ "../x 1 5 start\n", "a file name inside the folder" },
		{ "a/b 1 5 start\n", "a file name inside the folder" },
		{ "1.0.txt 0 5 start\n", "a TGID in decimal" },
		{ "1.0.txt -1 5 start\n", "a TGID in decimal" },
		{ "1.0.txt 99999999999 5 start\n", "a TGID in decimal" },
		{ "1.0.txt 1 -5 start\n", "MONO_NS in decimal" },
		{ "1.0.txt 1 99999999999999999999999 start\n", "MONO_NS in decimal" },
	};
	struct maps_snapshots *ms;
	struct symbol_info si;
	const char *snap = NULL;
	char *dir, *err, *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *idx = xasprintf("# a comment\n\n%s", bad[i].line);

		dir = make_maps_dir(idx, NULL, NULL);
		err = NULL;
		ms = maps_snapshots_open(dir, NULL, 1, &err);
		CHECK(!ms && errno == EINVAL && err && strstr(err, dir) && strstr(err, "index:3: expected") &&
		      strstr(err, bad[i].want),
		      "maps index: '%.*s' refused with file, line and what was expected: %s",
		      (int)strcspn(bad[i].line, "\n"), bad[i].line, err ? err : "(no message)");
		maps_snapshots_free(ms);
		free(err);
		free(idx);
		remove_maps_dir(dir);
	}

	/* an index naming a snapshot that is not there, and one that is malformed */
	dir = make_maps_dir("7.0.txt 7 10 start\n7.1.txt 7 20 changed\n", "7.1.txt",
			    "1000-2000 r-xp 00000000 08:01 5 /bin/x\n0500-0600 r-xp 0 08:01 5 /bin/y\n");
	ms = maps_snapshots_open(dir, NULL, 1, &err);
	CHECK(ms && !err, "maps index: two snapshots read (%s)", err ? err : "ok");
	if (ms) {
		why = NULL;
		CHECK(maps_snapshots_resolve(ms, 7, 15, 0x1800, &si, &snap, &why) == -1 && why &&
		      strstr(why, "7.0.txt") && strstr(why, "No such file"),
		      "maps snapshots: a missing snapshot file is named: %s", why ? why : "(none)");
		free(why);
		why = NULL;
		CHECK(maps_snapshots_resolve(ms, 8, 15, 0x1800, &si, &snap, &why) == -1 && why &&
		      !strcmp(why, "no maps snapshot of tgid 8"),
		      "maps snapshots: a TGID without one: %s", why ? why : "(none)");
		free(why);
	}
	maps_snapshots_free(ms);
	remove_maps_dir(dir);
}

/* A file that is not an ELF, or a cut one, mapped as a library: file and offset, why not more. */
static void test_hostile_file(void)
{
	static const char *const contents[] = {
		"not an ELF file at all\n",
		"\x7f" "ELF\x02\x01\x01",			/* the magic, then nothing */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(contents); i++) {
		char *lib = write_tmp(contents[i]);
		char *text = xasprintf("10000-20000 r-xp 00001000 08:01 5 %s\n", lib);
		char *dir = make_maps_dir("3.0.txt 3 1 start\n", "3.0.txt", text);
		struct maps_snapshots *ms;
		struct symbol_info si;
		const char *snap = NULL;
		char *err = NULL, *why = NULL;
		int ok;

		ms = maps_snapshots_open(dir, NULL, 0, &err);
		ok = ms && !maps_snapshots_resolve(ms, 3, 0, 0x10010, &si, &snap, &why);
		CHECK(ok && si.path && !strcmp(si.path, lib) && si.file_offset == 0x1010 &&
		      !si.function && !si.source && si.missing && snap && !strcmp(snap, "3.0.txt"),
		      "resolve: a mapped %s gives file+0x1010 and says why no more (%s)",
		      i ? "ELF cut after its magic" : "non-ELF file",
		      ok && si.missing ? si.missing : why ? why : err ? err : "?");
		if (ok)
			symbol_info_release(&si);
		free(why);
		free(err);
		maps_snapshots_free(ms);
		remove_maps_dir(dir);
		unlink(lib);
		free(lib);
		free(text);
	}
}

int main(void)
{
	test_parse();
	test_resolve_self();
	test_snapshot_index();
	test_hostile_file();
	return TEST_EXIT();
}
