// SPDX-License-Identifier: GPL-2.0
/*
 * Event sources and sets: see evset.h.
 */
#include <string.h>

#include "evset.h"
#include "util.h"

const struct evset_extra evset_extras[EVSET_X_NR] = {
#define EVSET_X_ENTRY(id, sys, name, filter, handler) \
	[EVSET_X_##id] = { #sys, #name, filter },
	EVSET_EXTRAS(EVSET_X_ENTRY)
#undef EVSET_X_ENTRY
};

static const char *const source_names[] = {
	[EVSET_SRC_AUTO] = "auto", [EVSET_SRC_KERNEL] = "kernel",
	[EVSET_SRC_MODULE] = "module", [EVSET_SRC_STOCK] = "stock",
};

int evset_source_parse(const char *s)
{
	size_t i;

	for (i = 0; s && i < ARRAY_SIZE(source_names); i++)
		if (!strcmp(s, source_names[i]))
			return (int)i;
	return -1;
}

const char *evset_source_name(enum evset_source src)
{
	return (size_t)src < ARRAY_SIZE(source_names) ? source_names[src] : "auto";
}

int evset_is_module(const char *name)
{
	size_t n = strlen(EVSET_MODULE_SYSTEM);
	const struct mmlock_event *ev;

	if (strncmp(name, EVSET_MODULE_SYSTEM, n) || name[n] != ':')
		return 0;
	ev = mmlock_event_find(name + n + 1);
	return ev && ev->custom;
}

const struct mmlock_event *evset_find(const char *name)
{
	/*
	 * mmlock_event_find() may learn the module's system itself (request
	 * K2); until then a module name is looked up by its bare name.
	 */
	if (evset_is_module(name))
		return mmlock_event_find(name + strlen(EVSET_MODULE_SYSTEM) + 1);
	return mmlock_event_find(name);
}

int evset_extra_find(const char *name)
{
	const char *colon = strchr(name, ':');
	const char *bare = colon ? colon + 1 : name;
	int i;

	for (i = 0; i < EVSET_X_NR; i++) {
		const struct evset_extra *x = &evset_extras[i];

		if (strcmp(x->name, bare))
			continue;
		if (colon && (strlen(x->system) != (size_t)(colon - name) ||
			      strncmp(x->system, name, (size_t)(colon - name))))
			continue;
		return i;
	}
	return -1;
}

int evset_caps_has(const char *caps, const char *key, const char *value)
{
	size_t kl = strlen(key), vl = strlen(value);
	const char *p = caps;

	while (p && *p) {
		size_t wl;

		while (*p == ' ' || *p == '\t')
			p++;
		wl = strcspn(p, " \t\n");
		if (wl == kl + 1 + vl && !strncmp(p, key, kl) && p[kl] == '=' &&
		    !strncmp(p + kl + 1, value, vl))
			return 1;
		p += wl;
		if (*p == '\n')
			p++;
	}
	return 0;
}
