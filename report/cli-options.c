/* cli-options.c: the option loop of the commands that read a profile (see
 * report-cli.h): getopt_long() over the command's own options and the
 * shared ones of input.c, and the -h text they share. */
#include "report/report-cli.h"

#include <getopt.h>
#include <stdio.h>

#include "lib/cli.h"

int profile_input__parse_options(struct profile_input *in, int argc, char **argv,
				 const struct profile_cli *cli, void *cmd,
				 recording_replay_fn replay)
{
	int opt, rc;

	rc = profile_input__init(in, argc);
	if (rc)
		return rc;
	in->replay = replay;
	optind = 0; /* glibc: reinitialize (a command may run more than once) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, cli->shortopts, cli->longopts, NULL)) != -1) {
		rc = cli->own_option(cmd, opt, optarg);
		if (rc < 0)
			rc = profile_input__option(in, opt, optarg);
		if (rc > 0)
			return rc;
		if (!rc)
			continue;
		switch (opt) {
		case 'h':
			return profile_input__help(cli->usage_head, cli->usage_tail);
		case ':':
			return cli_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	return 0;
}

int profile_input__flamechart(struct profile_input *in)
{
	const char *opt = in->weight == PROFILE_WEIGHT_OFF_CPU ? "--off-cpu"
			: in->weight == PROFILE_WEIGHT_WALL    ? "--wall"
			: in->probe.alloc                      ? "--alloc"
			: in->event_name                       ? "--event"
							       : NULL;

	if (opt)
		return cli_usage_error("--flamechart orders CPU samples by time: not with %s", opt);
	in->time_order = 1;
	if (in->roots == PROFILE_ROOT_NONE)
		in->roots = PROFILE_ROOT_NAME;
	return 0;
}

int profile_input__help(const char *head, const char *tail)
{
	fputs(head, stdout);
	fputs(profile_input_weight_help, stdout);
	fputs("\n", stdout);
	fputs(profile_input_filter_help, stdout);
	fputs(tail, stdout);
	return fflush(stdout) ? EXIT_FAIL : -1;
}
