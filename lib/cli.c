/* cli.c: error lines and argument parsing shared by the commands. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "text-clean.h"

static const char *command_name = "prof";

void cli_set_command(const char *name)
{
	command_name = name;
}

const char *cli_command(void)
{
	return command_name;
}

/* Messages quote names from targets and files (thread, symbol, binary
 * names): their control bytes become '?' (text-clean.h), so a message stays
 * one line and cannot drive the terminal. */
static void vline(const char *prefix, const char *fmt, va_list ap)
{
	char small[512], *msg = small;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small)) {
		msg = malloc((size_t)n + 1);
		if (msg)
			vsnprintf(msg, (size_t)n + 1, fmt, again);
		else
			msg = small; /* cut, but said */
	}
	va_end(again);
	fprintf(stderr, "%s", prefix);
	if (n > 0)
		text_put(stderr, msg);
	fputc('\n', stderr);
	if (msg != small)
		free(msg);
}

/* "prof <cmd>: " then vline(). */
static void vcommand_line(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", command_name);
	vline(prefix, fmt, ap);
}

/* Runs `call` with `ap` holding the arguments after fmt. */
#define WITH_ARGS(fmt, call)                                                                       \
	do {                                                                                       \
		va_list ap;                                                                        \
		va_start(ap, fmt);                                                                 \
		call;                                                                              \
		va_end(ap);                                                                        \
	} while (0)

void cli_error(const char *fmt, ...)
{
	WITH_ARGS(fmt, vcommand_line("", fmt, ap));
}

void cli_warn(const char *fmt, ...)
{
	WITH_ARGS(fmt, vcommand_line("warning: ", fmt, ap));
}

void cli_hint(const char *fmt, ...)
{
	WITH_ARGS(fmt, vline("hint: ", fmt, ap));
}

int cli_usage_error(const char *fmt, ...)
{
	WITH_ARGS(fmt, vcommand_line("", fmt, ap));
	fprintf(stderr, "hint: see '%s -h'\n", command_name);
	return EXIT_USAGE;
}

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s || ((*s < '0' || *s > '9') && *s != '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_seconds(const char *s, uint64_t *ns)
{
	double v;

	if (cli_parse_double(s, 0, 1e9, &v) || v <= 0)
		return -EINVAL;
	*ns = (uint64_t)(v * 1e9);
	return *ns ? 0 : -EINVAL;
}
