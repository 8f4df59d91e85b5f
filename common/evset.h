/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where mmlock's events come from, and which trace events each source
 * records: the collector picks a set (`mmlock record --source`), the
 * analyzer reads a capture of any of them.
 *
 *  - kernel: a kernel with the mmlock series, the contract's events in the
 *    systems filemap and mmap_lock (tracepoints/mmlock_events.h);
 *  - module: mmlock_probe.ko on a kernel without the series, the same 15
 *    events (names, fields, text) in the system mmlock_probe
 *    (tracepoints/module/README.md);
 *  - stock: neither, the kernel's own events only: the contract's stock
 *    list plus the additions below (issue 15, "stock-event mode").
 */
#ifndef MMLOCK_EVSET_H
#define MMLOCK_EVSET_H

#include "mmlock_events.h"

/* The trace system of mmlock_probe.ko's events. */
#define EVSET_MODULE_SYSTEM	"mmlock_probe"

/* The module's one line of what it can see, and its version (sysfs). */
#define EVSET_MODULE_CAPS	"/sys/module/mmlock_probe/parameters/caps"
#define EVSET_MODULE_VERSION	"/sys/module/mmlock_probe/version"

enum evset_source {
	EVSET_SRC_AUTO,		/* kernel, else module, else stock */
	EVSET_SRC_KERNEL,
	EVSET_SRC_MODULE,
	EVSET_SRC_STOCK,
};

/*
 * The stock events the stock-event mode adds to the contract's stock list,
 * each recorded only where the kernel has it.  lock:contention_* exist from
 * Linux 5.19; exceptions:page_fault_* on x86 only.
 * X(id, system, name, filter, handler): handler names the analyzer's
 * on_<handler>(), as in the contract's event lists.
 */
#define EVSET_EXTRAS(X)							\
	X(CONTENTION_BEGIN,	lock,		contention_begin,	\
	  EVSET_RWSEM_FILTER,	contention_begin)			\
	X(CONTENTION_END,	lock,		contention_end,		\
	  NULL,			contention_end)				\
	X(PAGE_FAULT_USER,	exceptions,	page_fault_user,	\
	  NULL,			page_fault_user)			\
	X(PAGE_FAULT_KERNEL,	exceptions,	page_fault_kernel,	\
	  NULL,			page_fault_kernel)			\
	X(PROCESS_EXIT,		sched,		sched_process_exit,	\
	  NULL,			process_exit)

enum evset_extra_id {
#define EVSET_X_ENUM(id, sys, name, filter, handler) EVSET_X_##id,
	EVSET_EXTRAS(EVSET_X_ENUM)
#undef EVSET_X_ENUM
	EVSET_X_NR,
};

/**
 * struct evset_extra - one stock event of the stock-event mode's additions
 * @system: its trace system
 * @name: its name
 * @filter: the kernel filter the default set writes, or NULL
 */
struct evset_extra {
	const char	*system;
	const char	*name;
	const char	*filter;
};

extern const struct evset_extra evset_extras[EVSET_X_NR];

/*
 * lock:contention_begin's flags of an rwsem sleep: LCB_F_READ (2) or
 * LCB_F_WRITE (4) alone.  Spinlocks, mutexes, per-CPU and RT locks, most of
 * the event's volume, stay in the kernel.
 */
#define EVSET_RWSEM_FILTER	"flags == 2 || flags == 4"

/* The condition of the stack trigger on write acquisitions (their callers). */
#define EVSET_WRITE_STACK_IF	"write == 1"

/**
 * evset_source_parse() - the source named by @s
 * @s: "auto", "kernel", "module" or "stock"
 *
 * Return: an enum evset_source, or -1 when @s is none of them.
 */
int evset_source_parse(const char *s);

/**
 * evset_source_name() - the word for a source, as trace.status prints it
 * @src: a source
 *
 * Return: "auto", "kernel", "module" or "stock".
 */
const char *evset_source_name(enum evset_source src);

/**
 * evset_find() - an event of the contract, by any of its recorded names
 * @name: "name", "system:name", or "mmlock_probe:name" for the module's copy
 *	of a custom event
 *
 * mmlock_event_find() with the module's system mapped onto the contract's:
 * the module's events are the contract's, in a system of their own.
 *
 * Return: the contract's event, or NULL when @name is not one.
 */
const struct mmlock_event *evset_find(const char *name);

/**
 * evset_is_module() - does @name name an event in the module's system
 * @name: "system:name"
 *
 * Return: 1 for "mmlock_probe:..." naming a custom event of the contract,
 * else 0.
 */
int evset_is_module(const char *name);

/**
 * evset_extra_find() - which stock-mode addition @name is
 * @name: "name" or "system:name"
 *
 * Return: an enum evset_extra_id, or -1 when @name is none of them.
 */
int evset_extra_find(const char *name);

/**
 * evset_caps_has() - does the module's caps line hold the word KEY=VALUE
 * @caps: the line (space-separated key=value words), or NULL
 * @key: the key
 * @value: the value
 *
 * Return: 1 when it does, else 0 (also for a NULL @caps).
 */
int evset_caps_has(const char *caps, const char *key, const char *value);

#endif /* MMLOCK_EVSET_H */
