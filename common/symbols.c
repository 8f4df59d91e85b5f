// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef MMLOCK_HAVE_LIBDW
#include <elfutils/libdwfl.h>
#include <gelf.h>
#endif

#include "symbols.h"
#include "util.h"

/* a maps line: addresses, perms, offset, dev, inode, then a path of at most PATH_MAX */
#define MAPS_LINE_MAX	8192

static int hex_field(const char **p, char stop, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	for (; *s && *s != stop; s++, n++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else
			return -1;
		if (n >= 16)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	if (!n || *s != stop)
		return -1;
	*v = x;
	*p = s + 1;
	return 0;
}

/* "START-END PERMS OFFSET MAJ:MIN INODE [PATH]"; NULL or what was expected */
static const char *maps_line(char *line, struct maps_entry *e)
{
	const char *p = line;
	uint64_t dev;
	char *nl = strchr(line, '\n');

	if (nl)
		*nl = '\0';
	if (hex_field(&p, '-', &e->start) || hex_field(&p, ' ', &e->end))
		return "START-END in hex";
	if (e->end <= e->start)
		return "END above START";
	if (strlen(p) < 5 || p[4] != ' ' || !strchr("r-", p[0]) || !strchr("w-", p[1]) ||
	    !strchr("x-", p[2]) || !strchr("ps", p[3]))
		return "permissions like r-xp";
	e->exec = p[2] == 'x';
	p += 5;
	if (hex_field(&p, ' ', &e->pgoff))
		return "the file offset in hex";
	if (hex_field(&p, ':', &dev) || hex_field(&p, ' ', &dev))
		return "the device as MAJOR:MINOR in hex";
	/* the inode: only checked, the path names the file */
	if (*p < '0' || *p > '9')
		return "the inode in decimal";
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p && *p != ' ')
		return "the inode in decimal";
	while (*p == ' ')
		p++;
	e->path = xstrdup(p);
	return NULL;
}

int maps_parse(const char *path, struct maps *maps, char **err)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, alloc = 0, lineno = 0;
	ssize_t len;
	const char *what = NULL;

	maps->e = NULL;
	maps->nr = 0;
	*err = NULL;
	if (!f) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct maps_entry e = { 0 };

		lineno++;
		if (len > MAPS_LINE_MAX)
			what = "a line of at most 8192 bytes";
		else if (lineno > MAPS_MAX_LINES)
			what = "at most 2^20 mappings";
		else
			what = maps_line(line, &e);
		if (!what && maps->nr && e.start < maps->e[maps->nr - 1].end)
			what = "mappings in address order, not overlapping";
		if (what) {
			free(e.path);
			break;
		}
		if (maps->nr == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			maps->e = xrealloc(maps->e, alloc * sizeof(*maps->e));
		}
		maps->e[maps->nr++] = e;
	}
	free(line);
	fclose(f);
	if (what) {
		*err = xasprintf("%s:%zu: expected %s", path, lineno, what);
		maps_release(maps);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

const struct maps_entry *maps_find(const struct maps *maps, uint64_t addr)
{
	size_t lo = 0, hi = maps->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < maps->e[mid].start)
			hi = mid;
		else if (addr >= maps->e[mid].end)
			lo = mid + 1;
		else
			return &maps->e[mid];
	}
	return NULL;
}

void maps_release(struct maps *maps)
{
	size_t i;

	for (i = 0; i < maps->nr; i++)
		free(maps->e[i].path);
	free(maps->e);
	maps->e = NULL;
	maps->nr = 0;
}

/* One mapped file, opened once. */
struct sym_file {
	const char	*path;		/* as in the maps */
#ifdef MMLOCK_HAVE_LIBDW
	Dwfl		*dwfl;
	Dwfl_Module	*mod;
#endif
	int		failed;
	const char	*why;		/* when failed */
};

struct symbolizer {
	const struct maps *maps;
	char		*symfs;
	struct sym_file	*files;
	size_t		nr, alloc;
};

struct symbolizer *symbolizer_new(const struct maps *maps, const char *symfs)
{
	struct symbolizer *sz = calloc(1, sizeof(*sz));

