/* dynlib.c: loading a library on first use (see dynlib.h). */
#include "lib/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>

int dynlib_load(const char *soname, const char *package, const char *const *names, void **fns,
		size_t n)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!h) {
		fprintf(stderr, "prof: cannot load %s (%s): install %s (make deps)\n", soname,
			dlerror(), package);
		return -1;
	}
	for (i = 0; i < n; i++) {
		fns[i] = dlsym(h, names[i]);
		if (!fns[i]) {
			fprintf(stderr, "prof: %s has no %s: install Debian's %s (make deps)\n",
				soname, names[i], package);
			dlclose(h);
			return -1;
		}
	}
	/* Never closed: the functions stay in use until prof exits. */
	return 0;
}
