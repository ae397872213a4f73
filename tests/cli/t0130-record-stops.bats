#!/usr/bin/env bats
# t0130: every way a recording ends leaves a readable file: Ctrl-C and
# SIGTERM (complete), the target exiting mid-recording (complete, and the
# recorder stops at once), SIGKILL of the recorder (readable up to the last
# flush, reported as incomplete).

load helpers

@test "SIGINT: the file is complete" {
	start_example threads 30
	"$PROF" record -p "$EXAMPLE_PID" -o "$BATS_TEST_TMPDIR/int.data" 2>/dev/null &
	rec=$!
	sleep 1.5
	kill -INT $rec
	wait $rec
	kill "$EXAMPLE_PID"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/int.data" --threads
	[ "$status" -eq 0 ]
	[[ "$output" != *incomplete* ]]
	echo "$output" | grep -q '^alpha;'
}

@test "SIGTERM: the file is complete" {
	start_example threads 30
	"$PROF" record -p "$EXAMPLE_PID" -o "$BATS_TEST_TMPDIR/term.data" 2>/dev/null &
	rec=$!
	sleep 1.5
	kill -TERM $rec
	wait $rec
	kill "$EXAMPLE_PID"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/term.data"
	[ "$status" -eq 0 ]
	[[ "$output" != *incomplete* ]]
	[ "$(echo "$output" | folded_total)" -gt 50 ]
}

@test "SIGKILL of the recorder: readable up to the last flush, reported incomplete" {
	start_example threads 30
	record_killed 3.5 -F 999 -o "$BATS_TEST_TMPDIR/kill.data"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/kill.data" --threads
	[ "$status" -eq 0 ]
	[[ "$output" == *incomplete* ]]
	# At most about a second lost: 3.5 s at 999 Hz with ~0.8 CPUs busy is
	# about 2800 samples, 2000 of them flushed (a slow start, as under
	# ASan, leaves at least 2 s of flushes); 1000 is under half of that.
	total=$(echo "$output" | grep -v '^prof report:' | folded_total)
	echo "samples read back: $total"
	[ "$total" -gt 1000 ]
	echo "$output" | grep -q '^alpha;'
}

@test "a target that exits mid-recording ends the recording early, complete" {
	start_example threads 1
	start=$(date +%s)
	run "$PROF" record -d 20 -p "$EXAMPLE_PID" -o "$BATS_TEST_TMPDIR/exit.data"
	[ "$status" -eq 0 ]
	[ $(( $(date +%s) - start )) -lt 10 ]
	run "$PROF" report -i "$BATS_TEST_TMPDIR/exit.data"
	[ "$status" -eq 0 ]
	[[ "$output" != *incomplete* ]]
}

@test "-d stops a launched command and keeps the file complete" {
	run "$PROF" record -d 1 -o "$BATS_TEST_TMPDIR/dur.data" -- "$EXAMPLES/threads" 30
	[ "$status" -eq 0 ]
	[[ "$output" =~ prof\ record:\ 1\.[0-9]\ s ]]
	run "$PROF" report -i "$BATS_TEST_TMPDIR/dur.data" --threads
	[ "$status" -eq 0 ]
	echo "$output" | grep -q '^alpha;'
}
