#!/usr/bin/env bats
# t0410: off-CPU stacks of lock waits (examples/lockwait.c: row-N threads
# blocked in pthread_mutex_lock under wait_for_row_lock, a committer in
# pthread_cond_wait under wait_for_commit, none of it with frame pointers):
# with --call-graph dwarf the switch-out stacks are unwound through glibc to
# the waiting function; with frame pointers they stop in libc. And the
# off-CPU profile's time per thread against prof sched's off-CPU time of the
# same recording and the threads' own schedstat, every switch-out stacked
# or 1 in 16.

load helpers

setup_file() {
	local m
	for m in dwarf:1 fp:1 dwarf:16; do
		"$PROF" record --sched --sched-stacks "${m#*:}" --call-graph "${m%:*}" -F 99 \
			-o "$BATS_FILE_TMPDIR/${m/:/-}.data" -- "$EXAMPLES/lockwait" 3 3 \
			2>"$BATS_FILE_TMPDIR/${m/:/-}.err"
		"$PROF" report --off-cpu --threads -i "$BATS_FILE_TMPDIR/${m/:/-}.data" \
			>"$BATS_FILE_TMPDIR/${m/:/-}.folded"
		"$PROF" sched --format csv -i "$BATS_FILE_TMPDIR/${m/:/-}.data" \
			>"$BATS_FILE_TMPDIR/${m/:/-}.csv"
	done
}

# under NAME FUNC MODE [LEAF]: the share of thread NAME's off-CPU time (or
# of its time with leaf LEAF, an ERE) whose stack has FUNC (as a whole
# frame) in the MODE recording.
under() {
	local f="$BATS_FILE_TMPDIR/$3.folded" all part leaf=${4:-.*}
	all=$(folded_sum "^$1;.*;$leaf ?\$" <"$f")
	part=$(folded_sum "^$1;(.*;)?$2;.*;$leaf ?\$" <"$f")
	[ "$all" -gt 0 ] || { echo "no off-CPU stacks for $1 in $3" >&2; return 1; }
	ratio "$part" "$all"
}

# offcpu_ms NAME MODE: the off-CPU milliseconds of thread NAME in the profile.
profile_ms() {
	awk -v t="$1" '{ n = $NF; split($0, a, ";"); if (a[1] == t) s += n } END { printf "%.1f\n", s / 1000 }' \
		"$BATS_FILE_TMPDIR/$2.folded"
}

# sched_ms NAME MODE: prof sched's off-CPU milliseconds of thread NAME
# (runnable + sleeping + uninterruptible + other).
sched_ms() {
	awk -F, -v t="$1" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$3 == t { printf "%.1f\n", $(h["runnable_ms"]) + $(h["sleep_ms"]) + $(h["iowait_ms"]) + $(h["other_ms"]) }' \
		"$BATS_FILE_TMPDIR/$2.csv"
}

# own_ms NAME MODE: the thread's own off-CPU time over its loop (wall - run
# from schedstat, which lockwait prints).
own_ms() {
	awk -v t="$1" '$1 == t && $2 == "wall_ms" { printf "%.1f\n", $3 - $5 }' "$BATS_FILE_TMPDIR/$2.err"
}

# The waits (S) are under the waiting function; the rest of a waiter's
# off-CPU time is preemption, mostly on its way out of pthread_mutex_unlock
# (the waiter it woke takes its CPU), a share that grows with the machine's
# load: 10-30% here.
S='\[S sleeping\]'

@test "dwarf: each waiter's sleep is under wait_for_row_lock, through the futex wait" {
	local t
	for t in row-1 row-2 row-3; do
		assert_between "$t S under wait_for_row_lock" "$(under "$t" wait_for_row_lock dwarf-1 "$S")" 0.90 1
		assert_between "$t under wait_for_row_lock" "$(under "$t" wait_for_row_lock dwarf-1)" 0.5 1
		# below the waiting function: glibc's mutex and the kernel's futex wait
		assert_between "$t in wait_for_row_lock;...;__lll_lock_wait" \
			"$(under "$t" 'wait_for_row_lock;pthread_mutex_lock;(.*;)?__lll_lock_wait' dwarf-1 "$S")" 0.90 1
		assert_between "$t in futex_wait_[k]" "$(under "$t" 'futex_wait_\[k\]' dwarf-1 "$S")" 0.90 1
	done
	assert_between "committer S under wait_for_commit" "$(under committer wait_for_commit dwarf-1 "$S")" 0.90 1
}

@test "dwarf: the waiters' stacks reach the thread's root" {
	assert_between "row-1 from start_thread" "$(under row-1 'clone3;start_thread;row_thread' dwarf-1)" 0.95 1
}

@test "fp: the waiters' stacks stop in glibc (no frame pointers there), without the waiting function" {
	local t
	for t in row-1 row-2 row-3; do
		assert_between "$t under wait_for_row_lock (fp)" "$(under "$t" wait_for_row_lock fp-1)" 0 0.10
		assert_between "$t at __lll_lock_wait (fp)" "$(under "$t" '__lll_lock_wait' fp-1)" 0.5 1
	done
}

@test "1 in 16: still under wait_for_row_lock" {
	# the waiters together: about 10 stacks each in 3 s
	assert_between "row-N under wait_for_row_lock (1 in 16)" \
		"$(under 'row-[0-9]+' wait_for_row_lock dwarf-16 "$S")" 0.90 1
}

@test "each thread's off-CPU profile time is prof sched's off-CPU time and its own, every switch-out or 1 in 16" {
	local m t p s o
	for m in dwarf-1 dwarf-16; do
		for t in row-1 row-2 row-3 committer; do
			p=$(profile_ms "$t" "$m")
			s=$(sched_ms "$t" "$m")
			o=$(own_ms "$t" "$m")
			# The profile counts the time after each switch-out: not what
			# came before the thread's first one (a holder's turn, 21 ms,
			# plus a wait for a CPU on a busy machine).
			assert_between "$t ($m) profile / prof sched" "$(ratio "$p" "$s")" 0.90 1.005
			assert_between "$t ($m) profile / own wall - run" "$(ratio "$p" "$o")" 0.85 1.10
		done
	done
}

@test "dwarf: no switch events lost to other tasks' stacks" {
	grep -Eq ' 0 switch events lost$' "$BATS_FILE_TMPDIR/dwarf-1.err"
}
