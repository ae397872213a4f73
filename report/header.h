/* header.h: `prof report --header`: how a recording was made (its meta:
 * command line, host, event, stack modes and why) and what the recorder
 * counted (its stats), as text (header-out.c). */
#ifndef PROF_REPORT_HEADER_H
#define PROF_REPORT_HEADER_H

#include <stdio.h>

#include "lib/recording.h"

/* Writes "# meta" then "KEY: VALUE" per meta entry in file order, then
 * "# stats" and "KEY: VALUE" per stat. Keys and values come from the file
 * (a target's names and paths among them): control bytes are written as
 * '?' (lib/text-clean.h). 0 or -errno of the write. */
int recording__write_header(const struct recording *r, FILE *out);

#endif
