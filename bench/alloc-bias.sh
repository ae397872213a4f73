#!/bin/bash
# bench/alloc-bias.sh: the bias of sampled probe recordings: class shares
# of a periodic allocation loop, sampled with --every N and windows,
# against the loop's own mix, for this prof and another (the one before
# issue 19's sampling: OLD=path), and the estimated totals against the
# loop's own count.
#
#   bench/alloc-bias.sh      PROF=path (default build/prof) OLD=path (optional)
#
# Native: examples/alloc-loop -p PERIOD (PERIOD - 1 small, 1 big block,
# 20,000 a second on the clock), recorded -d SECS with -e
# usdt:alloc_demo:alloc at each N in NS and window in WINDOWS, RUNS times:
# the big class's estimated share (truth 1/PERIOD), the mean error
# and the worst, in points; with this prof, the estimated hits over the
# loop's (20,000 a second of the probed span). JVM (with OpenJDK 17):
# JavaAlloc -p 4 (3 int[4], 1 Point) under --alloc at JVM_NS.
#
# Bursty: alloc-loop -j 100 (a job allocating the first 100 ms of each
# second) under 10/1000 windows for BURST_SECS: the job's share per run.
#
# Env: PERIODS (2 5 10 64), NS (1 10 50), WINDOWS (off 10/100), SECS (2),
# RUNS (3), BURST_SECS (20), BURST_RUNS (3), JVM_NS (50), JVM_RUNS (3).
# Markdown on stdout. Needs root.
set -eu
BENCH_NAME=alloc-bias
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

PERIODS=${PERIODS:-2 5 10 64}
NS=${NS:-1 10 50}
WINDOWS=${WINDOWS:-off 10/100}
SECS=${SECS:-2}
RUNS=${RUNS:-3}
JVM_NS=${JVM_NS-50} # empty: no JVM part
JVM_RUNS=${JVM_RUNS:-3}
OLD=${OLD:-}
JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
LOOP=$(build_example alloc-loop)

# share_of FILE PROF LEAF-RE: the estimated share (%) of the hits whose
# folded line matches LEAF-RE (--every in the kernel: each sample weighed
# by its thread's hits; prof choosing among all hits: one weight each, the
# kept hits' share), and the kept hits.
share_of() {
	local kept
	kept=$("$2" report -i "$1" "${@:4}" --weight samples 2>/dev/null | awk '{ t += $NF } END { print t + 0 }')
	"$2" report -i "$1" "${@:4}" 2>/dev/null |
		RE="$3" awk -v k="$kept" '{ n = $NF; $NF = ""; t += n; if ($0 ~ ENVIRON["RE"]) s += n }
			END { if (t) printf "%.1f %d\n", 100 * s / t, k; else print "nan 0" }'
}

# native PROF PERIOD N WINDOW: one recording; prints "SHARE KEPT EST_RATIO".
native() {
	local prof=$1 period=$2 n=$3 win=$4 pid est span ratio
	rm -f "$TMP/n.data"
	"$LOOP" -p "$period" 2>"$TMP/loop.log" &
	pid=$!
	until grep -q ready "$TMP/loop.log"; do sleep 0.05; done
	nice -n 10 "$prof" record -p "$pid" -e usdt:alloc_demo:alloc --every "$n" \
		--probe-window "$win" -d "$SECS" -o "$TMP/n.data" 2>"$TMP/rec.log" || true
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	read -r share kept < <(share_of "$TMP/n.data" "$prof" 'arg0=1 ' --args)
	span=$("$prof" report -i "$TMP/n.data" --header 2>/dev/null | awk '/^probe-span-ns:/ { print $2 }')
	ratio=-
	if [ -n "$span" ]; then
		est=$("$prof" report -i "$TMP/n.data" 2>/dev/null | folded_total_b)
		ratio=$(awk -v e="$est" -v s="$span" 'BEGIN { printf "%.3f", e / (s / 1e9 * 20000) }')
	fi
	echo "$share $kept $ratio"
}

folded_total_b() {
	awk '{ s += $NF } END { print s + 0 }'
}

# stats TRUTH SHARES...: "mean (min-max), mean |error|, worst |error|"
stats() {
	local truth=$1
	shift
	printf '%s\n' "$@" | awk -v t="$truth" '{ s += $1; e = $1 - t; if (e < 0) e = -e; se += e
		if (e > w) w = e; if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
		END { printf "%.1f (%.1f-%.1f) | %.1f | %.1f", s / NR, lo, hi, se / NR, w }'
}

