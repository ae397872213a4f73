/* prof-error.c: filling the message + hint error shape (prof-error.h). */
#include "prof-error.h"

#include <stdarg.h>
#include <stdio.h>

int prof_error_set(struct prof_error *e, int err, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	snprintf(e->hint, sizeof(e->hint), "%s", hint ? hint : "");
	return err > 0 ? -err : err;
}

void prof_error_clear(struct prof_error *e)
{
	e->msg[0] = e->hint[0] = '\0';
}
