#!/bin/bash
# bench/sched-overhead.sh: how much recording every context switch slows down
# a switch-heavy target, with perf and with `prof record --sched`, and how
# many bytes each writes per switch event and how many it loses.
#
#   bench/sched-overhead.sh      PROF=path (default build/prof), PROF_ARGS
#
# Workload: examples/pingpong (PAIRS pairs of threads passing a token through
# a futex, TRIPS round trips per pair: 50 threads and about 1.9 million
# context switches by default, ~2.5 s here), which reports the elapsed time of
# its own work, so recorder start-up and finalization don't count as
# slowdown. The recorders:
#   perf-g  perf record -e sched:sched_switch -g   (the issue's command)
#   perf    perf record -e sched:sched_switch      (no call stacks)
#   prof    prof record --sched PROF_ARGS          (skipped, with a message,
#           when `prof record --sched` fails, e.g. before it exists)
# in two modes:
#   launch  hyperfine runs bare / perf-g / perf / prof `-- workload`, ROUNDS
#           rounds of RUNS runs each (by default 5 rounds of 1, the commands
#           one after the other, their order rotated every round); also
#           hyperfine's end-to-end mean, which includes the recorder's
#           start-up and finalization. Then one more launch-mode recording
#           per tool, its stderr kept, for the counts below.
#   attach  the workload starts, says "ready PID", sleeps DELAY s, then
#           works; the recorder attaches with -p PID during the sleep and
#           stops when the workload exits. bare / perf-g / perf / prof runs
#           interleaved one by one (order rotated), ROUNDS x RUNS each.
# Counts per recording: switch events (perf: its sched_switch samples, from
# `perf report --stats`; prof: the sum of the `switches` column of
# `prof sched --format csv`, else the "N switches" of its summary on stderr),
# lost events (perf: the LOST_SAMPLES count of the sched_switch section of
# `perf report --stats`, i.e. samples, not LOST records; prof: its summary's
# "N switch events lost" / "lost N", else its "N lost"), and file bytes per
# switch event. Attach mode: the medians over its runs.
#
# Env: ROUNDS (5), RUNS (1), DELAY (1), PAIRS (25), TRIPS (the workload's
# default), PROF_ARGS (""), PERF (perf). Prints markdown on stdout.
set -eu
BENCH_NAME=sched-overhead
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

ROUNDS=${ROUNDS:-5}
RUNS=${RUNS:-1}
DELAY=${DELAY:-1}
PAIRS=${PAIRS:-25}
read -ra PARGS <<<"${PROF_ARGS:-}"
command -v "$PERF" >/dev/null || die "cannot find '$PERF'
hint: install linux-perf (make deps)"
command -v hyperfine >/dev/null || die "cannot find 'hyperfine'
hint: install it (make deps)"
PP=$(build_example pingpong)
WARGS=(-p "$PAIRS")
[ -n "${TRIPS:-}" ] && WARGS+=(-n "$TRIPS")
LOG=$TMP/elapsed.log
: >"$LOG"
: >"$TMP/e2e.log"
: >"$TMP/counts.log"

# Is `prof record --sched` there? A tiny run tells.
TOOLS=(bare perf-g perf prof)
PROF_NOTE=
REC=()
if ! "$PROF" record --sched "${PARGS[@]}" -o "$TMP/probe.rec" -- "$PP" -p 1 -n 100 \
	>/dev/null 2>"$TMP/probe.err"; then
	PROF_NOTE="prof skipped: \`$PROF record --sched${PROF_ARGS:+ $PROF_ARGS}\` failed: $(grep . "$TMP/probe.err" |
		grep -v '^ready ' | head -1)"
	say "$PROF_NOTE"
	TOOLS=(bare perf-g perf)
fi
ENV_LINE=$(env_line)

q() { printf '%q ' "$@"; }

# rotate N WORD...: the words rotated left by N (round r runs the tools in
# another order than round r - 1, so no tool always runs first or last).
rotate() {
	local n=$1
	shift
	n=$((n % $#))
	echo "${@:n+1}" "${@:1:n}"
}

# recorder TOOL OUT: sets REC to the recorder's command words, up to its
# target (the caller adds "-- CMD..." or "-p PID").
recorder() {
	case $1 in
	perf-g) REC=("$PERF" record -g -e sched:sched_switch -o "$2") ;;
	perf) REC=("$PERF" record -e sched:sched_switch -o "$2") ;;
	prof) REC=("$PROF" record --sched "${PARGS[@]}" -o "$2") ;;
	esac
}

# out_file TOOL MODE: where TOOL's recording goes.
out_file() {
	case $1 in
	prof) echo "$TMP/$2.rec" ;;
	*) echo "$TMP/$2-$1.data" ;;
	esac
}

