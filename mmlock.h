/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MMLOCK_H
#define MMLOCK_H

/*
 * One function per subcommand, one file each.  argv[0] is the subcommand
 * name; the return value is the process exit code (enum mmlock_exit).
 */
int cmd_analyze(int argc, char **argv);		/* analyzer/cmd-analyze.c */
struct json_object;
/* analyze in-process for `mmlock run`: the summary handed back, not written */
int cmd_analyze_summary(int argc, char **argv, struct json_object **summary);
int cmd_compare(int argc, char **argv);		/* analyzer/cmd-compare.c */
int cmd_convert(int argc, char **argv);		/* collector/cmd-convert.c */
int cmd_device(int argc, char **argv);		/* device/cmd-device.c */
int cmd_events(int argc, char **argv);		/* tracepoints/cmd-events.c */
int cmd_export(int argc, char **argv);		/* analyzer/cmd-export.c */
int cmd_record(int argc, char **argv);		/* collector/cmd-record.c */
int cmd_report(int argc, char **argv);		/* report/cmd-report.c */
int cmd_reset(int argc, char **argv);		/* collector/cmd-reset.c */
int cmd_workload(int argc, char **argv);	/* workloads/cmd-workload.c */
int cmd_run(int argc, char **argv);		/* runner/cmd-run.c */

#endif /* MMLOCK_H */
