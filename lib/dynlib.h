/* dynlib.h: libraries that only some commands need (capstone for
 * `prof annotate`, libxml2 for the SVG writers), loaded with dlopen() when
 * first used instead of at every start of prof: linked the usual way, the
 * dynamic loader relocated their tables in every run (capstone 77,000
 * relocations, libxml2 with ICU and libstdc++), 2.5 ms of a `prof report`
 * or `prof symbolize` that used neither.
 *
 * dynlib_load() opens SONAME and resolves NAMES[i] into FNS[i] (n of
 * them); 0, or -1 after one line on stderr naming what is missing and the
 * Debian package that has it. Loading is done once per library: the
 * caller keeps the result. */
#ifndef PROF_DYNLIB_H
#define PROF_DYNLIB_H

#include <stddef.h>

int dynlib_load(const char *soname, const char *package, const char *const *names, void **fns,
		size_t n);

#endif
