// SPDX-License-Identifier: GPL-2.0
/*
 * tracedat-write: a binary capture (mmlock record --binary) written out as
 * trace-cmd's trace.dat through libtracecmd's output API, the way
 * trace-cmd record writes one: headers and event formats from the capture's
 * tracefs/ copy, its kallsyms, saved_cmdlines, then each CPU's raw pages.
 * `trace-cmd record` itself does not run on this host's kernel; this makes
 * the trace.dat fixture of the analyzer suite (tests/fixtures/README.md).
 *
 *   tracedat-write CAPTURE_DIR OUT.dat
 *
 * OUT.dat is created exclusively (never through a link).  Without
 * libtracecmd (make ARCH=arm64) the tool says so and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#ifdef MMLOCK_HAVE_TRACECMD
/*
 * libtracecmd 3.1 exports its output API without installing the header
 * that declares it (trace-cmd-private.h); these are its declarations.
 */
struct tracecmd_output;
struct tracecmd_event_list;
struct tracecmd_output *tracecmd_output_create_fd(int fd);
int tracecmd_output_set_trace_dir(struct tracecmd_output *handle, const char *tracing_dir);
int tracecmd_output_set_kallsyms(struct tracecmd_output *handle, const char *kallsyms);
int tracecmd_output_write_headers(struct tracecmd_output *handle,
				  struct tracecmd_event_list *list);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
int tracecmd_append_cpu_data(struct tracecmd_output *handle, int cpus,
			     char *const *cpu_data_files);
void tracecmd_output_close(struct tracecmd_output *handle);

int main(int argc, char **argv)
{
	struct tracecmd_output *out;
	char *tdir, *kallsyms, **cpu = NULL;
	struct stat st;
	int fd, n = 0, i, ret = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: tracedat-write CAPTURE_DIR OUT.dat\n");
		return 2;
	}
	for (;; n++) {
		char *p = xasprintf("%s/raw/cpu%03d.raw", argv[1], n);

		if (stat(p, &st) || !S_ISREG(st.st_mode)) {
			free(p);
			break;
		}
		cpu = xrealloc(cpu, (size_t)(n + 1) * sizeof(*cpu));
		cpu[n] = p;
	}
	if (!n) {
		fprintf(stderr, "tracedat-write: %s/raw/cpu000.raw: missing: expected a binary "
			"capture (mmlock record --binary)\n", argv[1]);
		return 1;
	}
	fd = open(argv[2], O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "tracedat-write: %s: %s\n", argv[2], strerror(errno));
		goto free_cpu;
	}
	out = tracecmd_output_create_fd(fd);
	if (!out) {
		close(fd);
		fprintf(stderr, "tracedat-write: libtracecmd cannot start %s\n", argv[2]);
		goto unlink_out;
	}
	tdir = xasprintf("%s/tracefs", argv[1]);
	kallsyms = xasprintf("%s/kallsyms", argv[1]);
	/* without the capture's kallsyms libtracecmd would copy this host's */
	if (tracecmd_output_set_trace_dir(out, tdir) ||
	    tracecmd_output_set_kallsyms(out, stat(kallsyms, &st) ? "/nonexistent" : kallsyms) ||
	    tracecmd_output_write_headers(out, NULL) || tracecmd_write_cmdlines(out) ||
	    tracecmd_append_cpu_data(out, n, cpu))
		fprintf(stderr, "tracedat-write: libtracecmd failed writing %s from %s\n",
			argv[2], argv[1]);
	else
		ret = 0;
	tracecmd_output_close(out);
	free(tdir);
	free(kallsyms);
unlink_out:
	if (ret)
		unlink(argv[2]);
free_cpu:
	for (i = 0; i < n; i++)
		free(cpu[i]);
	free(cpu);
	return ret;
}
#else
int main(void)
{
	fprintf(stderr, "tracedat-write: built without libtracecmd (make ARCH=arm64)\n");
	return 1;
}
#endif
