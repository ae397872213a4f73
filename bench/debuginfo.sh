#!/bin/bash
# bench/debuginfo.sh: what naming frames through separate debug files and
# JIT maps costs, timed on `prof symbolize -i` (the same code that runs at
# the end of `prof record`).
#
#   bench/debuginfo.sh               PROF=path (default build/prof)
#
# Records bench/cpu-bound with --no-symbolize three times, at FREQ Hz:
#   plain     the workload as built (its own .symtab);
#   build-id  a stripped copy, its debug file in a private directory under
#             its build-id (found by a stat, checked by build-id);
#   debuglink a stripped copy with a .gnu_debuglink to its debug file next
#             to it (found by name, checked by build-id and a CRC-32 of the
#             whole debug file).
# Then hyperfine times `prof symbolize -q -i REC -o OUT` on each (RUNS runs
# after a warm-up: files in the page cache), and the same on a synthetic
# recording whose JIT frames are named from a map of MAP_LINES lines.
#
# Env: FREQ (999), SECONDS_REC (3), RUNS (10), MAP_LINES (100000). Prints
# markdown.
set -eu
BENCH_NAME=debuginfo
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

FREQ=${FREQ:-999}
SECONDS_REC=${SECONDS_REC:-3}
RUNS=${RUNS:-10}
MAP_LINES=${MAP_LINES:-100000}
need_tools hyperfine objcopy strip readelf python3
build_workload
ENV_LINE=$(env_line)

mkdir -p "$TMP/dbg" "$TMP/link" "$TMP/empty"
cp "$W" "$TMP/cpu-bound"
objcopy --only-keep-debug "$W" "$TMP/cpu-bound.debug"
strip -o "$TMP/stripped" "$W"
bid=$(readelf -n "$W" | awk '/Build ID/ { print $3 }')
mkdir -p "$TMP/dbg/.build-id/${bid:0:2}"
cp "$TMP/cpu-bound.debug" "$TMP/dbg/.build-id/${bid:0:2}/${bid:2}.debug"
cp "$TMP/cpu-bound.debug" "$TMP/link/stripped.debug"
objcopy --add-gnu-debuglink="$TMP/link/stripped.debug" "$TMP/stripped" "$TMP/link/stripped"

n=$(awk -v s="$SECONDS_REC" 'BEGIN { printf "%d", s * 120000 }')
for v in plain build-id debuglink; do
	case $v in
	plain) bin=$TMP/cpu-bound ;;
	build-id) bin=$TMP/stripped ;;
	debuglink) bin=$TMP/link/stripped ;;
	esac
	say "recording $v"
	"$PROF" record -q --no-symbolize -F "$FREQ" -o "$TMP/$v.data" -- "$bin" -t 2 -n "$n" \
		>/dev/null 2>&1 || die "recording $v failed"
done

frames() {
	"$PROF" symbolize -i "$1" -o "$TMP/f.data" --debug-dir "$2" 2>&1 |
		sed -n 's/.*: \([0-9]*\) of \([0-9]*\) frames named.*/\1 of \2/p'
}
# Wall and CPU (user + system) means of hyperfine's command i, in ms.
mean() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]
print("%.0f ms | %.0f ms" % (r["mean"] * 1e3, (r["user"] + r["system"]) * 1e3))' "$TMP/h.json" "$1"
}

say "recording the jit example with $MAP_LINES more lines in its map"
J=$(build_example jit)
JIT_KEEP_MAP=1 "$J" 4 2>"$TMP/jit.log" &
jpid=$!
for _ in $(seq 100); do grep -q ready "$TMP/jit.log" && break; sleep 0.05; done
MAP=/tmp/perf-$jpid.map
awk -v n="$MAP_LINES" 'BEGIN { for (i = 0; i < n; i++)
	printf "%x %x Lcom/example/Gen%d;::method%d\n", 0x100000000 + i * 64, 48, i % 977, i }' >>"$MAP"
"$PROF" record -q --no-symbolize -F "$FREQ" -d 1 -p "$jpid" -o "$TMP/jit.data" || die "jit recording failed"
wait "$jpid" || true

say "timing prof symbolize -i"
PROF_DEBUGINFO_DIRS="$TMP/dbg" hyperfine -N -w 1 -r "$RUNS" --export-json "$TMP/h.json" \
	"$PROF symbolize -q -i $TMP/plain.data -o $TMP/out.data" \
	"$PROF symbolize -q -i $TMP/build-id.data -o $TMP/out.data" \
	"$PROF symbolize -q --debug-dir $TMP/empty -i $TMP/debuglink.data -o $TMP/out.data" \
	"$PROF symbolize -q -i $TMP/jit.data -o $TMP/out.data" \
	>&2
jit_named=$(frames "$TMP/jit.data" "$TMP/empty")
rm -f "$MAP"

echo "### Naming frames through debug files (bench/debuginfo.sh)"
echo
echo "$ENV_LINE"
echo
echo "\`prof symbolize -q -i REC -o OUT\` on a \`--no-symbolize\` recording of"
echo "bench/cpu-bound ($SECONDS_REC s at $FREQ Hz, 2 threads), mean of $RUNS runs:"
echo
echo "| binary | frames named | wall | CPU |"
echo "|---|---|---|---|"
echo "| with .symtab | $(frames "$TMP/plain.data" "$TMP/dbg") | $(mean 0) |"
echo "| stripped, debug file by build-id | $(frames "$TMP/build-id.data" "$TMP/dbg") | $(mean 1) |"
echo "| stripped, .gnu_debuglink (+ CRC) | $(frames "$TMP/debuglink.data" "$TMP/empty") | $(mean 2) |"
echo "| examples/jit, JIT map of $MAP_LINES lines | $jit_named | $(mean 3) |"
echo
