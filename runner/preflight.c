// SPDX-License-Identifier: GPL-2.0
/*
 * The workload contract's preflight (the seed's "Preflight" row): a kernel
 * whose fault path or VMA-lock path holds an artificial sleep or delay
 * (msleep() put into filemap_fault() to widen a race, say) makes every
 * contention figure a product of that delay.  The kernel source, when there
 * is one at hand, is scanned for delay calls inside the functions of those
 * paths (design/kernel-sites.md names them); a run without a source says so
 * rather than passing silently.
 *
 * The scan reads kernel style as checkpatch enforces it: a function's
 * definition starts at column 0, its body opens with a '{' at column 0 and
 * closes with a '}' at column 0.  Comments and string literals are skipped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "jsonout.h"
#include "run.h"
#include "util.h"

/* Where the fault path and the lock helpers live, 6.1 to 7.x, both arches we run on. */
static const char *const delay_files[] = {
	"mm/memory.c", "mm/filemap.c", "mm/mmap_lock.c", "mm/internal.h", "mm/mmap.c",
	"include/linux/mm.h", "include/linux/mmap_lock.h", "include/linux/pagemap.h",
	"arch/x86/mm/fault.c", "arch/arm64/mm/fault.c",
};

/* The functions of the fault path and of the VMA-lock and mmap_lock paths. */
static const char *const delay_functions[] = {
	/* arch entry and the generic fault */
	"do_user_addr_fault", "do_page_fault", "__do_page_fault", "handle_mm_fault",
	"__handle_mm_fault", "handle_pte_fault", "do_pte_missing", "do_fault", "do_read_fault",
	"do_cow_fault", "do_shared_fault", "__do_fault", "do_fault_around", "finish_fault",
	/* the file fault */
	"filemap_fault", "filemap_map_pages", "lock_folio_maybe_drop_mmap",
	"do_sync_mmap_readahead", "do_async_mmap_readahead", "maybe_unlock_mmap_for_io",
	/* per-VMA locks */
	"lock_vma_under_rcu", "vma_start_read", "vma_start_read_locked",
	"vma_start_read_locked_nested", "vma_end_read", "vma_start_write", "__vma_start_write",
	"vma_start_write_killable", "vma_mark_detached", "vma_end_write_all", "release_fault_lock",
	/* mmap_lock, and the fallback that takes it */
	"lock_mm_and_find_vma", "get_mmap_lock_carefully", "mmap_read_lock",
	"mmap_read_lock_killable", "mmap_read_trylock", "mmap_read_unlock", "mmap_write_lock",
	"mmap_write_lock_nested", "mmap_write_lock_killable", "mmap_write_unlock",
	"mmap_write_downgrade",
};

/* The kernel's sleeps and busy-waits (include/linux/delay.h, sched.h, hrtimer.h). */
static const char *const delay_calls[] = {
	"msleep", "msleep_interruptible", "ssleep", "usleep_range", "usleep_range_state",
	"usleep_idle_range", "fsleep", "mdelay", "udelay", "ndelay", "schedule_timeout",
	"schedule_timeout_interruptible", "schedule_timeout_killable",
	"schedule_timeout_uninterruptible", "schedule_timeout_idle", "schedule_hrtimeout",
	"schedule_hrtimeout_range",
};

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/*
 * Blank out comments and string or character literals of @line in place,
 * carrying an open block comment over to the next line in *@in_comment.
 */
static void strip_line(char *line, int *in_comment)
{
	char quote = 0;

	for (char *p = line; *p; p++) {
		if (*in_comment) {
			if (p[0] == '*' && p[1] == '/') {
				*in_comment = 0;
				*p++ = ' ';
			}
			*p = ' ';
		} else if (quote) {
			if (*p == '\\' && p[1]) {
				*p++ = ' ';
			} else if (*p == quote) {
				quote = 0;
				continue;
			}
			*p = ' ';
		} else if (p[0] == '/' && p[1] == '*') {
			*in_comment = 1;
			*p++ = ' ';
			*p = ' ';
		} else if (p[0] == '/' && p[1] == '/') {
			*p = '\0';
			break;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		}
	}
}

