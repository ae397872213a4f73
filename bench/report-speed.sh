#!/bin/bash
# bench/report-speed.sh: how fast `prof report` reads a big recording, against
# perf on a perf.data of the same workload and sample count.
#
#   bench/report-speed.sh            PROF=path (default build/prof)
#
# Records bench/cpu-bound (THREADS threads, walks of 1-8 frames: about 10,000
# distinct stacks) once with `prof record -F FREQ` and once with
# `perf record -g -e cpu-clock -F FREQ`, running it long enough for about
# SAMPLES samples (the workload's speed is measured first; a run is capped at
# MAX_SECONDS, and the table then gives the actual counts and times scaled to
# a million samples). Then hyperfine times, RUNS runs each after a warm-up
# run (the files are in the page cache), output thrown away:
#   prof report -i REC
#   perf report --stdio -i DATA      (its default: children, call graph)
#   perf report --stdio --no-children -g none -i DATA   (a flat profile, perf's
#                                    cheapest report)
#   perf script -i DATA              (what FlameGraph users fold)
# It also checks that prof report's counts add up to the recorded samples.
#
# Env: SAMPLES (1000000), FREQ (4999), THREADS (nproc), MAX_SECONDS (150),
# RUNS (3), PERF (perf). Needs a few hundred MB in TMPDIR. Prints markdown.
set -eu
BENCH_NAME=report-speed
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

SAMPLES=${SAMPLES:-1000000}
FREQ=${FREQ:-4999}
THREADS=${THREADS:-$(nproc)}
MAX_SECONDS=${MAX_SECONDS:-150}
RUNS=${RUNS:-3}
need_tools hyperfine
build_workload
ENV_LINE=$(env_line)

# Leaves (the workload's unit of work) per CPU-second of one thread.
say "measuring the workload's speed"
cal=$("$W" -t 1 -n 100000 2>/dev/null | awk '{print $2}')
secs=$(awk -v s="$SAMPLES" -v f="$FREQ" -v t="$THREADS" -v m="$MAX_SECONDS" \
	'BEGIN {x = 1.05 * s / (f * t); printf "%.1f\n", (x > m ? m : x)}')
leaves=$(awk -v c="$cal" -v s="$secs" 'BEGIN {printf "%d\n", 100000 / c * s}')
WARGS=(-t "$THREADS" -n "$leaves")

say "recording with prof for about $secs s"
"$PROF" record -F "$FREQ" -o "$TMP/big.rec" -- "$W" "${WARGS[@]}" >/dev/null 2>"$TMP/prof.err" ||
	die "prof record failed: $(tail -3 "$TMP/prof.err")"
say "recording with perf for about $secs s"
"$PERF" record -g -e cpu-clock -F "$FREQ" -o "$TMP/big.data" -- "$W" "${WARGS[@]}" \
	>/dev/null 2>"$TMP/perf.err" || die "perf record failed: $(tail -3 "$TMP/perf.err")"
fs=$(summary_field "$TMP/prof.err" samples)
ps=$(perf_samples "$TMP/perf.err")
fb=$(file_bytes "$TMP/big.rec")
pb=$(file_bytes "$TMP/big.data")

say "checking prof report's total"
total=$("$PROF" report -i "$TMP/big.rec" | awk '{n += $NF} END {print n + 0}')
lines=$("$PROF" report -i "$TMP/big.rec" | wc -l)

say "timing the reports, $RUNS runs each"
hyperfine -N --warmup 1 --runs "$RUNS" --export-csv "$TMP/times.csv" \
	-n prof-report "$(printf '%q ' "$PROF" report -i "$TMP/big.rec")" \
	-n perf-report "$(printf '%q ' "$PERF" report --stdio -i "$TMP/big.data")" \
	-n perf-report-flat "$(printf '%q ' "$PERF" report --stdio --no-children -g none \
		-i "$TMP/big.data")" \
	-n perf-script "$(printf '%q ' "$PERF" script -i "$TMP/big.data")" >&2
# hyperfine's csv: command,mean,stddev,median,user,system,min,max
t() { awk -F, -v c="$1" '$1 == c {printf "%.3f %.3f\n", $2, $3}' "$TMP/times.csv"; }
read -r tf tfsd < <(t prof-report)
read -r tr trsd < <(t perf-report)
read -r tfl tflsd < <(t perf-report-flat)
read -r tsc tscsd < <(t perf-script)
per_m() { awk -v t="$1" -v n="$2" 'BEGIN {if (n + 0 > 0) printf "%.4f\n", t * 1e6 / n; else print "?"}'; }

echo "### Report speed"
echo
echo "$ENV_LINE"
echo
echo "\`bench/cpu-bound -t $THREADS\` recorded at $FREQ Hz by each tool, then read with its" \
	"output thrown away; hyperfine, 1 warm-up and $RUNS runs, mean ± sd. perf.data from" \
	"\`perf record -g -e cpu-clock\`. The last column compares time per sample, as the" \
	"two recordings' sample counts differ a little. \`prof report\` printed $lines folded" \
	"stacks whose counts add up to $total samples."
echo
echo "| command | samples | file size | time (s) | s per million samples | ÷ prof report (per sample) |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| \`prof report\` | $fs | $((fb / 1024)) KB | $tf ± $tfsd | $(per_m "$tf" "$fs") | 1 |"
echo "| \`perf report --stdio\` | $ps | $((pb / 1024)) KB | $tr ± $trsd | $(per_m "$tr" "$ps") |" \
	"$(ratio "$(per_m "$tr" "$ps")" "$(per_m "$tf" "$fs")")× |"
echo "| \`perf report --stdio --no-children -g none\` | $ps | $((pb / 1024)) KB | $tfl ± $tflsd |" \
	"$(per_m "$tfl" "$ps") | $(ratio "$(per_m "$tfl" "$ps")" "$(per_m "$tf" "$fs")")× |"
echo "| \`perf script\` | $ps | $((pb / 1024)) KB | $tsc ± $tscsd | $(per_m "$tsc" "$ps") |" \
	"$(ratio "$(per_m "$tsc" "$ps")" "$(per_m "$tf" "$fs")")× |"
