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
#                each (by default 9 rounds of 1: the three commands run one
#                after the other, their order rotated every round); reports
#                the workload's own time and hyperfine's end-to-end time (this
#                one includes the recorder's start-up and finalization,
#                symbolization included).
#   attach mode  the workload starts, sleeps DELAY s, then works; the recorder
#                attaches with -p PID during the sleep; bare / perf / prof runs
#                interleaved one by one (order rotated), ROUNDS x RUNS each.
#                The recorders' sample counts are kept, to show they were
#                attached for the whole of the work.
# Then, for bytes per sample, one longer recording per tool and frequency:
# the workload sized to run about SIZE_SECONDS, so that the files' fixed
# parts (headers, mappings, symbols) don't dominate.
# perf gets `-e cpu-clock` (what prof samples on machines without a PMU).
#
# Env: FREQS ("99 999 4999"), ROUNDS (9), RUNS (1), DELAY (1), THREADS (2),
# LEAVES (the workload's default), SIZE_SECONDS (10), PERF (perf). Prints
# markdown on stdout.
set -eu
BENCH_NAME=overhead
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

FREQS=${FREQS:-99 999 4999}
ROUNDS=${ROUNDS:-9}
RUNS=${RUNS:-1}
SIZE_SECONDS=${SIZE_SECONDS:-10}
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

# paired LOG MODE F BARE: "median +x.xx, k/n": the per-round differences
# (prof - perf) / BARE in points, the n-th prof run paired with the n-th perf
# run (same round, side by side): their median, and in how many rounds prof
# slowed the target more than perf.
paired() {
	awk -v p="$2-perf-$3" -v f="$2-prof-$3" -v b="$4" '
		$1 == p {a[np++] = $2} $1 == f {c[nf++] = $2}
		END {n = np < nf ? np : nf
			if (!n || b + 0 == 0) {print "?"; exit}
			for (i = 0; i < n; i++) {d[i] = (c[i] - a[i]) / b * 100; k += d[i] > 0}
			for (i = 1; i < n; i++)
				for (j = i; j > 0 && d[j - 1] > d[j]; j--) {t = d[j]; d[j] = d[j - 1]; d[j - 1] = t}
			m = n % 2 ? d[(n - 1) / 2] : (d[n / 2 - 1] + d[n / 2]) / 2
			printf "%+.2f, %d/%d\n", m, k, n}' "$1"
}

# rotate N WORD...: the words rotated left by N (round r runs the tools in
# another order than round r - 1, so no tool always runs first or last).
rotate() {
	local n=$1
	shift
	n=$((n % $#))
	echo "${@:n+1}" "${@:1:n}"
}

# launch F: the hyperfine rounds for one frequency; appends to $LOG, and the
# per-round end-to-end means to $TMP/e2e.log as "tool-F seconds".
launch() {
	local f=$1 r tool args
	for r in $(seq "$ROUNDS"); do
		say "launch mode, $f Hz, round $r of $ROUNDS"
		args=()
		for tool in $(rotate "$r" bare perf prof); do
			case $tool in
			bare) args+=(-n "bare-$f" "$(q "$W" "${WARGS[@]}" -o "$LOG" -L "launch-bare-$f")") ;;
			perf) args+=(-n "perf-$f" "$(q "$PERF" record -q -g -e cpu-clock -F "$f" \
				-o "$TMP/launch.data" -- "$W" "${WARGS[@]}" -o "$LOG" -L "launch-perf-$f")") ;;
			prof) args+=(-n "prof-$f" "$(q "$PROF" record -F "$f" -o "$TMP/launch.rec" \
				-- "$W" "${WARGS[@]}" -o "$LOG" -L "launch-prof-$f")") ;;
			esac
		done
		hyperfine -N --runs "$RUNS" --export-csv "$TMP/round.csv" "${args[@]}" >&2
		# hyperfine's csv: command,mean,stddev,median,user,system,min,max
		awk -F, 'NR > 1 {print $1, $2}' "$TMP/round.csv" >>"$TMP/e2e.log"
	done
}

# attach_once TOOL F: one attach-mode run. Logs the recorder's sample count
# as "samples-attach-TOOL-F N".
attach_once() {
	local tool=$1 f=$2 wpid rpid="" rc=0 n
	rm -f "$TMP/ready"
	"$W" "${WARGS[@]}" -d "$DELAY" -o "$LOG" -L "attach-$tool-$f" >/dev/null 2>"$TMP/ready" &
	wpid=$!
	wait_ready "$TMP/ready" >/dev/null
	case $tool in
	perf)
		"$PERF" record -g -e cpu-clock -F "$f" -p "$wpid" -o "$TMP/attach.data" \
			>/dev/null 2>"$TMP/attach.err" &
		rpid=$! ;;
	prof)
		"$PROF" record -F "$f" -p "$wpid" -o "$TMP/attach.rec" >/dev/null 2>"$TMP/attach.err" &
		rpid=$! ;;
	esac
	wait "$wpid" || die "the workload failed"
	[ -n "$rpid" ] || return 0
	# Recorders stop when their target exits; allow time to finalize.
	stop_within "$rpid" 60 || rc=$?
	[ "$rc" = 0 ] || die "$tool record -p exited $rc: $(tail -3 "$TMP/attach.err")"
	if [ "$tool" = perf ]; then n=$(perf_samples "$TMP/attach.err"); else
		n=$(summary_field "$TMP/attach.err" samples); fi
	echo "samples-attach-$tool-$f $n" >>"$LOG"
}

