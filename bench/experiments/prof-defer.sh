#!/bin/sh
# prof-defer.sh: prof from a build with defer-processing.patch (PROF_BUILD,
# default /tmp/prof-defer/build/prof); `prof-defer.sh record --defer-x ...`
# runs `prof record ...` with PROF_DEFER=1, so that one PROF serves both
# rows of bench/overhead-parts.sh (PROF_VARIANTS="defer:--defer-x").
prof=${PROF_BUILD:-/tmp/prof-defer/build/prof}
if [ "$1" = record ] && [ "$2" = --defer-x ]; then
	shift 2
	PROF_DEFER=1 exec "$prof" record "$@"
fi
exec "$prof" "$@"
