/* diff-folded.c: two-column folded text, "stack OLD NEW" per line, as
 * FlameGraph's difffolded.pl and `prof diff` write it (see diff.h). Every
 * reader of folded text takes it through input.c: the text is detected
 * once, then one column is kept, line for line, and the result goes to the
 * ordinary folded reader (which reports malformed lines by their number,
 * unchanged). Counts are digits with an optional fraction, as difffolded
 * accepts; whether a fraction is a valid count is the folded reader's
 * business. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/diff.h"

/* A count field: digits, optionally '.' and more digits. */
static int is_count(const char *s, size_t len)
{
	size_t i, digits = 0;
	int dot = 0;

	for (i = 0; i < len; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			digits++;
		else if (s[i] == '.' && !dot && digits)
			dot = 1;
		else
			return 0;
	}
	return digits > 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The start of the last field of line[0 .. len): after the last blank. */
static size_t field_start(const char *line, size_t len)
{
	while (len && !is_blank(line[len - 1]))
		len--;
	return len;
}

struct split {
	size_t old_at, new_at; /* where the counts start */
	int counts;            /* 0, 1 (one-column) or 2 */
};

/* How many trailing counts a line has, and where they are. A count needs a
 * non-empty stack before it. */
static struct split split_line(const char *line, size_t len)
{
	struct split sp = {0};
	size_t at = field_start(line, len), prev;

	if (!at || at == 1 || !is_count(line + at, len - at))
		return sp;
	sp.counts = 1;
	sp.new_at = at;
	prev = field_start(line, at - 1);
	if (prev >= 2 && is_count(line + prev, at - 1 - prev)) {
		sp.counts = 2;
		sp.old_at = prev;
	}
	return sp;
}

/* Runs BODY with each line (without its newline and a trailing CR). */
#define FOR_EACH_LINE(text, len, line, llen, BODY)                                                 \
	do {                                                                                       \
		size_t pos_ = 0;                                                                   \
		while (pos_ < (len)) {                                                             \
			const char *nl_ = memchr((text) + pos_, '\n', (len) - pos_);               \
			size_t end_ = nl_ ? (size_t)(nl_ - (text)) : (len);                        \
			const char *line = (text) + pos_;                                          \
			size_t llen = end_ - pos_;                                                 \
			if (llen && line[llen - 1] == '\r')                                        \
				llen--;                                                            \
			BODY;                                                                      \
			pos_ = end_ + 1;                                                           \
		}                                                                                  \
	} while (0)

int diff_folded__is_two_column(const char *text, size_t len)
{
	size_t two = 0;

	/* One line with a single count decides it: a one-column file is
	 * known at its first line, not after a scan of all of it. */
	FOR_EACH_LINE(text, len, line, llen, {
		struct split sp = split_line(line, llen);

		if (sp.counts == 1)
			return 0;
		two += sp.counts == 2;
	});
	return two != 0;
}

int diff_folded__keep_column(const char *text, size_t len, enum diff_column col, char **out,
			     size_t *outlen)
{
	char *buf = malloc(len + 2), *o = buf;

	if (!buf)
		return -ENOMEM;
	FOR_EACH_LINE(text, len, line, llen, {
		struct split sp = split_line(line, llen);

		if (sp.counts == 2) {
			/* the stack and its blank, then the kept count */
			memcpy(o, line, sp.old_at);
			o += sp.old_at;
			if (col == DIFF_COLUMN_OLD) {
				size_t n = sp.new_at - 1 - sp.old_at;

				memcpy(o, line + sp.old_at, n);
				o += n;
			} else {
				memcpy(o, line + sp.new_at, llen - sp.new_at);
				o += llen - sp.new_at;
			}
		} else {
			memcpy(o, line, llen);
			o += llen;
		}
		*o++ = '\n';
	});
	*out = buf;
	*outlen = (size_t)(o - buf);
	return 0;
}
