#!/bin/bash
# bench/jvm-overhead.sh: CPU profiling of a JVM: how much prof and perf slow
# down a CPU-bound Java program they attach to, and how long prof's
# end-of-recording JVM step (attach, Compiler.perfmap, Thread.print,
# VM.flags) takes.
#
#   bench/jvm-overhead.sh          PROF=path (default build/prof)
#
# Workload: examples/java/Spin (THREADS threads, a fixed amount of hashing
# and sorting, with -XX:+PreserveFramePointer so both tools walk whole Java
# stacks), which reports the elapsed time of its own work. It sleeps DELAY
# ms first; the recorder attaches with -p PID meanwhile and stops when the
# JVM exits (so prof's JVM step, which needs a live JVM, is not in these
# runs: it is timed separately). For each frequency in FREQS, ROUNDS rounds
# of bare / `perf record -g -e cpu-clock -F F -p PID` / `prof record -F F -p
# PID`, the order rotated every round; medians of the work's own time.
# Then the JVM step: ATTACH_RUNS recordings of 1 s of a running JVM whose
# attach listener is not started yet (a fresh JVM each: trigger file,
# SIGQUIT, socket) and ATTACH_RUNS of one whose listener runs; the step's
# time is prof's STATS counter jvm-attach-ns.
#
# Env: FREQS ("99 999"), ROUNDS (7), THREADS (2), WORK (20000), DELAY (1500),
# ATTACH_RUNS (5), JAVA. Prints markdown on stdout.
set -eu
BENCH_NAME=jvm-overhead
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

FREQS=${FREQS:-99 999}
ROUNDS=${ROUNDS:-7}
THREADS=${THREADS:-2}
WORK=${WORK:-20000}
DELAY=${DELAY:-1500}
ATTACH_RUNS=${ATTACH_RUNS:-5}
JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
need_tools "$JAVA"
make -s -C "$ROOT" BUILD="$BUILD" "$BUILD/examples/java/Service.class" >&2 ||
	die "cannot build examples/java"
CP=$BUILD/examples/java
ENV_LINE=$(env_line)
LOG=$TMP/elapsed.log
: >"$LOG"

# jvm_ready FILE: like wait_ready, but gives a JVM up to 60 s (it starts in
# under a second, but much slower when other jobs load the machine).
jvm_ready() {
	local _
	for _ in $(seq 600); do
		# a whole line: the JVM may write "ready " and the pid apart
		grep -q '^ready [0-9]*$' "$1" 2>/dev/null && [ "$(tail -c1 "$1" | od -An -c | tr -d ' ')" = '\n' ] &&
			{ awk '/^ready /{print $2; exit}' "$1"; return 0; }
		sleep 0.1
	done
	return 0
}

# one TOOL F: a JVM run with TOOL (bare, perf, prof) attached; logs
# "TOOL-F seconds".
one() {
	local tool=$1 f=$2 out=$TMP/jvm.out err=$TMP/jvm.err pid rec=""
	# Emptied here: the background job's own redirection may come after
	# jvm_ready's first look, which would find the last run's line.
	: >"$err"
	"$JAVA" -XX:+PreserveFramePointer -cp "$CP" Spin "$THREADS" "$WORK" "$DELAY" \
		>"$out" 2>"$err" &
	pid=$(jvm_ready "$err")
	[ -n "$pid" ] || die "the JVM did not say 'ready': $(cat "$err")"
	case $tool in
	perf) "$PERF" record -q -g -e cpu-clock -F "$f" -p "$pid" -o "$TMP/perf.data" \
		2>"$TMP/rec.err" & rec=$! ;;
	prof) "$PROF" record -q -F "$f" -p "$pid" -o "$TMP/prof.data" 2>"$TMP/rec.err" &
		rec=$! ;;
	esac
	wait "$pid" || die "the JVM failed: $(cat "$err")"
	[ -n "$rec" ] && { stop_within "$rec" 30 || true; }
	echo "$tool-$f $(awk '/^elapsed/ {print $2}' "$out")" >>"$LOG"
	rm -f "/tmp/perf-$pid.map"
}

for f in $FREQS; do
	for r in $(seq "$ROUNDS"); do
		case $((r % 3)) in
		0) order="bare perf prof" ;;
		1) order="perf prof bare" ;;
		*) order="prof bare perf" ;;
		esac
		for tool in $order; do
			say "F=$f round $r/$ROUNDS: $tool"
			one "$tool" "$f"
		done
	done
