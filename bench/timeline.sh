#!/bin/bash
# bench/timeline.sh: `prof svg --timeline` at scale: a generated recording
# (bench/timeline-gen.c, written with lib/rec-writer.h: THREADS threads at
# HZ for HOURS, each busy BUSY% on average along a daily wave, 400 stacks
# over 600 functions, every thread in slow_path for 2 minutes from 3:14),
# the time and memory prof takes to write the page, the page's size (and
# its parts), then its first render and range selections in headless
# chromium (tests/browser/timeline-measure.mjs: a 2 s range at 3:14, the
# hour from 3:00, the whole recording). Defaults: a day at 99 Hz, 50
# threads, 7% busy (about 30 million samples, 490 MB of recording).
#
#   bench/timeline.sh        HOURS=24 HZ=99 THREADS=50 BUSY=7 RUNS=3
#
# Needs node, Debian's chromium and tests/browser/node_modules (make deps).
# Prints markdown on stdout.
set -eu
BENCH_NAME=timeline
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

HOURS=${HOURS:-24} HZ=${HZ:-99} THREADS=${THREADS:-50} BUSY=${BUSY:-7} RUNS=${RUNS:-3}
need_tools node /usr/bin/time xmllint
[ -d "$ROOT/tests/browser/node_modules/playwright-core" ] ||
	die "tests/browser/node_modules is missing
hint: make deps (npm ci --prefix tests/browser)"
GEN=$BUILD/bench/timeline-gen
if [ ! -x "$GEN" ] || [ "$ROOT/bench/timeline-gen.c" -nt "$GEN" ]; then
	make -s -C "$ROOT" BUILD="$BUILD" "$BUILD/prof" >&2 || die "cannot build prof"
	mkdir -p "$BUILD/bench"
	# shellcheck disable=SC2046
	${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -I"$ROOT" -o "$GEN" \
		"$ROOT/bench/timeline-gen.c" $(ls "$BUILD"/lib/*.o) -lm -lz >&2 ||
		die "cannot build bench/timeline-gen.c"
fi

echo "### prof svg --timeline: ${HOURS} h at ${HZ} Hz, ${THREADS} threads, ${BUSY}% busy"
echo
env_line
echo
rec=$TMP/gen.data page=$TMP/page.svg
samples=$("$GEN" "$rec" "$HOURS" "$HZ" "$THREADS" "$BUSY")
/usr/bin/time -f '%e %U %S %M' -o "$TMP/time" "$PROF" svg --timeline -i "$rec" -o "$page"
read -r wall user sys rss <"$TMP/time"
part() { xmllint --xpath "string(//*[local-name()='metadata'][@id='$1'])" "$page" | wc -c; }
attr() { xmllint --xpath "string(/*/@data-$1)" "$page"; }
echo "| samples | recording bytes | page bytes | cells | frames | group | cells table | names | frames table | groups table | prof wall s | user s | sys s | max RSS MB |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
echo "| $samples | $(file_bytes "$rec") | $(file_bytes "$page") |" \
	"$(attr columns) x $(attr rows) | $(attr frames) | $(( $(attr group) * $(attr cell-ms) )) ms |" \
	"$(part tl-cells) | $(part tl-names) | $(part tl-frames) | $(part tl-groups) |" \
	"$wall | $user | $sys | $((rss / 1024)) |"
echo
PROF=$PROF node "$ROOT/tests/browser/timeline-measure.mjs" "$page" "$RUNS"
