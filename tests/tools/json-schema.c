// SPDX-License-Identifier: GPL-2.0
/*
 * json-schema SCHEMA FILE: check FILE against SCHEMA, the subset of JSON
 * Schema that analyzer/summary.schema.json uses: type (a name or a list,
 * "integer" and "null" included), required, properties, additionalProperties
 * (false or a schema), items, enum, minimum, $defs with "$ref": "#/$defs/X".
 * Prints each violation with its path; exit 0 valid, 1 invalid, 2 usage.
 */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

static json_object *root_schema;
static int errors;

static void violation(const char *path, const char *what)
{
	if (errors++ < 50)
		printf("%s: %s\n", *path ? path : "(root)", what);
}

static int type_matches(json_object *v, const char *t)
{
	enum json_type jt = json_object_get_type(v);

	if (!strcmp(t, "null"))
		return jt == json_type_null;
	if (!strcmp(t, "object"))
		return jt == json_type_object;
	if (!strcmp(t, "array"))
		return jt == json_type_array;
	if (!strcmp(t, "string"))
		return jt == json_type_string;
	if (!strcmp(t, "boolean"))
		return jt == json_type_boolean;
	if (!strcmp(t, "integer"))
		return jt == json_type_int;
	if (!strcmp(t, "number"))
		return jt == json_type_int || jt == json_type_double;
	return 0;
}

static void check(json_object *schema, json_object *v, const char *path)
{
	json_object *s, *props, *req, *add;
	char sub[1024];

	if (json_object_object_get_ex(schema, "$ref", &s)) {
		const char *ref = json_object_get_string(s);
		json_object *defs, *target;

		if (strncmp(ref, "#/$defs/", 8) ||
		    !json_object_object_get_ex(root_schema, "$defs", &defs) ||
		    !json_object_object_get_ex(defs, ref + 8, &target)) {
			violation(path, "the schema has an unknown $ref");
			return;
		}
		check(target, v, path);
		return;
	}
	if (json_object_object_get_ex(schema, "type", &s)) {
		int ok = 0;

		if (json_object_is_type(s, json_type_array)) {
			size_t i;

			for (i = 0; i < json_object_array_length(s); i++)
				ok |= type_matches(v, json_object_get_string(json_object_array_get_idx(s, i)));
		} else {
			ok = type_matches(v, json_object_get_string(s));
		}
		if (!ok) {
			snprintf(sub, sizeof(sub), "expected type %s, got %s",
				 json_object_to_json_string(s),
				 json_type_to_name(json_object_get_type(v)));
			violation(path, sub);
			return;
		}
	}
	if (!v)
		return;
	if (json_object_object_get_ex(schema, "enum", &s)) {
		size_t i;
		int found = 0;

		for (i = 0; i < json_object_array_length(s); i++)
			found |= json_object_equal(json_object_array_get_idx(s, i), v);
		if (!found) {
			snprintf(sub, sizeof(sub), "%s is not one of %s", json_object_to_json_string(v),
				 json_object_to_json_string(s));
			violation(path, sub);
		}
	}
	if (json_object_object_get_ex(schema, "minimum", &s) &&
	    (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) &&
	    json_object_get_double(v) < json_object_get_double(s)) {
		snprintf(sub, sizeof(sub), "%s is below the minimum %s", json_object_to_json_string(v),
			 json_object_to_json_string(s));
		violation(path, sub);
	}
	if (json_object_is_type(v, json_type_object)) {
		if (json_object_object_get_ex(schema, "required", &req)) {
			size_t i;

			for (i = 0; i < json_object_array_length(req); i++) {
				const char *k = json_object_get_string(json_object_array_get_idx(req, i));

				if (!json_object_object_get_ex(v, k, NULL)) {
					snprintf(sub, sizeof(sub), "required key '%s' is missing", k);
					violation(path, sub);
				}
			}
		}
		json_object_object_get_ex(schema, "properties", &props);
		json_object_object_get_ex(schema, "additionalProperties", &add);
		json_object_object_foreach(v, key, val) {
			json_object *ps = NULL;

			snprintf(sub, sizeof(sub), "%s.%s", path, key);
			if (props && json_object_object_get_ex(props, key, &ps))
				check(ps, val, sub);
			else if (add && json_object_is_type(add, json_type_boolean) &&
				 !json_object_get_boolean(add))
				violation(sub, "key not allowed by the schema");
			else if (add && json_object_is_type(add, json_type_object))
				check(add, val, sub);
		}
	}
	if (json_object_is_type(v, json_type_array) && json_object_object_get_ex(schema, "items", &s)) {
		size_t i;

		for (i = 0; i < json_object_array_length(v); i++) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			check(s, json_object_array_get_idx(v, i), sub);
		}
	}
}

int main(int argc, char **argv)
{
	json_object *doc;

	if (argc != 3) {
		fprintf(stderr, "usage: json-schema SCHEMA FILE\n");
		return 2;
	}
	root_schema = json_object_from_file(argv[1]);
	if (!root_schema) {
		fprintf(stderr, "%s: %s\n", argv[1], json_util_get_last_err());
		return 2;
	}
	doc = json_object_from_file(argv[2]);
	if (!doc) {
		printf("%s: not JSON: %s\n", argv[2], json_util_get_last_err());
		json_object_put(root_schema);
		return 1;
	}
	check(root_schema, doc, "");
	json_object_put(doc);
	json_object_put(root_schema);
	if (errors > 50)
		printf("... %d violations in all\n", errors);
	return errors ? 1 : 0;
}
