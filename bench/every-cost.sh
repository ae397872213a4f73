#!/bin/bash
# bench/every-cost.sh: what `--every N` costs a target while its probe is
# attached: examples/alloc-loop unpaced (-r 100000000, -p 4), its own
# allocations a second over the middle of a SECS recording, bare, with
# --every N decided by prof among all the hits (OLD=path: prof before
# record/probe-kperiod.c), with --every N in the kernel (PROF), and with
# a period so long that nothing is kept (the uprobe's trap alone), RUNS
# interleaved rounds, medians and ranges. Also the kept samples, the
# stale ones and prof's CPU.
#
#   bench/every-cost.sh     PROF=path OLD=path (optional) NS ("10 50") SECS (3) RUNS (3)
#
# Markdown on stdout. Needs root.
set -eu
BENCH_NAME=every-cost
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

NS=${NS:-10 50}
SECS=${SECS:-3}
RUNS=${RUNS:-3}
OLD=${OLD:-}
LOOP=$(build_example alloc-loop)

# rate MODE N: one run; prints "ALLOC/S KEPT STALE PROF_CPU_S".
rate() {
	local mode=$1 n=$2 bin pid rp kept=- stale=- cpu=-
	"$LOOP" -p 4 -r 100000000 2>"$TMP/loop.log" &
	pid=$!
	until grep -q ready "$TMP/loop.log"; do sleep 0.05; done
	case $mode in
	bare) bin= ;;
	old) bin=$OLD ;;
	trap) bin=$PROF n=1000000000 ;;
	*) bin=$PROF ;;
	esac
	if [ -n "$bin" ]; then
		/usr/bin/time -f '%U %S' -o "$TMP/time" nice -n 10 "$bin" record -p "$pid" \
			-e usdt:alloc_demo:alloc --every "$n" --probe-window off -d "$SECS" \
			-o "$TMP/c.data" 2>"$TMP/rec.log" &
		rp=$!
	fi
	sleep 0.5
	kill -USR1 "$pid"
	sleep $((SECS - 1))
	kill -USR1 "$pid"
	if [ -n "$bin" ]; then
		wait "$rp" || true
		kept=$("$bin" report -i "$TMP/c.data" --header 2>/dev/null | awk '$1 == "probe-kept:" { print $2 }')
		stale=$("$bin" report -i "$TMP/c.data" --header 2>/dev/null | awk '$1 == "probe-stale-samples:" { print $2 }')
		cpu=$(awk '{ print $1 + $2 }' "$TMP/time")
	fi
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	awk -F'[ =]' '/^t_ns=/ { t[++k] = $2; n[k] = $4 + $6 }
		k == 2 { exit } END { printf "%.0f", (n[2] - n[1]) / ((t[2] - t[1]) / 1e9) }' "$TMP/loop.log"
	echo " ${kept:--} ${stale:--} $cpu"
}

modes="bare trap ${OLD:+old} new"
say "alloc-loop unpaced, --every $NS, $SECS s, $RUNS rounds: $modes"
echo "| --every | recorder | allocations/s median (min-max) | vs bare | kept (median) | stale | prof CPU s |"
echo "|---|---|---|---|---|---|---|"
for n in $NS; do
	for m in $modes; do : >"$TMP/r.$m"; done
	for ((r = 0; r < RUNS; r++)); do
		for m in $modes; do rate "$m" "$n" >>"$TMP/r.$m"; done
	done
	bare=$(sort -n "$TMP/r.bare" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	for m in $modes; do
		sort -n "$TMP/r.$m" | awk -v m="$m" -v n="$n" -v b="$bare" '
			{ v[NR] = $1; k[NR] = $2; s[NR] = $3; c[NR] = $4 }
			END { i = int((NR + 1) / 2)
			      printf "| %s | %s | %d (%d-%d) | %.3f | %s | %s | %s |\n", n, m, v[i], v[1], v[NR],
				     v[i] / b, k[i], s[i], c[i] }'
	done
done
