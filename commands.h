/* commands.h: the entry point of every subcommand (one per file, in the
 * folder that owns its engine). Each returns the process exit status. */
#ifndef PROF_COMMANDS_H
#define PROF_COMMANDS_H

#include "lib/recording.h"
#include "record/record.h"

/* What prof.c hands every command: the pieces one module needs from
 * another that its dependencies may not reach (STYLE.md's one-way rule). */
struct prof_env {
	/* Processes the kernel records a killed recorder left (record/'s),
	 * for the readers of recordings in report/, svg/ and symbolize/. */
	recording_replay_fn replay;
	/* prof record --trigger: the recording with its rules evaluated each
	 * second (top/triggers.c), for record/'s front end. 0 or -errno with
	 * err filled; -EINVAL with t->bad filled: a rule does not parse. */
	int (*record_triggers)(const struct record_opts *opts, struct record_triggers *t,
			       struct record_summary *sum, struct prof_error *err);
};

int cmd_record(int argc, char **argv, const struct prof_env *env);
int cmd_report(int argc, char **argv, const struct prof_env *env);
int cmd_svg(int argc, char **argv, const struct prof_env *env);
int cmd_sched(int argc, char **argv, const struct prof_env *env);
int cmd_annotate(int argc, char **argv, const struct prof_env *env);
int cmd_symbolize(int argc, char **argv, const struct prof_env *env);
int cmd_check(int argc, char **argv, const struct prof_env *env);
int cmd_diff(int argc, char **argv, const struct prof_env *env);
int cmd_probes(int argc, char **argv, const struct prof_env *env);
int cmd_dump(int argc, char **argv, const struct prof_env *env);
int cmd_jvm_inspect(int argc, char **argv, const struct prof_env *env);
int cmd_top(int argc, char **argv, const struct prof_env *env);
/* top/triggers.c: prof_env.record_triggers. */
int top_record_triggers(const struct record_opts *opts, struct record_triggers *t,
			struct record_summary *sum, struct prof_error *err);

#endif
