#!/bin/bash
# bench/dump-pause.sh: what taking every thread's stack costs the target,
# prof dump against eu-stack and gdb (the poor man's profiler), in one run.
#
#   bench/dump-pause.sh      PROF=path (default build/prof), as root
#
# The target is examples/stuck with WAITERS threads blocked on a mutex,
# its spinner and SPIN measured spinners (default 91 and 2: 100 threads).
# The pause is measured independently of prof: a measured spinner never
# sleeps, and prints every gap of its loop (wall clock less its own CPU
# clock) less the run-queue wait its schedstat counted over the gap: time
# it was not runnable, i.e. held (examples/stuck.c). For prof each of its
# captures of a spinner is matched to the gap that holds the capture's stop
# time; for eu-stack and gdb, which give no times, each run's largest gap
# per spinner is its hold (a VM's stolen time makes gaps of 5-60 us too).
# Figures are median/p99/max in ms. prof's own figures for every thread:
# held stopped (pause_ns) and from the interrupt to the stop (stop_wait_ns);
# skew is a snapshot's spread of stop times.
# Then the same on a 1,000-thread process (K1000 snapshots), and prof's CPU
# and memory for -n 100 -i 0.01 on the 100 threads.
#
# Env: WAITERS (91), SPIN (2), HOGS (0: CPU hogs started beside, e.g. 2),
# K (100 prof snapshots, 20 ms apart), K_EU (20 eu-stack runs), K_GDB (3
# gdb runs; 0 skips gdb), K1000 (5). Prints markdown on stdout.
set -eu
BENCH_NAME=dump-pause
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools eu-stack python3
WAITERS=${WAITERS:-91}
SPIN=${SPIN:-2}
HOGS=${HOGS:-0}
K=${K:-100}
K_EU=${K_EU:-20}
K_GDB=${K_GDB:-3}
K1000=${K1000:-5}
STUCK=$(build_example stuck)
STATS=$ROOT/bench/dump-pause-stats.py
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null || true; rm -rf "$TMP"' EXIT

for _ in $(seq "$HOGS"); do
	yes >/dev/null &
	PIDS+=($!)
done

# start_stuck WAITERS: starts the target (its held lines in $TMP/held.WAITERS),
# sets PID (not in $(...): the substitution would wait for the job's stdout).
start_stuck() {
	"$STUCK" "$1" spin "$SPIN" 2>"$TMP/stuck.$1" >"$TMP/held.$1" &
	PIDS+=($!)
	PID=$(wait_ready "$TMP/stuck.$1")
}

# stat_line KEY FILE: the value of KEY in a stats output.
stat_line() {
	awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$2"
}

# tool_runs N CMD...: runs CMD N times, noting each run's range of held lines.
tool_runs() {
	local n=$1 a b
	shift
	: >"$TMP/ranges"
	for _ in $(seq "$n"); do
		a=$(wc -l <"$TMP/held.$WAITERS")
		"$@" >/dev/null 2>&1 || true
		b=$(wc -l <"$TMP/held.$WAITERS")
		echo "$a $b" >>"$TMP/ranges"
	done
}

start_stuck "$WAITERS"
NT=$(ls /proc/"$PID"/task | wc -l)
say "target: $NT threads (pid $PID), $HOGS hogs"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

"$PROF" dump -p "$PID" -n "$K" -i 0.02 --format json >"$TMP/prof.json" 2>"$TMP/prof.err"
python3 "$STATS" prof "$TMP/held.$WAITERS" "$TMP/prof.json" >"$TMP/s.prof"

tool_runs "$K_EU" eu-stack -p "$PID"
python3 "$STATS" windows "$TMP/held.$WAITERS" "$TMP/ranges" >"$TMP/s.eu"

GDB="not run"
if [ "$K_GDB" -gt 0 ] && command -v gdb >/dev/null; then
	tool_runs "$K_GDB" gdb -p "$PID" -batch -nx -ex "set pagination off" -ex "thread apply all bt"
	python3 "$STATS" windows "$TMP/held.$WAITERS" "$TMP/ranges" >"$TMP/s.gdb"
	GDB=$(stat_line oracle "$TMP/s.gdb")
fi

# prof's CPU and memory for 100 snapshots 10 ms apart
/usr/bin/time -f "%e %U %S %M" -o "$TMP/time" "$PROF" dump -p "$PID" -n 100 -i 0.01 \
	--format pmp >/dev/null 2>&1
read -r WALL100 USR100 SYS100 RSS100 <"$TMP/time"
kill "$PID"

W1000=$((WAITERS + 900))
start_stuck "$W1000"
NT1000=$(ls /proc/"$PID"/task | wc -l)
/usr/bin/time -f "%e" -o "$TMP/time1000" "$PROF" dump -p "$PID" -n "$K1000" -i 0.2 --format json \
	>"$TMP/k.json" 2>"$TMP/k.err"
python3 "$STATS" prof "$TMP/held.$W1000" "$TMP/k.json" >"$TMP/s.k"
kill "$PID"

env_line
echo
echo "_load average $LOAD0 at the start, $HOGS CPU hogs beside; $NT threads, $SPIN measured spinners._"
echo
echo "| tool | measured spinner held per snapshot (its own clocks + schedstat): median/p99/max ms | notes |"
echo "|---|---:|---|"
echo "| prof dump ($K snapshots) | $(stat_line oracle "$TMP/s.prof") |" \
	"prof's own for the spinners $(stat_line own_spin "$TMP/s.prof") |"
echo "| eu-stack -p ($K_EU runs) | $(stat_line oracle "$TMP/s.eu") | every thread held while all are unwound |"
echo "| gdb thread apply all bt ($K_GDB runs) | $GDB | |"
echo
echo "- prof's own, every thread of every snapshot: held stopped $(stat_line own_all "$TMP/s.prof")," \
	"interrupt to stop $(stat_line wait_all "$TMP/s.prof"); skew (first to last stop of a" \
	"snapshot) $(stat_line skew "$TMP/s.prof"); matched $(stat_line oracle_n "$TMP/s.prof")."
echo "- $NT threads, -n 100 -i 0.01: $WALL100 s wall, ${USR100} s user + ${SYS100} s system CPU," \
	"max RSS $RSS100 KB."
echo "- $NT1000 threads, $K1000 snapshots: $(cat "$TMP/time1000") s wall (symbolizing included);" \
	"spinners held $(stat_line oracle "$TMP/s.k") (oracle), $(stat_line own_spin "$TMP/s.k") (prof's own);" \
	"every thread held $(stat_line own_all "$TMP/s.k"), interrupt to stop $(stat_line wait_all "$TMP/s.k");" \
	"skew $(stat_line skew "$TMP/s.k")."
