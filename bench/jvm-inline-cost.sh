#!/bin/bash
# bench/jvm-inline-cost.sh: what recording a JVM started with no flags costs
# it now that auto picks DWARF stacks for it (whole Java stacks, named
# interpreted frames, inlined methods: docs/BENCHMARKS-jvm-inline.md), side
# by side with frame-pointer stacks (`--call-graph fp`, auto's choice
# before), `perf record -g` and JFR's default recording.
#
#   bench/jvm-inline-cost.sh      PROF=path (default build/prof)
#
# Workload: examples/java/Spin (THREADS threads, WORK rounds of hashing and
# sorting, no JVM flag), which reports the elapsed time of its own work; it
# sleeps DELAY ms first, the recorder attaches with -p meanwhile and stops
# when the JVM exits. Per frequency in FREQS and round: bare, perf, prof
# --call-graph fp, prof (default), the order rotated; JFR
# (-XX:StartFlightRecording, default settings: its own rate) once per round.
# Slowdown: against the same round's bare run; medians over ROUNDS. prof's
# own CPU (user + system, /usr/bin/time) per run too.
#
# Env: FREQS ("99 999"), ROUNDS (3), THREADS (2), WORK (6000), DELAY (1500),
# JAVA. Prints markdown on stdout.
set -eu
BENCH_NAME=jvm-inline-cost
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

FREQS=${FREQS:-99 999}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-2}
WORK=${WORK:-6000}
DELAY=${DELAY:-1500}
JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
need_tools "$JAVA" /usr/bin/time
build_java_examples
LOG=$TMP/elapsed.log
: >"$LOG"

# one TOOL F ROUND: a run of Spin with TOOL; logs "TOOL F ROUND SECONDS CPU".
one() {
	local tool=$1 f=$2 r=$3 out=$TMP/jvm.out err=$TMP/jvm.err pid rec="" opts=()
	: >"$err"
	: >"$TMP/cpu"
	[ "$tool" = jfr ] && opts=("-XX:StartFlightRecording=filename=$TMP/j.jfr")
	"$JAVA" "${opts[@]}" -cp "$CP" Spin "$THREADS" "$WORK" "$DELAY" >"$out" 2>"$err" &
	pid=$(jvm_ready "$err")
	[ -n "$pid" ] || die "the JVM did not say 'ready': $(cat "$err")"
	case $tool in
	perf) "$PERF" record -q -g -e cpu-clock -F "$f" -p "$pid" -o "$TMP/perf.data" \
		2>"$TMP/rec.err" & rec=$! ;;
	prof-fp) /usr/bin/time -o "$TMP/cpu" -f '%U %S' "$PROF" record -q --call-graph fp \
		-F "$f" -p "$pid" -o "$TMP/prof.data" 2>"$TMP/rec.err" & rec=$! ;;
	prof) /usr/bin/time -o "$TMP/cpu" -f '%U %S' "$PROF" record -q -F "$f" -p "$pid" \
		-o "$TMP/prof.data" 2>"$TMP/rec.err" & rec=$! ;;
	esac
	wait "$pid" || die "the JVM failed: $(cat "$err")"
	[ -n "$rec" ] && { stop_within "$rec" 30 || true; wait "$rec" 2>/dev/null || true; }
	echo "$tool $f $r $(awk '/^elapsed/ {print $2}' "$out") $(awk '{print $1 + $2}' "$TMP/cpu")" >>"$LOG"
	rm -f "/tmp/perf-$pid.map"
}

for r in $(seq "$ROUNDS"); do
	say "round $r/$ROUNDS: jfr"
	one jfr - "$r"
	for f in $FREQS; do
		set -- bare perf prof-fp prof
		for i in $(seq 0 3); do
			k=$(((i + r) % 4 + 1))
			say "F=$f round $r/$ROUNDS: ${!k}"
			one "${!k}" "$f" "$r"
		done
	done
done

echo "# Cost to a JVM with no flags: prof's default (DWARF) against fp, perf and JFR"
echo
echo "$(env_line)"
echo
echo "Spin, $THREADS threads, work $WORK, no JVM flag; $ROUNDS rounds; medians."
echo "Slowdown: the work's time against the same round's bare run (JFR: against the"
echo "rounds' first bare run). prof CPU: user + system seconds of the recorder."
echo
echo "| tool | F | work (s) | slowdown | prof CPU (s) |"
echo "|---|---|---|---|---|"
awk "$AWK_MEDIAN"'
	{ k = $1 " " $2; t[k, $3] = $4; c[k, $3] = $5; if (!(k in seen)) { seen[k] = 1; order[n++] = k }
	  if ($1 == "bare" && !(($3) in base)) base[$3] = $4 }
	END {
		for (o = 0; o < n; o++) {
			k = order[o]; m = 0
			split(k, kk, " ")
			for (r = 1; r <= 99; r++) if ((k, r) in t) {
				a[m] = t[k, r]; cp[m] = c[k, r]
				b = kk[1] == "jfr" ? base[r] : t["bare " kk[2], r]
				d[m] = b ? (t[k, r] / b - 1) * 100 : 0; m++ }
			printf "| %s | %s | %.2f | %s | %s |\n", kk[1], kk[2], med(a, m),
				kk[1] == "bare" ? "(base)" : sprintf("%+.1f%%", med(d, m)),
				kk[1] ~ /^prof/ ? sprintf("%.2f", med(cp, m)) : "-"
		}
	}' "$LOG"
