/* commands.h: the entry point of every subcommand (one per file, in the
 * folder that owns its engine). Each returns the process exit status. */
#ifndef PROF_COMMANDS_H
#define PROF_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_svg(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_probes(int argc, char **argv);

#endif
