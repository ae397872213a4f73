/* text.c: names made into text an XML parser accepts, labels cut to fit,
 * and the fixed number formats of the SVG (see svg-internal.h).
 *
 * Frame names come from symbol tables and folded text anyone can write:
 * any bytes. libxml2's writer escapes XML's specials but passes invalid
 * UTF-8 and control characters through, which makes a document no parser
 * accepts; svg_text_clean() replaces those first. Numbers are printed with
 * fixed formats in the C locale (prof never calls setlocale), so the same
 * input gives the same bytes. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/grow.h"
#include "svg/svg-internal.h"

int svg_buf__put(struct svg_buf *b, const char *s, size_t len)
{
	if (GROW(b->s, b->cap, b->len + len + 1))
		return -ENOMEM;
	memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = '\0';
	return 0;
}

int svg_buf__printf(struct svg_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if (GROW(b->s, b->cap, b->len + (size_t)n + 1))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

/* The length of the valid UTF-8 sequence at s (1-4), or 0 if invalid.
 * Rejects overlong forms, surrogates and code points past U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n, i;
	uint32_t v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		v = c & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10ffff)) ||
	    (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

/* Is every byte of the 8 at s printable ASCII (0x20-0x7e)? Most names are
 * (a million distinct names' table was 8% of prof svg in the byte loop). */
static int printable8(const unsigned char *s)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
	uint64_t w, del;

	memcpy(&w, s, 8);
	del = w ^ (0x7f * ones);
	/* a byte >= 0x80, a byte < 0x20, a byte == 0x7f (bit hacks' hasless) */
	return !((w & high) | ((w - 0x20 * ones) & ~w & high) | ((del - ones) & ~del & high));
}

long svg_text_clean(struct svg_buf *b, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0; /* bytes [i - run, i) are clean, not yet copied */
	long chars = 0;

	while (i < len) {
		uint32_t cp;
		size_t n;

		if (len - i >= 8 && printable8(u + i)) {
			i += 8;
			run += 8;
			chars += 8;
			continue;
		}
		/* the tail: the last 8 bytes, some of them seen already */
		if (len - i < 8 && len >= 8 && printable8(u + len - 8)) {
			run += len - i;
			chars += (long)(len - i);
			i = len;
			break;
		}
		n = utf8_len(u + i, len - i, &cp);

		if (n && cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f) && cp != 0xfffe &&
		    cp != 0xffff) {
			i += n;
			run += n;
			chars++;
			continue;
		}
		if (svg_buf__put(b, s + i - run, run) ||
		    svg_buf__put(b, replacement, sizeof(replacement) - 1))
			return -ENOMEM;
		run = 0;
		i += n ? n : 1;
		chars++;
	}
	if (svg_buf__put(b, s + i - run, run))
		return -ENOMEM;
	return chars;
}

size_t svg_text_prefix(const char *s, size_t len, size_t nchars)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < len && nchars--) {
		i++;
		while (i < len && (u[i] & 0xc0) == 0x80)
			i++;
	}
	return i;
}

size_t svg_label_chars(double px, double char_px)
{
	double n = floor(px / char_px);

	return n >= 3 ? (size_t)(n > 1e6 ? 1e6 : n) : 0;
}

int svg_buf__count(struct svg_buf *b, uint64_t v)
{
	char digits[32], out[48];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v), i, o = 0;

	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	return svg_buf__put(b, out, (size_t)o);
}

int svg_buf__count_scaled(struct svg_buf *b, uint64_t v, unsigned decimals)
{
	char text[PROFILE_COUNT_TEXT];
	size_t n = profile_count_text(text, v, decimals);
	const char *dot = memchr(text, '.', n);
	uint64_t s = profile_count_scale(decimals);

	if (svg_buf__count(b, v / s))
		return -ENOMEM;
	return dot ? svg_buf__put(b, dot, n - (size_t)(dot - text)) : 0;
}

int svg_buf__num(struct svg_buf *b, double v, int decimals)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);

	if (n <= 0 || n >= (int)sizeof(tmp))
		return -EINVAL;
	if (memchr(tmp, '.', (size_t)n)) {
		while (tmp[n - 1] == '0')
			n--;
		if (tmp[n - 1] == '.')
			n--;
	}
	if (n == 2 && !memcmp(tmp, "-0", 2))
		return svg_buf__put(b, "0", 1);
	return svg_buf__put(b, tmp, (size_t)n);
}
