/* tui.c: placeholder */
#include "top-internal.h"

#include <errno.h>

int top_tui__start(struct top *tp)
{
	(void)tp;
	return -ENOTSUP;
}

long top_tui__tick(struct top *tp, uint64_t now, int new_interval)
{
	(void)tp;
	(void)now;
	(void)new_interval;
	return 1000;
}

void top_tui__stop(struct top *tp)
{
	(void)tp;
}
