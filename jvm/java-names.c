/* java-names.c: the names profiles show for Java frames (jvm_clean_name in
 * jvm.h). HotSpot's Compiler.perfmap names a compiled method
 * "RETURN_TYPE package.Class.method(PARAM, PARAM)" and every other code
 * blob by what it is ("Interpreter", "StubRoutines (1)", "I2C/C2I
 * adapters"); JVM agents write "Lpackage/Class;::method" or
 * "package/Class.method". Profiles want one short, stable name per
 * method: "package.Class.method". Work is linear in the name's length. */
#include "jvm/jvm.h"

#include <string.h>

struct out {
	char *p;
	size_t cap, n;
};

static void put(struct out *o, const char *s, size_t len)
{
	size_t room = o->cap ? o->cap - 1 - o->n : 0;

	if (len > room)
		len = room;
	memcpy(o->p + o->n, s, len);
	o->n += len;
}

/* Characters of a (qualified) Java method name as HotSpot prints it. */
static int java_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c == '.' || c == '/' || c == '<' || c == '>' || c >= 0x80;
}

/* Copies a qualified name, turning '/' into '.' (agents' internal form),
 * except that a hidden class's "/0xADDRESS" suffix (lambdas:
 * "Service$$Lambda$14/0x0000000800c0b448") is dropped so that its name is
 * the same in every run. */
static void put_qualified(struct out *o, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		if (s[i] == '/' && len - i > 3 && s[i + 1] == '0' && s[i + 2] == 'x') {
			size_t j = i + 3;

			while (j < len && ((s[j] >= '0' && s[j] <= '9') || (s[j] >= 'a' && s[j] <= 'f')))
				j++;
			if (j > i + 3) {
				i = j;
				continue;
			}
		}
		put(o, s[i] == '/' ? "." : s + i, 1);
		i++;
	}
}

static int all_java(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!java_char((unsigned char)s[i]))
			return 0;
	return len > 0;
}

size_t jvm_clean_name(const char *name, size_t len, int signature, char *outbuf, size_t cap)
{
	struct out o = {.p = outbuf, .cap = cap};
	const char *paren = memchr(name, '(', len), *sep;

	/* HotSpot: "RET pkg.Class.method(ARGS)". */
	if (paren && len && name[len - 1] == ')') {
		const char *m = paren;

		while (m > name && m[-1] != ' ')
			m--;
		if (all_java(m, (size_t)(paren - m)) && memchr(m, '.', (size_t)(paren - m))) {
			put_qualified(&o, m, (size_t)(paren - m));
			if (signature)
				put(&o, paren, len - (size_t)(paren - name));
			goto done;
		}
	}
	/* Agents: "Lpkg/Class;::method" (or without the L and ;). */
	sep = len >= 2 ? memmem(name, len, "::", 2) : NULL;
	if (sep && sep > name && !memchr(name, ' ', len)) {
		const char *c = name, *ce = sep, *msig;
		size_t mlen = len - (size_t)(sep + 2 - name);

		if (*c == 'L' && ce[-1] == ';') {
			c++;
			ce--;
		}
		msig = memchr(sep + 2, '(', mlen);
		if (all_java(c, (size_t)(ce - c)) && mlen) {
			put_qualified(&o, c, (size_t)(ce - c));
			put(&o, ".", 1);
			if (msig && !signature)
				mlen = (size_t)(msig - (sep + 2));
			put(&o, sep + 2, mlen);
			goto done;
		}
	}
	/* "pkg/Class.method" */
	if (memchr(name, '/', len) && memchr(name, '.', len) && all_java(name, len)) {
		put_qualified(&o, name, len);
		goto done;
	}
	/* Code blobs: "StubRoutines (1)" -> "StubRoutines". */
	if (len > 4 && name[len - 1] == ')') {
		size_t i = len - 1;

		while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
			i--;
		if (i >= 3 && i < len - 1 && name[i - 1] == '(' && name[i - 2] == ' ') {
			put(&o, name, i - 2);
			goto done;
		}
	}
	put(&o, name, len);
done:
	if (cap)
		outbuf[o.n] = '\0';
	return o.n;
}