/* The name of the first identifier of @names called (NAME followed by '(') in @code, or NULL. */
static const char *find_call(const char *code, const char *const *names, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		size_t len = strlen(names[i]);

		for (const char *p = strstr(code, names[i]); p; p = strstr(p + 1, names[i])) {
			const char *q = p + len;

			if (p > code && ident_char(p[-1]))
				continue;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '(')
				return names[i];
		}
	}
	return NULL;
}

/* The fault-path function whose definition starts on @code (column 0), or NULL. */
static const char *definition_of(const char *code)
{
	if (!ident_char(code[0]))
		return NULL;	/* indented, a preprocessor line, a brace */
	return find_call(code, delay_functions, ARRAY_SIZE(delay_functions));
}

struct scan {
	json_object	*findings, *functions;
	size_t		nr_functions;
};

static void note_function(struct scan *s, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(s->functions); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(s->functions, i)), name))
			return;
	json_object_array_add(s->functions, json_object_new_string(name));
}

/* Scan one file; -1 with errno when it cannot be read (ENOENT: not in this version). */
static int scan_file(struct scan *s, const char *root, const char *rel)
{
	char *path = xasprintf("%s/%s", root, rel), *line = NULL, *code = NULL;
	const char *pending = NULL, *inside = NULL;
	size_t cap = 0, lineno = 0;
	int in_comment = 0, lookahead = 0;
	FILE *f = fopen(path, "r");
	ssize_t n;

	free(path);
	if (!f)
		return -1;
	while ((n = getline(&line, &cap, f)) > 0) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		free(code);
		code = xstrdup(line);
		strip_line(code, &in_comment);
		if (inside) {
			const char *call;

			if (code[0] == '}') {
				inside = NULL;
				continue;
			}
			call = find_call(code, delay_calls, ARRAY_SIZE(delay_calls));
			if (call) {
				json_object *o = json_object_new_object();
				const char *t = line + strspn(line, " \t");

				json_object_object_add(o, "file", json_object_new_string(rel));
				json_object_object_add(o, "line", json_object_new_uint64(lineno));
				json_object_object_add(o, "function", json_object_new_string(inside));
				json_object_object_add(o, "call", json_object_new_string(call));
				json_object_object_add(o, "text", json_object_new_string_len(
							       t, (int)strnlen(t, 200)));
				json_object_array_add(s->findings, o);
			}
			continue;
		}
		if (pending) {
			if (code[0] == '{') {
				inside = pending;
				pending = NULL;
				s->nr_functions++;
				note_function(s, inside);
			} else if (strchr(code, ';') || --lookahead == 0) {
				pending = NULL;	/* a declaration, or not a definition */
			}
			continue;
		}
		pending = definition_of(code);
		lookahead = 8;	/* a prototype wraps over a few lines at most */
		if (pending && strchr(code, ';'))
			pending = NULL;
	}
	free(code);
	free(line);
	fclose(f);
	return 0;
}

/* Whether @dir looks like a kernel tree: it has mm/filemap.c. */
static int kernel_tree(const char *dir)
{
	char *p = xasprintf("%s/mm/filemap.c", dir);
	int ok = !access(p, R_OK);

	free(p);
	return ok;
}

/* The running kernel's own tree: /lib/modules/RELEASE/{source,build}. */
static char *running_tree(char **tried)
{
	static const char *const links[] = { "source", "build" };
	struct utsname u;

	*tried = NULL;
	if (uname(&u))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(links); i++) {
		char *d = xasprintf("/lib/modules/%s/%s", u.release, links[i]), *t;

		if (kernel_tree(d))
			return d;
		t = *tried ? xasprintf("%s, %s", *tried, d) : xstrdup(d);
		free(*tried);
		*tried = t;
		free(d);
	}
	return NULL;
}

