#!/bin/bash
# bench/check-speed.sh: how fast `prof check` measures rules on a big
# recording (issue 7: 10 rules on 1,000,000 samples in under 0.5 s), next to
# `prof report` reading the same file (which parses the recording and builds
# the same deduplicated profile, then writes folded text).
#
#   bench/check-speed.sh            PROF=path (default build/prof)
#
# Records bench/cpu-bound (THREADS threads, random walks of walk_a/b/c 1-8
# deep, each ending in burn: about 10,000 distinct stacks) with
# `prof record -F FREQ`, long enough for about SAMPLES samples (the
# workload's speed is measured first; capped at MAX_SECONDS). Then hyperfine
# times, RUNS runs each after a warm-up (the file in the page cache),
# output thrown away:
#   prof report -i REC             (reading, plus sorting and writing text)
#   prof check -i REC RULE x 10    (any-frame, self, counts, total; regexes
#                                   with alternations and anchors)
#   prof check -i REC -b REC RULE x 10   (the same rules as grew rules
#                                   against a baseline: both files read)
# and checks that the rules' counts match prof report's folded text.
#
# Env: SAMPLES (1000000), FREQ (4999), THREADS (nproc), MAX_SECONDS (150),
# RUNS (5). Prints markdown.
set -eu
BENCH_NAME=check-speed
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

SAMPLES=${SAMPLES:-1000000}
FREQ=${FREQ:-4999}
THREADS=${THREADS:-$(nproc)}
MAX_SECONDS=${MAX_SECONDS:-150}
RUNS=${RUNS:-5}
need_tools hyperfine
build_workload
ENV_LINE=$(env_line)

say "measuring the workload's speed"
cal=$("$W" -t 1 -n 100000 2>/dev/null | awk '{print $2}')
secs=$(awk -v s="$SAMPLES" -v f="$FREQ" -v t="$THREADS" -v m="$MAX_SECONDS" \
	'BEGIN {x = 1.05 * s / (f * t); printf "%.1f\n", (x > m ? m : x)}')
leaves=$(awk -v c="$cal" -v s="$secs" 'BEGIN {printf "%d\n", 100000 / c * s}')

say "recording with prof for about $secs s"
"$PROF" record -F "$FREQ" -o "$TMP/big.rec" -- "$W" -t "$THREADS" -n "$leaves" >/dev/null \
	2>"$TMP/prof.err" || die "prof record failed: $(tail -3 "$TMP/prof.err")"
samples=$(summary_field "$TMP/prof.err" samples)

RULES=(
	"'burn' self >= 90%"
	"'walk_a' <= 100%"
	"'^walk_(b|c)\$' <= 100%"
	"'walk_c' self <= 1%"
	"'slow_path' == 0 samples"
	"'(un)?likely_[a-z]+' <= 5%"
	"'_\\[k\\]\$' <= 50%"
	"'worker' >= 90%"
	"'^main\$' <= 5%"
	"total >= 1000 samples"
)
GREW=(
	"'burn' self grew <= 1pt"
	"'walk_a' grew <= 10%"
	"'^walk_(b|c)\$' grew <= 1pt"
	"'walk_c' self grew <= 1pt"
	"'slow_path' grew <= 0 samples"
	"'(un)?likely_[a-z]+' grew <= 1pt"
	"'_\\[k\\]\$' grew <= 1pt"
	"'worker' grew >= -1pt"
	"'^main\$' grew <= 1pt"
	"total grew <= 10%"
)

say "checking the rules' counts against prof report"
"$PROF" check -i "$TMP/big.rec" --format json "${RULES[@]}" >"$TMP/rules.json" || true
want=$("$PROF" report -i "$TMP/big.rec" | awk '{n = $NF; $NF = ""; if ($0 ~ /walk_a/) s += n}
	END {print s + 0}')
got=$(jq -r '.[1].matched' "$TMP/rules.json")
[ "$want" = "$got" ] || die "'walk_a' matched $got samples, prof report says $want"
total=$(jq -r '.[9].measured' "$TMP/rules.json")

say "timing, $RUNS runs each"
hyperfine -N --warmup 1 --runs "$RUNS" --export-csv "$TMP/times.csv" \
	-n report "$(printf '%q ' "$PROF" report -i "$TMP/big.rec")" \
	-n check "$(printf '%q ' "$PROF" check -i "$TMP/big.rec" "${RULES[@]}")" \
	-n check-baseline "$(printf '%q ' "$PROF" check -i "$TMP/big.rec" -b "$TMP/big.rec" \
		"${GREW[@]}")" >&2 || true
t() { awk -F, -v c="$1" '$1 == c {printf "%.3f ± %.3f", $2, $3}' "$TMP/times.csv"; }

echo "### prof check"
echo
echo "$ENV_LINE"
echo
echo "\`bench/cpu-bound -t $THREADS\` recorded at $FREQ Hz: $samples samples ($total after" \
	"the recording's own accounting), about 10,000 distinct stacks. hyperfine, 1 warm-up and" \
	"$RUNS runs, mean ± sd, output thrown away. The ten rules mix any-frame and self" \
	"matches, counts and the total, regexes with alternations and anchors (the rule list is" \
	"in bench/check-speed.sh); the baseline run reads the file twice and measures each rule" \
	"on both. The machine is shared with other builds: figures are noisy."
echo
echo "| command | time (s) |"
echo "|---|---:|"
echo "| \`prof report -i REC\` (reading, then sorting and writing the folded text) | $(t report) |"
echo "| \`prof check -i REC\` + 10 rules | $(t check) |"
echo "| \`prof check -i REC -b REC\` + 10 grew rules | $(t check-baseline) |"
