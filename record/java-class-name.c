/* java-class-name.c: HotSpot's internal class names (what hotspot:object__alloc
 * hands over) in the spelling Java uses, Class.getName()'s with arrays as
 * source code writes them, as JFR and jcmd print them:
 *
 *   java/lang/String                 java.lang.String
 *   [B, [[I                          byte[], int[][]
 *   [Ljava/lang/String;              java.lang.String[]
 *   [[Ljava/lang/Object;             java.lang.Object[][]
 *   Foo$$Lambda$14+0x0000000800c0b800   Foo$$Lambda$14/0x0000000800c0b800
 *
 * The last is a hidden class (a lambda's, or Lookup.defineHiddenClass()'s):
 * HotSpot names it "NAME+0xADDRESS" inside, since '/' is its package
 * separator, and Class.getName() shows the '+' as '/'. Only that trailing
 * "+0x<hex>" is turned back: '+' is a legal character of other JVM class
 * names (JFR 17's `jfr print` keeps the '+' and adds its own
 * ".<identity hash>" to the name: that is not the class's name and is left
 * out here). Anything that is not a descriptor is kept as it is, '/' to
 * '.'. */
#include "probes.h"

#include <stdio.h>

/* Where the hidden-class suffix "+0x<hex digits>" starts in s[0, len), or
 * len. */
static size_t hidden_suffix(const char *s, size_t len)
{
	size_t i = len;

	while (i > 0 &&
	       ((s[i - 1] >= '0' && s[i - 1] <= '9') || (s[i - 1] >= 'a' && s[i - 1] <= 'f')))
		i--;
	if (i < len && i >= 3 && s[i - 1] == 'x' && s[i - 2] == '0' && s[i - 3] == '+')
		return i - 3;
	return len;
}

size_t java_class_name(const char *in, size_t len, char *out, size_t cap)
{
	static const char *const prim[] = {
	    ['B'] = "byte", ['C'] = "char", ['D'] = "double", ['F'] = "float",
	    ['I'] = "int",  ['J'] = "long", ['S'] = "short",  ['Z'] = "boolean",
	};
	size_t dims = 0, n = 0, plus;

	if (!cap)
		return 0;
	while (dims < len && in[dims] == '[')
		dims++;
	if (dims && dims < len) {
		unsigned char c = (unsigned char)in[dims];

		if (c < sizeof(prim) / sizeof(prim[0]) && prim[c] && dims + 1 == len) {
			n = (size_t)snprintf(out, cap, "%s", prim[c]);
		} else if (c == 'L' && len >= dims + 2 && in[len - 1] == ';') {
			in += dims + 1;
			len -= dims + 2;
		} else {
			dims = 0; /* not a descriptor: keep it as it is */
		}
	} else {
		dims = 0;
	}
	if (!n) {
		if (len > cap - 1)
			len = cap - 1;
		plus = hidden_suffix(in, len);
		for (size_t i = 0; i < len; i++)
			out[i] = i == plus ? '/' : in[i] == '/' ? '.' : in[i];
		n = len;
	}
	for (size_t d = 0; d < dims && n + 2 < cap; d++) {
		out[n++] = '[';
		out[n++] = ']';
	}
	out[n < cap ? n : cap - 1] = '\0';
	return n < cap ? n : cap - 1;
}
