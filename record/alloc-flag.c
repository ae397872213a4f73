/* alloc-flag.c: does a JVM run with -XX:+DTraceAllocProbes? HotSpot fires
 * hotspot:object__alloc only when it started with the flag (it cannot be
 * turned on later), so `prof record --alloc` checks first rather than
 * record an empty profile. The flag is looked for where a JVM takes it:
 * its command line (/proc/PID/cmdline, the last -XX:[+-]DTraceAllocProbes
 * winning) and the JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS and _JAVA_OPTIONS
 * variables of its environment (/proc/PID/environ). Options files
 * (@argfiles, -XX:Flags=, -XX:VMOptionsFile=) are not read: with one of
 * those, the answer is "cannot tell".
 *
 * The refusal's hint says what the flag costs, since the user pays it
 * from the JVM's start, recorded or not: C2 then gives up its inline
 * allocation for a call into the runtime, the interpreter and C1 call the
 * probe's function after each of theirs, so allocation-heavy code slows
 * down even while no probe is attached. Measured by bench/alloc-overhead.sh's loop and
 * bench/alloc-jvm.sh's javac (docs/BENCHMARKS-alloc-jvm.md). */
#include "probes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/procfs.h"

#define FLAG "DTraceAllocProbes"

const char alloc_flag_hint[] =
	"restart it with 'java -XX:+DTraceAllocProbes ...' (or add the flag to "
	"JAVA_TOOL_OPTIONS): it cannot be turned on in a running JVM; the flag costs the JVM "
	"whether recorded or not, as every allocation calls into the JVM and C2 no longer "
	"allocates inline (here: a tight allocation loop 4.9x slower, javac 25% more CPU; "
	"docs/BENCHMARKS-alloc-jvm.md)";

static int read_proc(pid_t pid, const char *what, char *buf, size_t len, size_t *n)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	return procfs_read_into(path, buf, len, n);
}

/* The verdict of one option word: 1 on, 0 off, -1 not about the flag. */
static int word_says(const char *w, size_t len)
{
	if (len == 5 + strlen(FLAG) && !memcmp(w, "-XX:", 4) && !memcmp(w + 5, FLAG, strlen(FLAG)))
		return w[4] == '+' ? 1 : w[4] == '-' ? 0 : -1;
	return -1;
}

/* Space-separated options (the variables). */
static int words_say(const char *s, int verdict)
{
	while (*s) {
		size_t len;
		int v;

		while (*s == ' ' || *s == '\t')
			s++;
		len = strcspn(s, " \t");
		v = word_says(s, len);
		if (v >= 0)
			verdict = v;
		s += len;
	}
	return verdict;
}

int alloc_flag_state(pid_t pid)
{
	static char buf[1 << 17];
	size_t n, i;
	int verdict = -1, unknown = 0, err;

	err = read_proc(pid, "environ", buf, sizeof(buf), &n);
	for (i = 0; !err && i < n; i += strlen(buf + i) + 1) {
		const char *e = buf + i;

		if (!strncmp(e, "JAVA_TOOL_OPTIONS=", 18))
			verdict = words_say(e + 18, verdict);
	}
	for (i = 0; !err && i < n; i += strlen(buf + i) + 1) {
		const char *e = buf + i;

		if (!strncmp(e, "JDK_JAVA_OPTIONS=", 17))
			verdict = words_say(e + 17, verdict);
	}
	err = read_proc(pid, "cmdline", buf, sizeof(buf), &n);
	if (err)
		return ALLOC_FLAG_UNKNOWN;
	for (i = 0; i < n; i += strlen(buf + i) + 1) {
		const char *a = buf + i;
		int v = word_says(a, strlen(a));

		if (v >= 0)
			verdict = v;
		if (a[0] == '@' || !strncmp(a, "-XX:Flags=", 10) || !strncmp(a, "-XX:VMOptionsFile=", 18))
			unknown = 1;
	}
	/* _JAVA_OPTIONS comes last and wins. */
	if (!read_proc(pid, "environ", buf, sizeof(buf), &n))
		for (i = 0; i < n; i += strlen(buf + i) + 1)
			if (!strncmp(buf + i, "_JAVA_OPTIONS=", 14))
				verdict = words_say(buf + i + 14, verdict);
	if (verdict == 1)
		return ALLOC_FLAG_ON;
	if (verdict == 0 || !unknown)
		return ALLOC_FLAG_OFF;
	return ALLOC_FLAG_UNKNOWN;
}
