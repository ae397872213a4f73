#!/usr/bin/env bats
# t0730: `perf script` text as input to prof report and prof svg: real `perf
# record -g` runs of the examples, printed by `perf script` by default and
# with -F field selections, folded as FlameGraph's stackcollapse-perf.pl
# --all folds them (comm roots, _[k] kernel frames, --pids/--tids roots),
# compared with prof's own recording of the same kind of run: the same
# frames, shares within stated bounds.

load helpers

setup_file() {
	local d=$BATS_FILE_TMPDIR
	export PD="$d/perf.data" TXT="$d/default.txt" REC="$d/threads.data"
	perf record -q -g -F 999 -o "$PD" -- "$EXAMPLES/threads" 2 >/dev/null 2>"$d/perf.err"
	perf script -i "$PD" > "$TXT" 2>/dev/null
	perf script -i "$PD" -F comm,pid,tid,time,event,ip,sym,dso > "$d/f-pid.txt" 2>/dev/null
	perf script -i "$PD" -F comm,tid,ip,sym,dso > "$d/f-nooff.txt" 2>/dev/null
	perf script -i "$PD" -F comm,pid,tid,period,event,ip,sym,symoff,dso > "$d/f-period.txt" 2>/dev/null
	perf script -i "$PD" -F comm,tid,ip,sym > "$d/f-nodso.txt" 2>/dev/null
	"$PROF" record -F 999 -o "$REC" -- "$EXAMPLES/threads" 2 2>"$d/prof.err"
}

# The share of a root ($2) in folded text ($1).
root_share() {
	local total part
	total=$(folded_total < "$1")
	part=$(folded_sum "^$2;" < "$1")
	ratio "$part" "$total"
}

# cpu_share ERRFILE NAME: worker NAME's share of the CPU the workers of
# examples/threads used, from the "cpu NAME SECONDS" lines it printed.
cpu_share() {
	N="$2" awk '$1 == "cpu" { all += $3; if ($2 == ENVIRON["N"]) n = $3 }
		END { printf "%.3f\n", all ? n / all : 0 }' "$1"
}

@test "default perf script output: comm roots, the example's stacks and shares" {
	run "$PROF" report -i "$TXT"
	[ "$status" -eq 0 ]
	echo "$output" > "$BATS_TEST_TMPDIR/perf.folded"
	"$PROF" report -i "$REC" --threads > "$BATS_TEST_TMPDIR/prof.folded"
	# Every sample weighs its period, as stackcollapse-perf.pl weighs it:
	# the number before the event on its header ("TIME: PERIOD EVENT:").
	[ "$(folded_total < "$BATS_TEST_TMPDIR/perf.folded")" -eq \
		"$(awk '/^[^[:space:]]/ { s += $(NF - 1) } END { print s }' "$TXT")" ]
	# With --no-period, once: as many as perf script has headers.
	[ "$("$PROF" report -i "$TXT" --no-period | folded_total)" -eq "$(grep -c '^[^[:space:]]' "$TXT")" ]
	# The same frames as prof's own recording of the same program.
	for s in 'alpha;.*alpha_thread;alpha_outer;alpha_inner;burn_alpha '	\
		 'beta;.*beta_thread;beta_outer;burn_beta ' 'pool-1;.*pool_thread;pool_work;pool_burn '; do
		grep -Eq "^$s" "$BATS_TEST_TMPDIR/perf.folded"
		grep -Eq "^$s" "$BATS_TEST_TMPDIR/prof.folded"
	done
	# Built 0.5:0.25:0.125:0.125 (examples/threads.c), but a loaded machine
	# starves the 40%-of-a-CPU thread first (alpha fell to 0.33 at a load
	# of 9 on two CPUs): each run's shares are the CPU shares its threads
	# measured (CLOCK_THREAD_CPUTIME_ID), within 15% (the main thread's few
	# samples aside).
	for f in perf prof; do
		for t in alpha beta pool-1; do
			assert_between "$f $t samples over CPU share" \
				"$(ratio "$(root_share "$BATS_TEST_TMPDIR/$f.folded" "$t")" \
					"$(cpu_share "$BATS_FILE_TMPDIR/$f.err" "$t")")" 0.85 1.15
		done
	done
	# Kernel frames are marked like prof's: _[k], no "+0x" offsets left.
	! grep -q '+0x' "$BATS_TEST_TMPDIR/perf.folded"
	if grep -q kallsyms "$TXT"; then grep -q '_\[k\]' "$BATS_TEST_TMPDIR/perf.folded"; fi
}

@test "-F field selections fold to the same stacks" {
	# Counted 1 each (--no-period): not every selection has the period.
	"$PROF" report -i "$TXT" --no-period > "$BATS_TEST_TMPDIR/default.folded"
	for f in f-pid f-nooff f-period; do
		"$PROF" report -i "$BATS_FILE_TMPDIR/$f.txt" --no-period > "$BATS_TEST_TMPDIR/$f.folded"
		diff -u "$BATS_TEST_TMPDIR/default.folded" "$BATS_TEST_TMPDIR/$f.folded"
	done
	# Without the DSO, unknown symbols cannot be named by their binary;
	# the named stacks are the same.
	"$PROF" report -i "$BATS_FILE_TMPDIR/f-nodso.txt" --include burn_alpha --no-period > "$BATS_TEST_TMPDIR/a.folded"
	"$PROF" report -i "$TXT" --include burn_alpha --no-period | diff -u - "$BATS_TEST_TMPDIR/a.folded"
}

