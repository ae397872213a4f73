#!/bin/bash
# bench/ring.sh: the flight recorder's costs (prof record --ring,
# docs/BENCHMARKS-ring.md).
#
#   bench/ring.sh rss SECONDS RING THREADS   PROF=path (default build/prof)
#   bench/ring.sh slowdown                   ROUNDS (5), FREQ (99)
#   bench/ring.sh trigger                    RUNS (3)
#
# rss: bench/cpu-bound with THREADS threads, sized to outlast SECONDS,
#   recorded with --ring RING -F 99 --no-save-on-exit for SECONDS; every
#   STEP (30) s the recorder's VmRSS and CPU time (utime + stime of
#   /proc/PID/stat), and at the end one SIGUSR1 save's size and the
#   samples the recorder lost. A line per step: "t rss_kb cpu_s".
# slowdown: bench/cpu-bound (2 threads, its own elapsed time of a fixed
#   work) bare, under `perf record -g -F FREQ`, `prof record -F FREQ` and
#   `prof record --ring 60 -F FREQ`, ROUNDS rounds in a rotated order: the
#   median elapsed of each and the slowdown against bare; the recorders'
#   CPU (utime + stime, children included) per second of recording.
# trigger: examples/phases 1500 20000 under --ring 5 --trigger
#   "'burn_b' >= 20%": the time from the switch (the program's own clock)
#   to the save's window end (the trip), RUNS runs.
# Markdown on stdout. Needs root (perf, attaching).
set -eu
BENCH_NAME=ring
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

STEP=${STEP:-30}
ROUNDS=${ROUNDS:-5}
FREQ=${FREQ:-99}
RUNS=${RUNS:-3}

# cpu_ticks PID: utime + stime (+ the children waited for, with "c") in
# clock ticks.
cpu_ticks() {
	awk -v c="${2:-}" '{ s = $14 + $15; if (c == "c") s += $16 + $17; print s }' "/proc/$1/stat"
}

rss() {
	local secs=$1 ring=$2 threads=$3 w rec t0 t rss cpu hz
	hz=$(getconf CLK_TCK)
	build_workload
	"$W" -t "$threads" -n 2000000000 >/dev/null &
	w=$!
	sleep 1
	"$PROF" record --ring "$ring" -F 99 --no-save-on-exit -o "$TMP/r.data" -p "$w" \
		2>"$TMP/rec.log" &
	rec=$!
	until grep -q "in memory" "$TMP/rec.log"; do sleep 0.1; done
	echo "| t (s) | recorder RSS (MB) | recorder CPU (s) |"
	echo "|---|---|---|"
	t0=$SECONDS
	while :; do
		t=$((SECONDS - t0))
		rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$rec/status")
		cpu=$(cpu_ticks "$rec")
		printf '| %d | %.1f | %.1f |\n' "$t" "$(echo "$rss / 1024" | bc -l)" \
			"$(echo "$cpu / $hz" | bc -l)"
		[ "$t" -ge "$secs" ] && break
		sleep "$STEP"
	done
	kill -USR1 "$rec"
	until grep -q "saved '" "$TMP/rec.log"; do sleep 0.2; done
	kill -INT "$rec"
	wait "$rec" || true
	kill "$w"
	wait "$w" 2>/dev/null || true
	echo
	grep "saved '\|ring of" "$TMP/rec.log" | sed "s|$TMP/||; s/^/    /"
	ls -l "$TMP"/r-*.data | awk '{ printf "    save: %.1f MB\n", $5 / 1048576 }'
}

# run_one TOOL: one timed run of cpu-bound under TOOL; "TOOL ELAPSED CPU_S_PER_S"
run_one() {
	local tool=$1 out="$TMP/$1.out"
	case $tool in
	bare) "$W" -t 2 >"$out" ;;
	perf) "$PERF" record -q -g -e cpu-clock -F "$FREQ" -o "$TMP/perf.data" -- "$W" -t 2 >"$out" 2>/dev/null ;;
	prof) "$PROF" record -q -F "$FREQ" -o "$TMP/prof.data" -- "$W" -t 2 >"$out" ;;
	ring) "$PROF" record -q --ring 60 --no-save-on-exit -F "$FREQ" -o "$TMP/ring.data" -- \
		"$W" -t 2 >"$out" ;;
	esac
	echo "$tool $(awk '/^elapsed/ { print $2 }' "$out")"
}

