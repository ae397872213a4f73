#!/usr/bin/env bats
# t0130: every way a recording ends leaves a readable file: Ctrl-C and
# SIGTERM (complete), the target exiting mid-recording (complete, and the
# recorder stops at once), SIGKILL of the recorder (readable up to the last
# flush, reported as incomplete).

load helpers

# Each signal is sent once the recorder has flushed samples (wait_readable),
# not after a fixed time: on a loaded machine attaching alone can take longer.
@test "SIGINT: the file is complete" {
	start_example threads 30
	record_start "$BATS_TEST_TMPDIR/int.data"
	wait_readable "$BATS_TEST_TMPDIR/int.data" 1
	record_stop INT "$BATS_TEST_TMPDIR/int.data"
	kill "$EXAMPLE_PID" 2>/dev/null || true # (it may have ended: a slow machine)
	run "$PROF" report -i "$BATS_TEST_TMPDIR/int.data" --threads
	[ "$status" -eq 0 ]
	[[ "$output" != *incomplete* ]]
	echo "$output" | grep -q '^alpha;'
	# nothing flushed before the signal is lost
	[ "$(echo "$output" | folded_total)" -ge "$READABLE" ]
}

@test "SIGTERM: the file is complete" {
	start_example threads 30
	record_start "$BATS_TEST_TMPDIR/term.data"
	wait_readable "$BATS_TEST_TMPDIR/term.data" 50
	record_stop TERM "$BATS_TEST_TMPDIR/term.data"
	kill "$EXAMPLE_PID" 2>/dev/null || true # (it may have ended: a slow machine)
	run "$PROF" report -i "$BATS_TEST_TMPDIR/term.data"
	[ "$status" -eq 0 ]
	[[ "$output" != *incomplete* ]]
	[ "$(echo "$output" | folded_total)" -ge "$READABLE" ]
}

@test "SIGKILL of the recorder: readable up to the last flush, reported incomplete" {
	start_example threads 30
	# killed once two flushes are readable
	record_killed "$BATS_TEST_TMPDIR/kill.data" 2 -F 999
	run "$PROF" report -i "$BATS_TEST_TMPDIR/kill.data" --threads
	[ "$status" -eq 0 ]
	[[ "$output" == *incomplete* ]]
	# Everything readable before the kill is read back (and what the
	# recorder flushed between that look and the kill).
	total=$(echo "$output" | grep -v '^prof report:' | folded_total)
	echo "samples read back: $total, readable before the kill: $READABLE"
	[ "$total" -ge "$READABLE" ]
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