	if (!sz) {
		errno = ENOMEM;
		return NULL;
	}
	sz->maps = maps;
	if (symfs && !(sz->symfs = strdup(symfs))) {
		free(sz);
		errno = ENOMEM;
		return NULL;
	}
	return sz;
}

#ifdef MMLOCK_HAVE_LIBDW
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf	= dwfl_build_id_find_elf,
	.find_debuginfo	= dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* The file under --symfs when there is one, else the path itself. */
static int open_mapped(const struct symbolizer *sz, const char *path)
{
	int fd = -1;

	if (sz->symfs) {
		char *p = xasprintf("%s/%s", sz->symfs, path);

		fd = open(p, O_RDONLY | O_CLOEXEC);
		free(p);
	}
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd;
}

static void sym_file_open(const struct symbolizer *sz, struct sym_file *f)
{
	int fd = open_mapped(sz, f->path);

	f->failed = 1;
	if (fd < 0) {
		f->why = sz->symfs ? "the file cannot be opened (neither under --symfs nor at its "
				     "path)" : "the file cannot be opened at its path (give --symfs)";
		return;
	}
	f->why = "not an ELF file libdw reads";
	f->dwfl = dwfl_begin(&offline_callbacks);
	if (!f->dwfl) {
		close(fd);
		return;
	}
	/*
	 * Base 0, p_vaddr not added: the module's addresses are the ELF's own,
	 * whatever address the process loaded it at.  dwfl owns fd from here.
	 */
	f->mod = dwfl_report_elf(f->dwfl, f->path, f->path, fd, 0, false);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (f->mod)
		f->failed = 0;
}

/* The ELF address that file offset @off is loaded from, per PT_LOAD. */
static int offset_to_elf(Dwfl_Module *mod, uint64_t off, uint64_t *addr)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t i, n;

	if (!elf || elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off - ph.p_offset < ph.p_filesz) {
			*addr = off - ph.p_offset + ph.p_vaddr + bias;
			return 0;
		}
	}
	return -1;
}

static void sym_file_lookup(struct sym_file *f, struct symbol_info *si)
{
	GElf_Off symoff = 0;
	GElf_Sym sym;
	const char *name, *src;
	Dwfl_Line *l;
	uint64_t a;
	int line = 0;

	if (offset_to_elf(f->mod, si->file_offset, &a)) {
		si->missing = "no loadable segment of the file holds that offset";
		return;
	}
	si->elf_addr = a;
	name = dwfl_module_addrinfo(f->mod, a, &symoff, &sym, NULL, NULL, NULL);
	if (name) {
		si->function = xstrdup(name);
		si->function_offset = symoff;
	} else {
		si->missing = "no symbol covers the address (a stripped file?)";
	}
	l = dwfl_module_getsrc(f->mod, a);
	if (l && (src = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL)) && line > 0) {
		const char *dir = dwfl_line_comp_dir(l);

		/* a relative name is the compilation directory's, as addr2line prints it */
		si->source = src[0] != '/' && dir ? xasprintf("%s/%s", dir, src) : xstrdup(src);
		si->line = line;
	} else if (!si->missing) {
		si->missing = "no line table covers the address (built without -g?)";
	}
}
#endif

static struct sym_file *sym_file_get(struct symbolizer *sz, const char *path)
{
	struct sym_file *f;
	size_t i;

	for (i = 0; i < sz->nr; i++)
		if (sz->files[i].path == path || !strcmp(sz->files[i].path, path))
			return &sz->files[i];
	if (sz->nr == sz->alloc) {
		sz->alloc = sz->alloc ? sz->alloc * 2 : 8;
		sz->files = xrealloc(sz->files, sz->alloc * sizeof(*sz->files));
	}
	f = &sz->files[sz->nr++];
	memset(f, 0, sizeof(*f));
	f->path = path;
#ifdef MMLOCK_HAVE_LIBDW
	sym_file_open(sz, f);
#else
	f->failed = 1;
	f->why = "this build has no libdw (file and offset only)";
#endif
	return f;
}

