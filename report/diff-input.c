/* diff-input.c: a second input read with the options of the first (see
 * report-cli.h): the baseline of `prof check`, OLD of `prof diff` and of
 * `prof svg --diff`. Both profiles must be built and filtered the same
 * way for their shares to compare; the option lists are copied, the
 * strings they point at (argv) are shared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "report/diff.h"
#include "report/report-cli.h"

int profile_input__clone(struct profile_input *dst, const struct profile_input *src,
			 const char *path)
{
	int rc;

	rc = profile_input__init(dst, (int)(src->npatterns + src->npids + src->ntids));
	if (rc)
		return rc;
	memcpy(dst->patterns, src->patterns, src->npatterns * sizeof(*src->patterns));
	memcpy(dst->pids, src->pids, src->npids * sizeof(*src->pids));
	memcpy(dst->tids, src->tids, src->ntids * sizeof(*src->tids));
	dst->npatterns = src->npatterns;
	dst->npids = src->npids;
	dst->ntids = src->ntids;
	dst->input = path;
	dst->replay = src->replay;
	dst->roots = src->roots;
	dst->roots_asked = src->roots_asked;
	dst->merge_pools = src->merge_pools;
	dst->ignore_case = src->ignore_case;
	dst->lines = src->lines;
	dst->weight = src->weight;
	return 0;
}
