#!/bin/bash
# bench/alloc-overhead.sh: JVM allocation profiling: what `prof record
# --alloc` costs a JVM allocating in a tight loop, what its recordings weigh
# against perf's, and whether windows see the same top allocations as
# continuous probing.
#
#   bench/alloc-overhead.sh      PROF=path (default build/prof)
#
# Workload: examples/JavaAlloc.java -n N -d 1500: N allocations (60% byte[],
# 30% String, 10% Object[]) in a tight loop after a 1.5 s pause in which the
# recorder attaches; the JVM prints its own allocations/s, so JVM start-up
# and the recorder's don't count.
# 1. Throughput, RUNS runs each, interleaved, medians: the JVM without
#    -XX:+DTraceAllocProbes; with it, unprobed (the baseline of the issue's
#    target: prof's defaults within 10% of it); with it and `prof record
#    --alloc` (defaults: windows, WINDOW_DEFAULT); with probes attached all
#    the time (--probe-window off, N/CONT_DIV allocations: it is slow).
# 2. Bytes per sample: perf record -g of the same probe (sdt_hotspot:
#    object__alloc, made with perf probe) against prof --alloc
#    --probe-window off, SIZE_N allocations each.
# 3. Ranking: the JVM as a service (JavaAlloc 30) recorded 10 s with the
#    defaults and 10 s continuously with --every 50: the allocating stacks
#    (class leaf) ranked by count, top 5 of each compared.
#
# Env: N (50000000), RUNS (5), CONT_DIV (50), SIZE_N (300000). Prints
# markdown on stdout. Needs root (uprobes) and OpenJDK 17.
set -eu
BENCH_NAME=alloc-overhead
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools java javac
N=${N:-50000000}
RUNS=${RUNS:-5}
CONT_DIV=${CONT_DIV:-50}
SIZE_N=${SIZE_N:-300000}
CP=$BUILD/examples
make -s -C "$ROOT" BUILD="$BUILD" "$CP/JavaAlloc.class" >&2 || die "cannot build JavaAlloc"
LIBJVM=$(dirname "$(readlink -f "$(command -v java)")")/../lib/server/libjvm.so

# jvm FLAGS N PROF_ARGS...: one run, prints allocations/s (and keeps the
# recorder's stderr in $TMP/rec.log).
jvm() {
	local flags=$1 n=$2
	shift 2
	# shellcheck disable=SC2086
	java $flags -cp "$CP" JavaAlloc -n "$n" -d 1500 > "$TMP/jvm.out" 2> "$TMP/jvm.err" &
	local pid=$!
	if [ $# -gt 0 ]; then
		for _ in $(seq 100); do grep -q ready "$TMP/jvm.err" && break; sleep 0.02; done
		"$PROF" record -p "$pid" "$@" -o "$TMP/rec.data" 2> "$TMP/rec.log" ||
			die "prof record failed: $(cat "$TMP/rec.log")"
	fi
	wait "$pid"
	awk '/allocations\/s/ { print $2 }' "$TMP/jvm.out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

say "throughput: $RUNS runs of $N allocations each"
: > "$TMP/noflag" ; : > "$TMP/flag"; : > "$TMP/prof"; : > "$TMP/cont"
for r in $(seq "$RUNS"); do
	say "round $r"
	jvm "" "$N" >> "$TMP/noflag"
	jvm -XX:+DTraceAllocProbes "$N" >> "$TMP/flag"
	jvm -XX:+DTraceAllocProbes "$N" --alloc >> "$TMP/prof"
	duty=$(sed -n 's/.*probes attached \([0-9.]*\)%.*/\1/p' "$TMP/rec.log")
	echo "$duty" >> "$TMP/duty"
	jvm -XX:+DTraceAllocProbes $((N / CONT_DIV)) --alloc --probe-window off >> "$TMP/cont"
done
noflag=$(median < "$TMP/noflag")
flag=$(median < "$TMP/flag")
prof=$(median < "$TMP/prof")
cont=$(median < "$TMP/cont")
duty=$(median < "$TMP/duty")

echo "### JVM allocations (\`prof record --alloc\`)"
echo
echo "examples/JavaAlloc.java, $N allocations in a tight loop (continuous: $((N / CONT_DIV))),"
echo "median of $RUNS runs, bench/alloc-overhead.sh (2-CPU VM shared with other builds: noisy):"
echo
echo "| JVM | allocations/s | vs -XX:+DTraceAllocProbes alone |"
echo "|---|---|---|"
awk -v a="$noflag" -v f="$flag" 'BEGIN { printf "| no flag | %.2fM | %.2fx |\n", a / 1e6, a / f }'
awk -v a="$flag" 'BEGIN { printf "| -XX:+DTraceAllocProbes | %.2fM | 1.00x |\n", a / 1e6 }'
awk -v a="$prof" -v f="$flag" -v d="$duty" 'BEGIN {
	printf "| + prof record --alloc (defaults; probes attached %s%% of the time) | %.2fM | %.3fx |\n", d, a / 1e6, a / f }'
awk -v a="$cont" -v f="$flag" 'BEGIN {
	printf "| + prof record --alloc --probe-window off | %.2fM | %.3fx (%.2f µs per allocation more) |\n",
		a / 1e6, a / f, (1 / a - 1 / f) * 1e6 }'
