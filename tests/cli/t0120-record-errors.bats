#!/usr/bin/env bats
# t0120: prof record's errors: one clear line (plus a hint), exit 1 for
# failures, 2 for usage; no file left behind when nothing was recorded.

load helpers

@test "no such PID: exit 1, says so, leaves no file" {
	cd "$BATS_TEST_TMPDIR"
	run "$PROF" record -p 999999999 -o x.data
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "prof record: no such process: 999999999" ]]
	[ ! -e x.data ]
}

@test "usage errors exit 2 with a hint" {
	run "$PROF" record
	[ "$status" -eq 2 ]
	[[ "$output" == *"nothing to record"* ]]
	run "$PROF" record -p abc
	[ "$status" -eq 2 ]
	run "$PROF" record -F 0 -- true
	[ "$status" -eq 2 ]
	run "$PROF" record -d -1 -- true
	[ "$status" -eq 2 ]
	run "$PROF" record --bogus -- true
	[ "$status" -eq 2 ]
	run "$PROF" record -p 1 -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"hint: see 'prof record -h'"* ]]
}

@test "-h prints the usage on stdout and exits 0" {
	run "$PROF" record -h
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: prof record"* ]]
}

@test "unwritable output: exit 1 with the path and the reason" {
	run "$PROF" record -o /nonexistent-dir/x.data -- true
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "prof record: cannot open '/nonexistent-dir/x.data' for writing: No such file or directory" ]]
}

@test "a command that cannot run: exit 1, no file" {
	cd "$BATS_TEST_TMPDIR"
	run "$PROF" record -o y.data -- ./no-such-command
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot run './no-such-command': No such file or directory"* ]]
	[ ! -e y.data ]
}

@test "a target that is already gone (zombie) exits 1 with a clear message" {
	# A zombie: its parent (this sh) does not reap it while we attach.
	cd "$BATS_TEST_TMPDIR"
	sh -c 'sleep 0 & z=$!; sleep 0.3; echo $z > zpid; sleep 2' &
	parent=$!
	for _ in $(seq 50); do [ -s zpid ] && break; sleep 0.05; done
	run "$PROF" record -p "$(cat zpid)" -o z.data
	kill "$parent" 2>/dev/null || true
	[ "$status" -eq 1 ]
	[[ "$output" == *"exited before sampling started"* || "$output" == *"no such process"* ]]
}

@test "too high a frequency is refused with the kernel's limit" {
	run "$PROF" record -F 1000000 -- true
	[ "$status" -eq 1 ]
	[[ "$output" == *"perf_event_max_sample_rate"* ]]
}