int symbolizer_resolve(struct symbolizer *sz, uint64_t addr, struct symbol_info *out)
{
	const struct maps_entry *e = maps_find(sz->maps, addr);
	struct sym_file *f;

	memset(out, 0, sizeof(*out));
	/* "[vdso]", "[heap]", anonymous: no file to look into */
	if (!e || e->path[0] != '/') {
		errno = ENOENT;
		return -1;
	}
	out->path = e->path;
	out->file_offset = addr - e->start + e->pgoff;
	f = sym_file_get(sz, e->path);
	if (f->failed)
		out->missing = f->why;
#ifdef MMLOCK_HAVE_LIBDW
	else
		sym_file_lookup(f, out);
#endif
	return 0;
}

void symbolizer_free(struct symbolizer *sz)
{
	size_t i;

	if (!sz)
		return;
	for (i = 0; i < sz->nr; i++) {
#ifdef MMLOCK_HAVE_LIBDW
		if (sz->files[i].dwfl)
			dwfl_end(sz->files[i].dwfl);
#endif
	}
	free(sz->files);
	free(sz->symfs);
	free(sz);
}

void symbol_info_release(struct symbol_info *si)
{
	free(si->function);
	free(si->source);
	si->function = NULL;
	si->source = NULL;
}

char *symbol_format(const struct symbol_info *si)
{
	char *fn = NULL, *src = NULL, *s;

	if (si->function)
		fn = xasprintf("%s+0x%" PRIx64 " ", si->function, si->function_offset);
	if (si->source)
		src = xasprintf("(%s:%d) ", si->source, si->line);
	s = xasprintf("%s%sin %s+0x%" PRIx64, fn ? fn : "", src ? src : "",
		      si->path ? si->path : "?", si->file_offset);
	free(fn);
	free(src);
	return s;
}

/* ------------------------------------------------------------ snapshots */

struct maps_snapshot {
	char		*name;		/* inside the folder: "1234.0.txt" */
	int		tgid;
	uint64_t	ts_ns;
	size_t		order;		/* line of the index: ties keep it */
	int		parsed;		/* 1: maps valid, -1: err set */
	struct maps	maps;
	char		*err;
	struct symbolizer *sz;
};

struct maps_snapshots {
	char			*dir, *symfs;
	int			timed;
	struct maps_snapshot	*v;	/* sorted by (tgid, ts_ns, index order) */
	size_t			nr;
};

static int snapshot_cmp(const void *a, const void *b)
{
	const struct maps_snapshot *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* "NAME TGID MONO_NS WHY": a plain name, no folder in it. */
static const char *index_line(char *line, struct maps_snapshot *s)
{
	char *name, *tgid, *ts, *end, *save = NULL;
	uint64_t v;

	line[strcspn(line, "\n")] = '\0';
	name = strtok_r(line, " ", &save);
	tgid = strtok_r(NULL, " ", &save);
	ts = strtok_r(NULL, " ", &save);
	if (!name || !tgid || !ts || !strtok_r(NULL, " ", &save) || strtok_r(NULL, " ", &save))
		return "NAME TGID MONO_NS WHY";
	if (strchr(name, '/') || name[0] == '.' || strlen(name) > 64)
		return "a file name inside the folder (no '/', not starting with '.')";
	errno = 0;
	v = strtoull(tgid, &end, 10);
	if (errno || *end || tgid[0] < '0' || tgid[0] > '9' || !v || v > 0x7fffffff)
		return "a TGID in decimal";
	s->tgid = (int)v;
	errno = 0;
	s->ts_ns = strtoull(ts, &end, 10);
	if (errno || *end || ts[0] < '0' || ts[0] > '9')
		return "MONO_NS in decimal";
	s->name = xstrdup(name);
	return NULL;
}

struct maps_snapshots *maps_snapshots_open(const char *dir, const char *symfs, int timed,
					   char **err)
{
	char *path = xasprintf("%s/index", dir), *line = NULL;
	FILE *f = fopen(path, "re");
	struct maps_snapshots *ms;
	size_t cap = 0, alloc = 0, lineno = 0;
	const char *what = NULL;
	ssize_t len;

	*err = NULL;
	if (!f) {
		int e = errno;

		*err = xasprintf("%s: %s", path, strerror(e));
		free(path);
		errno = e;
		return NULL;
	}
	ms = xcalloc(1, sizeof(*ms));
	ms->dir = xstrdup(dir);
	ms->symfs = symfs ? xstrdup(symfs) : NULL;
	ms->timed = timed;
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct maps_snapshot s = { 0 };

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (len > 256)
			what = "a line of at most 256 bytes";
		else if (ms->nr >= MAPS_MAX_SNAPSHOTS)
			what = "at most 65536 snapshots";
		else
			what = index_line(line, &s);
		if (what)
			break;
		if (ms->nr == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			ms->v = xrealloc(ms->v, alloc * sizeof(*ms->v));
		}
		s.order = ms->nr;
		ms->v[ms->nr++] = s;
	}
	free(line);
	fclose(f);
	if (what) {
		*err = xasprintf("%s:%zu: expected %s", path, lineno, what);
		free(path);
		maps_snapshots_free(ms);
		errno = EINVAL;
		return NULL;
	}
	free(path);
	if (ms->nr)
		qsort(ms->v, ms->nr, sizeof(*ms->v), snapshot_cmp);
	return ms;
}

