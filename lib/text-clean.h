/* text-clean.h: the one rule for text prof prints that carries names from
 * a target or a file (symbol, thread, binary and source-file names, source
 * lines, probe names): every control byte -- C0 (0x00-0x1f, newline and
 * tab included) and DEL (0x7f) -- becomes '?', every other byte passes
 * unchanged. So an ESC or BEL in a thread name cannot drive the terminal
 * of whoever reads the output, names stay one line and one field, UTF-8
 * stays readable, and a cleaned name has the length of the original (column
 * widths and folded text are unchanged for every name without control
 * bytes). `prof report`'s names (report/profile.c) follow the same rule.
 * Nothing here allocates. */
#ifndef PROF_TEXT_CLEAN_H
#define PROF_TEXT_CLEAN_H

#include <stddef.h>
#include <stdio.h>

/* Is c a byte that text_clean() replaces? */
static inline int text_is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Does s[0..len) hold no control byte? */
int text_is_clean(const char *s, size_t len);
/* Replaces the control bytes of the string s in place; returns s. */
char *text_clean(char *s);
/* Copies s into buf (size > 0) cleaned, cut at size - 1 bytes; returns buf.
 * For printf("%-*s") columns and messages. */
char *text_clean_copy(char *buf, size_t size, const char *s);
/* fputs() and fwrite() of s, cleaned. They return what fputs/fwrite do. */
int text_put(FILE *out, const char *s);
size_t text_write(FILE *out, const char *s, size_t len);

#endif
