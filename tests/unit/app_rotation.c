// SPDX-License-Identifier: GPL-2.0
/*
 * app-rotation's commands (workloads/app-rotation.c), generated without a
 * device: package lists parsed and refused, heavy apps in the first slots
 * of each burst round-robin, holds and gaps, HOME and force-stop after a
 * burst, packages the device lacks left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util.h"
#include "workloads/app-rotation.h"

/* the lines of burst @cycle joined with '|' */
static char *burst(const struct ar_plan *p, long cycle)
{
	char *lines[128], *all = xstrdup(""), *next;
	size_t n = ar_cycle(p, cycle, lines, 128);

	for (size_t i = 0; i < n; i++) {
		next = xasprintf("%s%s%s", all, i ? "|" : "", lines[i]);
		free(all);
		free(lines[i]);
		all = next;
	}
	return all;
}

static void resolve_all(struct ar_plan *p, const char *missing)
{
	for (size_t i = 0; i < p->nr_apps; i++)
		if (!missing || strcmp(p->apps[i].package, missing))
			p->apps[i].component = xasprintf("%s/.Main", p->apps[i].package);
}

static int is(const char *got, const char *want, const char *what)
{
	if (!strcmp(got, want))
		return 1;
	printf("# %s:\n#  got  %s\n#  want %s\n", what, got, want);
	return 0;
}

int main(void)
{
	struct ar_plan p = { .burst_size = 3, .heavy_per_burst = 2, .hold_ms = 500,
			     .launch_gap_ms = 200, .cycle_sleep_ms = 1000, .home = 1 };
	char *why = NULL, *b;
	struct ar_app *app;

	CHECK(!ar_plan_add(&p, "com.a.one, com.a.two,com.a.one", 0, &why) && p.nr_apps == 2,
	      "app-rotation: a package list, commas and blanks, a repeated name once");
	CHECK(!ar_plan_add(&p, "com.game.x,com.game.y", 1, &why) && p.nr_apps == 4 && p.apps[2].heavy,
	      "app-rotation: heavy packages added as heavy");
	CHECK(ar_plan_add(&p, "com.ok,rm -rf /", 0, &why) && why && strstr(why, "'rm'"),
	      "app-rotation: a word that is not a package name is refused (it would reach a shell): %s",
	      why ? why : "(no reason)");
	free(why);
	why = NULL;
	{
		char *why2 = NULL;

		CHECK(ar_plan_add(&p, "nodots", 0, &why) && ar_plan_add(&p, "com.x;reboot", 0, &why2),
		      "app-rotation: names without a dot, or with shell characters, are refused");
		free(why2);
	}
	free(why);
	why = NULL;
	/* the refused lists may have added their valid names before the bad one */
	while (p.nr_apps > 4)
		free(p.apps[--p.nr_apps].package);

	CHECK(ar_cycle(&p, 0, (char *[4]){ 0 }, 4) == 0,
	      "app-rotation: no package resolved on the device: no command");

	resolve_all(&p, NULL);
	b = burst(&p, 0);
	CHECK(is(b, "am start -W -n com.game.x/.Main|sleep 500|sleep 200|"
		    "am start -W -n com.game.y/.Main|sleep 500|sleep 200|"
		    "am start -W -n com.a.one/.Main|sleep 500|"
		    "input keyevent KEYCODE_HOME|sleep 1000", "burst 0"),
	      "app-rotation: burst 0: two heavy apps first, then one other; hold, gap, HOME, cycle sleep");
	free(b);
	b = burst(&p, 1);
	CHECK(is(b, "am start -W -n com.game.x/.Main|sleep 500|sleep 200|"
		    "am start -W -n com.game.y/.Main|sleep 500|sleep 200|"
		    "am start -W -n com.a.two/.Main|sleep 500|"
		    "input keyevent KEYCODE_HOME|sleep 1000", "burst 1"),
	      "app-rotation: burst 1: the other packages go round-robin");
	free(b);

	p.force_stop = 1;
	p.home = 0;
	p.launch_gap_ms = 0;
	p.heavy_per_burst = 1;
	p.burst_size = 4;
	b = burst(&p, 0);
	CHECK(is(b, "am start -W -n com.game.x/.Main|sleep 500|"
		    "am start -W -n com.a.one/.Main|sleep 500|"
		    "am start -W -n com.a.two/.Main|sleep 500|"
		    "am start -W -n com.a.one/.Main|sleep 500|"
		    "am force-stop com.game.x|am force-stop com.a.one|am force-stop com.a.two|sleep 1000",
		    "force-stop"),
	      "app-rotation: no gap, no HOME; force-stop each app of the burst once");
	free(b);

	for (size_t i = 0; i < p.nr_apps; i++) {
		free(p.apps[i].component);
		p.apps[i].component = NULL;
	}
	resolve_all(&p, "com.a.one");
	p.force_stop = 0;
	p.heavy_per_burst = 0;
	p.burst_size = 2;
	b = burst(&p, 0);
	CHECK(is(b, "am start -W -n com.a.two/.Main|sleep 500|am start -W -n com.a.two/.Main|sleep 500|"
		    "sleep 1000", "missing"),
	      "app-rotation: a package the device lacks is left out; no heavy slots asked: none used");
	free(b);

	for (size_t i = 0; i < p.nr_apps; i++)
		if (!p.apps[i].heavy) {
			free(p.apps[i].component);
			p.apps[i].component = NULL;
		}
	p.heavy_per_burst = 1;
	b = burst(&p, 0);
	CHECK(is(b, "am start -W -n com.game.x/.Main|sleep 500|am start -W -n com.game.y/.Main|sleep 500|"
		    "sleep 1000", "heavy only"),
	      "app-rotation: only heavy packages installed: every slot is a heavy one");
	free(b);

	app = ar_app_of(&p, "am start -W -n com.game.y/.Main");
	CHECK(app && !strcmp(app->package, "com.game.y") && !ar_app_of(&p, "sleep 500"),
	      "app-rotation: a launch line maps back to its app, other lines to none");
	ar_plan_release(&p);
	return TEST_EXIT();
}
