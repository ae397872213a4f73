#!/bin/bash
# bench/malloc-overhead.sh: what `prof record --malloc` (and --leaks) costs a
# malloc-heavy program and a real server, beside perf's uprobe on malloc and
# heaptrack.
#
#   bench/malloc-overhead.sh      PROF=path (default build/prof)
#
# 1. examples/leaky.c flat out (TICK_US 0: about 500 allocator calls and
#    475 frees a tick, no sleep) for SECS seconds; its own ticks/s with: no
#    recorder; prof --malloc -p (defaults: windows 10/1000, 512 KiB); prof
#    --malloc --leaks -p (free attached all along); `perf probe -x LIBC
#    malloc` + `perf record -g -e probe_libc:malloc -p` (every call, all the
#    time); heaptrack (LD_PRELOAD from the start). RUNS rounds, interleaved,
#    medians.
# 2. redis-server under `redis-benchmark -c 20 -n REDIS_N -t set,get,incr,
#    lpush`: the requests/s summed over the 4 tests, same recorders (heaptrack
#    launches the server), RUNS rounds interleaved, medians.
#
# Env: SECS (4), RUNS (3), REDIS_N (50000), MODES (bare prof leaks perf
# heaptrack: a subset for a longer run). Prints markdown on stdout; needs
# root (uprobes).
set -eu
BENCH_NAME=malloc-overhead
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools heaptrack redis-server redis-benchmark redis-cli
SECS=${SECS:-4}
RUNS=${RUNS:-3}
REDIS_N=${REDIS_N:-50000}
LEAKY=$(build_example leaky)
LIBC=$(ldd "$LEAKY" | awk '/libc.so/ { print $3 }')
# redis-server allocates through the jemalloc it links: perf probes that one
JEMALLOC=$(ldd "$(command -v redis-server)" | awk '/libjemalloc/ { print $3 }')
unprobe() {
	"$PERF" probe -q -d 'probe_libc:malloc' -d 'probe_libjemalloc:je_malloc' >/dev/null 2>&1 || true
}
unprobe
"$PERF" probe -q -x "$LIBC" malloc >&2 || die "perf probe -x $LIBC malloc failed"
PERF_REDIS_EVENT=probe_libc:malloc
if [ -n "$JEMALLOC" ] && "$PERF" probe -q -x "$JEMALLOC" 'je_malloc=malloc' >&2; then
	PERF_REDIS_EVENT=probe_libjemalloc:je_malloc
fi
trap 'unprobe; [ "${KEEP:-0}" = 1 ] || rm -rf "$TMP"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio3() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", b ? a / b : 0 }'; }

# attach MODE PID [PERF_EVENT]: starts the recorder of MODE on PID in the
# background (REC), or nothing for bare/heaptrack.
attach() {
	REC=
	case $1 in
	prof) "$PROF" record --malloc -p "$2" -o "$TMP/p.data" 2>"$TMP/rec.log" & REC=$! ;;
	leaks) "$PROF" record --malloc --leaks -p "$2" -o "$TMP/p.data" 2>"$TMP/rec.log" & REC=$! ;;
	perf) "$PERF" record -q -g -e "${3:-probe_libc:malloc}" -p "$2" -o "$TMP/perf.data" \
		2>"$TMP/rec.log" & REC=$! ;;
	esac
}

detach() {
	[ -z "$REC" ] || { kill -INT "$REC" 2>/dev/null || true; wait "$REC" 2>/dev/null || true; }
}

# leaky_run MODE: ticks/s of leaky flat out under MODE.
leaky_run() {
	local pre=()
	[ "$1" != heaptrack ] || pre=(heaptrack -o "$TMP/ht")
	"${pre[@]}" "$LEAKY" "$SECS" 0 >"$TMP/leaky.out" 2>"$TMP/leaky.err" &
	local pid=$!
	until grep -q ready "$TMP/leaky.err" 2>/dev/null; do sleep 0.01; done
	attach "$1" "$(awk '/ready/ { print $2 }' "$TMP/leaky.err")"
	wait "$pid"
	detach
	awk '$1 == "ticks" { t = $2 } $1 == "seconds" { s = $2 } END { printf "%.0f\n", t / s }' \
		"$TMP/leaky.out"
}

PORT=$((20000 + RANDOM % 10000))
redis_run() {
	local pre=() pid
	[ "$1" != heaptrack ] || pre=(heaptrack -o "$TMP/ht-redis")
	mkdir -p "$TMP/redis"
	"${pre[@]}" redis-server --port "$PORT" --bind 127.0.0.1 --dir "$TMP/redis" --save '' \
		--appendonly no >"$TMP/redis/log" 2>&1 &
	until [ "$(redis-cli -p "$PORT" ping 2>/dev/null)" = PONG ]; do sleep 0.05; done
	pid=$(redis-cli -p "$PORT" info server | awk -F: '/^process_id/ { print $2 + 0 }')
	redis-benchmark -p "$PORT" -c 20 -n 2000 -t set >/dev/null 2>&1 # warm
	attach "$1" "$pid" "$PERF_REDIS_EVENT"
	sleep 1 # the recorder has attached; the same settling time without one
	redis-benchmark -p "$PORT" -c 20 -n "$REDIS_N" -t set,get,incr,lpush --csv 2>/dev/null |
		awk -F'"' 'NR > 1 { s += $4 } END { printf "%.0f\n", s }'
	detach
	redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true
	wait 2>/dev/null || true
}

MODES=${MODES:-bare prof leaks perf heaptrack}
for m in $MODES; do : >"$TMP/leaky.$m"; : >"$TMP/redis.$m"; done
: >"$TMP/duty"
for r in $(seq "$RUNS"); do
	say "round $r"
	for m in $MODES; do
		leaky_run "$m" >>"$TMP/leaky.$m"
		[ "$m" != prof ] || sed -n 's/.*attached \([0-9.]*\)%.*/\1/p' "$TMP/rec.log" >>"$TMP/duty"
		redis_run "$m" >>"$TMP/redis.$m"
	done
done

echo "### Native allocations (\`prof record --malloc\`)"
echo
echo "bench/malloc-overhead.sh, median of $RUNS interleaved rounds (2-CPU VM shared with"
echo "other builds: noisy). leaky: examples/leaky.c flat out, its own ticks/s (a tick: 500"
echo "allocator calls, 475 frees); redis: redis-server $(redis-server --version |
	grep -oE 'v=[0-9.]+' | cut -d= -f2) under redis-benchmark -c 20 -n $REDIS_N -t"
echo "set,get,incr,lpush, requests/s summed over the 4 tests. prof's windows were attached"
echo "$(median <"$TMP/duty")% of the time (median)."
echo
echo "| recorder | leaky ticks/s | vs bare | redis req/s | vs bare |"
echo "|---|---:|---:|---:|---:|"
lb=$(median <"$TMP/leaky.bare")
rb=$(median <"$TMP/redis.bare")
for m in $MODES; do
	l=$(median <"$TMP/leaky.$m")
	rr=$(median <"$TMP/redis.$m")
	case $m in
	bare) name="none" ;;
	prof) name="prof --malloc (defaults)" ;;
	leaks) name="prof --malloc --leaks (defaults)" ;;
	perf) name="perf record -g -e probe_libc:malloc (redis: $PERF_REDIS_EVENT)" ;;
	heaptrack) name="heaptrack" ;;
	esac
	echo "| $name | $l | $(ratio3 "$l" "$lb") | $rr | $(ratio3 "$rr" "$rb") |"
done
