#!/bin/sh
# demo.sh: records the example workload with named threads and writes what
# prof makes of it into demo/: the recording, folded stacks (per thread and
# merged), the hottest functions, and flamegraphs (per thread and merged);
# then the scheduler view of examples/sched-mix: sched.svg, sched.csv, and
# off-CPU and wall-clock flamegraphs.
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
mkdir -p demo
echo "recording examples/threads for 3 seconds at 999 Hz..."
"$BUILD"/prof record -F 999 -o demo/threads.data -- "$BUILD"/examples/threads 3
"$BUILD"/prof report -i demo/threads.data --threads > demo/threads.folded
"$BUILD"/prof report -i demo/threads.data > demo/merged.folded
"$BUILD"/prof report -i demo/threads.data --top 10 > demo/top.txt
echo
echo "hottest functions (demo/top.txt):"
cat demo/top.txt
echo
echo "per-thread stacks, busiest first (demo/threads.folded):"
awk '{ print $NF "\t  " $0 }' demo/threads.folded | sort -rn | cut -f2- | head -8
echo
echo "wrote demo/threads.data demo/threads.folded demo/merged.folded demo/top.txt"
"$BUILD"/prof svg -i demo/threads.data --threads --title "examples/threads, per thread" -o demo/threads.svg
"$BUILD"/prof svg -i demo/threads.data --title "examples/threads" -o demo/merged.svg
echo "wrote demo/threads.svg demo/merged.svg: open them in a browser"
echo
echo "recording examples/sched-mix with --sched for 3 seconds..."
"$BUILD"/prof record --sched --sched-stacks 1 -o demo/sched.data -- "$BUILD"/examples/sched-mix 3
"$BUILD"/prof sched -i demo/sched.data -o demo/sched.svg
"$BUILD"/prof sched -i demo/sched.data --format csv > demo/sched.csv
"$BUILD"/prof svg -i demo/sched.data --off-cpu --threads -o demo/off-cpu.svg
"$BUILD"/prof svg -i demo/sched.data --wall --threads -o demo/wall.svg
echo
echo "time per thread, ms (demo/sched.csv):"
cut -d, -f3,6-10 demo/sched.csv | column -s, -t
echo "wrote demo/sched.svg (scheduler states, CPU tenancy, preemptors),"
echo "      demo/off-cpu.svg and demo/wall.svg (off-CPU and wall-clock flamegraphs)"
echo
# The JVM (examples/java/Service.java, docs/prof-jvm.md): Java frames named
# from the JIT map, full thread names, one tower per thread.
JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
echo "recording examples/java/Service (a JVM) for 3 seconds at 499 Hz..."
"$BUILD"/prof record -F 499 -d 3 -o demo/java.data -- "$JAVA" -XX:+PreserveFramePointer \
	-XX:CompileCommand=quiet '-XX:CompileCommand=dontinline,Service*::*' \
	-cp "$BUILD"/examples/java Service 30
"$BUILD"/prof svg -i demo/java.data --threads --colors java \
	--title "examples/java/Service, per thread" -o demo/java-threads.svg
"$BUILD"/prof report -i demo/java.data --threads > demo/java-threads.folded
echo "per-thread Java stacks (demo/java-threads.folded, roots):"
awk '{ n = $NF; split($0, a, ";"); s[a[1]] += n } END { for (r in s) print s[r] "\t" r }' \
	demo/java-threads.folded | sort -rn | head -6
echo "wrote demo/java-threads.svg (Java frames green, interpreter pale, libjvm yellow, kernel orange)"
# JVM allocations (docs/prof-probes.md): hotspot:object__alloc, probed in
# windows, on a running JVM started with -XX:+DTraceAllocProbes.
echo "recording the allocations of examples/JavaAlloc (a JVM) for 3 seconds..."
"$JAVA" -XX:+DTraceAllocProbes -XX:+PreserveFramePointer -XX:CompileCommand=quiet \
	'-XX:CompileCommand=dontinline,JavaAlloc::*' -cp "$BUILD"/examples JavaAlloc 30 \
	2>demo/java-alloc.log &
jvm=$!
for _ in $(seq 400); do grep -q ready demo/java-alloc.log && break; sleep 0.05; done
"$BUILD"/prof record -p "$jvm" --alloc -d 3 -o demo/java-alloc.data
kill "$jvm" 2>/dev/null || true
wait "$jvm" 2>/dev/null || true
"$BUILD"/prof svg -i demo/java-alloc.data --alloc --title "examples/JavaAlloc, allocations" \
	-o demo/java-alloc.svg
echo "allocations by class (prof report --alloc, leaf = class):"
"$BUILD"/prof report -i demo/java-alloc.data --alloc |
	awk '{ n = $NF; $NF = ""; k = split($0, f, ";"); sub(/ +$/, "", f[k]); s[f[k]] += n }
	     END { for (c in s) print s[c] "\t" c }' | sort -rn | head -4
echo "wrote demo/java-alloc.svg (allocation flamegraph, mem palette)"