# perf_stat_field DATA WHAT: from `perf report --stats`, in the
# sched:sched_switch section: "SAMPLE" (switch events recorded) or
# "LOST_SAMPLES" (switch events the kernel dropped; 0 if none).
perf_stat_field() {
	"$PERF" report -i "$1" --stats 2>/dev/null | awk -v w="$2" '
		/^sched:sched_switch stats:/ {in_sec = 1; next}
		/ stats:$/ {in_sec = 0}
		in_sec && $1 == w && $2 == "events:" {v = $3}
		END {print (v != "" ? v : (w == "LOST_SAMPLES" ? 0 : "?"))}'
}

# prof_switches REC ERR: the recording's switch events: the sum of the
# `switches` column of `prof sched --format csv`; else the "N switches" of
# the summary in ERR; else "?".
prof_switches() {
	local v
	v=$("$PROF" sched --format csv -i "$1" 2>/dev/null | awk -F, '
		NR == 1 {for (i = 1; i <= NF; i++) if ($i == "switches") c = i; next}
		c {s += $c; n++}
		END {if (c && n) print s}') || v=
	[ -n "$v" ] || v=$(grep 'prof record' "$2" 2>/dev/null | tr -d , |
		grep -oE '[0-9]+ switches' | tail -1 | cut -d' ' -f1)
	echo "${v:-?}"
}

# prof_lost ERR: switch events lost, from prof's summary: "N switch events
# lost" or "lost N" on a line about switches; else its "N lost"; else "?".
prof_lost() {
	local v
	v=$(grep 'prof record' "$1" 2>/dev/null | grep -i 'switch' | tr -d , |
		grep -oE '[0-9]+ switch events lost|lost [0-9]+' | tail -1 | tr -dc 0-9)
	[ -n "$v" ] || v=$(summary_field "$1" lost)
	echo "${v:-?}"
}

# count TOOL MODE ERR: logs "events-MODE-TOOL N", "lost-MODE-TOOL N",
# "bytes-MODE-TOOL N" for the recording just made.
count() {
	local tool=$1 mode=$2 f n lost
	f=$(out_file "$tool" "$mode")
	if [ "$tool" = prof ]; then
		n=$(prof_switches "$f" "$3")
		lost=$(prof_lost "$3")
	else
		n=$(perf_stat_field "$f" SAMPLE)
		lost=$(perf_stat_field "$f" LOST_SAMPLES)
	fi
	{
		echo "events-$mode-$tool $n"
		echo "lost-$mode-$tool $lost"
		echo "bytes-$mode-$tool $(file_bytes "$f")"
	} >>"$TMP/counts.log"
}

launch() {
	local r tool args
	for r in $(seq "$ROUNDS"); do
		say "launch mode, round $r of $ROUNDS"
		args=()
		for tool in $(rotate "$r" "${TOOLS[@]}"); do
			if [ "$tool" = bare ]; then
				args+=(-n bare "$(q "$PP" "${WARGS[@]}" -o "$LOG" -L launch-bare)")
			else
				recorder "$tool" "$(out_file "$tool" launch)"
				args+=(-n "$tool" "$(q "${REC[@]}" -- "$PP" "${WARGS[@]}" -o "$LOG" \
					-L "launch-$tool")")
			fi
		done
		hyperfine -N --runs "$RUNS" --export-csv "$TMP/round.csv" "${args[@]}" >&2
		# hyperfine's csv: command,mean,stddev,median,user,system,min,max
		awk -F, 'NR > 1 {print $1, $2}' "$TMP/round.csv" >>"$TMP/e2e.log"
	done
	# One more run per recorder, stderr kept, for the counts. Its time is
	# not logged: the hyperfine runs above are the timed ones.
	for tool in "${TOOLS[@]}"; do
		[ "$tool" = bare ] && continue
		say "launch mode, $tool: counting"
		recorder "$tool" "$(out_file "$tool" launch)"
		"${REC[@]}" -- "$PP" "${WARGS[@]}" >/dev/null 2>"$TMP/launch.err" ||
			die "$tool failed: $(tail -3 "$TMP/launch.err")"
		count "$tool" launch "$TMP/launch.err"
	done
}

# attach_once TOOL: one attach-mode run.
attach_once() {
	local tool=$1 wpid rpid="" rc=0
	rm -f "$TMP/ready"
	"$PP" "${WARGS[@]}" -d "$DELAY" -o "$LOG" -L "attach-$tool" >/dev/null 2>"$TMP/ready" &
	wpid=$!
	wait_ready "$TMP/ready" >/dev/null
	if [ "$tool" != bare ]; then
		recorder "$tool" "$(out_file "$tool" attach)"
		"${REC[@]}" -p "$wpid" >/dev/null 2>"$TMP/attach.err" &
		rpid=$!
	fi
	wait "$wpid" || die "the workload failed"
	[ -n "$rpid" ] || return 0
	# Recorders stop when their target exits; allow time to finalize.
	stop_within "$rpid" 120 || rc=$?
	[ "$rc" = 0 ] || die "$tool record -p exited $rc: $(tail -3 "$TMP/attach.err")"
	count "$tool" attach "$TMP/attach.err"
}

attach() {
	local i tool
	for i in $(seq $((ROUNDS * RUNS))); do
		say "attach mode, run $i of $((ROUNDS * RUNS))"
		for tool in $(rotate "$i" "${TOOLS[@]}"); do
			attach_once "$tool"
		done
	done
}

say "warming up"
"$PP" "${WARGS[@]}" >"$TMP/warm.out" 2>/dev/null || die "the workload failed"
HANDOFFS=$(grep -oE '[0-9]+ hand-offs' "$TMP/warm.out" | cut -d' ' -f1)
launch
attach

# median LABEL: the median of the values logged in counts.log under LABEL.
median() {
	stats "$TMP/counts.log" "$1" | awk '{print ($3 > 0 ? sprintf("%d", $1) : "?")}'
}

times_of() {
	local mode=$1 tool=$2 m sd
	if [[ " ${TOOLS[*]} " != *" $tool "* ]]; then
		echo "skipped | —"
		return
	fi
	read -r m sd _ < <(stats "$LOG" "$mode-$tool")
	echo "$m ($sd) | $(ratio "$m" "$BARE" "%.2f×")"
}

echo "### Scheduler recording: target slowdown"
echo
echo "$ENV_LINE"
echo
echo "Workload: \`examples/pingpong ${WARGS[*]}\` ($((2 * PAIRS)) threads passing tokens through" \
	"futexes, ${HANDOFFS:-?} hand-offs; it times its own work), $((ROUNDS * RUNS)) runs per cell," \
	"bare and recorded runs interleaved ($ROUNDS rounds of $RUNS, order rotated every round)." \
	"perf -g: \`perf record -e sched:sched_switch -g\`; perf: the same without \`-g\`;" \
	"prof: \`prof record --sched${PROF_ARGS:+ $PROF_ARGS}\`. The workload's own elapsed" \
	"time: median (sd); slowdown: median against bare's median. End-to-end: hyperfine's mean" \
	"wall time of the whole command, recorder start-up and finalization included. Attach:" \
	"\`-p PID\` during the workload's ${DELAY} s start delay."
[ -z "$PROF_NOTE" ] || { echo; echo "_${PROF_NOTE}_"; }
echo
echo "| mode | bare (s) | perf -g (s) | perf -g slowdown | perf (s) | perf slowdown | prof (s) | prof slowdown | end-to-end bare / perf -g / perf / prof (s) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
for mode in launch attach; do
	read -r BARE BSD _ < <(stats "$LOG" "$mode-bare")
	if [ "$mode" = launch ]; then
		e2e=$(for t in bare perf-g perf prof; do
			awk -v t="$t" '$1 == t {s += $2; n++}
				END {if (n) printf "%.2f", s / n; else printf "—"}' "$TMP/e2e.log"
			[ "$t" = prof ] || printf ' / '
		done)
	else
		e2e="—"
	fi
	echo "| $mode | $BARE ($BSD) | $(times_of "$mode" perf-g) | $(times_of "$mode" perf) |" \
		"$(times_of "$mode" prof) | $e2e |"
done
echo
echo "### Scheduler recording: bytes per switch event, lost events"
echo
echo "Switch events recorded (perf: sched_switch samples; prof: the \`switches\` of" \
	"\`prof sched --format csv\`, or of its summary), of the ${HANDOFFS:-?} hand-offs" \
	"(each normally one switch-out of a sleeping thread; preemptions add more); lost: switch" \
	"events the kernel dropped (perf: LOST_SAMPLES of \`perf report --stats\`; prof: its" \
	"summary line); bytes: the recording's size. Launch: one more recording per tool;" \
	"attach: the median of its $((ROUNDS * RUNS)) runs."
echo
echo "| mode | recorder | switch events | lost | bytes | bytes / event |"
echo "|---|---|---:|---:|---:|---:|"
for mode in launch attach; do
	for tool in perf-g perf prof; do
		if [[ " ${TOOLS[*]} " != *" $tool "* ]]; then
			echo "| $mode | $tool | skipped | | | |"
			continue
		fi
		n=$(median "events-$mode-$tool")
		b=$(median "bytes-$mode-$tool")
		echo "| $mode | $tool | $n | $(median "lost-$mode-$tool") | $b | $(ratio "$b" "$n" %.1f) |"
	done
done