row() {
	local prof=$1 label=$2 period=$3 n=$4 win=$5 shares=() kept=() ratios=() r
	for ((r = 0; r < RUNS; r++)); do
		read -r s k q < <(native "$prof" "$period" "$n" "$win")
		shares+=("$s")
		kept+=("$k")
		ratios+=("$q")
	done
	printf '| %s | %s | %s | %s | %.1f | %s | %s | %s |\n' "$label" "$period" "$n" "$win" \
		"$(awk -v p="$period" 'BEGIN { print 100 / p }')" "$(stats "$(awk -v p="$period" 'BEGIN { print 100 / p }')" "${shares[@]}")" \
		"$(printf '%s\n' "${kept[@]}" | awk '{ s += $1 } END { printf "%.0f", s / NR }')" \
		"$(printf '%s ' "${ratios[@]}")"
}

need_tools
say "native loop: periods $PERIODS, --every $NS, windows $WINDOWS, $SECS s, $RUNS runs"
echo "Native loop (examples/alloc-loop, 20,000 allocations/s), $SECS s recordings, $RUNS runs each:"
echo "the big class's estimated share against 1/PERIOD, in %; estimate: estimated"
echo "hits / (20,000/s x probed span)."
echo
echo "| prof | period | --every | window | truth % | share % mean (min-max) | mean abs error | worst | kept hits (mean) | estimate / truth |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for period in $PERIODS; do
	for n in $NS; do
		for win in $WINDOWS; do
			[ -n "$OLD" ] && row "$OLD" old "$period" "$n" "$win"
			row "$PROF" new "$period" "$n" "$win"
		done
	done
done

# A job that runs once a second (alloc-loop -j 100: its allocations, class
# 2, the first 100 ms of each second), under --alloc's default windows
# (10/1000) for BURST_SECS: its share of the kept hits against its own.
burst() {
	local prof=$1 pid
	rm -f "$TMP/b.data"
	"$LOOP" -p 64 -j 100 2>"$TMP/burst.log" &
	pid=$!
	until grep -q ready "$TMP/burst.log"; do sleep 0.05; done
	nice -n 10 "$prof" record -p "$pid" -e usdt:alloc_demo:alloc --probe-window 10/1000 \
		-d "$BURST_SECS" -o "$TMP/b.data" 2>/dev/null || true
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	local own
	own=$(awk -F'[ =]' '/^t_ns=/ { a = $4; b = $6; c = $12 } END { printf "%.1f", 100 * c / (a + b + c) }' "$TMP/burst.log")
	echo "$(share_of "$TMP/b.data" "$prof" 'arg0=2 ' --args | awk '{ print $1 }') $own"
}
BURST_SECS=${BURST_SECS:-20}
BURST_RUNS=${BURST_RUNS:-3}
echo
echo "A job that runs 100 ms each second (alloc-loop -p 64 -j 100), --probe-window 10/1000, $BURST_SECS s:"
echo "its share of the kept hits, and of the loop's own count, per run."
echo
echo "| prof | job's share % (own %) per run |"
echo "|---|---|"
for p in ${OLD:+old} new; do
	bin=$PROF
	[ "$p" = old ] && bin=$OLD
	runs=()
	for ((r = 0; r < BURST_RUNS; r++)); do
		read -r got own < <(burst "$bin")
		runs+=("$got ($own)")
	done
	echo "| $p | $(printf '%s, ' "${runs[@]}" | sed 's/, $//') |"
done

[ -x "$JAVA" ] || exit 0
JDIR=$(dirname "$LOOP")
jvm() {
	local prof=$1 n=$2 pid
	"$JAVA" -XX:+DTraceAllocProbes -cp "$JDIR" JavaAlloc -p 4 60 2>"$TMP/jvm.log" &
	pid=$!
	until grep -q ready "$TMP/jvm.log"; do sleep 0.1; done
	rm -f "$TMP/j.data"
	nice -n 10 "$prof" record -p "$pid" --alloc --every "$n" --probe-window off -d "$SECS" \
		-o "$TMP/j.data" 2>/dev/null || true
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	rm -f "/tmp/perf-$pid.map"
	share_of "$TMP/j.data" "$prof" 'JavaAlloc\$Point ?$' --alloc | awk '{ print $1 }'
}
echo
echo "JVM (JavaAlloc -p 4: 3 int[4], 1 JavaAlloc\$Point; truth 25.0%), --alloc --probe-window off, $SECS s:"
echo
echo "| prof | --every | Point share % mean (min-max) | mean abs error | worst |"
echo "|---|---|---|---|---|"
for n in $JVM_NS; do
	for p in ${OLD:+old} new; do
		bin=$PROF
		[ "$p" = old ] && bin=$OLD
		sh=()
		for ((r = 0; r < JVM_RUNS; r++)); do sh+=("$(jvm "$bin" "$n")"); done
		echo "| $p | $n | $(stats 25 "${sh[@]}") |"
	done
done
