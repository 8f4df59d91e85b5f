// SPDX-License-Identifier: GPL-2.0
/*
 * Tables expanded from the X-macro lists of mmlock_events.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mmlock_events.h"

#define MMLOCK_WORD(w) #w,
const char *const mmlock_words_fault_lock[] = { MMLOCK_FAULT_LOCK(MMLOCK_WORD) NULL };
const char *const mmlock_words_wait_reason[] = { MMLOCK_WAIT_REASON(MMLOCK_WORD) NULL };
const char *const mmlock_words_retry_reason[] = { MMLOCK_RETRY_REASON(MMLOCK_WORD) NULL };
const char *const mmlock_words_read_fail_reason[] = {
	MMLOCK_READ_FAIL_REASON(MMLOCK_WORD) NULL
};
const char *const mmlock_words_fallback_reason[] = {
	MMLOCK_FALLBACK_REASON(MMLOCK_WORD) NULL
};
#undef MMLOCK_WORD

#define MMLOCK_FIELD(name, ctype, fmt, words) \
	{ #name, ctype, MMLOCK_FMT_##fmt, MMLOCK_WORDS_##words },
#define MMLOCK_WORDS_NULL		NULL
#define MMLOCK_WORDS_fault_lock		mmlock_words_fault_lock
#define MMLOCK_WORDS_wait_reason	mmlock_words_wait_reason
#define MMLOCK_WORDS_retry_reason	mmlock_words_retry_reason
#define MMLOCK_WORDS_read_fail_reason	mmlock_words_read_fail_reason
#define MMLOCK_WORDS_fallback_reason	mmlock_words_fallback_reason

#define MMLOCK_FIELD_TABLE(id, sys, name, fam, handler) \
	static const struct mmlock_field fields_##name[] = { MMLOCK_F_##name(MMLOCK_FIELD) };
MMLOCK_CUSTOM_EVENTS(MMLOCK_FIELD_TABLE)
#undef MMLOCK_FIELD_TABLE

const char *const mmlock_family_names[MMLOCK_FAM_NR] = {
#define MMLOCK_FAM_NAME(id, json) [MMLOCK_FAM_##id] = #json,
	MMLOCK_FAMILIES(MMLOCK_FAM_NAME)
#undef MMLOCK_FAM_NAME
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const struct mmlock_event mmlock_events[MMLOCK_EV_NR] = {
#define MMLOCK_CUSTOM(id, sys, name, fam, handler) \
	[MMLOCK_EV_##id] = { MMLOCK_EV_##id, #sys, #name, fields_##name, \
			     ARRAY_SIZE(fields_##name), 1, MMLOCK_FAM_##fam },
	MMLOCK_CUSTOM_EVENTS(MMLOCK_CUSTOM)
#undef MMLOCK_CUSTOM
#define MMLOCK_STOCK(id, sys, name, fam, handler) \
	[MMLOCK_EV_##id] = { MMLOCK_EV_##id, #sys, #name, NULL, 0, 0, MMLOCK_FAM_##fam },
	MMLOCK_STOCK_EVENTS(MMLOCK_STOCK)
#undef MMLOCK_STOCK
};

const struct mmlock_event *mmlock_event_find(const char *name)
{
	const char *colon = strchr(name, ':');
	size_t syslen = colon ? (size_t)(colon - name) : 0;
	const char *bare = colon ? colon + 1 : name;
	int i;

	for (i = 0; i < MMLOCK_EV_NR; i++) {
		const struct mmlock_event *ev = &mmlock_events[i];

		if (!ev->name || strcmp(ev->name, bare))
			continue;
		if (colon && (strlen(ev->system) != syslen ||
			      strncmp(ev->system, name, syslen)))
			continue;
		return ev;
	}
	return NULL;
}

int mmlock_word_index(const char *const *words, const char *word)
{
	int i;

	for (i = 0; words && words[i]; i++)
		if (!strcmp(words[i], word))
			return i;
	return -1;
}

const char *mmlock_field_ctype(const struct mmlock_field *f, int version)
{
	if (version >= 2)
		return f->ctype;
	if (f->fmt == MMLOCK_FMT_BOOL)
		return MMLOCK_V1_BOOL_CTYPE;
	if (!strcmp(f->name, "mm"))
		return MMLOCK_V1_MM_CTYPE;
	return f->ctype;
}

int mmlock_bool_parse(const char *s)
{
	if (!strcmp(s, "true") || !strcmp(s, "1"))
		return 1;
	if (!strcmp(s, "false") || !strcmp(s, "0"))
		return 0;
	return -1;
}

const struct mmlock_field *mmlock_event_field(const struct mmlock_event *ev,
					      const char *name)
{
	unsigned int i;

	for (i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
}

const struct mmlock_sysctl mmlock_sysctls[MMLOCK_SYSCTL_NR] = {
#define MMLOCK_SC_ENTRY(id, name) \
	[MMLOCK_SYSCTL_##id] = { MMLOCK_SYSCTL_##id, #name, MMLOCK_SYSCTL_DIR #name, \
				 "sysctls." #name, "policy." #name },
	MMLOCK_SYSCTLS(MMLOCK_SC_ENTRY)
#undef MMLOCK_SC_ENTRY
};

const struct mmlock_sysctl *mmlock_sysctl_find(const char *name, size_t len)
{
	size_t plen = strlen(MMLOCK_SYSCTL_PREFIX);
	int i;

	if (len > plen && !strncmp(name, MMLOCK_SYSCTL_PREFIX, plen)) {
		name += plen;
		len -= plen;
	}
	for (i = 0; i < MMLOCK_SYSCTL_NR; i++)
		if (strlen(mmlock_sysctls[i].name) == len &&
		    !strncmp(mmlock_sysctls[i].name, name, len))
			return &mmlock_sysctls[i];
	return NULL;
}

int mmlock_sysctl_read(const struct mmlock_sysctl *sc)
{
	FILE *f = fopen(sc->path, "re");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1 || v < 0) {
		v = -1;
		errno = EINVAL;
	}
	fclose(f);
	return v;
}

/* MMLOCK_POLICIES gives its values in the order of MMLOCK_SYSCTLS */
_Static_assert(MMLOCK_SYSCTL_NO_RETRY == 0 && MMLOCK_SYSCTL_RETRY_VMA_LOCK == 1 &&
	       MMLOCK_SYSCTL_NR == 2, "a policy's values follow MMLOCK_SYSCTLS");

const struct mmlock_policy mmlock_policies[MMLOCK_POLICY_NR] = {
#define MMLOCK_POL_ENTRY(id, name, nr, rv) [MMLOCK_POLICY_##id] = { name, { nr, rv } },
	MMLOCK_POLICIES(MMLOCK_POL_ENTRY)
#undef MMLOCK_POL_ENTRY
};

const struct mmlock_policy *mmlock_policy_of(const int value[MMLOCK_SYSCTL_NR])
{
	int i;

	for (i = 0; i < MMLOCK_POLICY_NR; i++)
		if (!memcmp(mmlock_policies[i].value, value, sizeof(mmlock_policies[i].value)))
			return &mmlock_policies[i];
	return NULL;
}
