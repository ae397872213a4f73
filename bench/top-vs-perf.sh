#!/bin/bash
# bench/top-vs-perf.sh: prof top beside perf on the same process at the same
# time, and the slowdown each gives its target.
#
#   bench/top-vs-perf.sh         PROF=path (default build/prof)
#
# Side by side: `perf record -F 99 -g -e cpu-clock -- cpu-bound` (THREADS
# threads named cpu-N, LEAVES calls each), which sleeps DELAY s before it
# starts its threads; meanwhile `prof top -F 99 -p PID --format json
# --window 60` attaches; both end when it exits. (perf record -p does not
# follow the threads a process starts after the attach: perf 6.1 got no
# sample of them, so perf launches the workload here.) Prints the hottest functions (perf report's self overhead, prof
# top's last block's self_pct) and the threads' shares of the samples.
# Slowdown: the workload's own elapsed time bare, under prof top alone and
# under perf record alone, ROUNDS rounds interleaved (order rotated).
# Env: THREADS (2), LEAVES (300000), DELAY (1), ROUNDS (3), PERF (perf).
set -eu
BENCH_NAME=top-vs-perf
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

THREADS=${THREADS:-2}
LEAVES=${LEAVES:-300000}
DELAY=${DELAY:-1}
ROUNDS=${ROUNDS:-3}
PERF=${PERF:-perf}
build_workload
T=$(mktemp -d /tmp/prof-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT

# run_one MODE: the workload's elapsed seconds with MODE (bare|top|perf) attached.
run_one() {
	if [ "$1" = perf ]; then
		"$PERF" record -q -F 99 -g -e cpu-clock -o "$T/p.data" -- \
			"$W" -t "$THREADS" -n "$LEAVES" -d "$DELAY" 2>/dev/null |
			awk '$1 == "elapsed" { print $2 }'
		return
	fi
	"$W" -t "$THREADS" -n "$LEAVES" -d "$DELAY" >"$T/w.out" 2>"$T/w.err" &
	local pid=$! rpid=
	until grep -q ready "$T/w.err" 2>/dev/null; do sleep 0.01; done
	case $1 in
	top) "$PROF" top -F 99 -p "$pid" --format json >/dev/null 2>&1 & rpid=$! ;;
	esac
	wait "$pid"
	[ -z "$rpid" ] || wait "$rpid" || true
	awk '$1 == "elapsed" { print $2 }' "$T/w.out"
}

env_line
echo
echo "## side by side (same process, same time): $THREADS threads, 99 Hz"
"$PERF" record -F 99 -g -e cpu-clock -o "$T/p.data" -- \
	"$W" -t "$THREADS" -n "$LEAVES" -d "$DELAY" >"$T/w.out" 2>"$T/perf.out" &
ppid=$!
until grep -q '^ready' "$T/perf.out" 2>/dev/null; do sleep 0.01; done
pid=$(awk '$1 == "ready" { print $2; exit }' "$T/perf.out")
"$PROF" top -F 99 -p "$pid" --format json --threads --window 60 >"$T/top.json" 2>"$T/top.err" &
tpid=$!
wait "$ppid" || true; wait "$tpid" || true
echo '```'
echo "perf record: $(grep -o 'Captured.*' "$T/perf.out" | head -1)"
echo "prof top: $(grep '^{' "$T/top.json" | tail -n 1 | jq -r '"\(.samples) samples in the last block (window \(.window_s) s), lost \(.lost)"')"
echo
echo "self%, perf report --no-children --sort sym (top 6):"
"$PERF" report -i "$T/p.data" --stdio --no-children --sort sym 2>/dev/null |
	awk '/^ +[0-9.]+%/ { print "  " $1, $NF; if (++n == 6) exit }'
echo "self%, prof top's last block (top 6):"
grep '^{' "$T/top.json" | tail -n 1 | jq -r '.functions[0:6][] | "  \(.self_pct)% \(.name)"'
echo
echo "threads, perf report --sort comm:"
"$PERF" report -i "$T/p.data" --stdio --no-children --sort comm -g none 2>/dev/null |
	awk '/^ +[0-9.]+%/ { print "  " $1, $NF }'
echo "threads, prof top (share of the block's samples):"
grep '^{' "$T/top.json" | tail -n 1 |
	jq -r '(.samples) as $n | .threads[] | "  \(100 * .samples / $n | . * 100 | round / 100)% \(.name)"'
echo '```'
echo
echo "## slowdown: the workload's own elapsed seconds ($ROUNDS rounds, interleaved)"
echo '```'
for r in $(seq "$ROUNDS"); do
	case $((r % 3)) in
	0) order="bare top perf" ;; 1) order="top perf bare" ;; *) order="perf bare top" ;;
	esac
	for m in $order; do
		echo "$m $(run_one "$m")"
	done
done | sort | awk '{ s[$1] += $2; n[$1]++; v[$1] = v[$1] " " $2 }
	END { for (m in s) printf "%-5s mean %.3f s  (%s )\n", m, s[m] / n[m], v[m] }'
echo '```'
