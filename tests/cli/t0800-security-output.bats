#!/usr/bin/env bats
# t0800: output files (issue 15, findings 1, 2, 4, 5; lib/out-file.h). A
# second user, prof-t0800, owns the directory root's prof writes into and
# plays the attacker: symlinks at the output and at every temporary name
# prof ever used there must not make root write anything but its own new
# file; a recording is never readable by that user; a failed command
# leaves an existing output as it was and no partial file.

load helpers

ATTACKER=prof-t0800

setup_file() {
	second_user_create "$ATTACKER"
	# A recording and a --sched recording for the readers' cases.
	"$PROF" record -F 999 -o "$BATS_FILE_TMPDIR/in.data" -- "$EXAMPLES/threads" 1 2>/dev/null
	"$PROF" record --sched -F 99 -o "$BATS_FILE_TMPDIR/sched.data" -- "$EXAMPLES/sched-mix" 1 \
		>/dev/null 2>&1
}

teardown_file() {
	second_user_delete "$ATTACKER"
}

setup() {
	second_user_create "$ATTACKER"
	# The attacker's directory, reachable by them (not under bats' 0700
	# tmpdir), and a victim file of root's they must not get written.
	DIR=$(mktemp -d /tmp/t0800.XXXXXX)
	chown "$ATTACKER" "$DIR"
	chmod 0755 "$DIR"
	VICTIM=$BATS_TEST_TMPDIR/victim
	echo "root's precious file" >"$VICTIM"
	chmod 0644 "$VICTIM"
	cp "$VICTIM" "$BATS_TEST_TMPDIR/victim.orig"
}

teardown() {
	rm -rf "$DIR"
}

# plant NAME: the attacker links DIR/NAME, and every temporary name prof
# used to derive from it (NAME.tmp-PID for the next pids, NAME.tmp,
# NAME.tmp.0), to the victim.
plant() {
	local name=$1 last pid
	last=$(cat /proc/sys/kernel/ns_last_pid)
	as_user "$ATTACKER" ln -s "$VICTIM" "$DIR/$name"
	as_user "$ATTACKER" ln -s "$VICTIM" "$DIR/$name.tmp"
	as_user "$ATTACKER" ln -s "$VICTIM" "$DIR/$name.tmp.0"
	as_user "$ATTACKER" sh -c 'for p in $(seq "$1" "$2"); do ln -s "$3" "$4.tmp-$p"; done' \
		sh $((last + 1)) $((last + 400)) "$VICTIM" "$DIR/$name"
}

# The victim is byte-identical and DIR/NAME is a regular file of root's
# with MODE.
assert_safe() {
	local name=$1 mode=$2
	cmp "$VICTIM" "$BATS_TEST_TMPDIR/victim.orig"
	[ ! -L "$DIR/$name" ]
	[ -f "$DIR/$name" ]
	[ "$(stat -c '%U %a' "$DIR/$name")" = "root $mode" ]
}

@test "record: links at the output and at the temporary names leave the victim alone" {
	plant out.data
	run "$PROF" record -F 999 -o "$DIR/out.data" -- "$EXAMPLES/threads" 1
	echo "$output"
	[ "$status" -eq 0 ]
	assert_safe out.data 600
	[[ "$output" == *"'$DIR/out.data' was a symbolic link another user could have made"* ]]
	# Deferred as by default, and read back whole.
	grep -aq deferred-processing-ns "$DIR/out.data"
	run "$PROF" report -i "$DIR/out.data" --threads
	[ "$status" -eq 0 ]
	echo "$output" | grep -q '^alpha;.*burn_alpha '
	# Nothing of root's left beside it but the output.
	[ "$(find "$DIR" -user root | wc -l)" -eq 1 ]
}

@test "record: links planted while it records (the old deferral's name) leave the victim alone" {
	"$PROF" record -F 999 -d 2 -o "$DIR/race.data" -- "$EXAMPLES/threads" 4 2>/dev/null &
	rec=$!
	for _ in $(seq 200); do
		[ -e "$DIR/race.data" ] && break
		sleep 0.05
	done
	# The recorder's pid is known now: its old copy's name, and links at
	# every other name beside the output.
	as_user "$ATTACKER" ln -s "$VICTIM" "$DIR/race.data.tmp-$rec"
	as_user "$ATTACKER" ln -s "$VICTIM" "$DIR/race.data.tmp"
	wait $rec
	assert_safe race.data 600
	run "$PROF" report -i "$DIR/race.data"
	[ "$status" -eq 0 ]
	[[ "$output" != *"kernel records"* ]]
}

@test "record: a dangling link at -o does not create what it points to" {
	as_user "$ATTACKER" ln -s "$BATS_TEST_TMPDIR/created-by-root" "$DIR/out.data"
	run "$PROF" record -F 999 -o "$DIR/out.data" -- "$EXAMPLES/threads" 1
	[ "$status" -eq 0 ]
	[ ! -e "$BATS_TEST_TMPDIR/created-by-root" ]
	assert_safe out.data 600
}

