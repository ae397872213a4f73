#!/bin/bash
# bench/rotate.sh: the cost of continuous recording (`prof record --rotate`):
# bytes per hour per busy thread at -F 99, and the recorders' CPU and
# largest RSS over a run of many periods.
#
#   bench/rotate.sh      PROF=path (default build/prof)
#
# bench/cpu-bound (2 threads, some 10,000 distinct stacks) recorded with
# --rotate PERIOD for SECS seconds at 99 Hz. Bytes are the rotated files'
# sizes, over the CPU time the target's threads used meanwhile (schedstat),
# scaled to an hour of one busy thread; the recorders' CPU and RSS come from
# GNU time around `prof record` (it waits for every period's recorder).
#
# An unrotated recorder runs alongside: its bytes per sample, and the
# rotated files' extra bytes per file (the symbols, mappings and names each
# file carries again), give the figure at a full FREQ samples a second.
#
# Env: SECS (120), PERIOD (10), FREQ (99). Markdown on stdout. Needs root.
set -eu
BENCH_NAME=rotate
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

SECS=${SECS:-120}
PERIOD=${PERIOD:-10}
FREQ=${FREQ:-99}
need_tools /usr/bin/time
build_workload

cpu_ns() { # the CPU time of a process's threads, from schedstat
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

"$W" -t 2 -n 100000000 -d 1 2>"$TMP/w.log" >/dev/null &
wpid=$!
until grep -q ready "$TMP/w.log"; do sleep 0.05; done
before=$(cpu_ns "$wpid")
"$PROF" record -q -F "$FREQ" -p "$wpid" -d "$SECS" -o "$TMP/one.data" &
one=$!
/usr/bin/time -f "%U %S %M" -o "$TMP/time" \
	"$PROF" record -q -F "$FREQ" -p "$wpid" --rotate "$PERIOD" -d "$SECS" -o "$TMP/rot/"
after=$(cpu_ns "$wpid")
wait "$one"
kill "$wpid"
wait "$wpid" 2>/dev/null || true

files=$(find "$TMP/rot" -name 'prof-*.data' | wc -l)
bytes=$(find "$TMP/rot" -name 'prof-*.data' -printf '%s\n' | awk '{ s += $1 } END { printf "%d\n", s }')
samples=$("$PROF" report -i "$TMP/rot" | awk '{ s += $NF } END { print s }')
obytes=$(stat -c %s "$TMP/one.data")
osamples=$("$PROF" report -i "$TMP/one.data" | awk '{ s += $NF } END { print s }')
read -r user sys rss <"$TMP/time"
awk -v b="$bytes" -v s="$samples" -v before="$before" -v after="$after" -v secs="$SECS" \
	-v u="$user" -v sy="$sys" -v rss="$rss" -v files="$files" -v period="$PERIOD" \
	-v freq="$FREQ" -v ob="$obytes" -v os="$osamples" 'BEGIN {
	cpus = (after - before) / 1e9
	printf "| measure | value |\n|---|---|\n"
	printf "| run | %d s, --rotate %d, -F %d, 2 busy threads: %d files |\n", secs, period, freq, files
	printf "| target CPU | %.1f s (%.2f threads busy on average) |\n", cpus, cpus / secs
	printf "| samples | %d (%.1f per CPU second) |\n", s, s / cpus
	printf "| bytes | %d (%.1f per sample, %.0f per file) |\n", b, b / s, b / files
	printf "| unrotated recorder alongside | %d samples, %d bytes (%.1f per sample) |\n", os, ob, ob / os
	extra = (b - ob * s / os) / (files - 1)
	printf "| a rotated file'"'"'s extra bytes (symbols, mappings again) | %.0f |\n", extra
	printf "| bytes per hour per busy thread, at the %.0f samples per CPU second seen | %.2f MB |\n", s / cpus, b / cpus * 3600 / 1e6
	printf "| bytes per hour per busy thread at a full %d Hz (%d s files) | %.2f MB |\n", freq, period, (ob / os * freq * 3600 + extra * 3600 / period / 2) / 1e6
	printf "| recorders CPU (all periods) | %.2f s user + %.2f s sys = %.2f%% of a core |\n", u, sy, (u + sy) / secs * 100
	printf "| largest recorder RSS | %.1f MB |\n", rss / 1024
}'
