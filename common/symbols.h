/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user address to the file, function and source line it belongs to: a
 * /proc/PID/maps snapshot finds the mapped file and the offset in it, the
 * file's ELF program headers turn that offset into the address its symbols
 * and DWARF use, and elfutils' libdwfl names the function and the line.
 * What simpleperf calls --symfs (a folder holding unstripped copies of the
 * device's files under their device paths) is where files are looked up
 * first, so a phone's pulled maps resolve against host copies.
 */
#ifndef MMLOCK_SYMBOLS_H
#define MMLOCK_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* One mapping of a maps file; path is "" for an anonymous one. */
struct maps_entry {
	uint64_t	start, end, pgoff;
	int		exec;
	char		*path;
};

struct maps {
	struct maps_entry *e;		/* sorted by start, not overlapping */
	size_t		nr;
};

/* Longest maps file accepted, in lines: a process has at most ~65530 VMAs. */
#define MAPS_MAX_LINES	(1u << 20)

struct symbol_info {
	const char	*path;		/* the mapped file (points into the maps) */
	uint64_t	file_offset;	/* of @addr in that file */
	uint64_t	elf_addr;	/* the address the file's symbols use, or 0 */
	char		*function;	/* NULL when the file has no symbol there */
	uint64_t	function_offset;
	char		*source;	/* source file of the line, or NULL */
	int		line;		/* 0 when there is no line table */
	const char	*missing;	/* why function or line is absent, or NULL */
};

/**
 * maps_parse() - read a /proc/PID/maps text
 * @path: the file (a snapshot, or /proc/PID/maps itself)
 * @maps: filled on success; release with maps_release()
 * @err: on failure, a message naming @path, the line and what was expected
 *
 * Return: 0, or -1 with errno (EINVAL: malformed, with @err set).
 */
int maps_parse(const char *path, struct maps *maps, char **err);

/**
 * maps_find() - the mapping holding @addr
 * Return: the entry, or NULL when no mapping holds it.
 */
const struct maps_entry *maps_find(const struct maps *maps, uint64_t addr);

/** maps_release() - free what maps_parse() allocated. */
void maps_release(struct maps *maps);

struct symbolizer;

/**
 * symbolizer_new() - a resolver over @maps (which must outlive it)
 * @symfs: folder searched first for each mapped file's path, or NULL
 *
 * Each mapped file is opened once, when an address in it is first asked.
 * Return: the resolver, or NULL with errno ENOMEM.
 */
struct symbolizer *symbolizer_new(const struct maps *maps, const char *symfs);

/**
 * symbolizer_resolve() - @addr in words
 * @out: filled; release with symbol_info_release()
 *
 * The file, its offset and (when the ELF can be read) the ELF address are
 * set whenever a file mapping holds @addr; function and line as far as the
 * file's symbols and DWARF go (none in a build without libdw).
 * Return: 0; -1 with errno ENOENT when no file mapping holds @addr.
 */
int symbolizer_resolve(struct symbolizer *sz, uint64_t addr, struct symbol_info *out);

/** symbolizer_free() - close the files and free the resolver. */
void symbolizer_free(struct symbolizer *sz);

/** symbol_info_release() - free the strings symbol_resolve() set. */
void symbol_info_release(struct symbol_info *si);

/**
 * symbol_format() - "func+0xoff (src.c:12) in /path+0xoffset", as far as known
 * Return: a string to free().
 */
char *symbol_format(const struct symbol_info *si);

/*
 * The maps snapshots of a capture: the folder CAPTURE/maps/ that `mmlock
 * record` fills (capture/README.md): TGID.N.txt copies of /proc/TGID/maps
 * and an index naming each with its TGID, the CLOCK_MONOTONIC time it was
 * read at and why ("start", "changed", "end").
 */
struct maps_snapshots;

/* Most snapshots read from one index (a process changing its maps every 0.25 s for hours). */
#define MAPS_MAX_SNAPSHOTS	65536

/**
 * maps_snapshots_open() - read the index of a maps folder
 * @dir: the folder (CAPTURE/maps)
 * @symfs: folder searched first for each mapped file, or NULL
 * @timed: the trace's timestamps are CLOCK_MONOTONIC (trace clock "mono"),
 *	so a snapshot's time orders it against events; else only the order
 *	of the snapshots is used
 * @err: on failure, a message naming the file and line
 *
 * The snapshots themselves are parsed when first needed.
 * Return: the set, or NULL with errno (ENOENT: no index; EINVAL: malformed).
 */
struct maps_snapshots *maps_snapshots_open(const char *dir, const char *symfs, int timed,
					   char **err);

/**
 * maps_snapshots_resolve() - @addr of process @tgid at time @ts_ns
 * @ms: the snapshots
 * @tgid: the process
 * @ts_ns: when the address was seen (trace time)
 * @addr: the user address
 * @si: filled as symbolizer_resolve() fills it; release with symbol_info_release()
 * @snapshot: set to the snapshot's file name (inside the folder)
 * @why: on failure, set to a message to free() (no snapshot of @tgid, no
 *	file mapping there, a malformed snapshot)
 *
 * The snapshot used is the last one read at or before @ts_ns that maps
 * @addr to a file, else the first one read after it that does: a start
 * snapshot for what ran before a change, the next one for what a later
 * exec or mmap brought.
 * Return: 0, or -1 with @why set.
 */
int maps_snapshots_resolve(struct maps_snapshots *ms, int tgid, uint64_t ts_ns, uint64_t addr,
			   struct symbol_info *si, const char **snapshot, char **why);

/** maps_snapshots_free() - close every file and free @ms (NULL is fine). */
void maps_snapshots_free(struct maps_snapshots *ms);

#endif /* MMLOCK_SYMBOLS_H */
