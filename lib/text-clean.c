/* text-clean.c: control bytes of names from a target become '?' before
 * they reach a terminal (see text-clean.h). */
#include "text-clean.h"

#include <string.h>

int text_is_clean(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (text_is_control((unsigned char)s[i]))
			return 0;
	return 1;
}

char *text_clean(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if (text_is_control((unsigned char)*p))
			*p = '?';
	return s;
}

char *text_clean_copy(char *buf, size_t size, const char *s)
{
	size_t n = strlen(s);

	if (n >= size)
		n = size - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return text_clean(buf);
}

size_t text_write(FILE *out, const char *s, size_t len)
{
	size_t i = 0, done = 0;

	/* Runs of clean bytes in one fwrite each. */
	while (i < len) {
		size_t j = i;

		while (j < len && !text_is_control((unsigned char)s[j]))
			j++;
		if (j > i)
			done += fwrite(s + i, 1, j - i, out);
		if (j < len && putc('?', out) != EOF)
			done++;
		i = j + (j < len);
	}
	return done;
}

int text_put(FILE *out, const char *s)
{
	size_t len = strlen(s);

	return text_write(out, s, len) == len ? 1 : EOF;
}
