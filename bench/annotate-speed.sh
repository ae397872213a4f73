#!/bin/bash
# bench/annotate-speed.sh: how long `prof annotate` takes to show one hot
# function, against `perf annotate --stdio` on a perf.data of the same
# workload, and whether both put the samples on the same instructions.
#
#   bench/annotate-speed.sh          PROF=path (default build/prof)
#
# Records examples/hotloop (one function with one hot inner loop, -O2 -g)
# for SECONDS at FREQ Hz with `prof record` and with
# `perf record -g -e cpu-clock`, then hyperfine times, RUNS runs each after a
# warm-up run (files in the page cache), output thrown away:
#   prof annotate -i REC --color=never hot_function
#   perf annotate -i DATA --stdio hot_function
# and compares the share of hot_function's samples that each tool puts on
# the loop's instructions (from the loop's backward jump to its target).
#
# Env: SECONDS_REC (5), FREQ (999), RUNS (10), PERF (perf). Prints markdown.
set -eu
BENCH_NAME=annotate-speed
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

SECONDS_REC=${SECONDS_REC:-5}
FREQ=${FREQ:-999}
RUNS=${RUNS:-10}
need_tools hyperfine objdump
HOT=$(build_example hotloop)
ENV_LINE=$(env_line)

say "recording hotloop with prof and perf, $SECONDS_REC s each at $FREQ Hz"
"$PROF" record -F "$FREQ" -o "$TMP/hot.rec" -- "$HOT" "$SECONDS_REC" >/dev/null \
	2>"$TMP/prof.err" || die "prof record failed: $(tail -3 "$TMP/prof.err")"
"$PERF" record -g -e cpu-clock -F "$FREQ" -o "$TMP/hot.data" -- "$HOT" "$SECONDS_REC" \
	>/dev/null 2>"$TMP/perf.err" || die "perf record failed: $(tail -3 "$TMP/perf.err")"

# The loop's range: the innermost backward jump of hot_function.
read -r LO HI < <(objdump -d --no-show-raw-insn --disassemble=hot_function "$HOT" |
	awk '/^ +[0-9a-f]+:\tj/ { a = $1; sub(":", "", a); print a, $3 }' |
	while read -r a t; do
		[[ "$t" =~ ^[0-9a-f]+$ ]] || continue
		a=$((16#$a)) t=$((16#$t))
		((t < a)) && echo "$((a - t)) $t $a"
	done | sort -n | head -1 | cut -d' ' -f2-)
[ -n "${LO:-}" ] || die "no loop found in hot_function"

# Share of the samples on the loop's instructions: "ADDR PERCENT" rows.
loop_share() {
	awk -v lo="$LO" -v hi="$HI" '
		function hex(s,  i, c, v) { v = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 }
			return v }
		{ a = hex($1); t += $2; if (a >= lo && a <= hi) s += $2 }
		END { if (t > 0) printf "%.1f%%\n", 100 * s / t; else print "?" }'
}
"$PROF" annotate -i "$TMP/hot.rec" --no-source --color=never hot_function >"$TMP/prof.out" 2>&1 ||
	die "prof annotate failed: $(tail -3 "$TMP/prof.out")"
prof_share=$(awk '/^ *[0-9.]+% +[0-9]+ +[0-9a-f]+: / { a = $3; sub(":", "", a); p = $1; sub("%", "", p); print a, p }' \
	"$TMP/prof.out" | loop_share)
"$PERF" annotate -i "$TMP/hot.data" --stdio hot_function >"$TMP/perf.out" 2>/dev/null ||
	die "perf annotate failed"
# perf's rows: "    12.34 :   1348:   mov ..."
perf_share=$(awk -F: 'NF >= 3 && $1 ~ /^ *[0-9.]+ *$/ && $2 ~ /^ *[0-9a-f]+ *$/ {
		a = $2; gsub(/ /, "", a); p = $1; gsub(/ /, "", p); print a, p }' "$TMP/perf.out" | loop_share)
fs=$(summary_field "$TMP/prof.err" samples)
ps=$(perf_samples "$TMP/perf.err")

say "timing, $RUNS runs each"
hyperfine -N --warmup 1 --runs "$RUNS" --export-csv "$TMP/times.csv" \
	-n prof-annotate "$(printf '%q ' "$PROF" annotate -i "$TMP/hot.rec" --color=never hot_function)" \
	-n perf-annotate "$(printf '%q ' "$PERF" annotate -i "$TMP/hot.data" --stdio hot_function)" >&2
t() { awk -F, -v c="$1" '$1 == c {printf "%.4f %.4f\n", $2, $3}' "$TMP/times.csv"; }
read -r tp tpsd < <(t prof-annotate)
read -r tq tqsd < <(t perf-annotate)

echo "### prof annotate"
echo
echo "$ENV_LINE"
echo
echo "\`examples/hotloop $SECONDS_REC\` recorded at $FREQ Hz by each tool (perf: \`perf record -g" \
	"-e cpu-clock\`), then \`hot_function\` annotated with the output thrown away; hyperfine," \
	"1 warm-up and $RUNS runs, mean ± sd. *Loop share*: the share of the function's samples" \
	"each tool puts on the instructions of its inner loop (0x$(printf %x "$LO")..0x$(printf %x "$HI"))."
echo
echo "| command | samples | time (s) | ÷ prof | loop share |"
echo "|---|---:|---:|---:|---:|"
echo "| \`prof annotate -i REC hot_function\` | $fs | $tp ± $tpsd | 1 | $prof_share |"
echo "| \`perf annotate -i DATA --stdio hot_function\` | $ps | $tq ± $tqsd | $(ratio "$tq" "$tp")× | $perf_share |"