@test "--pids and --tids roots as stackcollapse-perf.pl --pid/--tid; --tid filters" {
	pid=$(awk '/^alpha / { split($2, a, "/"); print a[1]; exit }' "$BATS_FILE_TMPDIR/f-pid.txt")
	tid=$(awk '/^alpha / { split($2, a, "/"); print a[2]; exit }' "$BATS_FILE_TMPDIR/f-pid.txt")
	run "$PROF" report -i "$BATS_FILE_TMPDIR/f-pid.txt" --tids
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "^alpha-$pid/$tid;.*burn_alpha "
	run "$PROF" report -i "$BATS_FILE_TMPDIR/f-pid.txt" --pids
	echo "$output" | grep -q "^alpha-$pid;.*burn_alpha "
	# The default output has no pid: "?" as stackcollapse-perf.pl writes it.
	run "$PROF" report -i "$TXT" --tids
	echo "$output" | grep -q "^alpha-?/$tid;"
	run "$PROF" report -i "$BATS_FILE_TMPDIR/f-pid.txt" --tid "$tid"
	[ "$status" -eq 0 ]
	echo "$output" | grep -q '^alpha;'
	# Only that thread: named alpha, or (a sample before it named itself,
	# seen beside busy neighbours) still the process's name, threads.
	! echo "$output" | grep -Eqv '^(alpha|threads);'
}

@test "--period weighs samples by their period field" {
	want=$(awk '/^[^[:space:]]/ { s += $(NF - 1) } END { print s }' "$BATS_FILE_TMPDIR/f-period.txt")
	got=$("$PROF" report -i "$BATS_FILE_TMPDIR/f-period.txt" --period | folded_total)
	[ "$got" -eq "$want" ]
	# Without a time before it, stackcollapse-perf.pl's regex does not see
	# the period: by default each of those samples counts 1.
	[ "$("$PROF" report -i "$BATS_FILE_TMPDIR/f-period.txt" | folded_total)" -eq \
		"$(grep -c '^[^[:space:]]' "$BATS_FILE_TMPDIR/f-period.txt")" ]
	# Text without periods: counted 1 each, with a warning.
	run "$PROF" report -i "$BATS_FILE_TMPDIR/f-nooff.txt" --period
	[ "$status" -eq 0 ]
	[[ "$output" == *"have no period"* ]]
	run "$PROF" report -i "$REC" --period
	[ "$status" -eq 2 ]
	run "$PROF" report -i "$REC" --no-period
	[ "$status" -eq 2 ]
}

@test "the last sample counts without a trailing blank line; malformed lines are reported" {
	all=$("$PROF" report -i "$TXT" | folded_total)
	head -c -2 "$TXT" > "$BATS_TEST_TMPDIR/cut.txt" # drop the final blank line
	[ "$(tail -c 1 "$BATS_TEST_TMPDIR/cut.txt" | od -An -c | tr -d ' ')" != '\n\n' ]
	[ "$("$PROF" report -i "$BATS_TEST_TMPDIR/cut.txt" | folded_total)" -eq "$all" ]
	{ head -n 3 "$TXT"; echo '	zzz not a frame'; tail -n +4 "$TXT"; echo '@@@'; } > "$BATS_TEST_TMPDIR/bad.txt"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/bad.txt"
	[ "$status" -eq 0 ]
	[[ "$output" == *"skipped 2 malformed lines of"*"(first: line 4)"* ]]
	[ "$("$PROF" report -i "$BATS_TEST_TMPDIR/bad.txt" 2>/dev/null | folded_total)" -eq "$all" ]
}

@test "auto-detected on standard input, by prof svg too" {
	perf script -i "$PD" 2>/dev/null | "$PROF" report --top 3 > "$BATS_TEST_TMPDIR/top.txt"
	grep -q 'burn_alpha' "$BATS_TEST_TMPDIR/top.txt"
	"$PROF" svg -i "$TXT" -o "$BATS_TEST_TMPDIR/p.svg"
	grep -q 'burn_alpha' "$BATS_TEST_TMPDIR/p.svg"
	grep -q '>alpha<\|alpha (' "$BATS_TEST_TMPDIR/p.svg"
}

@test "only the first event counts when the text mixes events" {
	perf record -q -g -e cpu-clock -e task-clock -F 499 -o "$BATS_TEST_TMPDIR/two.data" -- \
		"$EXAMPLES/threads" 1 >/dev/null 2>&1
	perf script -i "$BATS_TEST_TMPDIR/two.data" > "$BATS_TEST_TMPDIR/two.txt" 2>/dev/null
	first=$(awk '/^[^[:space:]#]/ { print $(NF); exit }' "$BATS_TEST_TMPDIR/two.txt")
	n=$(E="$first" awk '/^[^[:space:]#]/ && $NF == ENVIRON["E"]' "$BATS_TEST_TMPDIR/two.txt" | wc -l)
	run "$PROF" report -i "$BATS_TEST_TMPDIR/two.txt"
	[ "$status" -eq 0 ]
	[[ "$output" == *"counted only the samples of event '${first%:}'"* ]]
	[ "$("$PROF" report -i "$BATS_TEST_TMPDIR/two.txt" --no-period 2>/dev/null | folded_total)" -eq "$n" ]
}
