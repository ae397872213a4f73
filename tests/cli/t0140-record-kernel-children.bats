#!/usr/bin/env bats
# t0140: kernel frames are recorded and marked `_[k]`; a launched command's
# child processes are followed under their own names.

load helpers

@test "kernel frames are symbolized and marked _[k], user frames are not" {
	rec="$BATS_TEST_TMPDIR/dd.data"
	run "$PROF" record -F 999 -o "$rec" -- dd if=/dev/zero of=/dev/null bs=64k count=100000
	[ "$status" -eq 0 ]
	folded=$("$PROF" report -i "$rec")
	kernel=$(echo "$folded" | folded_sum '_\[k\]')
	total=$(echo "$folded" | folded_total)
	# dd copying zeroes spends most of its time in the kernel.
	assert_between "share of stacks with kernel frames" "$(ratio "$kernel" "$total")" 0.5 1.0
	# read(2) shows up by name: the syscall entry and the read path.
	echo "$folded" | grep -Eq '(sys_read|ksys_read|vfs_read)_\[k\]'
	# Root first: once a kernel frame appears, every frame after it is a
	# kernel frame too (the syscall sits on top of the user stack).
	bad=$(echo "$folded" | awk '{ $NF = ""; sub(/ +$/, ""); n = split($0, f, ";"); k = 0
		for (i = 1; i <= n; i++) { if (f[i] ~ /_\[k\]$/) k = 1; else if (k) { print; break } } }')
	[ -z "$bad" ]
}

@test "a launched command's child process is followed under its name" {
	rec="$BATS_TEST_TMPDIR/fork.data"
	run "$PROF" record -F 499 -o "$rec" -- "$EXAMPLES/forker" 2
	[ "$status" -eq 0 ]
	folded=$("$PROF" report -i "$rec" --threads)
	child=$(echo "$folded" | folded_sum '^forker-child;.*child_work')
	parent=$(echo "$folded" | folded_sum '^forker-parent;.*parent_work')
	# The child spins twice as much as the parent (50% vs 25% duty) when it
	# gets the CPU, but a loaded machine moves that: the samples follow the
	# CPU each really used (forker prints it): 499 a CPU second (-20%, +15%:
	# the function's samples, not the process's few others), and the
	# child/parent ratio within 25%.
	cpu() { echo "$output" | T="$1" awk '$1 == "cpu" && $2 == ENVIRON["T"] { print $3 }'; }
	assert_between "child samples per CPU second" "$(ratio "$child" "$(cpu forker-child)")" 400 575
	assert_between "parent samples per CPU second" "$(ratio "$parent" "$(cpu forker-parent)")" 400 575
	want=$(ratio "$(cpu forker-child)" "$(cpu forker-parent)")
	assert_between "child/parent samples over CPU" "$(ratio "$(ratio "$child" "$parent")" "$want")" 0.75 1.25
}

@test "--pid keeps one process of several" {
	rec="$BATS_TEST_TMPDIR/fork2.data"
	"$PROF" record -F 499 -o "$rec" -- "$EXAMPLES/forker" 1 2>/dev/null
	pids=$("$PROF" report -i "$rec" --tids | cut -d';' -f1 | sort -u)
	[ -n "$pids" ]
	child_tid=$(echo "$pids" | grep '^forker-child/' | head -1 | cut -d/ -f2)
	[ -n "$child_tid" ]
	run "$PROF" report -i "$rec" --threads --pid "$child_tid"
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	! echo "$output" | grep -q '^forker-parent;'
	run "$PROF" report -i "$rec" --threads --tid "$child_tid"
	[ "$status" -eq 0 ]
	! echo "$output" | grep -vq '^forker-child;'
}
