#!/usr/bin/env bats
# t0525: --call-graph auto, the default. The stack mode follows the targets'
# code: DWARF for a program built without frame pointers
# (examples/nofp-deep.c) or with its hot code in a library of its own tree
# built without them (examples/lib/), frame pointers where they are kept
# (examples/threads.c, examples/lib/); a notice on stderr and the file's
# meta say which and why, -q silences the notice, and the stacks reach
# their thread's root either way. In frame-pointer mode a walk that meets
# a return address no code can have (examples/fp-garbage.c) is cut there,
# and the summary says to rerun with --call-graph dwarf.

load helpers

# The percentage of the samples of folded file $1 whose stack (without its
# count) matches the ERE $2, anchors included.
share() {
	RE="$2" awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); t += n; if (s ~ ENVIRON["RE"]) a += n }
		END { printf "%.1f\n", t ? 100 * a / t : 0 }' "$1"
}

# A thread's root: the program's start or a thread's start in the C library.
ROOT='^(_start|__libc_start_main|__libc_start_call_main|clone|clone3|start_thread);'

@test "auto picks DWARF stacks for a program without frame pointers" {
	run "$PROF" record -F 499 -o "$BATS_TEST_TMPDIR/nofp.data" -- "$EXAMPLES/nofp-deep" 2 1
	[ "$status" -eq 0 ]
	echo "$output" | grep -E 'nofp-deep has no frame pointers \([0-9]+% of its code keeps one\): DWARF stacks \(--call-graph dwarf,32768; --call-graph fp to override\)'
	echo "$output" | grep -q 'unwound to their root'
	grep -qa 'call-graph-auto' "$BATS_TEST_TMPDIR/nofp.data"
	"$PROF" report -i "$BATS_TEST_TMPDIR/nofp.data" >"$BATS_TEST_TMPDIR/nofp.folded"
	assert_between "stacks with a root %" "$(share "$BATS_TEST_TMPDIR/nofp.folded" "$ROOT")" 95 100
	# Both threads spend their CPU in leaf by construction.
	assert_between "main;run_a;run_b;run_c;leaf %" \
		"$(share "$BATS_TEST_TMPDIR/nofp.folded" ';(main|worker);(run_until_end;)?run_a;run_b;run_c;leaf(;.*_\[k\])?$')" 90 100
}

@test "auto keeps frame pointers for a program that has them" {
	run "$PROF" record -F 499 -o "$BATS_TEST_TMPDIR/fp.data" -- "$EXAMPLES/threads" 1
	[ "$status" -eq 0 ]
	echo "$output" | grep -E 'threads has frame pointers \([0-9]+% of its code keeps one\): frame-pointer stacks \(--call-graph dwarf to override\)'
	# The summary's share of stacks that reached their root, and the
	# file's stacks: at least 95% each.
	line=$(echo "$output" | grep 'reached their root through frame pointers')
	pct=$(echo "$line" | sed -E 's/.*pointers \(([0-9.]+)%\).*/\1/')
	assert_between "summary: reached root %" "$pct" 95 100
	! echo "$line" | grep -q 'rerun with'
	"$PROF" report -i "$BATS_TEST_TMPDIR/fp.data" >"$BATS_TEST_TMPDIR/fp.folded"
	assert_between "stacks with a root %" "$(share "$BATS_TEST_TMPDIR/fp.folded" "$ROOT")" 95 100
}