done

# attach_step N: N 1-second recordings of one running JVM: the first finds
# no attach listener (trigger file + SIGQUIT), the others find it running.
# Logs the step's milliseconds (prof's notice) as attach-fresh / attach-warm.
ALOG=$TMP/attach.log
: >"$ALOG"
attach_step() {
	local pid err=$TMP/a.err label=attach-fresh i ms
	: >"$err"
	"$JAVA" -XX:+PreserveFramePointer -cp "$CP" Service 60 2 2>"$err" &
	pid=$(jvm_ready "$err")
	for i in $(seq "$1"); do
		"$PROF" record -d 1 -p "$pid" -o "$TMP/a.data" 2>"$TMP/a.rec"
		ms=$(grep -oE 'thread names \([0-9.]+ ms\)' "$TMP/a.rec" | tr -dc '0-9.')
		echo "$label ${ms:-?}" >>"$ALOG"
		label=attach-warm
	done
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	rm -f "/tmp/perf-$pid.map"
}
for i in $(seq "$ATTACH_RUNS"); do
	say "JVM step: fresh JVM $i/$ATTACH_RUNS"
	attach_step 2
done

# paired F: per round (bare, perf and prof ran one after the other), the
# slowdowns against that round's bare run: "perf median, prof median,
# prof - perf median (points), rounds where prof slowed the JVM more".
# Rounds pair up runs taken under the same load, which on a shared machine
# moves more between rounds than within one.
paired() {
	awk -v f="$1" '
		BEGIN {r = 0}
		{split($1, a, "-")} a[2] != f {next}
		{v[a[1]] = $2; n++}
		n % 3 == 0 {pe[r] = (v["perf"] / v["bare"] - 1) * 100
			pr[r] = (v["prof"] / v["bare"] - 1) * 100; d[r] = pr[r] - pe[r]; k += d[r] > 0; r++}
		function med(x, m,   i, j, t) {
			for (i = 1; i < m; i++)
				for (j = i; j > 0 && x[j - 1] > x[j]; j--) {t = x[j]; x[j] = x[j - 1]; x[j - 1] = t}
			return m % 2 ? x[(m - 1) / 2] : (x[m / 2 - 1] + x[m / 2]) / 2 }
		END {if (!r) {print "? | ? | ? | ?"; exit}
			printf "%+.1f%% | %+.1f%% | %+.1f | %d/%d\n", med(pe, r), med(pr, r), med(d, r), k, r}' "$LOG"
}

row() {
	local f=$1 b p q
	read -r b bsd bn <<<"$(stats "$LOG" "bare-$f")"
	read -r p psd pn <<<"$(stats "$LOG" "perf-$f")"
	read -r q qsd qn <<<"$(stats "$LOG" "prof-$f")"
	echo "| $f Hz | $b ± $bsd (n=$bn) | $p ± $psd | $(slowdown "$p" "$b") | $q ± $qsd | $(slowdown "$q" "$b") |"
}

echo "Command: \`bench/jvm-overhead.sh\` (FREQS=\"$FREQS\" ROUNDS=$ROUNDS THREADS=$THREADS WORK=$WORK)."
echo "$ENV_LINE"
echo
echo "Spin's own work time, seconds (median ± sd), attached with -p during its ${DELAY} ms sleep:"
echo
echo "| frequency | bare | perf record -g | perf slowdown | prof record | prof slowdown |"
echo "|---|---|---|---|---|---|"
for f in $FREQS; do
	row "$f"
done
echo
echo "The same runs paired by round (slowdown against the round's own bare run; median over rounds):"
echo
echo "| frequency | perf record -g | prof record | prof - perf, points | rounds prof > perf |"
echo "|---|---|---|---|---|"
for f in $FREQS; do
	echo "| $f Hz | $(paired "$f") |"
done
echo
read -r fm fsd fn <<<"$(stats "$ALOG" attach-fresh)"
read -r wm wsd wn <<<"$(stats "$ALOG" attach-warm)"
echo "End-of-recording JVM step (attach, Compiler.perfmap, Thread.print, VM.flags), ms:"
echo "first attach (SIGQUIT, listener start) $fm ± $fsd (n=$fn); listener already running $wm ± $wsd (n=$wn)."