static struct maps *snapshot_maps(struct maps_snapshots *ms, struct maps_snapshot *s)
{
	if (!s->parsed) {
		char *p = xasprintf("%s/%s", ms->dir, s->name);

		if (maps_parse(p, &s->maps, &s->err)) {
			s->parsed = -1;
		} else if (!(s->sz = symbolizer_new(&s->maps, ms->symfs))) {
			maps_release(&s->maps);
			s->err = xasprintf("%s: %s", p, strerror(errno));
			s->parsed = -1;
		} else {
			s->parsed = 1;
		}
		free(p);
	}
	return s->parsed > 0 ? &s->maps : NULL;
}

static int snapshot_has(struct maps_snapshots *ms, struct maps_snapshot *s, uint64_t addr)
{
	struct maps *m = snapshot_maps(ms, s);
	const struct maps_entry *e = m ? maps_find(m, addr) : NULL;

	return e && e->path[0] == '/';
}

int maps_snapshots_resolve(struct maps_snapshots *ms, int tgid, uint64_t ts_ns, uint64_t addr,
			   struct symbol_info *si, const char **snapshot, char **why)
{
	size_t lo = 0, hi = ms->nr, first, end, i, pick = SIZE_MAX;
	const char *bad = NULL;

	memset(si, 0, sizeof(*si));
	*why = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ms->v[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	for (end = first; end < ms->nr && ms->v[end].tgid == tgid; end++)
		;
	if (first == end) {
		*why = xasprintf("no maps snapshot of tgid %d", tgid);
		return -1;
	}
	if (ms->timed) {
		/* the last one at or before @ts_ns that maps it, else the first after */
		for (i = end; i-- > first && pick == SIZE_MAX;)
			if (ms->v[i].ts_ns <= ts_ns && snapshot_has(ms, &ms->v[i], addr))
				pick = i;
		for (i = first; i < end && pick == SIZE_MAX; i++)
			if (ms->v[i].ts_ns > ts_ns && snapshot_has(ms, &ms->v[i], addr))
				pick = i;
	} else {
		for (i = first; i < end && pick == SIZE_MAX; i++)
			if (snapshot_has(ms, &ms->v[i], addr))
				pick = i;
	}
	if (pick == SIZE_MAX) {
		for (i = first; i < end && !bad; i++)
			if (ms->v[i].parsed < 0)
				bad = ms->v[i].err;
		*why = bad ? xstrdup(bad) :
		       xasprintf("no file mapping holds %" PRIx64 " in the %zu maps snapshot%s of "
				 "tgid %d", addr, end - first, end - first == 1 ? "" : "s", tgid);
		return -1;
	}
	*snapshot = ms->v[pick].name;
	return symbolizer_resolve(ms->v[pick].sz, addr, si);
}

void maps_snapshots_free(struct maps_snapshots *ms)
{
	size_t i;

	if (!ms)
		return;
	for (i = 0; i < ms->nr; i++) {
		struct maps_snapshot *s = &ms->v[i];

		symbolizer_free(s->sz);
		if (s->parsed > 0)
			maps_release(&s->maps);
		free(s->err);
		free(s->name);
	}
	free(ms->v);
	free(ms->dir);
	free(ms->symfs);
	free(ms);
}
