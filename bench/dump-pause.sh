#!/bin/bash
# bench/dump-pause.sh: what taking every thread's stack costs the target,
# prof dump against eu-stack and gdb (the poor man's profiler).
#
#   bench/dump-pause.sh      PROF=path (default build/prof)
#
# The target is examples/stuck with WAITERS threads blocked on a mutex
# (default 93: 100 threads with its 7 others), among them a spinner that
# never sleeps. The pause is measured independently of prof's own report:
# over a tool's runs, the spinner's wall time less its run time and its
# run-queue wait (/proc/PID/task/TID/schedstat) is the time it was held,
# divided by the snapshots taken. prof's own figures (median and maximum
# over every thread) come from its summary; skew is the spread between the
# first and the last thread's capture in one snapshot (prof's json).
# Then one snapshot of a 1,000-thread process (wall time, skew), and prof's
# CPU and memory for -n 100 -i 0.01 on the 100 threads.
#
# Env: WAITERS (93), K (100 prof snapshots), K_EU (20 eu-stack runs), K_GDB
# (3 gdb runs; 0 skips gdb). Prints markdown on stdout.
set -eu
BENCH_NAME=dump-pause
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools eu-stack python3
WAITERS=${WAITERS:-93}
K=${K:-100}
K_EU=${K_EU:-20}
K_GDB=${K_GDB:-3}
STUCK=$(build_example stuck)

# start_stuck WAITERS: starts the target, sets PID (not in $(...): the
# substitution would wait for the background job's stdout).
start_stuck() {
	"$STUCK" "$1" 2>"$TMP/stuck.$1" >/dev/null &
	PID=$(wait_ready "$TMP/stuck.$1")
}

# spinner_sched PID: "WALL RUN WAIT" in ns for the spinner thread now: the
# clock and its schedstat read within microseconds of each other, in one
# process (a `date` and a `cut` forked apart on a busy machine would be
# milliseconds apart, more than what is measured).
spinner_sched() {
	python3 - "$1" <<'PY'
import os, sys, time
d = "/proc/%s/task" % sys.argv[1]
for t in os.listdir(d):
    if open("%s/%s/comm" % (d, t)).read().strip() == "spinner":
        path = "%s/%s/schedstat" % (d, t)
        now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        run, wait = open(path).read().split()[:2]
        print(now, run, wait)
        break
PY
}

# held BEFORE AFTER N: ms the spinner was held per snapshot.
held() {
	awk -v b="$1" -v a="$2" -v n="$3" 'BEGIN { split(b, x, " "); split(a, y, " ")
		printf "%.3f\n", ((y[1] - x[1]) - (y[2] - x[2]) - (y[3] - x[3])) / n / 1e6 }'
}

start_stuck "$WAITERS"
NT=$(ls /proc/"$PID"/task | wc -l)
say "target: $NT threads (pid $PID)"

b=$(spinner_sched "$PID")
"$PROF" dump -p "$PID" -n "$K" -i 0.02 --format folded >/dev/null 2>"$TMP/prof.err"
a=$(spinner_sched "$PID")
PROF_HELD=$(held "$b" "$a" "$K")
PROF_OWN=$(grep -oE 'paused [0-9.]+ ms median, [0-9.]+ ms max' "$TMP/prof.err" | head -1)

b=$(spinner_sched "$PID")
for _ in $(seq "$K_EU"); do eu-stack -p "$PID" >/dev/null 2>&1 || true; done
a=$(spinner_sched "$PID")
EU_HELD=$(held "$b" "$a" "$K_EU")

GDB_HELD="not run"
if [ "$K_GDB" -gt 0 ] && command -v gdb >/dev/null; then
	b=$(spinner_sched "$PID")
	for _ in $(seq "$K_GDB"); do
		gdb -p "$PID" -batch -nx -ex "set pagination off" -ex "thread apply all bt" \
			>/dev/null 2>&1 || true
	done
	a=$(spinner_sched "$PID")
	GDB_HELD=$(held "$b" "$a" "$K_GDB")
fi

# skew within one snapshot, from the json's capture times
"$PROF" dump -p "$PID" --format json >"$TMP/one.json" 2>/dev/null
SKEW100=$(python3 -c 'import json,sys; t=[x["time_ns"] for x in json.load(open(sys.argv[1]))["threads"]]; print("%.2f" % ((max(t)-min(t))/1e6))' "$TMP/one.json")

# prof's CPU and memory for 100 snapshots 10 ms apart
/usr/bin/time -f "%e %U %S %M" -o "$TMP/time" "$PROF" dump -p "$PID" -n 100 -i 0.01 \
	--format pmp >/dev/null 2>&1
read -r WALL100 USR100 SYS100 RSS100 <"$TMP/time"
kill "$PID"

start_stuck 993
NT1000=$(ls /proc/"$PID"/task | wc -l)
/usr/bin/time -f "%e" -o "$TMP/time1000" "$PROF" dump -p "$PID" --format json \
	>"$TMP/k.json" 2>"$TMP/k.err"
SKEW1000=$(python3 -c 'import json,sys; t=[x["time_ns"] for x in json.load(open(sys.argv[1]))["threads"]]; print("%.2f" % ((max(t)-min(t))/1e6))' "$TMP/k.json")
OWN1000=$(grep -oE 'paused [0-9.]+ ms median, [0-9.]+ ms max' "$TMP/k.err" | head -1)
kill "$PID"

env_line
echo
echo "| tool | a never-sleeping thread held per snapshot (schedstat) | notes |"
echo "|---|---:|---|"
echo "| prof dump ($K snapshots) | $PROF_HELD ms | prof's own: $PROF_OWN per thread |"
echo "| eu-stack -p ($K_EU runs) | $EU_HELD ms | every thread held while all are unwound |"
echo "| gdb thread apply all bt ($K_GDB runs) | $GDB_HELD ms | |"
echo
echo "- $NT threads: one snapshot's skew (first to last capture) $SKEW100 ms;" \
	"-n 100 -i 0.01: $WALL100 s wall, ${USR100} s user + ${SYS100} s system CPU, max RSS $RSS100 KB."
echo "- $NT1000 threads: one snapshot in $(cat "$TMP/time1000") s wall (symbolizing included)," \
	"skew $SKEW1000 ms, $OWN1000 per thread."
