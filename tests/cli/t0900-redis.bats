#!/usr/bin/env bats
# t0900: a real Debian server under its own benchmark client. redis-server
# (Debian's build: no frame pointers, no .symtab, but its functions exported)
# runs on a free loopback port with a temporary directory while
# redis-benchmark sends a bounded number of requests; prof record -p and, at
# the same time, perf record --call-graph dwarf,32768 -p sample it. The
# stacks must reach the thread's root, and the inclusive share of redis's
# command path (processCommand, call) must be perf's within the stated bounds.
# Needs redis-server and redis-tools (make deps); fails when they are missing.

load helpers

# The stack mode under test: prof's default (--call-graph auto), which must
# see that Debian's redis-server has no frame pointers and take DWARF stacks.
CG=()
FREQ=499
# redis-benchmark -n: enough for about a thousand samples of the server
# thread on a loaded 2-CPU machine; bounded in count, not in time.
REQUESTS=${T0900_REQUESTS:-40000}
# A thread's root frame: where a whole stack starts.
ROOT_RE='^(_start|__libc_start_main(_impl)?|clone3?|__clone3?|start_thread)$'

setup_file() {
	command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
		{ echo "t0900 needs redis-server and redis-benchmark: run 'make deps'" \
			"(tools/install-deps.sh installs redis-server redis-tools)" >&2; return 1; }
	export REDIS_DIR="$BATS_FILE_TMPDIR/redis"
	mkdir -p "$REDIS_DIR"
	local try
	for try in 1 2 3 4 5; do
		REDIS_PORT=$((20000 + RANDOM % 30000))
		redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$REDIS_DIR" \
			--save '' --appendonly no --daemonize no \
			--logfile "$REDIS_DIR/redis.log" 3>&- &
		REDIS_PID=$!
		# Up when it answers PING; a port taken makes it exit: try another.
		wait_until 30 eval '[ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] ||
			! kill -0 "$REDIS_PID" 2>/dev/null' || true
		[ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] && break
		kill "$REDIS_PID" 2>/dev/null; wait "$REDIS_PID" 2>/dev/null
		REDIS_PID=
	done
	[ -n "$REDIS_PID" ] || { echo "redis-server did not start: $(tail -5 "$REDIS_DIR/redis.log")" >&2; return 1; }
	export REDIS_PORT REDIS_PID
}

teardown_file() {
	[ -z "${REDIS_PID:-}" ] || { kill "$REDIS_PID" 2>/dev/null; wait "$REDIS_PID" 2>/dev/null; }
	true
}

teardown() {
	local p
	for p in ${PERF_PID:-} ${REC_PID:-} ${BENCH_PID:-}; do kill -KILL "$p" 2>/dev/null || true; done
	exec 7>&- 8>&- 2>/dev/null || true
}

bench() {
	redis-benchmark -p "$REDIS_PORT" -c 20 -n "$1" -t set,get,incr,lpush --csv
}

# Folded stacks (stdin): the % of samples whose first (outermost) frame
# matches ROOT_RE.
root_share() {
	RE="$ROOT_RE" awk '{ n = $NF; split($0, f, ";"); sub(/ [0-9]+$/, "", f[1]); t += n
		if (f[1] ~ ENVIRON["RE"]) r += n } END { printf "%.1f\n", t ? 100 * r / t : 0 }'
}

# Folded stacks (stdin): the % of samples with a frame named $1.
incl_share() {
	F="$1" awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); t += n
		k = split(s, f, ";"); for (i = 1; i <= k; i++) if (f[i] == ENVIRON["F"]) { a += n; break } }
		END { printf "%.1f\n", t ? 100 * a / t : 0 }'
}

# perf script's text (stdin) as folded stacks of function names, outermost
# first; folded here rather than by prof, so that the oracle owes nothing to
# prof's reader.
perf_fold() {
	awk 'function out() { if (n) { s = st[n]; for (i = n - 1; i >= 1; i--) s = s ";" st[i]; c[s]++ } n = 0 }
		/^[^ \t]/ { out(); next }
		NF >= 2 { st[++n] = $2 }
		END { out(); for (s in c) print s, c[s] }'
}

