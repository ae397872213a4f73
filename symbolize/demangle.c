/* demangle.c: C++ and Rust demangling through libiberty (see demangle.h).
 *
 * libiberty is what binutils itself uses, so names match addr2line -C, nm -C
 * and perf (when built with libiberty) character for character; writing our
 * own Itanium demangler would be thousands of lines chasing the same
 * output. Its demangle.h is included alone: libiberty.h declares functions
 * (basename, ...) that clash with glibc's. */
#include "symbolize/demangle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#define DEMANGLE_FLAGS (DMGL_PARAMS | DMGL_ANSI)

char *demangle(const char *name)
{
	const char *start = name, *at;
	char *copy = NULL, *res, *out;
	size_t pre, res_len, suf_len;

	if (!name)
		return NULL;
	/* Like bfd_demangle(): leading dots (and '$') are set aside... */
	while (*name == '.' || *name == '$')
		name++;
	pre = (size_t)(name - start);
	/* ...and so is a symbol version or "@plt". */
	at = strchr(name, '@');
	if (at) {
		copy = strndup(name, (size_t)(at - name));
		if (!copy)
			return NULL;
		name = copy;
	}
	res = cplus_demangle(name, DEMANGLE_FLAGS);
	free(copy);
	if (!res || (!pre && !at))
		return res;
	res_len = strlen(res);
	suf_len = at ? strlen(at) : 0;
	out = malloc(pre + res_len + suf_len + 1);
	if (!out) {
		free(res);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(out, start, pre);
	memcpy(out + pre, res, res_len);
	memcpy(out + pre + res_len, at ? at : "", suf_len + 1);
	free(res);
	return out;
}
