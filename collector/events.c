// SPDX-License-Identifier: GPL-2.0
/*
 * The instance's events, filters and triggers of a `mmlock record` run
 * (beside instance.c, the instance wrapper, as rtla's trace.c is beside its
 * tools): which events the chosen source's default set holds (the
 * contract's table and evset.h), the kernel filters and stack triggers the
 * options ask for, and writing them, the pid filter and the buffer settings
 * into the instance.  cmd-record.c keeps the command.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "evset.h"
#include "filter.h"
#include "infile.h"
#include "mmlock_events.h"
#include "record.h"
#include "util.h"

struct rec_event *record_event_add(struct collector *c, char *sys, char *name)
{
	struct rec_event *e;
	char *full;
	size_t i;

	for (i = 0; i < c->nr_events; i++) {
		if (!strcmp(c->events[i].system, sys) && !strcmp(c->events[i].name, name)) {
			free(sys);
			free(name);
			return &c->events[i];
		}
	}
	c->events = xrealloc(c->events, (c->nr_events + 1) * sizeof(*c->events));
	e = &c->events[c->nr_events++];
	memset(e, 0, sizeof(*e));
	e->system = sys;
	e->name = name;
	full = xasprintf("%s:%s", sys, name);
	/* the module's copies carry the contract's tgid field too */
	e->custom = evset_find(full) && evset_find(full)->custom;
	free(full);
	return e;
}

static int available(struct collector *c, const char *sys, const char *name)
{
	char *full = xasprintf("%s:%s", sys, name);
	size_t i;
	int found = 0;

	for (i = 0; i < c->nr_available && !found; i++)
		found = !strcmp(c->available[i], full);
	free(full);
	return found;
}

/* How many of the contract's custom events the kernel has in @sys (NULL: their own systems). */
static int available_custom(struct collector *c, const char *sys)
{
	int i, n = 0;

	for (i = 0; i < MMLOCK_EV_NR_CUSTOM; i++)
		n += available(c, sys ? sys : mmlock_events[i].system, mmlock_events[i].name);
	return n;
}

/*
 * GKI vendor modules were built against the stock headers: their inlined
 * mmap_lock wrappers call the out-of-line __mmap_lock_do_trace_*() helpers,
 * where the Android series emits our wait/hold events, only while a stock
 * mmap_lock event is enabled.  On an Android kernel the default set enables
 * them too, or module lock waits stay invisible; the analyzer ignores the
 * stock copies when the custom events are there.
 */
static void add_gki_module_triggers(struct record *r)
{
	static const enum mmlock_event_id stock[] = {
		MMLOCK_EV_MMAP_LOCK_START_LOCKING, MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED,
		MMLOCK_EV_MMAP_LOCK_RELEASED,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stock); i++) {
		const struct mmlock_event *ev = &mmlock_events[stock[i]];

		if (available(&r->col, ev->system, ev->name))
			record_event_add(&r->col, xstrdup(ev->system), xstrdup(ev->name));
	}
}

/*
 * An event of the default set: recorded when the kernel has it, else named
 * once in trace.status (events_missing) and in a warning, never an error
 * (Linux 6.1 has no filemap:mm_filemap_fault, arm64 no exceptions:*).
 */
static struct rec_event *add_default_event(struct record *r, const char *what,
					   const char *sys, const char *name)
{
	char *full;
	size_t k;

	if (available(&r->col, sys, name))
		return record_event_add(&r->col, xstrdup(sys), xstrdup(name));
	full = xasprintf("%s:%s", sys, name);
	for (k = 0; k < r->nr_events_missing; k++)
		if (!strcmp(r->events_missing[k], full))
			break;
	if (k < r->nr_events_missing) {
		free(full);
		return NULL;
	}
	pr_warn("%s event %s is missing on this kernel", what, full);
	r->events_missing = xrealloc(r->events_missing, (r->nr_events_missing + 1) *
				     sizeof(*r->events_missing));
	r->events_missing[r->nr_events_missing++] = full;
	return NULL;
}

/* One line of a sysfs file of the module, or NULL (a warning says why). */
static char *read_module_file(const char *path)
{
	char *text = infile_read(AT_FDCWD, path, 4096, NULL, INFILE_REGULAR);

	if (!text) {
		pr_warn("cannot read %s: %s; trace.status says null", path,
			infile_strerror(errno));
		return NULL;
	}
	text[strcspn(text, "\n")] = '\0';
	return text;
}

