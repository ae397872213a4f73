#!/bin/sh
# demo.sh: records the example workload with named threads and writes what
# prof makes of it into demo/: the recording, folded stacks (per thread and
# merged), the hottest functions, and flamegraphs (per thread and merged).
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
