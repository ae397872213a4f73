#!/usr/bin/env bats
# t0420: threads blocked before `prof record --sched -p` attaches, that
# never switch while it records (examples/blocked.c): each shows in
# `prof report --off-cpu` under its waiting function for its whole window,
# and `prof sched` shows it asleep with no switch-out; judged against the
# recording's own window and the threads' schedstat. A thread that exits
# mid-recording, and a process whose registers prof may not read (another
# user's, without CAP_SYS_PTRACE), do not break the recording.

load helpers

setup() {
	[ "$(id -u)" -eq 0 ] || skip "--sched -p needs root here (and /proc/PID/task/TID/syscall)"
}

# csv_get CSV NAME COLUMN: COLUMN (by header name) of thread NAME's row.
csv_get() {
	N="$2" COL="$3" awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$3 == ENVIRON["N"] { print $(h[ENVIRON["COL"]]) }' "$1"
}

# window CSV NAME: thread NAME's window in µs (end_ms - start_ms).
window() {
	printf '%.0f\n' "$(echo "($(csv_get "$1" "$2" end_ms) - $(csv_get "$1" "$2" start_ms)) * 1000" | bc -l)"
}

# off_under REC NAME STACK: the µs of NAME's off-CPU stacks that hold STACK.
off_under() {
	"$PROF" report -i "$1" --off-cpu --thread "^$2\$" | grep -F -- "$3" | folded_total
}

# at_least GOT WANT FRACTION: GOT >= WANT * FRACTION, else says so.
at_least() {
	if ! awk -v g="$1" -v w="$2" -v f="$3" 'BEGIN { exit !(g >= w * f) }'; then
		echo "got $1, want at least $3 of $2" >&2
		return 1
	fi
}

@test "threads blocked all along: their wait stacks for the whole window, asleep, no switch-out" {
	local rec="$BATS_TEST_TMPDIR/b.data" csv="$BATS_TEST_TMPDIR/b.csv" t w cpu off
	start_example blocked 30
	task_cpu "$EXAMPLE_PID" >"$rec.cpu-before"
	"$PROF" record --sched -p "$EXAMPLE_PID" -d 1 -o "$rec" 2>"$BATS_TEST_TMPDIR/rec.err"
	task_cpu "$EXAMPLE_PID" >"$rec.cpu-after"
	kill "$EXAMPLE_PID"
	"$PROF" sched -i "$rec" --format csv >"$csv"
	for t in blocked condwaiter pipereader exiter; do
		w=$(window "$csv" "$t")
		[ "$w" -gt 0 ]
		[ "$(csv_get "$csv" "$t" switches)" -eq 0 ]
		# Its time asleep: the window less what schedstat says it ran
		# (nothing: the threads never wake).
		cpu=$(cpu_during "$t" "$rec.cpu-before" "$rec.cpu-after")
		at_least "$(echo "$(csv_get "$csv" "$t" sleep_ms) * 1000" | bc -l)" \
			"$(echo "$w - $cpu * 1e6" | bc -l)" 0.98
	done
	# Each under its waiting function, from its thread's root, for the
	# window (less its own CPU time, which schedstat says is none).
	w=$(window "$csv" condwaiter)
	off=$(off_under "$rec" condwaiter 'clone3;start_thread;condwaiter;condwait_loop;pthread_cond_wait;')
	at_least "$off" "$w" 0.98
	off=$(off_under "$rec" pipereader 'clone3;start_thread;pipereader;piperead_loop;read')
	at_least "$off" "$(window "$csv" pipereader)" 0.98
	off=$(off_under "$rec" exiter 'clone3;start_thread;exiter;exiter_wait;nap;__nanosleep')
	at_least "$off" "$(window "$csv" exiter)" 0.98
	off=$(off_under "$rec" blocked '_start;__libc_start_main;__libc_start_call_main;main;nap;__nanosleep')
	at_least "$off" "$(window "$csv" blocked)" 0.98
	# --wall: the same time (no CPU samples to add).
	off=$("$PROF" report -i "$rec" --wall --thread '^condwaiter$' | grep -F 'condwait_loop;' | folded_total)
	at_least "$off" "$(window "$csv" condwaiter)" 0.98
}

