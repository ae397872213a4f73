#!/usr/bin/env bats
# t0110: prof record -p PID on a running process whose threads come, go and
# get renamed: threads created after attach are followed, a renamed thread
# appears under both names, and the recorder stops when the target exits.

load helpers

setup_file() {
	export REC="$BATS_FILE_TMPDIR/churn.data"
	start_example churn 4
	"$PROF" record -F 499 -p "$EXAMPLE_PID" -o "$REC" 2>"$BATS_FILE_TMPDIR/record.err"
	echo $? >"$BATS_FILE_TMPDIR/record.rc"
	wait "$EXAMPLE_PID" || true
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
	"$PROF" report -i "$REC" --threads | grep -q '^late-thread;.*late_work'
}

@test "a thread renamed mid-run appears under both names" {
	folded=$("$PROF" report -i "$REC" --threads)
	before=$(echo "$folded" | folded_sum '^before-rename;.*rename_work')
	after=$(echo "$folded" | folded_sum '^after-rename;.*rename_work')
	[ "$before" -gt 10 ]
	[ "$after" -gt 10 ]
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
