#!/bin/bash
# bench/probe-cost.sh: what a probe costs the target, and what windows cost.
#
#   bench/probe-cost.sh      PROF=path (default build/prof)
#
# 1. Trap cost: examples/usdt-app N fires its USDT probe usdt_demo:tick N
#    times (N = CALLS, default 1,000,000) and calls counted_call() N times.
#    hyperfine (RUNS runs each) times it bare, under `prof record -e
#    usdt:usdt_demo:tick` keeping every hit (--every 1), one hit in 1000
#    (--every 1000), windowed (--probe-window 10/1000), and with a uprobe on
#    counted_call's entry (--every 1000). The cost per hit is (probed -
#    bare) / N: the kernel's trap, whatever --every keeps. A USDT probe is a
#    nop, which the kernel emulates; a function's first instruction may
#    have to be single-stepped out of line (a second trap).
# 2. Attaching and detaching: examples/pingpong -d 30 (50 threads, asleep
#    for 30 s) recorded for 5 s with a uprobe on pass_token (never hit while
#    asleep) in windows of 10 ms every 100 ms: prof's summary gives the time
#    spent opening and closing the events per window (50 threads x CPUs
#    events each time). Then a plain -d 1 recording of the same, through
#    tracefs definitions and through the uprobe PMU (--uprobe-pmu): the wall
#    time of the recording, whose end closes every event (PMU: one RCU grace
#    period per event under the kernel's event_mutex).
#
# Env: CALLS (1000000), RUNS (3). Prints markdown on stdout.
set -eu
BENCH_NAME=probe-cost
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools hyperfine
CALLS=${CALLS:-1000000}
RUNS=${RUNS:-3}
APP=$(build_example usdt-app)
PP=$(build_example pingpong)
U="uprobe:$APP:counted_call"
T=usdt:usdt_demo:tick

say "trap cost: $CALLS calls, $RUNS runs each"
hyperfine -N --runs "$RUNS" --export-json "$TMP/trap.json" \
	-n bare "$APP $CALLS" \
	-n "usdt, every hit" "$PROF record -q -e $T -o $TMP/a.data -- $APP $CALLS" \
	-n "usdt, --every 1000" "$PROF record -q -e $T --every 1000 -o $TMP/b.data -- $APP $CALLS" \
	-n "usdt, --probe-window 10/1000" "$PROF record -q -e $T --probe-window 10/1000 -o $TMP/c.data -- $APP $CALLS" \
	-n "uprobe on entry, --every 1000" "$PROF record -q -e $U --every 1000 -o $TMP/d.data -- $APP $CALLS" \
	>&2
mean() {
	python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["command"] == sys.argv[2]:
        print(r["mean"])' "$TMP/trap.json" "$1"
}
bare=$(mean bare)
echo "### Probes: the cost of a hit, and of windows"
echo
echo "$CALLS calls of a C function, bench/probe-cost.sh (2-CPU VM, shared with other builds: noisy):"
echo
echo "| recording | time (s) | slowdown | cost per call (µs) |"
echo "|---|---|---|---|"
for n in bare "usdt, every hit" "usdt, --every 1000" "usdt, --probe-window 10/1000" \
	"uprobe on entry, --every 1000"; do
	t=$(mean "$n")
	awk -v n="$n" -v t="$t" -v b="$bare" -v c="$CALLS" 'BEGIN {
		printf "| %s | %.3f | %.2fx | %.3f |\n", n, t, t / b, (t - b) / c * 1e6 }'
done
echo

say "attach/detach: pingpong asleep, windows of 10 ms every 100 ms for 5 s"
"$PP" -d 30 >/dev/null 2>&1 &
pp=$!
sleep 0.5
"$PROF" record -p "$pp" -e "uprobe:$PP:pass_token" --probe-window 10/100 -d 5 \
	-o "$TMP/w.data" 2> "$TMP/w.log" || die "windowed recording failed: $(cat "$TMP/w.log")"
line=$(grep 'probe hits kept' "$TMP/w.log")
windows=$(echo "$line" | sed 's/.*(\([0-9]*\) windows*).*/\1/')
open_ms=$(echo "$line" | sed 's/.*, \([0-9.]*\) ms opening.*/\1/')
threads=$(ls "/proc/$pp/task" | wc -l)
t_tracefs=$( { /usr/bin/time -f %e "$PROF" record -q -p "$pp" -e "uprobe:$PP:pass_token" -d 1 \
	-o "$TMP/t.data"; } 2>&1 | tail -1)
t_pmu=$( { /usr/bin/time -f %e "$PROF" record -q --uprobe-pmu -p "$pp" -e "uprobe:$PP:pass_token" \
	-d 1 -o "$TMP/p.data"; } 2>&1 | tail -1)
kill "$pp" 2>/dev/null || true
wait "$pp" 2>/dev/null || true
echo "Attaching to $threads threads on $(nproc) CPUs ($((threads * $(nproc))) events per window):"
echo
awk -v w="$windows" -v o="$open_ms" 'BEGIN {
	printf "- windows of 10 ms every 100 ms for 5 s: %d windows, %.1f ms of prof time opening and closing per window\n", w, o / w }'
echo "- \`prof record -d 1\`, wall time including the final detach: ${t_tracefs} s through tracefs definitions, ${t_pmu} s through the uprobe PMU (\`--uprobe-pmu\`)"
