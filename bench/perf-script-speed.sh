#!/bin/bash
# bench/perf-script-speed.sh: how fast prof folds `perf script` text (the
# input FlameGraph's stackcollapse-perf.pl reads), in MB/s on one core.
#
#   bench/perf-script-speed.sh         PROF=path (default build/prof)
#
# Records three examples with `perf record -g -F 999` (threads: 4 threads,
# short stacks; cxx-inline: C++ names; recurse: deep stacks), prints each
# with `perf script` (its default fields), and concatenates the texts until
# the file holds SIZE_MB megabytes: real perf script output, many samples.
# Then hyperfine times, RUNS runs after a warm-up (the file is in the page
# cache), output to /dev/null, pinned to one CPU (taskset -c 0):
#   prof report -i BIG.txt                 (collapse, sort, write folded)
# and, when a stackcollapse-perf.pl is given in STACKCOLLAPSE (FlameGraph is
# not packaged in Debian 12), the same with it. Checks that prof counted one
# sample per header line.
#
# Env: SIZE_MB (200), RUNS (5), STACKCOLLAPSE (path, optional). Prints markdown.
set -eu
BENCH_NAME=perf-script-speed
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

SIZE_MB=${SIZE_MB:-200}
RUNS=${RUNS:-5}
need_tools hyperfine taskset python3

say "recording examples with perf record -g"
: > "$TMP/one.txt"
for ex in threads:2 cxx-inline:2 recurse:2; do
	bin=$(build_example "${ex%%:*}")
	"$PERF" record -q -g -F 999 -o "$TMP/p.data" -- "$bin" "${ex#*:}" >/dev/null 2>&1 ||
		die "perf record of $bin failed"
	"$PERF" script -i "$TMP/p.data" >> "$TMP/one.txt" 2>/dev/null
done
one=$(stat -c %s "$TMP/one.txt")
[ "$one" -gt 0 ] || die "perf script printed nothing"
big=$TMP/big.txt
: > "$big"
while [ "$(stat -c %s "$big")" -lt $((SIZE_MB * 1000000)) ]; do
	cat "$TMP/one.txt" >> "$big"
done
bytes=$(stat -c %s "$big")
headers=$(grep -c '^[^[:space:]#]' "$big")
say "$bytes bytes, $headers samples"
counted=$("$PROF" report -i "$big" --no-period | awk '{ s += $NF } END { print s }')
[ "$counted" -eq "$headers" ] || die "prof counted $counted samples, the text has $headers"

cmds=("taskset -c 0 $PROF report -i $big")
names=("prof report")
if [ -n "${STACKCOLLAPSE:-}" ]; then
	cmds+=("taskset -c 0 perl $STACKCOLLAPSE --all $big")
	names+=("stackcollapse-perf.pl --all")
fi
hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$TMP/h.json" --output=null "${cmds[@]}" >&2

echo "| tool | input | mean time (s) | min (s) | MB/s (mean) |"
echo "|---|---|---|---|---|"
i=0
for n in "${names[@]}"; do
	read -r mean min < <(python3 -c "import json,sys; r=json.load(open('$TMP/h.json'))['results'][$i]; print(r['mean'], r['min'])")
	awk -v n="$n" -v b="$bytes" -v s="$headers" -v m="$mean" -v mn="$min" \
		'BEGIN { printf "| %s | %.0f MB, %d samples | %.3f | %.3f | %.0f |\n", n, b / 1e6, s, m, mn, b / 1e6 / m }'
	i=$((i + 1))
done
