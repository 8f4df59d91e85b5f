// SPDX-License-Identifier: GPL-2.0
/*
 * The contract's preflight (runner/preflight.c) on scratch kernel trees: a
 * delay planted in the fault path is found where it is; the same words in a
 * comment, a string, a declaration or a function off the path are not; a
 * tree without the path's functions, or no tree, is "not checked".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "test.h"
#include "jsonout.h"
#include "runner/run.h"

static void put(const char *root, const char *rel, const char *text)
{
	char *path = malloc(strlen(root) + strlen(rel) + 2), *slash;
	FILE *f;

	sprintf(path, "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(path);
}

static const char filemap_planted[] =
	"// SPDX-License-Identifier: GPL-2.0-only\n"
	"/* msleep(1) in a block comment,\n"
	" * mdelay(2) on its second line */\n"
	"vm_fault_t filemap_fault(struct vm_fault *vmf);\n"
	"static void unrelated(void)\n"
	"{\n"
	"\tmsleep(5);\n"
	"}\n"
	"\n"
	"vm_fault_t filemap_fault(struct vm_fault *vmf)\n"
	"{\n"
	"\tconst char *s = \"msleep(3)\";	// msleep(4)\n"
	"\tint err = 0;\n"
	"\n"
	"\tif (vmf->pgoff > 1)\n"
	"\t\tmsleep(10);\n"		/* line 16 */
	"out_retry:\n"
	"\treturn err;\n"
	"}\n"
	"EXPORT_SYMBOL(filemap_fault);\n";

static const char memory_planted[] =
	"struct vm_area_struct *lock_vma_under_rcu(struct mm_struct *mm,\n"
	"\t\t\t\t\t  unsigned long address)\n"
	"{\n"
	"\tschedule_timeout_uninterruptible (HZ / 10);\n"	/* line 4 */
	"\tmy_msleep(1);\n"
	"\treturn NULL;\n"
	"}\n";

static const char filemap_clean[] =
	"vm_fault_t filemap_fault(struct vm_fault *vmf)\n"
	"{\n"
	"\treturn 0;\n"
	"}\n";

int main(void)
{
	char root[] = "/tmp/mmlock-preflight-XXXXXX", *clean, *bare, *cmd;
	json_object *kd, *f;

	if (!mkdtemp(root))
		return 1;
	clean = malloc(strlen(root) + 8);
	bare = malloc(strlen(root) + 8);
	sprintf(clean, "%s/clean", root);
	sprintf(bare, "%s/bare", root);
	put(root, "planted/mm/filemap.c", filemap_planted);
	put(root, "planted/mm/memory.c", memory_planted);
	put(root, "clean/mm/filemap.c", filemap_clean);
	put(root, "bare/mm/filemap.c", "int nothing;\n");

	{
		char *planted = malloc(strlen(root) + 10);

		sprintf(planted, "%s/planted", root);
		kd = run_preflight_kernel_delay(planted, 1);
		free(planted);
	}
	f = json_path(kd, "findings");
	CHECK(json_object_get_boolean(json_path(kd, "checked")) && f &&
	      json_object_array_length(f) == 2,
	      "preflight: two planted delays found, none from comments, strings, declarations or "
	      "functions off the path (%zu)", f ? json_object_array_length(f) : 0);
	{
		json_object *a = json_object_array_get_idx(f, 0), *b = json_object_array_get_idx(f, 1);

		CHECK(a && !strcmp(json_object_get_string(json_path(a, "file")), "mm/memory.c") &&
		      json_object_get_int(json_path(a, "line")) == 4 &&
		      !strcmp(json_object_get_string(json_path(a, "function")), "lock_vma_under_rcu") &&
		      !strcmp(json_object_get_string(json_path(a, "call")),
			      "schedule_timeout_uninterruptible"),
		      "preflight: a delay in a function whose prototype wraps, named with file and line");
		CHECK(b && !strcmp(json_object_get_string(json_path(b, "file")), "mm/filemap.c") &&
		      json_object_get_int(json_path(b, "line")) == 16 &&
		      !strcmp(json_object_get_string(json_path(b, "function")), "filemap_fault") &&
		      !strcmp(json_object_get_string(json_path(b, "text")), "msleep(10);"),
		      "preflight: msleep() in filemap_fault, its line's text");
	}
	{
		char *line = run_preflight_describe(kd);

		CHECK(strstr(line, "2 artificial delays") != NULL, "preflight: described: %s", line);
		free(line);
	}
	json_object_put(kd);

	kd = run_preflight_kernel_delay(clean, 1);
	CHECK(json_object_get_boolean(json_path(kd, "checked")) &&
	      json_object_get_int(json_path(kd, "functions_scanned")) == 1 &&
	      json_object_array_length(json_path(kd, "findings")) == 0,
	      "preflight: a clean fault path is checked and has no finding");
	json_object_put(kd);

	kd = run_preflight_kernel_delay(bare, 1);
	CHECK(!json_object_get_boolean(json_path(kd, "checked")) &&
	      strstr(json_object_get_string(json_path(kd, "why")), "none of the fault-path functions"),
	      "preflight: a tree without the fault path's functions is not checked, and says so");
	json_object_put(kd);

	kd = run_preflight_kernel_delay(root, 1);
	CHECK(!json_object_get_boolean(json_path(kd, "checked")) &&
	      strstr(json_object_get_string(json_path(kd, "why")), "not a kernel source tree"),
	      "preflight: a folder that is no kernel tree is not checked, and says so");
	json_object_put(kd);

	unsetenv("MMLOCK_KERNEL_SRC");
	kd = run_preflight_kernel_delay(NULL, 0);
	CHECK(!json_object_get_boolean(json_path(kd, "checked")) &&
	      strstr(json_object_get_string(json_path(kd, "why")), "--kernel-src"),
	      "preflight: a device's kernel without a source given is not checked, and says how");
	json_object_put(kd);

	cmd = malloc(strlen(root) + 16);
	sprintf(cmd, "rm -rf '%s'", root);
	if (system(cmd))
		printf("# could not remove %s\n", root);
	free(cmd);
	free(clean);
	free(bare);
	return TEST_EXIT();
}