/* The stock events, with the stock-event mode's additions (evset.h). */
static void add_stock_set(struct record *r)
{
	int i;

	for (i = MMLOCK_EV_NR_CUSTOM + 1; i < MMLOCK_EV_NR; i++) {
		const struct mmlock_event *ev = &mmlock_events[i];
		struct rec_event *e;

		if (!ev->name)
			continue;
		e = add_default_event(r, "stock", ev->system, ev->name);
		/* a write hold's stack names its syscall path: the writer's caller */
		if (e && ev->id == MMLOCK_EV_MMAP_LOCK_ACQUIRE_RETURNED)
			e->stack_if = EVSET_WRITE_STACK_IF;
	}
	for (i = 0; i < EVSET_X_NR; i++) {
		const struct evset_extra *x = &evset_extras[i];
		struct rec_event *e = add_default_event(r, "stock", x->system, x->name);

		if (e && x->filter && !e->filter)
			e->filter = xstrdup(x->filter);
	}
}

/*
 * The default set of the chosen source (--source, evset.h): the kernel's
 * contract events (on a partly patched kernel, "mixed": the custom events it
 * has plus the stock ones), the module's copies of them, or the stock set.
 * auto takes the first the kernel offers.
 */
static int add_default_events(struct record *r)
{
	struct collector *c = &r->col;
	int i, custom = available_custom(c, NULL), module = available_custom(c, EVSET_MODULE_SYSTEM);
	int stock = 0, src = r->opts->source;

	for (i = MMLOCK_EV_NR_CUSTOM + 1; i < MMLOCK_EV_NR; i++)
		stock += available(c, mmlock_events[i].system, mmlock_events[i].name);
	if (src == EVSET_SRC_AUTO)
		src = custom == MMLOCK_EV_NR_CUSTOM ? EVSET_SRC_KERNEL : module ? EVSET_SRC_MODULE :
		      custom ? EVSET_SRC_KERNEL : EVSET_SRC_STOCK;
	switch (src) {
	case EVSET_SRC_MODULE:
		if (!module) {
			record_error(r, "mmlock_probe.ko is not loaded (available_events lists no %s "
				  "event): load it (tracepoints/module/README.md) or give --source "
				  "stock", EVSET_MODULE_SYSTEM);
			r->env_failure = 1;
			return -1;
		}
		r->event_set = "custom";
		r->event_source = "module";
		for (i = 0; i < MMLOCK_EV_NR_CUSTOM; i++)
			add_default_event(r, "module", EVSET_MODULE_SYSTEM, mmlock_events[i].name);
		free(r->module_caps);
		free(r->module_version);
		r->module_caps = read_module_file(EVSET_MODULE_CAPS);
		r->module_version = read_module_file(EVSET_MODULE_VERSION);
		return 0;
	case EVSET_SRC_KERNEL:
		if (!custom) {
			record_error(r, "this kernel has none of the mmlock events (no mmlock series): "
				  "give --source module (mmlock_probe.ko) or --source stock");
			r->env_failure = 1;
			return -1;
		}
		r->event_set = custom == MMLOCK_EV_NR_CUSTOM ? "custom" : "mixed";
		r->event_source = custom == MMLOCK_EV_NR_CUSTOM ? "kernel" : "mixed";
		for (i = 0; i < MMLOCK_EV_NR_CUSTOM; i++)
			add_default_event(r, "mmlock", mmlock_events[i].system, mmlock_events[i].name);
		if (custom < MMLOCK_EV_NR_CUSTOM) {
			for (i = MMLOCK_EV_NR_CUSTOM + 1; i < MMLOCK_EV_NR; i++)
				if (mmlock_events[i].name)
					add_default_event(r, "stock", mmlock_events[i].system,
							  mmlock_events[i].name);
		} else if (strstr(r->kernel_release, "-android")) {
			add_gki_module_triggers(r);
		}
		return 0;
	default:
		if (!stock) {
			record_error(r, "this kernel has neither the mmlock events nor the stock mmap_lock "
				  "events (CONFIG_TRACING, CONFIG_MMAP_LOCK tracepoints?)");
			r->env_failure = 1;
			return -1;
		}
		r->event_set = "stock";
		r->event_source = "stock";
		add_stock_set(r);
		return 0;
	}
}

/*
 * The source of a set named with -e (or told with --stdin -e): the one
 * source all its events come from, "mixed" for several, NULL for none.
 */
