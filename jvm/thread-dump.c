/* thread-dump.c: parsers for what the JVM answers: thread headers of
 * Thread.print (name and native id), and VM.flags. The text is untrusted:
 * every scan is bounded by the given length, names are cut at
 * JVM_MAX_THREAD_NAME bytes, malformed entries are skipped. */
#include "jvm/jvm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

/* After a thread's name, HotSpot prints `" ` and then (JDK 8 to 21) one
 * of: "#N " (Java threads), "daemon ", "prio=", "os_prio=" (VM threads).
 * 1 if the bytes at p (up to end) start such a tail. */
static int header_tail(const char *p, const char *end)
{
	static const char *const starts[] = {"#", "daemon ", "prio=", "os_prio="};
	size_t i;

	if (end - p < 2 || p[0] != '"' || p[1] != ' ')
		return 0;
	p += 2;
	for (i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		size_t n = strlen(starts[i]);

		if ((size_t)(end - p) >= n && !memcmp(p, starts[i], n))
			return 1;
	}
	return 0;
}

/* The value of " nid=0x..." in [p, end): 1 and *nid, else 0. */
static int find_nid(const char *p, const char *end, uint32_t *nid)
{
	static const char key[] = " nid=0x";
	const char *q = p;

	while ((q = memmem(q, (size_t)(end - q), key, sizeof(key) - 1))) {
		uint64_t v = 0;
		int digits = 0;

		q += sizeof(key) - 1;
		for (; q < end && digits < 9; q++, digits++) {
			int d = *q >= '0' && *q <= '9' ? *q - '0'
				: *q >= 'a' && *q <= 'f' ? *q - 'a' + 10
				: *q >= 'A' && *q <= 'F' ? *q - 'A' + 10 : -1;

			if (d < 0)
				break;
			v = v << 4 | (unsigned)d;
		}
		if (digits && digits < 9 && v && v <= UINT32_MAX && (q == end || *q == ' ' ||
								     *q == '\n')) {
			*nid = (uint32_t)v;
			return 1;
		}
	}
	return 0;
}

static int add_thread(struct jvm_thread **t, size_t *n, size_t *cap, const char *name,
		      size_t len, uint32_t nid)
{
	char *copy;

	if (len > JVM_MAX_THREAD_NAME)
		len = JVM_MAX_THREAD_NAME;
	copy = malloc(len + 1);
	if (!copy || GROW(*t, *cap, *n + 1)) {
		free(copy);
		return -ENOMEM;
	}
	memcpy(copy, name, len);
	copy[len] = '\0';
	(*t)[(*n)++] = (struct jvm_thread){.name = copy, .len = len, .nid = nid};
	return 0;
}

/* A header starts with '"' at the start of a line. Its name may hold
 * quotes and newlines, so the name ends at the LAST `" ` + tail on the
 * first line that has one (the line of the header's fields, which must
 * hold a nid), looked for in lines starting within JVM_MAX_THREAD_NAME + 2
 * bytes. */
long jvm_parse_threads(const char *text, size_t len, struct jvm_thread **threads)
{
	const char *p = text, *end = text + len;
	struct jvm_thread *t = NULL;
	size_t n = 0, cap = 0;

	*threads = NULL;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = eol ? eol : end, *next = eol ? eol + 1 : end;
		const char *limit, *q, *close = NULL;
		uint32_t nid;

		if (*p != '"') {
			p = next;
			continue;
		}
		limit = (size_t)(end - p) > JVM_MAX_THREAD_NAME + 2 ? p + JVM_MAX_THREAD_NAME + 2
								   : end;
		/* The first line from p on with a quote + tail and a nid. */
		for (q = p + 1; q < limit && !close; ) {
			const char *le = memchr(q, '\n', (size_t)(end - q));
			const char *lend = le ? le : end, *c, *last = NULL;

			for (c = q; c < lend; c++)
				if (*c == '"' && header_tail(c, lend))
					last = c;
			if (last && find_nid(last, lend, &nid)) {
				close = last;
				next = le ? le + 1 : end;
			}
			/* Fields without a nid: malformed, and the name does not
			 * go on into the next header. */
			if (last || !le)
				break;
			q = le + 1;
		}
		if (!close) {
			p = line_end < end ? line_end + 1 : end;
			continue;
		}
		if (add_thread(&t, &n, &cap, p + 1, (size_t)(close - (p + 1)), nid)) {
			jvm_threads_free(t, n);
			return -ENOMEM;
		}
		p = next;
	}
	*threads = t;
	return (long)n;
}

void jvm_threads_free(struct jvm_thread *threads, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(threads[i].name);
	free(threads);
}

/* VM.flags prints "-XX:+Flag -XX:-Other -XX:Name=value ..." on one or
 * more lines (after a "PID:" line when asked through jcmd). */
int jvm_flags_value(const char *text, size_t len, const char *flag)
{
	const char *p = text, *end = text + len;
	size_t fl = strlen(flag);
	int value = -ENOENT;

	while (p < end) {
		const char *w = p;

		while (p < end && *p != ' ' && *p != '\n' && *p != '\t' && *p != '\r')
			p++;
		if ((size_t)(p - w) == fl + 5 && !memcmp(w, "-XX:", 4) &&
		    (w[4] == '+' || w[4] == '-') && !memcmp(w + 5, flag, fl))
			value = w[4] == '+';
		p++;
	}
	return value;
}
