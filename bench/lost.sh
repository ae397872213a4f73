#!/bin/bash
# bench/lost.sh: samples lost at a high frequency, every thread of the target
# busy, as prof's summary line reports them ("N lost"), next to the samples perf
# reports lost for the same run (its PERF_RECORD_LOST records).
#
#   bench/lost.sh            PROF=path (default build/prof)
#
# Runs, for prof and for perf (perf record -g -e cpu-clock), at FREQ Hz:
#   launch  bench/cpu-bound with one thread per CPU (all CPUs busy)
#   launch  bench/cpu-bound with 4 threads per CPU (oversubscribed)
#   attach  examples/churn (threads starting and exiting), DURATION s
# and prints samples, lost samples and the lost share. For the two launched
# cases it also prints the samples to expect (the workload's elapsed time x
# busy CPUs x FREQ), which shows samples dropped without a lost count (e.g.
# throttled by the kernel).
#
# Env: FREQ (4999), DURATION (5), PERF (perf), CALL_GRAPH (fp; dwarf: prof
# --call-graph dwarf against perf --call-graph dwarf,32768, the same stack
# copy). Prints markdown on stdout.
set -eu
BENCH_NAME=lost
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

FREQ=${FREQ:-4999}
DURATION=${DURATION:-5}
need_tools awk
build_workload
ENV_LINE=$(env_line)
RATE0=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo ?)
CHURN=$(build_example churn)
N=$(nproc)
CALL_GRAPH=${CALL_GRAPH:-fp}
case $CALL_GRAPH in
fp) PROF_CG=() PERF_CG=(-g) ;;
dwarf) PROF_CG=(--call-graph dwarf) PERF_CG=(--call-graph dwarf,32768) ;;
*) echo "CALL_GRAPH must be fp or dwarf" >&2; exit 2 ;;
esac

# attach TOOL: one attached run on examples/churn; returns the recorder's status.
attach() {
	local tool=$1 tpid rpid rc=0
	rm -f "$TMP/ready"
	"$CHURN" $((DURATION + 5)) 2>"$TMP/ready" &
	tpid=$!
	wait_ready "$TMP/ready" >/dev/null
	if [ "$tool" = prof ]; then
		"$PROF" record "${PROF_CG[@]}" -F "$FREQ" -d "$DURATION" -p "$tpid" -o "$TMP/l.rec" \
			>/dev/null 2>"$TMP/l.err" &
	else
		"$PERF" record "${PERF_CG[@]}" -e cpu-clock -F "$FREQ" -p "$tpid" -o "$TMP/l.data" \
			-- sleep "$DURATION" >/dev/null 2>"$TMP/l.err" &
	fi
	rpid=$!
	stop_within "$rpid" $((DURATION + 60)) || rc=$?
	kill "$tpid" 2>/dev/null || true
	wait "$tpid" 2>/dev/null || true
	return "$rc"
}

# run TOOL CASE: prints "samples lost status expected". perf attaching to churn fails
# now and then (exit 255, "couldn't open /proc/TID/status": a thread exited
# while perf scanned them): retried, up to 3 attempts.
run() {
	local tool=$1 c=$2 cmd=() rc=0 busy=$N expected
	case $c in
	all-cpus) cmd=("$W" -t "$N") ;;
	oversubscribed) cmd=("$W" -t $((4 * N)) -n $((750000 / 4))) ;;
	churn)
		for _ in 1 2 3; do
			rc=0
			attach "$tool" || rc=$?
			if [ "$rc" = 0 ] || [ "$tool" != perf ]; then break; fi
			say "perf exited $rc: $(grep . "$TMP/l.err" | tail -1)"
		done ;;
	esac
	expected="—"
	if [ "$c" != churn ]; then
		if [ "$tool" = prof ]; then
			"$PROF" record "${PROF_CG[@]}" -F "$FREQ" -o "$TMP/l.rec" -- "${cmd[@]}" >"$TMP/l.out" 2>"$TMP/l.err" || rc=$?
		else
			"$PERF" record "${PERF_CG[@]}" -e cpu-clock -F "$FREQ" -o "$TMP/l.data" -- "${cmd[@]}" \
				>"$TMP/l.out" 2>"$TMP/l.err" || rc=$?
		fi
		expected=$(awk -v b="$busy" -v f="$FREQ" '/^elapsed / {printf "%d\n", $2 * b * f}' "$TMP/l.out")
	fi
	if [ "$tool" = prof ]; then
		echo "$(summary_field "$TMP/l.err" samples) $(summary_field "$TMP/l.err" lost) $rc ${expected:-?}"
	else
		echo "$(perf_samples "$TMP/l.err") $(perf_lost "$TMP/l.data") $rc ${expected:-?}"
	fi
}

rows=()
for c in all-cpus oversubscribed churn; do
	for tool in prof perf; do
		say "$tool, $c, $FREQ Hz"
		read -r samples lost rc expected < <(run "$tool" "$c")
		[ "$rc" = 0 ] || lost="$lost (**exit $rc**)"
		share=$(awk -v s="$samples" -v l="$lost" 'BEGIN {
			if (s !~ /^[0-9]+$/ || l !~ /^[0-9]+$/ || s + l == 0) print "?"
			else printf "%.2f%%\n", 100 * l / (s + l) }')
		rows+=("| $c | $tool | $samples | $expected | $lost | $share |")
	done
done
RATE1=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo ?)

echo "### Lost samples"
echo
echo "$ENV_LINE"
echo
echo "At $FREQ Hz, call graphs: $CALL_GRAPH (prof ${PROF_CG[*]:-}, perf ${PERF_CG[*]}). all-cpus: \`bench/cpu-bound -t $N\` (one busy thread per CPU);" \
	"oversubscribed: \`-t $((4 * N))\`; both launched by the recorder. churn: attached" \
	"for $DURATION s to examples/churn. perf: \`perf record -e cpu-clock\`, lost = its" \
	"lost samples (perf report's \"Total Lost Samples\"); prof: the summary line's count." \
	"Expected: the workload's own elapsed time × $N busy CPUs × $FREQ."
echo
echo "| target | recorder | samples | expected | lost | lost share |"
echo "|---|---|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
if [ "$RATE0" != "$RATE1" ]; then
	echo
	echo "The kernel lowered perf_event_max_sample_rate from $RATE0 to $RATE1 during these" \
		"runs (sampling took too long): later runs may have been throttled."
fi