const char *record_events_source(const struct collector *c)
{
	int kernel = 0, module = 0, stock = 0;
	size_t i;

	for (i = 0; i < c->nr_events; i++) {
		char *full = xasprintf("%s:%s", c->events[i].system, c->events[i].name);
		const struct mmlock_event *ev = evset_find(full);

		if (evset_is_module(full))
			module = 1;
		else if (ev && ev->custom)
			kernel = 1;
		else if (ev || evset_extra_find(full) >= 0)
			stock = 1;
		free(full);
	}
	if (kernel + module + stock > 1)
		return "mixed";
	return kernel ? "kernel" : module ? "module" : stock ? "stock" : NULL;
}

static void report_unknown(struct record *r, const char *what, const char *spec, int err)
{
	const char *best[3];
	size_t n, i;
	char hint[512] = "";

	if (err == EEXIST) {
		record_error(r, "%s '%s' exists in more than one system: give SYSTEM:NAME", what, spec);
		return;
	}
	n = closest_names(spec, r->col.available, r->col.nr_available, best, ARRAY_SIZE(best));
	for (i = 0; i < n; i++) {
		size_t len = strlen(hint);

		snprintf(hint + len, sizeof(hint) - len, "%s%s", i ? ", " : "; did you mean ",
			 best[i]);
	}
	record_error(r, "%s '%s' does not exist on this kernel%s%s", what, spec, hint,
		  n ? "?" : " (see available_events in tracefs)");
}

int record_events_resolve(struct record *r)
{
	struct record_opts *o = r->opts;
	struct collector *c = &r->col;
	size_t i;

	if (collector_load_available(c)) {
		record_error(r, "cannot read %s/available_events: %s", c->tracing_dir, strerror(errno));
		return -1;
	}
	if (!o->nr_events) {
		if (add_default_events(r))
			return -1;
	}
	for (i = 0; i < o->nr_events; i++) {
		char *sys, *name;

		if (!strcmp(o->events[i], "default")) {
			if (add_default_events(r))
				return -1;
			continue;
		}
		if (collector_resolve(c, o->events[i], &sys, &name)) {
			report_unknown(r, "event", o->events[i], errno);
			return -1;
		}
		record_event_add(c, sys, name);
	}
	if (!r->event_set)
		r->event_set = "user";
	if (!r->event_source)
		r->event_source = record_events_source(c);
	return 0;
}

static struct rec_event *find_recorded(struct record *r, const char *what, const char *spec)
{
	char *sys, *name;
	size_t i;

	if (collector_resolve(&r->col, spec, &sys, &name)) {
		report_unknown(r, what, spec, errno);
		return NULL;
	}
	for (i = 0; i < r->col.nr_events; i++) {
		struct rec_event *e = &r->col.events[i];

		if (!strcmp(e->system, sys) && !strcmp(e->name, name)) {
			free(sys);
			free(name);
			return e;
		}
	}
	record_error(r, "%s names %s:%s, which is not recorded: add it with -e", what, sys, name);
	free(sys);
	free(name);
	return NULL;
}

static void append_filter(struct rec_event *e, const char *expr)
{
	char *f;

	if (!e->filter) {
		e->filter = xstrdup(expr);
		return;
	}
	f = xasprintf("(%s) && (%s)", e->filter, expr);
	free(e->filter);
	e->filter = f;
}

int record_filters_build(struct record *r)
{
	struct record_opts *o = r->opts;
	size_t i;

	for (i = 0; i < o->nr_filters; i++) {
		struct rec_event *e = find_recorded(r, "--filter", o->filters[i].event);

		if (!e)
			return -1;
		append_filter(e, o->filters[i].expr);
	}
	/* --tgid: the contract's events carry a tgid field */
	if (o->tgid) {
		for (i = 0; i < r->col.nr_events; i++) {
			char *f;

			if (!r->col.events[i].custom)
				continue;
			f = trace_filter_tgids(&o->tgid, 1);
			append_filter(&r->col.events[i], f);
			free(f);
		}
	}
	for (i = 0; i < o->nr_stacks; i++) {
		struct rec_event *e = find_recorded(r, "--stack", o->stacks[i]);

		if (!e)
			return -1;
		free(e->trigger);
		/* conditional, so it honours the filter; its block follows the event */
		e->trigger = xasprintf("stacktrace if %s", e->filter ? e->filter : "common_pid >= 0");
	}
	/* the default set's own stack triggers, where --stack did not ask for more */
	for (i = 0; i < r->col.nr_events; i++) {
		struct rec_event *e = &r->col.events[i];

		if (!e->stack_if || e->trigger)
			continue;
		e->trigger = e->filter ? xasprintf("stacktrace if (%s) && (%s)", e->filter, e->stack_if) :
			     xasprintf("stacktrace if %s", e->stack_if);
	}
	return 0;
}

