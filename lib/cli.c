/* cli.c: error lines and argument parsing shared by the commands. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
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

#define PID_MAX_ACCEPTED 0x3fffffff /* the kernel's PID_MAX_LIMIT is 4M */

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Appends PID v to the list unless it is there already. 0 or -ENOMEM. */
static int add_pid(pid_t **pids, size_t *n, size_t *cap, pid_t v)
{
	size_t i;

	for (i = 0; i < *n; i++) /* lists are short: pidof of one program */
		if ((*pids)[i] == v)
			return 0;
	if (GROW(*pids, *cap, *n + 1))
		return -ENOMEM;
	(*pids)[(*n)++] = v;
	return 0;
}

int cli_parse_pid_list(const char *s, pid_t **pids, size_t *n, size_t *cap, char *why,
		       size_t why_size)
{
	const char *p = s;
	int entries = 0, after_comma = 0;

	for (;;) {
		char tok[24];
		uint64_t v;
		size_t len;
		int err;

		while (is_blank(*p))
			p++;
		if (*p == ',' || (!*p && after_comma)) {
			if (!entries || after_comma) { /* ",1", "1,,2", "1," */
				snprintf(why, why_size, "empty entry in PID list '%s'", s);
				return -EINVAL;
			}
			after_comma = 1;
			p++;
			continue;
		}
		if (!*p)
			break;
		len = strcspn(p, ", \t\n");
		if (len < sizeof(tok)) {
			memcpy(tok, p, len);
			tok[len] = '\0';
		}
		if (len >= sizeof(tok) || cli_parse_u64(tok, 1, PID_MAX_ACCEPTED, &v)) {
			snprintf(why, why_size, "invalid PID '%.*s' in list '%s'",
				 (int)(len > 32 ? 32 : len), p, s);
			return -EINVAL;
		}
		err = add_pid(pids, n, cap, (pid_t)v);
		if (err) {
			snprintf(why, why_size, "%s", strerror(-err));
			return err;
		}
		entries++;
		after_comma = 0;
		p += len;
	}
	if (!entries) {
		snprintf(why, why_size, "empty PID list");
		return -EINVAL;
	}
	return 0;
}