/**
 * run_preflight_kernel_delay - look for artificial delays in the kernel's fault and VMA-lock paths
 * @src: a kernel source tree (--kernel-src), or NULL: $MMLOCK_KERNEL_SRC, else
 *	with @local the running kernel's /lib/modules/RELEASE/source or build
 * @local: the kernel checked is this machine's (not a device's)
 *
 * Every function of the fault path, the per-VMA lock and mmap_lock (as
 * design/kernel-sites.md names them) found in the tree is scanned for calls
 * of the kernel's sleeps and busy-waits (msleep, ssleep, usleep_range,
 * fsleep, mdelay, udelay, ndelay, schedule_timeout, schedule_hrtimeout and
 * their variants), outside comments and strings.
 *
 * Return: a new object {"checked", "source", "why", "functions_scanned",
 * "functions": [NAME...], "findings": [{"file", "line", "function", "call",
 * "text"}]}; "checked" is false (and "why" says why) when no tree was at
 * hand or none of the functions was found in it.
 */
json_object *run_preflight_kernel_delay(const char *src, int local)
{
	json_object *o = json_object_new_object();
	struct scan s = { json_object_new_array(), json_object_new_array(), 0 };
	char *found = NULL, *tried = NULL, *why = NULL;
	const char *env = getenv("MMLOCK_KERNEL_SRC");
	size_t files = 0;

	if (!src && env && *env)
		src = env;
	if (src) {
		if (!kernel_tree(src))
			why = xasprintf("%s is not a kernel source tree (no mm/filemap.c)", src);
	} else if (!local) {
		why = xasprintf("no source of the device's kernel given: give it with --kernel-src DIR");
	} else {
		src = found = running_tree(&tried);
		if (!src)
			why = xasprintf("no kernel source at hand (looked at %s): give it with "
					"--kernel-src DIR", tried ? tried : "nothing");
	}
	for (size_t i = 0; !why && i < ARRAY_SIZE(delay_files); i++)
		if (!scan_file(&s, src, delay_files[i]))
			files++;
	if (!why && !s.nr_functions)
		why = xasprintf("%s: none of the fault-path functions found in %zu files", src, files);
	json_object_object_add(o, "checked", json_object_new_boolean(!why));
	json_object_object_add(o, "source", src ? json_object_new_string(src) : NULL);
	json_object_object_add(o, "why", why ? json_object_new_string(why) : NULL);
	json_object_object_add(o, "functions_scanned", json_object_new_uint64(s.nr_functions));
	json_object_object_add(o, "functions", s.functions);
	json_object_object_add(o, "findings", s.findings);
	free(why);
	free(found);
	free(tried);
	return o;
}

/**
 * run_preflight_describe - the preflight's result in one line, for stderr
 * @kd: from run_preflight_kernel_delay()
 *
 * Return: a new string.
 */
char *run_preflight_describe(json_object *kd)
{
	json_object *f = json_path(kd, "findings"), *first;
	size_t n = f ? json_object_array_length(f) : 0;

	if (!json_object_get_boolean(json_path(kd, "checked")))
		return xasprintf("preflight: kernel-side delays not checked: %s",
				 json_object_get_string(json_path(kd, "why")));
	if (!n)
		return xasprintf("preflight: no artificial delay in the %" PRId64 " fault-path and "
				 "VMA-lock functions of %s",
				 json_object_get_int64(json_path(kd, "functions_scanned")),
				 json_object_get_string(json_path(kd, "source")));
	first = json_object_array_get_idx(f, 0);
	return xasprintf("preflight: %zu artificial delay%s in the fault path, first %s() in %s() "
			 "at %s:%" PRId64 ": every run is flagged; remove it, or gate it off",
			 n, n > 1 ? "s" : "", json_object_get_string(json_path(first, "call")),
			 json_object_get_string(json_path(first, "function")),
			 json_object_get_string(json_path(first, "file")),
			 json_object_get_int64(json_path(first, "line")));
}