attach() {
	local f=$1 i tool
	for i in $(seq $((ROUNDS * RUNS))); do
		say "attach mode, $f Hz, run $i of $((ROUNDS * RUNS))"
		for tool in $(rotate "$i" bare perf prof); do
			attach_once "$tool" "$f"
		done
	done
}

# size F: one recording per tool of the workload sized to run about
# SIZE_SECONDS (from the bare launch-mode median); prints "perf_bps prof_bps
# perf_samples prof_samples perf_bytes prof_bytes".
size() {
	local f=$1 ps fs pb fb bare leaves sargs
	bare=$(stats "$LOG" "launch-bare-$f" | cut -d' ' -f1)
	leaves=$(awk -v n="${LEAVES:-750000}" -v b="$bare" -v s="$SIZE_SECONDS" \
		'BEGIN {printf "%d\n", (b + 0 > 0 ? n * s / b : n)}')
	sargs=(-t "$THREADS" -n "$leaves")
	say "bytes per sample, $f Hz: -n $leaves (about $SIZE_SECONDS s)"
	"$PERF" record -g -e cpu-clock -F "$f" -o "$TMP/size.data" -- "$W" "${sargs[@]}" \
		>/dev/null 2>"$TMP/perf.err" || die "perf record failed: $(tail -3 "$TMP/perf.err")"
	"$PROF" record -F "$f" -o "$TMP/size.rec" -- "$W" "${sargs[@]}" \
		>/dev/null 2>"$TMP/prof.err" || die "prof record failed: $(tail -3 "$TMP/prof.err")"
	ps=$(perf_samples "$TMP/perf.err")
	fs=$(summary_field "$TMP/prof.err" samples)
	pb=$(file_bytes "$TMP/size.data")
	fb=$(file_bytes "$TMP/size.rec")
	echo "$(ratio "$pb" "$ps" %.1f) $(ratio "$fb" "$fs" %.1f) $ps $fs $pb $fb"
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
	"$((ROUNDS * RUNS)) runs per cell; bare, perf and prof runs interleaved ($ROUNDS rounds of" \
	"$RUNS, order rotated every round). perf: \`perf record -g -e cpu-clock -F F\`;" \
	"prof: \`prof record -F F\`. The workload's own elapsed time: median (sd);" \
	"slowdown of the medians against bare; prof − perf: the difference of the two" \
	"slowdowns, in points (negative: prof slowed the target less); paired: the median of the" \
	"per-round differences (prof run − perf run of the same round, in points of bare), and in" \
	"how many rounds prof's run was the slower. End-to-end: hyperfine's" \
	"mean wall time of the whole command, recorder start-up and finalization included." \
	"Attach: the recorders' median sample count, and what $THREADS busy threads would give" \
	"over the bare run's time."
echo
echo "| mode | Hz | bare (s) | perf (s) | perf slowdown | prof (s) | prof slowdown | prof − perf | paired | end-to-end bare / perf / prof (s) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for f in $FREQS; do
	for mode in launch attach; do
		read -r bm bsd _ < <(stats "$LOG" "$mode-bare-$f")
		read -r pm psd _ < <(stats "$LOG" "$mode-perf-$f")
		read -r fm fsd _ < <(stats "$LOG" "$mode-prof-$f")
		diff=$(awk -v p="$pm" -v f="$fm" -v b="$bm" 'BEGIN {
			if (p !~ /^[0-9.]+$/ || f !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b == 0) print "?"
			else printf "%+.1f\n", (f - p) / b * 100 }')
		if [ "$mode" = launch ]; then
			e2e=$(for t in bare perf prof; do
				awk -v t="$t-$f" '$1 == t {s += $2; n++}
					END {if (n) printf "%.2f", s / n; else printf "?"}' "$TMP/e2e.log"
				[ "$t" = prof ] || printf ' / '
			done)
		else
			e2e="samples perf $(stats "$LOG" "samples-attach-perf-$f" | awk '{printf "%d", $1}'),"
			e2e="$e2e prof $(stats "$LOG" "samples-attach-prof-$f" | awk '{printf "%d", $1}')"
			e2e="$e2e (busy: $(awk -v b="$bm" -v t="$THREADS" -v f="$f" 'BEGIN {printf "%d", b * t * f}'))"
		fi
		echo "| $mode | $f | $bm ($bsd) | $pm ($psd) | $(slowdown "$pm" "$bm") |" \
			"$fm ($fsd) | $(slowdown "$fm" "$bm") | $diff | $(paired "$LOG" "$mode" "$f" "$bm") | $e2e |"
	done
done
echo
echo "### Bytes per sample"
echo
echo "One launch-mode recording per tool and frequency of the workload sized to run about" \
	"$SIZE_SECONDS s (\`-t $THREADS -n LEAVES\`): file size / samples."
echo
echo "| Hz | perf samples | perf bytes | perf B/sample | prof samples | prof bytes | prof B/sample | prof / perf |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
for f in $FREQS; do
	read -r pbps fbps ps fs pb fb <"$TMP/size-$f"
	echo "| $f | $ps | $pb | $pbps | $fs | $fb | $fbps | $(ratio "$fbps" "$pbps" %.3f) |"
done
