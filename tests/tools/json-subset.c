// SPDX-License-Identifier: GPL-2.0
/*
 * json-subset: does ACTUAL contain everything EXPECTED says?
 *
 *   json-subset [--exact PATH]... EXPECTED.json ACTUAL.json
 *
 * Every key of an expected object must exist in the actual object with an
 * equal value, recursively; keys the expected file does not name are not
 * checked.  Numbers compare numerically (two integers exactly, otherwise
 * within 1e-6), arrays must have the same length and match element by element
 * under the same rule, null matches only null, and a boolean only a boolean.
 *
 * --exact PATH (dot path, "anomalies" or "contention.by_caller[0]") makes the
 * object at PATH closed: a key the actual object has and the expected one
 * does not is a mismatch too.  The golden runner uses it for "anomalies",
 * whose zero kinds are left out, so "no other anomaly" can be asserted.
 *
 * Each mismatch prints "# PATH: expected X, got Y".  Exit 0 when everything
 * matched, 1 on a mismatch, 2 on a usage error or a file that is not JSON.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#define MAX_EXACT 16

static const char *exact_paths[MAX_EXACT];
static int nr_exact;
static int mismatches;

static const char *show(struct json_object *o)
{
	if (!o)
		return "null";	/* json-c's null is a NULL object */
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void report(const char *path, struct json_object *exp, struct json_object *act)
{
	/* show() returns storage owned by the object: print one at a time. */
	printf("# %s: expected %s", *path ? path : "(top)", show(exp));
	printf(", got %s\n", show(act));
	mismatches++;
}

static int is_number(struct json_object *o)
{
	return json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double);
}

static int numbers_equal(struct json_object *a, struct json_object *b)
{
	if (json_object_is_type(a, json_type_int) && json_object_is_type(b, json_type_int)) {
		/* Both integers: exact, also for values beyond 2^53. */
		int64_t x = json_object_get_int64(a), y = json_object_get_int64(b);

		if (x == INT64_MAX || y == INT64_MAX)
			return json_object_get_uint64(a) == json_object_get_uint64(b);
		return x == y;
	}
	return fabs(json_object_get_double(a) - json_object_get_double(b)) <= 1e-6;
}

static int path_is_exact(const char *path)
{
	for (int i = 0; i < nr_exact; i++)
		if (!strcmp(exact_paths[i], path))
			return 1;
	return 0;
}

static void compare(const char *path, struct json_object *exp, struct json_object *act);

static void compare_object(const char *path, struct json_object *exp, struct json_object *act)
{
	char sub[1024];

	json_object_object_foreach(exp, key, eval) {
		struct json_object *aval = NULL;

		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", key);
		if (!json_object_object_get_ex(act, key, &aval)) {
			printf("# %s: expected %s, got (absent)\n", sub, show(eval));
			mismatches++;
			continue;
		}
		compare(sub, eval, aval);
	}
	if (!path_is_exact(path))
		return;
	json_object_object_foreach(act, akey, aval2) {
		if (json_object_object_get_ex(exp, akey, NULL))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", akey);
		printf("# %s: expected (absent), got %s\n", sub, show(aval2));
		mismatches++;
	}
}

static void compare(const char *path, struct json_object *exp, struct json_object *act)
{
	char sub[1024];
	size_t i, n;

	/* json-c represents null as a NULL pointer. */
	if (!exp || !act) {
		if (exp || act)
			report(path, exp, act);
		return;
	}
	if (is_number(exp)) {
		if (!is_number(act) || !numbers_equal(exp, act))
			report(path, exp, act);
		return;
	}
	if (json_object_get_type(exp) != json_object_get_type(act)) {
		report(path, exp, act);
		return;
	}
	switch (json_object_get_type(exp)) {
	case json_type_boolean:
		if (json_object_get_boolean(exp) != json_object_get_boolean(act))
			report(path, exp, act);
		break;
	case json_type_string:
		if (strcmp(json_object_get_string(exp), json_object_get_string(act)))
			report(path, exp, act);
		break;
	case json_type_object:
		compare_object(path, exp, act);
		break;
	case json_type_array:
		n = json_object_array_length(exp);
		if (n != json_object_array_length(act)) {
			printf("# %s: expected an array of %zu, got %zu: %s\n", path, n,
			       json_object_array_length(act), show(act));
			mismatches++;
			break;
		}
		for (i = 0; i < n; i++) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			compare(sub, json_object_array_get_idx(exp, i),
				json_object_array_get_idx(act, i));
		}
		break;
	default:
		report(path, exp, act);
		break;
	}
}

static struct json_object *load(const char *file)
{
	struct json_object *o = json_object_from_file(file);

	if (!o)
		fprintf(stderr, "json-subset: %s: %s\n", file, json_util_get_last_err());
	return o;
}

int main(int argc, char **argv)
{
	struct json_object *exp, *act;
	int i = 1;

	while (i < argc && !strcmp(argv[i], "--exact")) {
		if (i + 1 >= argc || nr_exact == MAX_EXACT)
			goto usage;
		exact_paths[nr_exact++] = argv[i + 1];
		i += 2;
	}
	if (argc - i != 2)
		goto usage;
	exp = load(argv[i]);
	if (!exp)
		return 2;
	act = load(argv[i + 1]);
	if (!act) {
		json_object_put(exp);
		return 2;
	}
	compare("", exp, act);
	json_object_put(exp);
	json_object_put(act);
	return mismatches ? 1 : 0;
usage:
	fprintf(stderr, "usage: json-subset [--exact PATH]... EXPECTED.json ACTUAL.json\n");
	return 2;
}
