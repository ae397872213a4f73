#!/usr/bin/env bats
# t0110: prof record -p PID on a running process whose threads come, go and
# get renamed: threads created after attach are followed, a renamed thread
# appears under both names, and the recorder stops when the target exits.

load helpers

setup_file() {
	export REC="$BATS_FILE_TMPDIR/churn.data" CPU="$BATS_FILE_TMPDIR/churn.cpu"
	start_example churn 4
	# churn's schedule is in wall-clock time: on a loaded machine a thread
	# may get little CPU under a name, or none. What each name used, from
	# task_cpu snapshots every 0.1 s while it runs.
	while kill -0 "$EXAMPLE_PID" 2>/dev/null; do task_cpu "$EXAMPLE_PID" >>"$CPU"; sleep 0.1; done &
	"$PROF" record -F 499 -p "$EXAMPLE_PID" -o "$REC" 2>"$BATS_FILE_TMPDIR/record.err"
	echo $? >"$BATS_FILE_TMPDIR/record.rc"
	wait "$EXAMPLE_PID" || true
	wait
}

# name_cpu NAME: the most CPU seconds task_cpu saw threads named NAME use
# (cumulative: a renamed thread's counts its time under the old name too).
name_cpu() {
	N="$1" awk -F'\t' '$1 == ENVIRON["N"] && $2 > m { m = $2 } END { printf "%.4f\n", m / 1e9 }' "$CPU"
}

# used NAME SECONDS: true when SECONDS is 20 ms of CPU or more (10 samples'
# worth at 499 Hz); else the test is skipped: nothing to sample.
used() {
	awk -v s="$2" 'BEGIN { exit !(s >= 0.02) }' ||
		skip "$1 used $2 s of CPU while recorded (a loaded machine)"
}

@test "attach records until the target exits, and exits 0" {
	[ "$(cat "$BATS_FILE_TMPDIR/record.rc")" -eq 0 ]
	grep -q 'samples' "$BATS_FILE_TMPDIR/record.err"
}

@test "short-lived threads created after attach are recorded under their names" {
	roots=$("$PROF" report -i "$REC" --threads | folded_roots)
	n=$(echo "$roots" | grep -c '^short-[0-9]* ')
	[ "$n" -ge 5 ]
	"$PROF" report -i "$REC" --threads | grep -q '^short-[0-9]*;.*short_work'
}

@test "a thread created a second in appears with its name" {
	used late-thread "$(name_cpu late-thread)"
	"$PROF" report -i "$REC" --threads | grep -q '^late-thread;.*late_work'
}

# at_least_half NAME SAMPLES SECONDS: SAMPLES is half of 499 a second of
# SECONDS or more.
at_least_half() {
	awk -v n="$2" -v c="$3" 'BEGIN { exit !(n >= c * 499 / 2) }' ||
		{ echo "$1: $2 samples for $3 s of CPU" >&2; return 1; }
}

@test "a thread renamed mid-run appears under both names" {
	folded=$("$PROF" report -i "$REC" --threads)
	before=$(echo "$folded" | folded_sum '^before-rename;.*rename_work')
	after=$(echo "$folded" | folded_sum '^after-rename;.*rename_work')
	# Under each name, at least half of 499 samples a CPU second it used
	# (the snapshots are 0.1 s apart and begin before prof attaches).
	cpu_before=$(name_cpu before-rename)
	cpu_after=$(awk -v a="$(name_cpu after-rename)" -v b="$cpu_before" 'BEGIN { print a - b }')
	used before-rename "$cpu_before"
	used after-rename "$cpu_after"
	at_least_half before-rename "$before" "$cpu_before"
	at_least_half after-rename "$after" "$cpu_after"
}

@test "--merge-pools merges the numbered short-lived threads" {
	"$PROF" report -i "$REC" --threads --merge-pools | grep -q '^short-\*;'
	! "$PROF" report -i "$REC" --threads --merge-pools | grep -q '^short-[0-9]'
}

@test "--thread filters by thread name (ERE)" {
	run "$PROF" report -i "$REC" --threads --thread '^(before|after)-rename$'
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	! echo "$output" | grep -vq -E '^(before|after)-rename;'
}

@test "-p with a thread's id records its whole process, with and without --sched" {
	start_example threads 10
	# alpha lives as long as the process (pool threads come and go)
	tid=$(grep -lx alpha /proc/"$EXAMPLE_PID"/task/*/comm | head -1 | cut -d/ -f5)
	[ -n "$tid" ] && [ "$tid" != "$EXAMPLE_PID" ]
	for mode in "" --sched; do
		rec="$BATS_TEST_TMPDIR/tid$mode.data"
		"$PROF" record $mode -q --no-symbolize -F 499 -d 1 -p "$tid" -o "$rec"
		roots=$("$PROF" report -i "$rec" --tids | awk '{ split($1, a, ";"); print a[1] }' | sort -u)
		# alpha and beta, each under its own tid: more than the one thread named
		[ "$(echo "$roots" | grep -c '^alpha/')" -eq 1 ]
		[ "$(echo "$roots" | grep -c '^beta/')" -eq 1 ]
	done
	kill "$EXAMPLE_PID"
	wait "$EXAMPLE_PID" || true
}
