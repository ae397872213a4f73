#!/usr/bin/env bats
# t0200: prof report's grep-style filters on a real recording and on folded
# text: --include/--exclude/--thread compose, --grep's exit status works for
# CI scripts, folded text chains through pipes, bad regexes are usage errors.

load helpers

setup_file() {
	export REC="$BATS_FILE_TMPDIR/threads.data"
	"$PROF" record -F 999 -o "$REC" -- "$EXAMPLES/threads" 2 2>/dev/null
}

@test "--include keeps only stacks with a matching frame" {
	run "$PROF" report -i "$REC" --include 'burn_(alpha|beta)'
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	! echo "$output" | grep -vEq 'burn_(alpha|beta)'
}

@test "--exclude drops stacks with a matching frame" {
	all=$("$PROF" report -i "$REC" | folded_total)
	alpha=$("$PROF" report -i "$REC" | folded_sum 'alpha_outer')
	rest=$("$PROF" report -i "$REC" --exclude alpha_outer | folded_total)
	[ "$rest" -eq $((all - alpha)) ]
}

@test "filters compose: include, exclude and thread together" {
	# --include/--exclude look at frames (not the thread root); --thread at
	# the thread's name.
	run "$PROF" report -i "$REC" --threads --thread '^pool-1$' --include 'pool_(work|burn)' --exclude burn_beta
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	! echo "$output" | grep -vq '^pool-1;.*pool_work'
	run "$PROF" report -i "$REC" --threads --thread '^(alpha|beta)$' --exclude burn_alpha
	[ "$status" -eq 0 ]
	echo "$output" | grep -q '^beta;.*burn_beta'
	! echo "$output" | grep -Eq 'burn_alpha|^pool'

}

@test "--grep exits 1 when nothing matches, 0 when something does" {
	run "$PROF" report -i "$REC" --grep 'no_such_function_anywhere'
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	run "$PROF" report -i "$REC" --grep burn_beta
	[ "$status" -eq 0 ]
	echo "$output" | grep -q burn_beta
}

@test "folded text chains through pipes and filters the same way" {
	direct=$("$PROF" report -i "$REC" --threads --exclude burn_alpha)
	piped=$("$PROF" report -i "$REC" --threads | "$PROF" report --exclude burn_alpha)
	[ "$direct" = "$piped" ]
	"$PROF" report -i "$REC" --threads > "$BATS_TEST_TMPDIR/f.folded"
	viafile=$("$PROF" report -i "$BATS_TEST_TMPDIR/f.folded" --exclude burn_alpha)
	[ "$direct" = "$viafile" ]
}

@test "--thread on folded text matches the root frame" {
	"$PROF" report -i "$REC" --threads > "$BATS_TEST_TMPDIR/t.folded"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/t.folded" --thread '^beta$'
	[ "$status" -eq 0 ]
	! echo "$output" | grep -vq '^beta;'
}

@test "an invalid regex is a usage error naming the regex" {
	run "$PROF" report -i "$REC" --include 'a(b'
	[ "$status" -eq 2 ]
	[[ "$output" == *"a(b"* ]]
}

@test "missing input: exit 1 with a hint" {
	run "$PROF" report -i "$BATS_TEST_TMPDIR/none.data"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == *"cannot open"*"none.data"*"No such file or directory"* ]]
}

@test "a corrupted recording is rejected with a clear message, no crash" {
	cp "$REC" "$BATS_TEST_TMPDIR/bad.data"
	# Change two bytes of the first chunk's payload (after the 16-byte file
	# header and its 16-byte chunk header): its checksum no longer matches.
	# (The middle of the file can be a chunk header, which reads as a cut.)
	printf '\377' | dd of="$BATS_TEST_TMPDIR/bad.data" bs=1 seek=40 conv=notrunc 2>/dev/null
	printf '\000' | dd of="$BATS_TEST_TMPDIR/bad.data" bs=1 seek=41 conv=notrunc 2>/dev/null
	run "$PROF" report -i "$BATS_TEST_TMPDIR/bad.data"
	[ "$status" -eq 1 ]
	[[ "$output" == *"corrupt"* ]]
}

@test "a truncated recording reads up to its last complete chunk, with a warning" {
	size=$(stat -c %s "$REC")
	head -c $((size - 100)) "$REC" > "$BATS_TEST_TMPDIR/cut.data"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/cut.data"
	[ "$status" -eq 0 ]
	[[ "$output" == *"incomplete"* ]]
	head -c 10 "$REC" > "$BATS_TEST_TMPDIR/tiny.data"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/tiny.data"
	[ "$status" -eq 1 ]
}

@test "malformed folded lines are counted and reported with the first line number" {
	printf 'a;b 3\nthis line has no count\na;c 2\n' > "$BATS_TEST_TMPDIR/m.folded"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/m.folded"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 malformed"*"line 2"* ]]
	echo "$output" | grep -qx 'a;b 3'
	printf 'junk\nmore junk\n' > "$BATS_TEST_TMPDIR/j.folded"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/j.folded"
	[ "$status" -eq 1 ]
}

@test "--pid and --tid need a recording, not folded text" {
	run sh -c "printf 'a;b 3\\n' | '$PROF' report --pid 1"
	[ "$status" -eq 2 ]
	run sh -c "printf 'a;b 3\\n' | '$PROF' report --tid 1"
	[ "$status" -eq 2 ]
}

@test "report -h synopsis matches docs/prof-report.md" {
	run "$PROF" report -h
	[ "$status" -eq 0 ]
	first=$(echo "$output" | head -1)
	grep -qF -- "$first" "$ROOT/docs/prof-report.md"
}

@test "record -h synopsis matches docs/prof-record.md" {
	first=$("$PROF" record -h | head -1)
	grep -qF -- "$first" "$ROOT/docs/prof-record.md"
}