slowdown() {
	local r tool order
	build_workload
	: >"$TMP/el.log"
	for r in $(seq "$ROUNDS"); do
		order="bare perf prof ring"
		for _ in $(seq $((r % 4))); do order="${order#* } ${order%% *}"; done
		for tool in $order; do
			run_one "$tool" >>"$TMP/el.log"
			say "round $r $(tail -1 "$TMP/el.log")"
		done
	done
	echo "| recorder | median elapsed (s) | slowdown |"
	echo "|---|---|---|"
	local bare
	bare=$(awk '$1 == "bare" { print $2 }' "$TMP/el.log" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	for tool in bare perf prof ring; do
		awk -v t="$tool" '$1 == t { print $2 }' "$TMP/el.log" | sort -n |
			awk -v t="$tool" -v b="$bare" '{ a[NR] = $1 } END { m = a[int((NR + 1) / 2)]
				printf "| %s | %.3f | %+.1f%% |\n", t, m, 100 * (m - b) / b }'
	done
}

# recorder_cpu: the recorder's CPU per second of an attached --ring 60
# recording of cpu-bound (2 threads, 20 s), and of a plain one.
recorder_cpu() {
	local mode w rec hz secs=20
	hz=$(getconf CLK_TCK)
	build_workload
	echo "| recorder (-F $FREQ, 2 busy threads, ${secs} s) | CPU (% of a core) |"
	echo "|---|---|"
	for mode in plain ring; do
		"$W" -t 2 -n 2000000000 >/dev/null &
		w=$!
		sleep 0.5
		if [ "$mode" = ring ]; then
			"$PROF" record -q --ring 60 -F "$FREQ" -d "$secs" -o "$TMP/c.data" -p "$w" &
		else
			"$PROF" record -q -F "$FREQ" -d "$secs" -o "$TMP/c.data" -p "$w" &
		fi
		rec=$!
		sleep $((secs - 1))
		local c
		c=$(cpu_ticks "$rec")
		wait "$rec" || true
		kill "$w"
		wait "$w" 2>/dev/null || true
		printf '| %s (sampling, before the end) | %.2f |\n' "$mode" "$(echo "100 * $c / $hz / ($secs - 1)" | bc -l)"
		rm -f "$TMP"/c*.data
	done
}

trigger() {
	local ph r switch to f
	ph=$(build_example phases)
	echo "| run | switch → trip (s) | measured |"
	echo "|---|---|---|"
	for r in $(seq "$RUNS"); do
		rm -f "$TMP"/t*.data
		"$ph" 1500 20000 >"$TMP/ph.out" &
		local pid=$!
		sleep 0.2
		"$PROF" record --ring 5 --trigger "'burn_b' >= 20%" --no-save-on-exit -o "$TMP/t.data" \
			-p "$pid" 2>"$TMP/t.log" &
		local rec=$!
		until grep -q "saved '" "$TMP/t.log"; do sleep 0.2; done
		kill -INT "$rec"
		wait "$rec" || true
		kill "$pid"
		wait "$pid" 2>/dev/null || true
		switch=$(awk '$2 == "phase_a" { print $5; exit }' "$TMP/ph.out")
		f=$(ls "$TMP"/t-*.data)
		to=$("$PROF" report -i "$f" --header | awk -F': ' '$1 == "ring-to-monotonic-ns" { print $2 }')
		printf '| %d | %.2f | %s |\n' "$r" "$(echo "($to - $switch) / 1000000000" | bc -l)" \
			"$(grep -o "trigger .*: [0-9.]*%" "$TMP/t.log" | head -1)"
	done
}

need_tools bc
case ${1:-} in
rss) shift; rss "$@" ;;
slowdown) need_tools; slowdown; recorder_cpu ;;
trigger) trigger ;;
*) die "usage: bench/ring.sh rss SECONDS RING THREADS | slowdown | trigger" ;;
esac