@test "record: the attacker cannot read the recording while it records" {
	"$PROF" record -F 999 -d 3 -o "$DIR/live.data" -- "$EXAMPLES/threads" 5 2>/dev/null &
	rec=$!
	for _ in $(seq 200); do
		[ -e "$DIR/live.data" ] && break
		sleep 0.05
	done
	[ -e "$DIR/live.data" ]
	# The output and any temporary file: none readable by the attacker.
	for f in "$DIR"/*; do
		echo "trying $f"
		! as_user "$ATTACKER" cat "$f" >/dev/null 2>&1
		[ "$(stat -c %a "$f")" = 600 ]
	done
	kill -INT $rec
	wait $rec
	! as_user "$ATTACKER" cat "$DIR/live.data" >/dev/null 2>&1
	[ "$(stat -c %a "$DIR/live.data")" = 600 ]
}

@test "record: a failed start leaves an existing output as it was" {
	echo "an older recording" >"$DIR/keep.data"
	cp "$DIR/keep.data" "$BATS_TEST_TMPDIR/keep.orig"
	# A zombie: its parent (sleep) never reaps it.
	sh -c 'sleep 0.3 & echo $! >"$1"; exec sleep 30' sh "$BATS_TEST_TMPDIR/zpid" >/dev/null 2>&1 &
	parent=$!
	for _ in $(seq 100); do
		zpid=$(cat "$BATS_TEST_TMPDIR/zpid" 2>/dev/null || true)
		[ -n "$zpid" ] && [ "$(awk '{ print $3 }' "/proc/$zpid/stat" 2>/dev/null)" = Z ] && break
		sleep 0.05
	done
	[ "$(awk '{ print $3 }' "/proc/$zpid/stat")" = Z ]
	run "$PROF" record -p "$zpid" -o "$DIR/keep.data" -d 1
	echo "$output"
	[ "$status" -ne 0 ]
	cmp "$DIR/keep.data" "$BATS_TEST_TMPDIR/keep.orig"
	run "$PROF" record -o "$DIR/keep.data" -- /nonexistent/command
	[ "$status" -ne 0 ]
	cmp "$DIR/keep.data" "$BATS_TEST_TMPDIR/keep.orig"
	# No temporary file left behind either.
	[ "$(ls "$DIR")" = keep.data ]
	kill "$parent"
}

@test "svg, report, sched, symbolize -o: links in the attacker's directory leave the victim alone" {
	plant out.svg
	run "$PROF" svg -i "$BATS_FILE_TMPDIR/in.data" -o "$DIR/out.svg"
	[ "$status" -eq 0 ]
	assert_safe out.svg 644
	[[ "$output" == *"was a symbolic link another user could have made"* ]]
	grep -q '<svg' "$DIR/out.svg"

	plant out.txt
	run "$PROF" report -i "$BATS_FILE_TMPDIR/in.data" -o "$DIR/out.txt"
	[ "$status" -eq 0 ]
	assert_safe out.txt 644
	grep -q 'burn_alpha' "$DIR/out.txt"

	plant sched.svg
	run "$PROF" sched -i "$BATS_FILE_TMPDIR/sched.data" -o "$DIR/sched.svg"
	[ "$status" -eq 0 ]
	assert_safe sched.svg 644

	plant sym.data
	run "$PROF" symbolize -q -i "$BATS_FILE_TMPDIR/in.data" -o "$DIR/sym.data"
	[ "$status" -eq 0 ]
	assert_safe sym.data 600
	run "$PROF" report -i "$DIR/sym.data"
	[ "$status" -eq 0 ]

	# svg's palette file is saved through a temporary file too (the file
	# itself is read first, so only the temporary names are planted).
	plant pal.txt
	as_user "$ATTACKER" rm "$DIR/pal.txt"
	run "$PROF" svg -i "$BATS_FILE_TMPDIR/in.data" --palette-file "$DIR/pal.txt" -o /dev/null
	[ "$status" -eq 0 ]
	assert_safe pal.txt 644
	[ "$(find "$DIR" -user root | wc -l)" -eq 5 ]
}

@test "report -o: a failure leaves no partial file and an existing one as it was" {
	echo "yesterday's report" >"$DIR/r.txt"
	cp "$DIR/r.txt" "$BATS_TEST_TMPDIR/r.orig"
	run "$PROF" report -i "$BATS_FILE_TMPDIR/in.data" --grep '(' -o "$DIR/r.txt"
	[ "$status" -ne 0 ]
	run "$PROF" report -i "$BATS_TEST_TMPDIR/no-such.data" -o "$DIR/r.txt"
	[ "$status" -ne 0 ]
	cmp "$DIR/r.txt" "$BATS_TEST_TMPDIR/r.orig"
	[ "$(ls "$DIR")" = r.txt ]
	# A write that fails midway: a one-page tmpfs that the old report
	# fills. Before, the old report was truncated, then removed.
	mkdir "$BATS_TEST_TMPDIR/small"
	mount -t tmpfs -o size=4k tmpfs "$BATS_TEST_TMPDIR/small" || skip "cannot mount a tmpfs"
	cp "$BATS_TEST_TMPDIR/r.orig" "$BATS_TEST_TMPDIR/small/r.txt"
	run "$PROF" report -i "$BATS_FILE_TMPDIR/in.data" -o "$BATS_TEST_TMPDIR/small/r.txt"
	status_full=$status
	ls -la "$BATS_TEST_TMPDIR/small"
	listing=$(ls "$BATS_TEST_TMPDIR/small")
	cmp "$BATS_TEST_TMPDIR/small/r.txt" "$BATS_TEST_TMPDIR/r.orig" || {
		umount "$BATS_TEST_TMPDIR/small"
		false
	}
	umount "$BATS_TEST_TMPDIR/small"
	[ "$status_full" -eq 1 ]
	[ "$listing" = r.txt ]
}
