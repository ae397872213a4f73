#!/usr/bin/env bats
# t0135: deferred processing (record/defer.c). By default the recorder writes
# the kernel's records as they are and makes them into stacks after the
# recording; the file it leaves holds only stacks. A recorder killed while
# deferring leaves the records, and readers process them; past
# --defer-limit the recorder processes as it goes; --no-defer and
# --call-graph dwarf never defer. An output is a new file renamed into
# place, so a symlink at it is replaced (and then deferred like any file),
# unless only root or we could have made it (lib/out-file.h).

load helpers

# The ratio of alpha's samples to beta's.
alpha_beta() {
	local folded=$1
	ratio "$(echo "$folded" | folded_sum '^alpha;')" "$(echo "$folded" | folded_sum '^beta;')"
}

# alpha_beta_as_measured FOLDED ALPHA_CPU BETA_CPU: asserts the ratio of
# alpha's samples to beta's is the ratio of the CPU they used (built 2:1, but
# a loaded machine moves it), within 15%.
alpha_beta_as_measured() {
	assert_between "alpha/beta samples over alpha/beta CPU" \
		"$(ratio "$(alpha_beta "$1")" "$(ratio "$2" "$3")")" 0.85 1.15
}

# alpha_beta_launched OUTPUT FOLDED: the same for a launched threads, with
# the CPU it printed at exit (in OUTPUT, `run prof record`'s).
alpha_beta_launched() {
	alpha_beta_as_measured "$2" "$(echo "$1" | example_cpu alpha)" "$(echo "$1" | example_cpu beta)"
}

# alpha_beta_attached OUT FOLDED: the same for an attached threads, with
# schedstat while recorded (OUT's record_start and record_stop snapshots).
alpha_beta_attached() {
	alpha_beta_as_measured "$2" "$(cpu_during alpha "$1.cpu-before" "$1.cpu-after")" \
		"$(cpu_during beta "$1.cpu-before" "$1.cpu-after")"
}

