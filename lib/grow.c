/* grow.c: growable arrays with overflow checks (see grow.h). */
#include "grow.h"

#include <stdlib.h>

int grow_array(void **ptr, size_t *cap, size_t need, size_t elem_size)
{
	size_t new_cap;
	void *p;

	if (need <= *cap)
		return 0;
	new_cap = *cap ? *cap : 16;
	while (new_cap < need) {
		if (new_cap > SIZE_MAX / 2)
			return -ENOMEM;
		new_cap *= 2;
	}
	if (new_cap > SIZE_MAX / elem_size)
		return -ENOMEM;
	p = realloc(*ptr, new_cap * elem_size);
	if (!p)
		return -ENOMEM;
	*ptr = p;
	*cap = new_cap;
	return 0;
}
