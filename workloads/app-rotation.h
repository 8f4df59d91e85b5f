/* SPDX-License-Identifier: GPL-2.0 */
/*
 * app-rotation's command plan (workloads/app-rotation.c), apart from running
 * it, so that the commands a device gets are tested without a device.
 */
#ifndef MMLOCK_APP_ROTATION_H
#define MMLOCK_APP_ROTATION_H

#include <stddef.h>

/**
 * struct ar_app - one package of the rotation
 * @package: its name (com.example.app)
 * @component: its launcher activity (com.example.app/.Main), NULL when the
 *	device has no such package: it is left out of every burst
 * @heavy: one of the heavy packages (--heavy)
 * @launches: how many times it was started
 * @launch_fail: of which failed
 * @total_ms_sum: the sum of `am start -W`'s TotalTime over its starts
 */
struct ar_app {
	char		*package;
	char		*component;
	int		heavy;
	long		launches, launch_fail;
	long		total_ms_sum;
};

/**
 * struct ar_plan - what one run of app-rotation does, cycle by cycle
 * @apps: the packages, those of --packages/--package-file first, then --heavy
 * @nr_apps: how many
 * @burst_size: launches per cycle
 * @heavy_per_burst: of which from the heavy packages
 * @hold_ms: how long each started app is left in front
 * @launch_gap_ms: pause between two launches of a burst
 * @cycle_sleep_ms: pause after a burst
 * @home: press HOME after each burst (the apps go to the background)
 * @force_stop: `am force-stop` each app of a burst after it
 */
struct ar_plan {
	struct ar_app	*apps;
	size_t		nr_apps;
	long		burst_size, heavy_per_burst, hold_ms, launch_gap_ms, cycle_sleep_ms;
	long		home, force_stop;
};

/**
 * ar_plan_add() - add the packages of a comma- or blank-separated @list
 * @p: the plan
 * @list: package names; a name already in the plan is not added again
 * @heavy: they are heavy packages
 * @why: on failure, what was wrong (a new string)
 *
 * Return: 0, or -1 when a name is not a package name (letters, digits, '_'
 * and at least one '.'): it goes to a shell on the device.
 */
int ar_plan_add(struct ar_plan *p, const char *list, int heavy, char **why);

/**
 * ar_cycle() - the commands of burst @cycle, one line each
 * @p: the plan (its apps resolved: those without a component are skipped)
 * @cycle: 0, 1, ...
 * @out: the lines, each a new string: "am start -W -n COMPONENT",
 *	"sleep MS" (milliseconds), "input keyevent KEYCODE_HOME",
 *	"am force-stop PACKAGE"
 * @max: room in @out
 *
 * Heavy packages go round-robin through the first @heavy_per_burst slots
 * of each burst, the others through the rest (with no heavy ones, every
 * slot; with only heavy ones, those).
 *
 * Return: how many lines (never more than @max); 0 when no app is resolved.
 */
size_t ar_cycle(const struct ar_plan *p, long cycle, char **out, size_t max);

/**
 * ar_app_of() - the app a "am start -W -n COMPONENT" line starts
 * @p: the plan
 * @line: a line of ar_cycle()
 *
 * Return: the app, or NULL when @line starts none.
 */
struct ar_app *ar_app_of(const struct ar_plan *p, const char *line);

/**
 * ar_plan_release() - free what @p holds (not @p itself)
 * @p: the plan
 */
void ar_plan_release(struct ar_plan *p);

#endif /* MMLOCK_APP_ROTATION_H */
