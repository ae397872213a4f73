/* cli.h: what every command front end shares: the error line format
 * ("prof <cmd>: <what>", then "hint:" lines), exit codes, number parsing.
 * Only cmd_* functions print errors and pick exit codes. */
#ifndef PROF_CLI_H
#define PROF_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,  /* failure, or "nothing matched" for filters */
	EXIT_USAGE = 2,
};

/* Sets the "prof <cmd>" prefix of messages. */
void cli_set_command(const char *name);
const char *cli_command(void);

/* "prof <cmd>: <message>\n" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "hint: <message>\n" on stderr. */
void cli_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prof <cmd>: warning: <message>\n" on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the error, a "see 'prof <cmd> -h'" hint, and returns EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a decimal unsigned number in [min, max]; 0 or -EINVAL. */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Parses a decimal number (e.g. "2.5", ".5") in [min, max]; 0 or -EINVAL. */
int cli_parse_double(const char *s, double min, double max, double *out);
/* Parses seconds as a decimal (e.g. "2.5") into nanoseconds; 0 or -EINVAL. */
int cli_parse_seconds(const char *s, uint64_t *ns);

/* Parses a list of PIDs separated by commas and/or blanks (spaces, tabs,
 * newlines), as "$(pidof a b)" or "1,2, 3" give them, and appends them to
 * *pids (a GROW array of *n used, *cap room). A PID already in *pids is not
 * added again. 0, or -ENOMEM or -EINVAL with a message for the user in `why`
 * (an empty list, an empty entry as in "1,,2", or a bad PID); *pids keeps
 * what was appended before the bad entry. Allocates; never prints. */
int cli_parse_pid_list(const char *s, pid_t **pids, size_t *n, size_t *cap, char *why,
		       size_t why_size);

#endif