@test "a library of the program's tree without frame pointers makes it DWARF; with them, fp" {
	run "$PROF" record -F 499 -o "$BATS_TEST_TMPDIR/libnofp.data" -- "$EXAMPLES/lib-nofp-app" 1
	[ "$status" -eq 0 ]
	echo "$output" | grep -E 'libwork-nofp\.so has no frame pointers .*: DWARF stacks'
	"$PROF" report -i "$BATS_TEST_TMPDIR/libnofp.data" >"$BATS_TEST_TMPDIR/libnofp.folded"
	chain=';main;app_loop;work_run;work_outer;work_inner;work_leaf(;.*_\[k\])?$'
	assert_between "nofp library: stacks with a root %" \
		"$(share "$BATS_TEST_TMPDIR/libnofp.folded" "$ROOT")" 95 100
	assert_between "nofp library: the whole chain %" \
		"$(share "$BATS_TEST_TMPDIR/libnofp.folded" "$chain")" 90 100

	run "$PROF" record -F 499 -o "$BATS_TEST_TMPDIR/libfp.data" -- "$EXAMPLES/lib-fp-app" 1
	[ "$status" -eq 0 ]
	echo "$output" | grep -E 'lib-fp-app has frame pointers .*: frame-pointer stacks'
	"$PROF" report -i "$BATS_TEST_TMPDIR/libfp.data" >"$BATS_TEST_TMPDIR/libfp.folded"
	assert_between "fp library: stacks with a root %" \
		"$(share "$BATS_TEST_TMPDIR/libfp.folded" "$ROOT")" 95 100
	assert_between "fp library: the whole chain %" \
		"$(share "$BATS_TEST_TMPDIR/libfp.folded" "$chain")" 90 100
}

@test "attached with -p, auto judges the process's executable" {
	start_example nofp-deep 30
	run "$PROF" record -F 499 -d 1 -o "$BATS_TEST_TMPDIR/attach.data" -p "$EXAMPLE_PID"
	kill "$EXAMPLE_PID"
	wait "$EXAMPLE_PID" || true
	[ "$status" -eq 0 ]
	echo "$output" | grep -E "/nofp-deep has no frame pointers .*: DWARF stacks"
	"$PROF" report -i "$BATS_TEST_TMPDIR/attach.data" >"$BATS_TEST_TMPDIR/attach.folded"
	assert_between "stacks with a root %" "$(share "$BATS_TEST_TMPDIR/attach.folded" "$ROOT")" 95 100
}

@test "fp mode cuts a walk at a non-canonical return address and says to rerun with dwarf" {
	run "$PROF" record -F 499 --call-graph fp -o "$BATS_TEST_TMPDIR/garbage.data" \
		-- "$EXAMPLES/fp-garbage" 1
	[ "$status" -eq 0 ]
	! echo "$output" | grep -q 'frame pointers (' # no notice: the mode was given
	echo "$output" | grep -E 'reached their root through frame pointers \([0-9.]+%\), [1-9][0-9]* cut at a garbage frame: rerun with --call-graph dwarf'
	"$PROF" report -i "$BATS_TEST_TMPDIR/garbage.data" >"$BATS_TEST_TMPDIR/garbage.folded"
	grep -q 'garbage_leaf' "$BATS_TEST_TMPDIR/garbage.folded"
	# Nothing above the user address range (13 hex digits and more).
	! grep -E '\[unknown\+0x[0-9a-f]{13,}\]' "$BATS_TEST_TMPDIR/garbage.folded"
}

@test "--no-leaf-fix: the walk is cut at the garbage frame all the same" {
	"$PROF" record -q -F 499 --call-graph fp --no-leaf-fix -o "$BATS_TEST_TMPDIR/nl.data" \
		-- "$EXAMPLES/fp-garbage" 1
	"$PROF" report -i "$BATS_TEST_TMPDIR/nl.data" >"$BATS_TEST_TMPDIR/nl.folded"
	grep -q 'garbage_leaf' "$BATS_TEST_TMPDIR/nl.folded"
	! grep -E '\[unknown\+0x[0-9a-f]{13,}\]' "$BATS_TEST_TMPDIR/nl.folded"
}

@test "-q silences the notice; --call-graph auto given is the default" {
	run "$PROF" record -q -o "$BATS_TEST_TMPDIR/q.data" -- "$EXAMPLES/nofp-deep" 0.3
	[ "$status" -eq 0 ]
	! echo "$output" | grep -q 'prof record'
	grep -qa 'call-graph-auto' "$BATS_TEST_TMPDIR/q.data"
	run "$PROF" record --call-graph auto -o "$BATS_TEST_TMPDIR/a.data" -- "$EXAMPLES/nofp-deep" 0.3
	[ "$status" -eq 0 ]
	echo "$output" | grep -q 'no frame pointers'
}

@test "bad --call-graph values are still refused" {
	for bad in autox auto,8 fpx "" dwarf,7; do
		run "$PROF" record --call-graph "$bad" -- true
		[ "$status" -eq 2 ]
		echo "$output" | grep -q "invalid --call-graph"
	done
}