echo

say "bytes per sample: perf record -g vs prof, $SIZE_N allocations"
if perf probe -x "$LIBJVM" -a sdt_hotspot:object__alloc >/dev/null 2>&1 ||
	perf probe -l 2>/dev/null | grep -q sdt_hotspot:object__alloc; then
	java -XX:+DTraceAllocProbes -cp "$CP" JavaAlloc -n "$SIZE_N" -d 1500 > /dev/null 2> "$TMP/p.err" &
	pid=$!
	for _ in $(seq 100); do grep -q ready "$TMP/p.err" && break; sleep 0.02; done
	perf record -q -e sdt_hotspot:object__alloc -g -p "$pid" -o "$TMP/perf.data" 2>/dev/null || true
	wait "$pid" || true
	perf_samples=$(perf report -i "$TMP/perf.data" --stats 2>/dev/null |
		awk '/SAMPLE events:/ { print $3; exit }')
	perf_bytes=$(stat -c %s "$TMP/perf.data")
	perf probe -d sdt_hotspot:object__alloc >/dev/null 2>&1 || true
	jvm -XX:+DTraceAllocProbes "$SIZE_N" --alloc --probe-window off > /dev/null
	prof_samples=$(sed -n 's/.* \([0-9]*\) probe hits kept.*/\1/p' "$TMP/rec.log")
	prof_bytes=$(stat -c %s "$TMP/rec.data")
	awk -v n="$SIZE_N" -v pb="$perf_bytes" -v ps="$perf_samples" -v qb="$prof_bytes" -v qs="$prof_samples" 'BEGIN {
		printf "Bytes per allocation sample, %s allocations probed continuously: perf record -g %.0f (%d samples, %.1f MB), prof %.1f (%d samples, %.1f MB): %.1f times fewer.\n",
			n, pb / ps, ps, pb / 1e6, qb / qs, qs, qb / 1e6, (pb / ps) / (qb / qs) }'
else
	echo "Bytes per sample: skipped (perf probe cannot place sdt_hotspot:object__alloc here)."
fi
echo

say "ranking: 10 s windowed vs 10 s continuous --every 50"
# The top 5 stacks by count. Frames in JIT code without a name ([anon+0x..],
# [unknown+0x..]: the JVM's JIT map is not read yet, and JIT frames are
# walked only with -XX:+PreserveFramePointer) are dropped first: their
# addresses differ between runs.
rank() {
	"$PROF" report -i "$1" --alloc |
		sed -E 's/\[(anon|unknown)\+0x[0-9a-f]+\];?//g' |
		awk '{ n = $NF; $NF = ""; s[$0] += n } END { for (k in s) print s[k] "\t" k }' |
		sort -rn | head -5 | cut -f2
}
java -XX:+DTraceAllocProbes -cp "$CP" JavaAlloc 30 2> "$TMP/svc.err" &
pid=$!
for _ in $(seq 200); do grep -q ready "$TMP/svc.err" && break; sleep 0.05; done
"$PROF" record -q -p "$pid" --alloc -d 10 -o "$TMP/win.data"
"$PROF" record -q -p "$pid" --alloc --probe-window off --every 50 -d 10 -o "$TMP/cont.data"
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
rank "$TMP/win.data" > "$TMP/win.rank"
rank "$TMP/cont.data" > "$TMP/cont.rank"
same=$(paste "$TMP/win.rank" "$TMP/cont.rank" | awk -F'\t' '$1 == $2' | wc -l)
top=$(cat "$TMP/win.rank" "$TMP/cont.rank" | sort -u | wc -l)
echo "Top 5 allocating stacks of a 10-second recording with the defaults against a continuous"
echo "one (--every 50) of the same service: $same of $(wc -l < "$TMP/cont.rank") in the same rank, $top distinct stacks among both tops (unnamed JIT frames left out)."
paste "$TMP/win.rank" "$TMP/cont.rank" | awk -F'\t' '{ printf "%d. `%s` / `%s`\n", NR, substr($1, length($1) > 60 ? length($1) - 59 : 1), substr($2, length($2) > 60 ? length($2) - 59 : 1) }'