# bytes_per_sample FILE: the bytes of FILE's SAMPLES and STACKS chunks (what
# grows with the samples; the rest is per thread, mapping and frame) per
# sample, chunk headers included.
bytes_per_sample() {
	python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = struct.unpack_from('<I', d, 12)[0]
size = samples = 0
while off + 16 <= len(d):
    t, n, _, count = struct.unpack_from('<IIII', d, off)
    if t in (6, 7):
        size += 16 + n
    if t == 7:
        samples += count
    off += 16 + n
print(size // samples if samples else 'none')
EOF
}

@test "default: deferred, processed at the end, nothing raw left in the file" {
	run "$PROF" record -F 999 -o "$BATS_TEST_TMPDIR/d.data" -- "$EXAMPLES/threads" 2
	[ "$status" -eq 0 ]
	recorded=$output
	grep -aq deferred-processing-ns "$BATS_TEST_TMPDIR/d.data"
	[ ! -e "$BATS_TEST_TMPDIR/d.data.tmp-"* ]
	run "$PROF" report -i "$BATS_TEST_TMPDIR/d.data" --threads
	[ "$status" -eq 0 ]
	[[ "$output" != *"kernel records"* ]]
	[[ "$output" != *incomplete* ]]
	echo "$output" | grep -q '^alpha;start_thread;alpha_thread;alpha_outer;alpha_inner;burn_alpha '
	alpha_beta_launched "$recorded" "$output"
	# Stacks, not records: far under perf's ~95 bytes per sample.
	per=$(bytes_per_sample "$BATS_TEST_TMPDIR/d.data")
	echo "bytes per sample: $per"
	[ "$per" -lt 40 ]
}

@test "--no-defer: processed as the samples come, the same profile" {
	run "$PROF" record -F 999 --no-defer -o "$BATS_TEST_TMPDIR/l.data" -- "$EXAMPLES/threads" 2
	[ "$status" -eq 0 ]
	recorded=$output
	! grep -aq deferred-processing-ns "$BATS_TEST_TMPDIR/l.data"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/l.data" --threads
	[ "$status" -eq 0 ]
	echo "$output" | grep -q '^alpha;start_thread;alpha_thread;alpha_outer;alpha_inner;burn_alpha '
	alpha_beta_launched "$recorded" "$output"
}

@test "SIGKILL while deferring: readers process the records left; prof symbolize keeps them" {
	start_example threads 30
	# killed once two flushes are readable
	record_killed "$BATS_TEST_TMPDIR/k.data" 2 -F 999
	run "$PROF" report -i "$BATS_TEST_TMPDIR/k.data" --threads
	[ "$status" -eq 0 ]
	[[ "$output" == *incomplete* ]]
	[[ "$output" =~ stopped\ \(killed,\ or\ its\ disk\ filled\)\ before\ processing\ its\ samples:\ processed\ [1-9][0-9]*\ chunks? ]]
	folded=$(echo "$output" | grep -v '^prof report:')
	total=$(echo "$folded" | folded_total)
	echo "samples read back: $total, readable before the kill: $READABLE"
	[ "$total" -ge "$READABLE" ]
	echo "$folded" | grep -q '^alpha;start_thread;alpha_thread;alpha_outer;alpha_inner;burn_alpha '
	alpha_beta_attached "$BATS_TEST_TMPDIR/k.data" "$folded"
	# prof symbolize writes them processed: the same stacks, no warning.
	run "$PROF" symbolize --incomplete -i "$BATS_TEST_TMPDIR/k.data" -o "$BATS_TEST_TMPDIR/f.data"
	[ "$status" -eq 0 ]
	[[ "$output" == *"processed the "*" of kernel records"* ]]
	run "$PROF" report -i "$BATS_TEST_TMPDIR/f.data" --threads
	[ "$status" -eq 0 ]
	[[ "$output" != *"kernel records"* ]]
	[ "$output" = "$folded" ]
}

@test "--defer-limit: past the limit the recorder processes as it goes" {
	# About 1.5 MB of records a second (at 0.8 CPUs busy): a flush passes
	# 1 MiB, the file is rewritten processed, and later samples are flushed
	# as stacks. Killed once that happened: 2000 samples readable, and no
	# kernel records left for the reader to process.
	start_example threads 30
	record_start "$BATS_TEST_TMPDIR/m.data" -F 4999 --defer-limit 1
	wait_readable "$BATS_TEST_TMPDIR/m.data" 2000 "kernel records"
	record_stop KILL "$BATS_TEST_TMPDIR/m.data"
	kill "$EXAMPLE_PID"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/m.data" --threads
	[ "$status" -eq 0 ]
	[[ "$output" == *incomplete* ]]
	[[ "$output" != *"kernel records"* ]]
	folded=$(echo "$output" | grep -v '^prof report:')
	total=$(echo "$folded" | folded_total)
	echo "samples read back: $total, readable before the kill: $READABLE"
	[ "$total" -ge "$READABLE" ]
	alpha_beta_attached "$BATS_TEST_TMPDIR/m.data" "$folded"
}

@test "a symlink another user could have made is replaced, its target untouched, and deferred" {
	# A directory others may write: the link could be theirs
	# (lib/out-file.h), so it is not followed.
	mkdir -m 1777 "$BATS_TEST_TMPDIR/shared"
	echo "the link's target" >"$BATS_TEST_TMPDIR/real.data"
	ln -s ../real.data "$BATS_TEST_TMPDIR/shared/link.data"
	run "$PROF" record -F 999 -o "$BATS_TEST_TMPDIR/shared/link.data" -- "$EXAMPLES/threads" 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"was a symbolic link another user could have made: replaced the link"* ]]
	[ ! -L "$BATS_TEST_TMPDIR/shared/link.data" ]
	[ "$(cat "$BATS_TEST_TMPDIR/real.data")" = "the link's target" ]
	grep -aq deferred-processing-ns "$BATS_TEST_TMPDIR/shared/link.data"
	[ "$(ls "$BATS_TEST_TMPDIR/shared")" = link.data ]
	run "$PROF" report -i "$BATS_TEST_TMPDIR/shared/link.data" --threads
	[ "$status" -eq 0 ]
	echo "$output" | grep -q '^alpha;'
}

@test "--call-graph dwarf is not deferred: processed as the samples come" {
	run "$PROF" record -F 999 --call-graph dwarf -o "$BATS_TEST_TMPDIR/w.data" -- "$EXAMPLES/threads" 1
	[ "$status" -eq 0 ]
	! grep -aq deferred-processing-ns "$BATS_TEST_TMPDIR/w.data"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/w.data" --threads
	[ "$status" -eq 0 ]
	echo "$output" | grep -q '^alpha;.*burn_alpha '
}

@test "your own symlink in your own directory is followed: written live, the link stays" {
	touch "$BATS_TEST_TMPDIR/real.data"
	ln -s real.data "$BATS_TEST_TMPDIR/link.data"
	run "$PROF" record -F 999 -o "$BATS_TEST_TMPDIR/link.data" -- "$EXAMPLES/threads" 1
	[ "$status" -eq 0 ]
	[ -L "$BATS_TEST_TMPDIR/link.data" ]
	! grep -aq deferred-processing-ns "$BATS_TEST_TMPDIR/real.data"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/link.data" --threads
	[ "$status" -eq 0 ]
	echo "$output" | grep -q '^alpha;'
}

@test "--defer-limit and --no-defer: bad values are usage errors" {
	run "$PROF" record --defer-limit 0 -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid --defer-limit '0'"* ]]
	run "$PROF" record --defer-limit lots -- true
	[ "$status" -eq 2 ]
}
