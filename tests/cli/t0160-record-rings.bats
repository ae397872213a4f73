#!/usr/bin/env bats
# t0160: the rings are sized from -F and the stack mode (session.c
# ring_pages): a recorder kept off the CPU while a CPU-bound target is
# sampled loses nothing as long as its rings hold what came meanwhile. The
# recorder is stopped (SIGSTOP) until the target used 0.1 s of CPU: at
# 4999 Hz with dwarf copies that is about 500 samples of 34 KB, 17 MB, far
# more than the 4 MiB rings of before held (123 samples per CPU) and far
# less than the 64 MiB per CPU they get now (1970 samples). What was lost is
# reported, also when the kernel had no later sample to write its LOST
# record with (the events counts, PERF_FORMAT_LOST).

load helpers

# cpu_ns PID: the CPU time all of PID's threads used (schedstat), in ns.
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# used_since PID NS MORE: has PID used MORE ns of CPU since it had used NS?
used_since() {
	[ "$(cpu_ns "$1")" -ge $(($2 + $3)) ]
}

stopped_recorder() {
	local out=$1
	shift
	start_example threads 30
	"$PROF" record -p "$EXAMPLE_PID" -o "$out" "$@" 2>"$out.err" &
	REC_PID=$!
	wait_until 60 test -e "$out"
	kill -STOP "$REC_PID"
	before=$(cpu_ns "$EXAMPLE_PID")
	wait_until 120 used_since "$EXAMPLE_PID" "$before" 100000000 || true
	STOPPED_NS=$(($(cpu_ns "$EXAMPLE_PID") - before))
	kill -CONT "$REC_PID"
	kill -INT "$REC_PID"
	wait "$REC_PID"
	kill "$EXAMPLE_PID"
	wait "$EXAMPLE_PID" || true
	cat "$out.err" >&2
}

@test "dwarf at 4999 Hz: a recorder kept off the CPU loses no sample" {
	stopped_recorder "$BATS_TEST_TMPDIR/d.data" --call-graph dwarf -F 4999
	grep -Eq '^prof record: [0-9.]+ s, [0-9]+ samples, [0-9]+ threads, 0 lost,' "$BATS_TEST_TMPDIR/d.data.err"
}

@test "-m keeps the size asked for: the same pause loses samples, and says how many" {
	stopped_recorder "$BATS_TEST_TMPDIR/m.data" --call-graph dwarf -F 4999 -m 1024
	line=$(grep -E '^prof record: [0-9.]+ s, [0-9]+ samples, [0-9]+ threads, [1-9][0-9]* lost,' "$BATS_TEST_TMPDIR/m.data.err")
	# Samples and lost ones together: at least what the target's CPU
	# while the recorder was stopped makes at 4999 Hz (less a quarter:
	# the kernel's clock ticks), the recorder's dropping included.
	echo "$line" | awk -v ns="$STOPPED_NS" '{ kept = $5; lost = $9
		if (kept + lost < ns / 1e9 * 4999 * 0.75) { print "kept", kept, "lost", lost, "stopped ns", ns; exit 1 } }' >&2
}
