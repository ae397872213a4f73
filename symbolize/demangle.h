/* demangle.h: C++ (Itanium ABI) and Rust (legacy and v0) names made
 * readable, exactly as binutils' addr2line -C / nm -C print them: libiberty's
 * cplus_demangle(DMGL_PARAMS | DMGL_ANSI) in its automatic style, which tries
 * Rust first, then C++; with BFD's handling of leading dots and of an
 * "@VERSION" or "@plt" suffix (kept, after the demangled name). */
#ifndef PROF_SYMBOLIZE_DEMANGLE_H
#define PROF_SYMBOLIZE_DEMANGLE_H

/* Returns the demangled name (malloc'ed; the caller frees it), or NULL when
 * `name` is not a mangled name (or on allocation failure: then errno is
 * ENOMEM). Thread-safe; allocates. */
char *demangle(const char *name);

#endif
