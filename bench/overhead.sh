#!/bin/bash
# bench/overhead.sh: how much prof and perf slow down the process they record,
# and how many bytes each writes per sample.
#
#   bench/overhead.sh            PROF=path (default build/prof)
#
# Workload: bench/cpu-bound (2 threads, a fixed amount of work, ~2.5 s), which
# reports the elapsed time of its own work, so profiler start-up and
# finalization don't count as slowdown. For each frequency in FREQS:
#   launch mode  hyperfine runs bare / `perf record -g -F F -- workload` /
#                `prof record -F F -- workload`, ROUNDS rounds of RUNS runs
#                each, rounds interleaved; reports the workload's own time
#                and hyperfine's end-to-end time (this one includes the
#                recorder's start-up and finalization, symbolization included).
#   attach mode  the workload starts, sleeps DELAY s, then works; the recorder
#                attaches with -p PID during the sleep; bare / perf / prof runs
#                interleaved one by one, ROUNDS x RUNS each.
# Then one more recording per tool and frequency for bytes per sample.
# perf gets `-e cpu-clock` (what prof samples on machines without a PMU).
#
# Env: FREQS ("99 999 4999"), ROUNDS (3), RUNS (3), DELAY (1), THREADS (2),
# LEAVES (the workload's default), PERF (perf). Prints markdown on stdout.
set -eu
BENCH_NAME=overhead
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

FREQS=${FREQS:-99 999 4999}
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-3}
DELAY=${DELAY:-1}
THREADS=${THREADS:-2}
need_tools hyperfine
build_workload
ENV_LINE=$(env_line)
WARGS=(-t "$THREADS")
[ -n "${LEAVES:-}" ] && WARGS+=(-n "$LEAVES")
LOG=$TMP/elapsed.log
: >"$LOG"

q() { printf '%q ' "$@"; }

# launch F: the hyperfine rounds for one frequency; appends to $LOG, and the
# per-round end-to-end means to $TMP/e2e.log as "tool-F seconds".
launch() {
	local f=$1 r
	for r in $(seq "$ROUNDS"); do
		say "launch mode, $f Hz, round $r of $ROUNDS"
		hyperfine -N --runs "$RUNS" --export-csv "$TMP/round.csv" \
			-n "bare-$f" "$(q "$W" "${WARGS[@]}" -o "$LOG" -L "launch-bare-$f")" \
			-n "perf-$f" "$(q "$PERF" record -q -g -e cpu-clock -F "$f" -o "$TMP/launch.data" \
				-- "$W" "${WARGS[@]}" -o "$LOG" -L "launch-perf-$f")" \
			-n "prof-$f" "$(q "$PROF" record -F "$f" -o "$TMP/launch.rec" \
				-- "$W" "${WARGS[@]}" -o "$LOG" -L "launch-prof-$f")" >&2
		# hyperfine's csv: command,mean,stddev,median,user,system,min,max
		awk -F, 'NR > 1 {print $1, $2}' "$TMP/round.csv" >>"$TMP/e2e.log"
	done
}

# attach_once TOOL F: one attach-mode run.
attach_once() {
	local tool=$1 f=$2 wpid rpid=
	rm -f "$TMP/ready"
	"$W" "${WARGS[@]}" -d "$DELAY" -o "$LOG" -L "attach-$tool-$f" >/dev/null 2>"$TMP/ready" &
	wpid=$!
	wait_ready "$TMP/ready" >/dev/null
	case $tool in
	perf)
		"$PERF" record -q -g -e cpu-clock -F "$f" -p "$wpid" -o "$TMP/attach.data" \
			>/dev/null 2>"$TMP/attach.err" &
		rpid=$! ;;
	prof)
		"$PROF" record -F "$f" -p "$wpid" -o "$TMP/attach.rec" >/dev/null 2>"$TMP/attach.err" &
		rpid=$! ;;
	esac
	wait "$wpid" || die "the workload failed"
	# Recorders stop when their target exits; allow time to finalize.
	[ -z "$rpid" ] || stop_within "$rpid" 60
}

attach() {
	local f=$1 i tool
	for i in $(seq $((ROUNDS * RUNS))); do
		say "attach mode, $f Hz, run $i of $((ROUNDS * RUNS))"
		for tool in bare perf prof; do
			attach_once "$tool" "$f"
		done
	done
}

# size F: one recording per tool; prints "perf_bps prof_bps perf_samples prof_samples".
size() {
	local f=$1 ps fs pb fb
	"$PERF" record -g -e cpu-clock -F "$f" -o "$TMP/size.data" -- "$W" "${WARGS[@]}" \
		>/dev/null 2>"$TMP/perf.err" || die "perf record failed: $(tail -3 "$TMP/perf.err")"
	"$PROF" record -F "$f" -o "$TMP/size.rec" -- "$W" "${WARGS[@]}" \
		>/dev/null 2>"$TMP/prof.err" || die "prof record failed: $(tail -3 "$TMP/prof.err")"
	ps=$(perf_samples "$TMP/perf.err")
	fs=$(summary_field "$TMP/prof.err" samples)
	pb=$(file_bytes "$TMP/size.data")
	fb=$(file_bytes "$TMP/size.rec")
	echo "$(ratio "$pb" "$ps" %.0f) $(ratio "$fb" "$fs" %.0f) $ps $fs"
}

: >"$TMP/e2e.log"
say "warming up"
"$W" "${WARGS[@]}" >/dev/null 2>&1
for f in $FREQS; do
	launch "$f"
	attach "$f"
	size "$f" >"$TMP/size-$f"
done

echo "### Target slowdown"
echo
echo "$ENV_LINE"
echo
echo "Workload: \`bench/cpu-bound -t $THREADS\` (fixed work; it times itself)," \
	"$((ROUNDS * RUNS)) runs per cell, interleaved. perf: \`perf record -g -e cpu-clock -F F\`;" \
	"prof: \`prof record -F F\`. The workload's own elapsed time: median (sd);" \
	"slowdown of the medians against bare. End-to-end: hyperfine's mean wall time of the" \
	"whole command, recorder start-up and finalization included."
echo
echo "| mode | Hz | bare (s) | perf (s) | perf slowdown | prof (s) | prof slowdown | end-to-end bare / perf / prof (s) |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
for f in $FREQS; do
	for mode in launch attach; do
		read -r bm bsd _ < <(stats "$LOG" "$mode-bare-$f")
		read -r pm psd _ < <(stats "$LOG" "$mode-perf-$f")
		read -r fm fsd _ < <(stats "$LOG" "$mode-prof-$f")
		e2e="—"
		if [ "$mode" = launch ]; then
			e2e=$(for t in bare perf prof; do
				awk -v t="$t-$f" '$1 == t {s += $2; n++}
					END {if (n) printf "%.2f", s / n; else printf "?"}' "$TMP/e2e.log"
				[ "$t" = prof ] || printf ' / '
			done)
		fi
		echo "| $mode | $f | $bm ($bsd) | $pm ($psd) | $(slowdown "$pm" "$bm") |" \
			"$fm ($fsd) | $(slowdown "$fm" "$bm") | $e2e |"
	done
done
echo
echo "### Bytes per sample"
echo
echo "One launch-mode recording of the same workload per tool and frequency: file size / samples."
echo
echo "| Hz | perf samples | perf B/sample | prof samples | prof B/sample | prof / perf |"
echo "|---:|---:|---:|---:|---:|---:|"
for f in $FREQS; do
	read -r pbps fbps ps fs <"$TMP/size-$f"
	echo "| $f | $ps | $pbps | $fs | $fbps | $(ratio "$fbps" "$pbps" %.2f) |"
done
