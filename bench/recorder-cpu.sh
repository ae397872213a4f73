#!/bin/bash
# bench/recorder-cpu.sh: the CPU the recorder itself uses while attached at a
# low frequency, and a check that it doesn't spin once a thread of its target
# has exited (perf record -p polls the dead thread's fd, which reports POLLHUP
# forever, and spins at 100% until the whole target exits).
#
#   bench/recorder-cpu.sh            PROF=path (default build/prof)
#
# For each target, examples/threads (5 steady threads, 0.8 CPU busy) and
# examples/churn (a thread starts and exits every 100 ms, one is renamed, one
# starts late), started fresh for each tool:
#   prof record -F FREQ -d DURATION -p PID
#   perf record -g -e cpu-clock -F FREQ -p PID -- sleep DURATION
# and measures the recorder's CPU time (user + system, children included):
# "while recording" one second before the end, from the nanosecond run times
# of /proc/PID/task/*/schedstat (from /proc/PID/stat's clock ticks, 10 ms,
# where schedstat is missing), "total" from the shell's `times` after it
# exited (finalization, e.g. symbolizing, included). Exits 1 if prof used more than MAX_CPU_PCT % of a CPU while
# recording either target (the target: under 1%).
#
# Env: FREQ (99), DURATION (10), MAX_CPU_PCT (1), PERF (perf). Prints markdown.
set -eu
BENCH_NAME=recorder-cpu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

FREQ=${FREQ:-99}
DURATION=${DURATION:-10}
MAX_CPU_PCT=${MAX_CPU_PCT:-1}
need_tools awk
ENV_LINE=$(env_line)
[ "$DURATION" -ge 3 ] || die "DURATION must be at least 3 (seconds)"

# run_cpu PID: the CPU seconds a live process has used so far, to the
# nanosecond: the sum of its threads' run times in /proc/PID/task/*/schedstat
# (the recorders are single-threaded), else proc_cpu's clock ticks.
run_cpu() {
	local t ns=0 v
	for t in /proc/"$1"/task/*/schedstat; do
		{ [ -e "$t" ] && read -r v _ 2>/dev/null <"$t"; } || { proc_cpu "$1"; return; }
		ns=$((ns + v))
	done
	[ "$ns" -gt 0 ] || { proc_cpu "$1"; return; }
	awk -v n="$ns" 'BEGIN {printf "%.4f\n", n / 1e9}'
}

# measure TOOL EXAMPLE: prints "cpu-while-recording cpu-total samples lost
# exit-status attempts". perf attaching to examples/churn fails now and then
# (exit 255, "couldn't open /proc/TID/status": a thread exited while perf
# scanned them); such runs are retried, up to 3 attempts.
measure() {
	local tool=$1 ex=$2 tpid rpid mid samples lost rc attempt
	for attempt in 1 2 3; do
		rm -f "$TMP/ready"
		"$ex" $((DURATION + 8)) 2>"$TMP/ready" &
		tpid=$!
		wait_ready "$TMP/ready" >/dev/null
		children_cpu "$TMP/c0"
		case $tool in
		prof)
			(exec "$PROF" record -F "$FREQ" -d "$DURATION" -p "$tpid" -o "$TMP/r.rec" \
				>/dev/null 2>"$TMP/rec.err") &
			rpid=$! ;;
		perf)
			(exec "$PERF" record -g -e cpu-clock -F "$FREQ" -p "$tpid" -o "$TMP/r.data" \
				-- sleep "$DURATION" >/dev/null 2>"$TMP/rec.err") &
			rpid=$! ;;
		esac
		sleep $((DURATION - 1))
		mid=$(run_cpu "$rpid")
		rc=0
		stop_within "$rpid" 120 || rc=$?
		children_cpu "$TMP/c1"
		kill "$tpid" 2>/dev/null || true
		wait "$tpid" 2>/dev/null || true
		if [ "$rc" = 0 ] || [ "$tool" != perf ]; then break; fi
		say "perf exited $rc: $(grep . "$TMP/rec.err" | tail -1)"
	done
	if [ "$tool" = prof ]; then
		samples=$(summary_field "$TMP/rec.err" samples)
		lost=$(summary_field "$TMP/rec.err" lost)
	else
		samples=$(perf_samples "$TMP/rec.err")
		lost=$(perf_lost "$TMP/r.data")
	fi
	echo "$mid $(cat "$TMP/c0" "$TMP/c1" | awk 'NR == 1 {a = $1} NR == 2 {printf "%.3f\n", $1 - a}')" \
		"$samples $lost $rc $attempt"
}

pct() {
	awk -v c="$1" -v d="$2" 'BEGIN {if (c ~ /^[0-9.]+$/) printf "%.2f%% (%.3f s)\n", 100 * c / d, c; else print "?"}'
}

fail=0
rows=()
for name in threads churn; do
	ex=$(build_example "$name")
	for tool in prof perf; do
		say "$tool on examples/$name, $FREQ Hz, $DURATION s"
		read -r mid total samples lost rc attempts < <(measure "$tool" "$ex")
		verdict=""
		[ "$rc" = 0 ] || verdict=" **exit $rc**"
		[ "$attempts" = 1 ] || verdict="$verdict (attempt $attempts)"
		if [ "$tool" = prof ]; then
			if [ "$rc" != 0 ] || awk -v c="$mid" -v d=$((DURATION - 1)) -v m="$MAX_CPU_PCT" \
				'BEGIN {exit !(c !~ /^[0-9.]+$/ || 100 * c / d > m)}'; then
				verdict="$verdict **over ${MAX_CPU_PCT}% or failed**"
				fail=1
			fi
		fi
		rows+=("| $name | $tool | $(pct "$mid" $((DURATION - 1)))$verdict | $total | $samples | $lost |")
	done
done

echo "### Recorder CPU"
echo
echo "$ENV_LINE"
echo
echo "Attached for $DURATION s at $FREQ Hz to a fresh run of the example. While recording:" \
	"the recorder's CPU over the first $((DURATION - 1)) s, in % of one CPU. Total: CPU" \
	"seconds until it exited, finalization included. perf: \`perf record -g -e cpu-clock -p PID" \
	"-- sleep $DURATION\`. examples/churn has threads exiting all the time: a recorder" \
	"that polls dead threads' fds spins there."
echo
echo "| target | recorder | CPU while recording | total CPU (s) | samples | lost |"
echo "|---|---|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
if [ "$fail" = 0 ]; then
	echo "prof stayed under ${MAX_CPU_PCT}% of a CPU while recording, threads exiting or not."
else
	echo "**prof used more than ${MAX_CPU_PCT}% of a CPU while recording, or failed.**"
fi
exit "$fail"
