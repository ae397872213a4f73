#!/usr/bin/env bats
# t0646: Java methods inlined by C2, shown as `_[i]` frames under the
# compiled method they were inlined into (jvm/scopes.c: the nmethod's pc
# descs and scope chains, read out of process while recording), for a JVM
# started with no flags and recorded with the default call graph, which
# picks DWARF stacks for it (record/call-graph-auto.c). The workload,
# examples/java/Inline.java, calls Inline.inner() only from Inline.outer(),
# and C2 inlines it there: every sample in inner() is one under outer().

load helpers

JCMD=${JCMD:-$(dirname "$JAVA")/jcmd}

teardown() {
	[ -n "${INL_PID:-}" ] && kill "$INL_PID" 2>/dev/null || true
}

# start_inline SECONDS: runs the example, waits for "ready"; sets INL_PID.
start_inline() {
	INL_LOG=$BATS_TEST_TMPDIR/inline.log
	"$JAVA" -cp "$EXAMPLES/java" Inline "$1" 2>"$INL_LOG" >"$INL_LOG.out" &
	INL_PID=$!
	wait_ready "$INL_LOG" "$INL_PID"
}

# c2_outer: has C2 (level 4) compiled Inline.outer, as the JVM itself
# lists its code (the oracle; asked before recording, not during)?
c2_outer() {
	"$JCMD" "$INL_PID" Compiler.codelist 2>/dev/null |
		awk '$2 == 4 && $4 ~ /^Inline\.outer\(/ { f = 1 } END { exit !f }'
}

# sum REGEX FILE: the samples of folded FILE whose stack matches REGEX.
sum() {
	RE="$1" awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); if (s ~ ENVIRON["RE"]) t += n }
		END { print t + 0 }' "$2"
}

@test "a JVM with no flags: C2's inlined method shown _[i] under its caller, by default" {
	start_inline 60
	wait_until 60 c2_outer
	run "$PROF" record -F 199 -d 4 -p "$INL_PID" -o "$BATS_TEST_TMPDIR/inl.data"
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "JVM $INL_PID runs without -XX:+PreserveFramePointer: DWARF stacks"
	"$PROF" report -i "$BATS_TEST_TMPDIR/inl.data" --threads >"$BATS_TEST_TMPDIR/folded"
	grep '^inliner;' "$BATS_TEST_TMPDIR/folded" >"$BATS_TEST_TMPDIR/inliner" || true
	# the caller's samples, and those with the inlined method right under it
	caller=$(sum ';Inline\.outer_\[j\](;|$)' "$BATS_TEST_TMPDIR/inliner")
	inlined=$(sum ';Inline\.outer_\[j\];Inline\.inner_\[i\](;|$)' "$BATS_TEST_TMPDIR/inliner")
	# inner() has no compiled frame of its own in C2's outer(): as _[j],
	# only from before (C1's outer called it)
	called=$(sum ';Inline\.outer_\[j\];Inline\.inner_\[j\](;|$)' "$BATS_TEST_TMPDIR/inliner")
	echo "# Inline.outer: $caller samples, $inlined with Inline.inner_[i] under it, $called with inner_[j]" >&3
	((caller > 50))
	# inner() is where outer() spends its time (its loop over a row
	# against outer()'s one call per row): most of the caller's samples
	((inlined * 100 >= caller * 70))
	# an inlined frame is never the outermost frame of a stack
	! grep -q '^inliner;Inline\.inner_\[i\]' "$BATS_TEST_TMPDIR/inliner"
	# the file says how many pcs it decoded, and how many it refused
	# (none here; an nmethod freed while it was read would be)
	"$PROF" report -i "$BATS_TEST_TMPDIR/inl.data" --header >"$BATS_TEST_TMPDIR/header"
	deep=$(awk '$1 == "jvm-inline-deep:" { print $2 }' "$BATS_TEST_TMPDIR/header")
	failed=$(awk '$1 == "jvm-inline-failed:" { print $2 }' "$BATS_TEST_TMPDIR/header")
	echo "# pcs with inlined methods: $deep, refused: $failed" >&3
	((deep > 0 && failed * 5 <= deep))
	# the top table shows it too
	"$PROF" report -i "$BATS_TEST_TMPDIR/inl.data" --top 5 | grep -q 'Inline\.inner_\[i\]'
}


@test "a java command launched: auto takes DWARF stacks unless -XX:+PreserveFramePointer is given" {
	run "$PROF" record -F 199 -o "$BATS_TEST_TMPDIR/launch.data" -- "$JAVA" -cp "$EXAMPLES/java" Inline 3
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "java starts a JVM without -XX:+PreserveFramePointer: DWARF stacks"
	"$PROF" report -i "$BATS_TEST_TMPDIR/launch.data" --threads >"$BATS_TEST_TMPDIR/folded"
	# a 3 s run reaches C2's outer(): some samples name the inlined method
	grep -q '^inliner;.*;Inline\.outer_\[j\];Inline\.inner_\[i\]' "$BATS_TEST_TMPDIR/folded"
	# the flag, in the launcher's variable: frame pointers
	JDK_JAVA_OPTIONS=-XX:+PreserveFramePointer run "$PROF" record -F 99 \
		-o "$BATS_TEST_TMPDIR/pfp.data" -- "$JAVA" -cp "$EXAMPLES/java" Inline 1
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "frame-pointer stacks"
}