@test "redis under redis-benchmark: stacks reach the root, processCommand and call match perf dwarf" {
	local d=$BATS_TEST_TMPDIR have_perf=0
	command -v perf >/dev/null && have_perf=1
	if [ "$have_perf" = 1 ]; then
		# perf attached but disabled until told (its control fifo), so both
		# recorders start their windows together, after prof is attached.
		mkfifo "$d/ctl" "$d/ack"
		exec 7<>"$d/ctl" 8<>"$d/ack"
		perf record -D -1 --control "fifo:$d/ctl,$d/ack" --call-graph dwarf,32768 -m 1024 \
			-e cpu-clock -F "$FREQ" -p "$REDIS_PID" -o "$d/perf.data" >"$d/perf.out" 2>"$d/perf.err" 7>&- 8>&- &
		PERF_PID=$!
	fi
	"$PROF" record "${CG[@]}" -F "$FREQ" -p "$REDIS_PID" -o "$d/prof.data" >"$d/prof.out" 2>"$d/prof.err" 7>&- 8>&- &
	REC_PID=$!
	# prof is attached once it has samples of a little load to show.
	wait_until 120 eval 'bench 500 >/dev/null 2>&1; [ "$(readable "$d/prof.data")" -gt 0 ] ||
		! kill -0 "$REC_PID" 2>/dev/null'
	kill -0 "$REC_PID" || { cat "$d/prof.err" >&2; false; }
	if [ "$have_perf" = 1 ]; then
		grep -qs 'Events disabled' "$d/perf.err" || wait_until 60 grep -qs 'Events disabled' "$d/perf.err"
		echo enable >&7
		read -r -t 60 ack <&8
		[ "$ack" = ack ]
	fi
	task_cpu "$REDIS_PID" >"$d/cpu-before"
	bench "$REQUESTS" >"$d/bench.csv"
	task_cpu "$REDIS_PID" >"$d/cpu-after"
	kill -INT "$REC_PID" ${PERF_PID:+"$PERF_PID"}
	wait "$REC_PID"
	REC_PID=
	cat "$d/prof.err" >&2
	"$PROF" report -i "$d/prof.data" >"$d/prof.folded"
	total=$(folded_total <"$d/prof.folded")
	# The server's main thread worked while recorded (its own schedstat):
	# the samples are of a real load.
	redis_cpu=$(cpu_during redis-server "$d/cpu-before" "$d/cpu-after")
	echo "redis-server thread CPU during the benchmark: $redis_cpu s; prof samples: $total" >&2
	assert_between "prof samples" "$total" 100 10000000
	# Stated bound: at least 95% of the stacks reach _start or clone3.
	root=$(root_share <"$d/prof.folded")
	echo "prof ${CG[*]}: $root% of stacks reach the root" >&2
	assert_between "prof stacks reaching the root (%)" "$root" 95 100
	[ "$have_perf" = 1 ] || skip "perf not installed: no oracle for the shares"
	wait "$PERF_PID" || true	# 130: perf record's status after SIGINT
	PERF_PID=
	grep -q 'Captured and wrote' "$d/perf.err" || { cat "$d/perf.err" >&2; false; }
	exec 7>&- 8>&-
	perf script -i "$d/perf.data" -F comm,tid,ip,sym 2>/dev/null | perf_fold >"$d/perf.folded"
	ptotal=$(folded_total <"$d/perf.folded")
	echo "perf dwarf: $ptotal samples, $(root_share <"$d/perf.folded")% reach the root" >&2
	assert_between "perf samples" "$ptotal" 100 10000000
	for fn in processCommand call; do
		a=$(incl_share "$fn" <"$d/prof.folded")
		b=$(incl_share "$fn" <"$d/perf.folded")
		echo "$fn inclusive: prof $a%, perf dwarf $b%" >&2
		# perf sees redis's command path in a real share of the samples...
		assert_between "perf's $fn (%)" "$b" 3 100
		# ...and prof within a quarter of it, or 3 points (sampling noise
		# of a thousand samples).
		lo=$(awk -v b="$b" 'BEGIN { x = b * 0.75; y = b - 3; printf "%.1f\n", (x < y ? x : y) }')
		hi=$(awk -v b="$b" 'BEGIN { x = b * 1.33; y = b + 3; printf "%.1f\n", (x > y ? x : y) }')
		assert_between "prof's $fn (%) against perf's $b" "$a" "$lo" "$hi"
	done
}