/* The threads of @tgid, for set_event_pid. */
void record_threads_add(struct record *r, int tgid)
{
	char path[64];
	DIR *dp;

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	dp = opendir(path);
	if (dp) {
		const struct dirent *d;

		while ((d = readdir(dp))) {
			long tid = strtol(d->d_name, NULL, 10);

			if (tid <= 0)
				continue;
			r->pids = xrealloc(r->pids, (r->nr_pids + 1) * sizeof(*r->pids));
			r->pids[r->nr_pids++] = (int)tid;
		}
		closedir(dp);
	}
	if (!r->nr_pids) {
		r->pids = xrealloc(r->pids, sizeof(*r->pids));
		r->pids[r->nr_pids++] = tgid;
	}
}

static int kernel_error(struct record *r, const char *what)
{
	char *log = tracefs_error_last(r->col.inst);

	if (log) {
		char *msg = log;

		/* "[  600.434580] event filter parse error: ...\n  Command: ..." */
		msg[strcspn(msg, "\n")] = '\0';
		if (*msg == '[' && strchr(msg, ']'))
			msg = strchr(msg, ']') + 1;
		while (*msg == ' ')
			msg++;
		record_error(r, "%s: %s", what, msg);
	} else {
		record_error(r, "%s: %s", what, strerror(errno));
	}
	free(log);
	return -1;
}

/* FILE is "filter" or "trigger"; the kernel's error log says why it refused VALUE */
static int write_event_setting(struct record *r, const struct rec_event *e, const char *file,
			       const char *value)
{
	char *what;

	if (!value)
		return 0;
	tracefs_error_clear(r->col.inst);
	if (tracefs_event_file_write(r->col.inst, e->system, e->name, file, value) >= 0)
		return 0;
	what = xasprintf("the kernel rejected %s '%s' for %s:%s", file, value, e->system, e->name);
	kernel_error(r, what);
	free(what);
	return -1;
}

int record_settings_write(struct record *r)
{
	struct tracefs_instance *inst = r->col.inst;
	struct record_opts *o = r->opts;
	size_t i;
	ssize_t kb;

	if (tracefs_instance_set_buffer_size(inst, o->buffer_kb, -1)) {
		record_error(r, "cannot set the ring buffer to %llu KB per CPU: %s",
			  (unsigned long long)o->buffer_kb, strerror(errno));
		return -1;
	}
	kb = tracefs_instance_get_buffer_size(inst, 0);
	r->buffer_kb = kb > 0 ? (uint64_t)kb : o->buffer_kb;
	if (tracefs_instance_file_write(inst, "trace_clock", o->clock) < 0) {
		char *clocks = tracefs_instance_file_read(inst, "trace_clock", NULL);

		if (clocks)
			clocks[strcspn(clocks, "\n")] = '\0';
		record_error(r, "the kernel has no trace clock '%s' (available: %s)", o->clock,
			  clocks ? clocks : "?");
		free(clocks);
		return -1;
	}
	r->clock = tracefs_get_clock(inst);
	if (!r->clock)
		r->clock = xstrdup(o->clock);
	if (tracefs_option_enable(inst, TRACEFS_OPTION_RECORD_TGID))
		pr_warn("option record-tgid is not available: lines will have no TGID column");
	else
		r->record_tgid = 1;
	if (r->nr_pids) {
		char *list = xstrdup("");

		for (i = 0; i < r->nr_pids; i++) {
			char *n = xasprintf("%s%s%d", list, i ? " " : "", r->pids[i]);

			free(list);
			list = n;
		}
		if (tracefs_option_enable(inst, TRACEFS_OPTION_EVENT_FORK) == 0)
			r->event_fork = 1;
		if (tracefs_instance_file_write(inst, "set_event_pid", list) < 0) {
			free(list);
			return kernel_error(r, "cannot write set_event_pid");
		}
		free(list);
	}
	for (i = 0; i < r->col.nr_events; i++) {
		struct rec_event *e = &r->col.events[i];

		if (write_event_setting(r, e, "filter", e->filter) ||
		    write_event_setting(r, e, "trigger", e->trigger))
			return -1;
		if (tracefs_event_enable(inst, e->system, e->name)) {
			record_error(r, "cannot enable %s:%s: %s", e->system, e->name, strerror(errno));
			return -1;
		}
	}
	return 0;
}

