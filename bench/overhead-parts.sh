#!/bin/bash
# bench/overhead-parts.sh: where a recorder's cost to its target comes from,
# the kernel's side of sampling or the recorder's own process. Attach mode
# (as bench/overhead.sh), one frequency, these recorders side by side in
# interleaved rounds (order rotated every round):
#   bare       no recorder
#   perf       perf record -g -e cpu-clock -F F -p PID
#   prof       prof record -F F -p PID (the leaf fix on: the default)
#   null-perf  bench/null-recorder with perf's attributes: the events and
#              rings of perf, nothing done with what they hold
#   null-prof  the same with prof's attributes, no leaf fix
#   null-leaf  the same with the leaf fix's registers and stack slice
#   (on request: null-noclock, null-prof without CLOCK_MONOTONIC;
#   null-stackonly, null-leaf's stack slice without its registers)
# So: perf − null-perf is perf's own process, prof − null-leaf prof's,
# null-leaf − null-prof the kernel's cost of the leaf fix, null-prof −
# null-perf the kernel's cost of prof's other attributes.
#
#   bench/overhead-parts.sh          PROF=path (default build/prof)
#
# Env: F (4999), ROUNDS (12), DELAY (1), THREADS (2), PERF (perf), TOOLS
# (the recorders to run, default "bare perf prof null-perf null-prof
# null-leaf"; a higher F, e.g. 9999, magnifies the kernel's per-sample costs),
# PROF_VARIANTS (more prof rows, "NAME:OPTIONS" separated by "|", e.g.
# "callsite:--leaf-fix callsite|noleaf:--no-leaf-fix"). Prints
# markdown: each recorder's slowdown of bench/cpu-bound, and its paired
# difference to perf (the n-th run of each in the same round): median, and
# in how many rounds it was the slower. Wants a quiet machine (~4 minutes).
set -eu
BENCH_NAME=overhead-parts
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

F=${F:-4999}
ROUNDS=${ROUNDS:-12}
DELAY=${DELAY:-1}
THREADS=${THREADS:-2}
# shellcheck disable=SC2119 # nothing beyond prof and perf
need_tools
build_workload
NULLREC=$BUILD/bench/null-recorder
if [ ! -x "$NULLREC" ] || [ "$ROOT/bench/null-recorder.c" -nt "$NULLREC" ]; then
	${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -o "$NULLREC" "$ROOT/bench/null-recorder.c" >&2 ||
		die "cannot build bench/null-recorder.c"
fi
ENV_LINE=$(env_line)
LOG=$TMP/elapsed.log
: >"$LOG"
TOOLS_ASKED=${TOOLS:-} # printed with the command when given
TOOLS=${TOOLS:-bare perf prof null-perf null-prof null-leaf}
[[ " $TOOLS " == *" bare "* && " $TOOLS " == *" perf "* ]] || die "TOOLS must list bare and perf"
declare -A VARIANT_ARGS=()
IFS='|' read -r -a variants <<<"${PROF_VARIANTS:-}"
for v in "${variants[@]}"; do
	[ -n "$v" ] || continue
	name=prof-${v%%:*}
	[[ $v == *:* ]] || die "PROF_VARIANTS: '$v' is not NAME:OPTIONS"
	VARIANT_ARGS[$name]=${v#*:}
	TOOLS+=" $name"
done

# once TOOL: one run of the workload with TOOL attached during its sleep.
once() {
	local tool=$1 wpid rpid=""
	rm -f "$TMP/ready"
	"$W" -t "$THREADS" -d "$DELAY" -o "$LOG" -L "$tool" >/dev/null 2>"$TMP/ready" &
	wpid=$!
	wait_ready "$TMP/ready" >/dev/null
	case $tool in
	perf) "$PERF" record -g -e cpu-clock -F "$F" -p "$wpid" -o "$TMP/x.data" >/dev/null 2>&1 & ;;
	prof) "$PROF" record -F "$F" -p "$wpid" -o "$TMP/x.rec" >/dev/null 2>&1 & ;;
	null-perf) "$NULLREC" perf "$F" "$wpid" 2>/dev/null & ;;
	null-prof) "$NULLREC" prof "$F" "$wpid" 2>/dev/null & ;;
	null-leaf) "$NULLREC" prof-leaf "$F" "$wpid" 2>/dev/null & ;;
	null-noclock) "$NULLREC" prof-noclock "$F" "$wpid" 2>/dev/null & ;;
	null-stackonly) "$NULLREC" prof-stackonly "$F" "$wpid" 2>/dev/null & ;;
	bare) ;;
	prof-*)
		# shellcheck disable=SC2086 # the variant's options, split as given
		"$PROF" record ${VARIANT_ARGS[$tool]} -F "$F" -p "$wpid" -o "$TMP/x.rec" \
			>/dev/null 2>&1 & ;;
	*) die "unknown recorder '$tool' in TOOLS" ;;
	esac
	[ "$tool" = bare ] || rpid=$!
	wait "$wpid" || die "the workload failed"
	[ -z "$rpid" ] || stop_within "$rpid" 60 || die "$tool exited with an error"
}

for i in $(seq "$ROUNDS"); do
	say "round $i of $ROUNDS"
	# shellcheck disable=SC2086 # the names, one word each
	set -- $TOOLS
	k=$((i % $#))
	for tool in "${@:k+1}" "${@:1:k}"; do
		once "$tool"
	done
done

echo "### Overhead by part, attach mode, $F Hz"
echo
echo "$ENV_LINE"
echo
echo "\`F=$F ROUNDS=$ROUNDS${TOOLS_ASKED:+ TOOLS=\"$TOOLS_ASKED\"}${PROF_VARIANTS:+ PROF_VARIANTS=\"$PROF_VARIANTS\"} bash bench/overhead-parts.sh\`; bench/cpu-bound -t $THREADS," \
	"its own elapsed time, median of $ROUNDS."
echo
echo "| recorder | elapsed (s) | slowdown | − perf, paired (points) | slower than perf in |"
echo "|---|---:|---:|---:|---:|"
bare=$(stats "$LOG" bare | cut -d' ' -f1)
for tool in $TOOLS; do
	read -r med _ _ < <(stats "$LOG" "$tool")
	pair=$(awk -v t="$tool" -v b="$bare" '
		$1 == "perf" {p[np++] = $2} $1 == t {x[nx++] = $2}
		END {n = np < nx ? np : nx
			if (t == "perf" || t == "bare" || !n) {print "— —"; exit}
			for (i = 0; i < n; i++) {d[i] = (x[i] - p[i]) / b * 100; k += d[i] > 0}
			for (i = 1; i < n; i++)
				for (j = i; j > 0 && d[j - 1] > d[j]; j--) {s = d[j]; d[j] = d[j - 1]; d[j - 1] = s}
			m = n % 2 ? d[(n - 1) / 2] : (d[n / 2 - 1] + d[n / 2]) / 2
			printf "%+.2f %d/%d\n", m, k, n}' "$LOG")
	echo "| $tool | $med | $(slowdown "$med" "$bare") | ${pair% *} | ${pair#* } |"
done