# snapshot_in REC: the exiter's wait is in the recording being made (prof
# has attached and flushed; not symbolized yet).
snapshot_in() {
	"$PROF" report -i "$1" --off-cpu --thread '^exiter$' 2>/dev/null | grep -q 'sleeping'
}

@test "a blocked thread that exits mid-recording: its window ends there, the others go on" {
	local rec="$BATS_TEST_TMPDIR/x.data" csv="$BATS_TEST_TMPDIR/x.csv" rc=0 w off on exiter
	mkfifo "$BATS_TEST_TMPDIR/in"
	exec 8<>"$BATS_TEST_TMPDIR/in" # (bats writes its output to fd 3)
	"$EXAMPLES/blocked" 60 stdin <&8 2>"$BATS_TEST_TMPDIR/ex.log" &
	EXAMPLE_PID=$!
	wait_ready "$BATS_TEST_TMPDIR/ex.log" "$EXAMPLE_PID"
	exiter=$(grep -l '^exiter$' /proc/"$EXAMPLE_PID"/task/*/comm | cut -d/ -f5)
	"$PROF" record --sched -p "$EXAMPLE_PID" -o "$rec" 2>"$BATS_TEST_TMPDIR/rec.err" &
	REC_PID=$!
	wait_until 600 snapshot_in "$rec"
	echo >&8 # the exiter reads it and ends
	# Gone: its EXIT is in a ring, drained when the recorder stops.
	wait_until 600 eval '! [ -e /proc/$EXAMPLE_PID/task/$exiter ]'
	kill -INT "$REC_PID"
	wait "$REC_PID" || rc=$?
	kill "$EXAMPLE_PID"
	exec 8>&-
	[ "$rc" -eq 0 ]
	"$PROF" sched -i "$rec" --format csv >"$csv"
	w=$(window "$csv" exiter)
	on=$(echo "$(csv_get "$csv" exiter on_cpu_ms) * 1000" | bc -l)
	[ "$w" -lt "$(window "$csv" blocked)" ]
	# Its wait in read, then the moment it ran to exit.
	off=$(off_under "$rec" exiter 'clone3;start_thread;exiter;exiter_wait;read')
	at_least "$off" "$(echo "$w - $on" | bc -l)" 0.95
	off=$(off_under "$rec" condwaiter 'condwaiter;condwait_loop;pthread_cond_wait;')
	at_least "$off" "$(window "$csv" condwaiter)" 0.98
}

@test "registers unreadable (another user's process, no CAP_SYS_PTRACE): asleep all the same, stackless" {
	command -v setpriv >/dev/null && command -v runuser >/dev/null || skip "needs setpriv and runuser"
	local dir rec csv t w off
	dir=$(mktemp -d /tmp/t0420.XXXXXX)
	chmod 755 "$dir"
	cp "$EXAMPLES/blocked" "$dir/"
	rec="$dir/u.data"
	csv="$dir/u.csv"
	runuser -u nobody -- "$dir/blocked" 30 2>"$dir/ex.log" &
	wait_ready "$dir/ex.log" $!
	EXAMPLE_PID=$(awk '/^ready/ { print $2 }' "$dir/ex.log")
	# The oracle: without CAP_SYS_PTRACE root may not read it either.
	run setpriv --bounding-set -sys_ptrace --inh-caps -sys_ptrace -- \
		cat /proc/"$EXAMPLE_PID"/task/"$EXAMPLE_PID"/syscall
	[ "$status" -ne 0 ]
	run setpriv --bounding-set -sys_ptrace --inh-caps -sys_ptrace -- \
		"$PROF" record --sched -p "$EXAMPLE_PID" -d 1 -o "$rec"
	kill "$EXAMPLE_PID"
	[ "$status" -eq 0 ]
	"$PROF" sched -i "$rec" --format csv >"$csv"
	for t in condwaiter pipereader; do
		w=$(window "$csv" "$t")
		[ "$(csv_get "$csv" "$t" switches)" -eq 0 ]
		at_least "$(echo "$(csv_get "$csv" "$t" sleep_ms) * 1000" | bc -l)" "$w" 0.98
		off=$("$PROF" report -i "$rec" --off-cpu --threads --thread "^$t\$" |
			grep -F "$t;[no-stack];[S sleeping]" | folded_total)
		at_least "$off" "$w" 0.98
	done
	rm -rf "$dir"
}
