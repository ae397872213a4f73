#!/usr/bin/env bats
# t0310: flame charts of a recording (`prof report --flamechart`, `prof svg
# --flamechart -i prof.data`) on examples/phases, which runs phase_a, then
# phase_b, then phase_a again on its main thread ("phases") and phase_c on
# a "worker" thread started with phase_b, and prints each phase's CPU time
# by its own clock: the runs come out in the phases' order, a lane per
# thread ordered by first sample, each run's share of its lane as the
# program measured it; the filters keep working; the combinations a flame
# chart cannot show are usage errors.

load helpers

setup_file() {
	export REC="$BATS_FILE_TMPDIR/phases.data" CLOCK="$BATS_FILE_TMPDIR/phases.out"
	"$PROF" record -F 999 -o "$REC" -- "$EXAMPLES/phases" 300 600 >"$CLOCK" \
		2>"$BATS_FILE_TMPDIR/record.err"
}

# Folded lines on stdin -> "THREAD PHASE COUNT" per run of one phase (the
# first phase_* frame of a stack; stacks without one are left out), in
# order: the chart's runs at the phases' depth.
phase_runs() {
	awk '{ n = $NF; k = split($0, f, ";"); ph = ""
	       for (i = 2; i <= k; i++) if (f[i] ~ /^phase_/) { ph = f[i]; sub(/ [0-9.]+$/, "", ph); break }
	       if (ph == "") next
	       key = f[1] " " ph
	       if (key != last) { if (last != "") print last, c; last = key; c = 0 }
	       c += n }
	     END { if (last != "") print last, c }'
}

# The program's own clock: "PHASE CPU_NS" per phase of its main thread, in
# the order it ran them.
main_phases() {
	awk -v tid="$(awk '$2 == "phase_b" { print $3 }' "$CLOCK")" '$3 == tid { print $2, $6 }' "$CLOCK"
}

@test "report --flamechart: runs in the phases' order, each lane's shares as the program's clock" {
	run "$PROF" report --flamechart -i "$REC"
	[ "$status" -eq 0 ]
	chart="$output"
	# Consecutive lines are never the same stack: they were merged.
	[ -z "$(echo "$chart" | awk '{ s = $0; sub(/ [0-9]+$/, "", s); if (s == prev) print; prev = s }')" ]
	runs=$(echo "$chart" | phase_runs)
	echo "$runs" >&2
	[ "$(echo "$runs" | awk '{ print $1, $2 }' | paste -sd,)" = \
		"phases phase_a,phases phase_b,phases phase_a,worker phase_c" ]
	# Every sample of the chart is there once: the same total as the
	# merged report.
	[ "$(echo "$chart" | folded_total)" -eq "$("$PROF" report -i "$REC" | folded_total)" ]
	# Each run's share of the main lane's phase samples against the share
	# of the main thread's phase CPU time the program measured (built to
	# be 1:2:1; the test compares with what it measured).
	main_phases >&2
	want=$(main_phases | awk '{ printf "%s ", $2 }')
	got=$(echo "$runs" | awk '$1 == "phases" { printf "%s ", $3 }')
	for k in 1 2 3; do
		w=$(echo "$want" | awk -v k=$k '{ for (i = 1; i <= NF; i++) s += $i; printf "%.4f", $k / s }')
		g=$(echo "$got" | awk -v k=$k '{ for (i = 1; i <= NF; i++) s += $i; printf "%.4f", $k / s }')
		assert_between "run $k's share over the program's" "$(ratio "$g" "$w")" 0.8 1.2
	done
}

@test "report --flamechart: --tids, --tid, --thread and --pid narrow the lanes, order kept" {
	main_tid=$(awk '$2 == "phase_b" { print $3 }' "$CLOCK")
	worker_tid=$(awk '$2 == "phase_c" { print $3 }' "$CLOCK")
	run "$PROF" report --flamechart --tids -i "$REC"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | phase_runs | awk '{ print $1 }' | paste -sd,)" = \
		"phases/$main_tid,phases/$main_tid,phases/$main_tid,worker/$worker_tid" ]
	run "$PROF" report --flamechart --tid "$worker_tid" -i "$REC"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | phase_runs | awk '{ print $2 }' | paste -sd,)" = "phase_c" ]
	run "$PROF" report --flamechart --thread '^phases$' -i "$REC"
	[ "$(echo "$output" | phase_runs | awk '{ print $2 }' | paste -sd,)" = "phase_a,phase_b,phase_a" ]
	run "$PROF" report --flamechart --pid "$main_tid" --exclude phase_b -i "$REC"
	[ "$(echo "$output" | phase_runs | awk '{ print $1, $2 }' | paste -sd,)" = \
		"phases phase_a,worker phase_c" ]
}

@test "svg --flamechart of a recording: frames left to right in the phases' order, widths the runs'" {
	out="$BATS_TEST_TMPDIR/chart.svg"
	run "$PROF" svg --flamechart -i "$REC" -o "$out"
	[ "$status" -eq 0 ]
	xmllint --noout "$out"
	grep -q '<text id="subtitle"[^>]*>Time-ordered: a lane per thread' "$out"
	grep -q '<text id="title"[^>]*>Flame Chart<' "$out"
	# The phase frames in document order: name, x, width.
	frames=$(grep -o '<title>phase_[abc] ([0-9]* samples[^<]*</title><rect x="[0-9]*"[^>]*width="[0-9]*"' "$out" |
		sed 's/<title>\([^ ]*\) .*x="\([0-9]*\)".*width="\([0-9]*\)"/\1 \2 \3/')
	echo "$frames" >&2
	[ "$(echo "$frames" | awk '{ print $1 }' | paste -sd,)" = "phase_a,phase_b,phase_a,phase_c" ]
	# Left to right, each starting where the one before it ends or later.
	echo "$frames" | awk '$2 < end { exit 1 } { end = $2 + $3 }'
	# Widths are the runs' counts of prof report --flamechart.
	[ "$(echo "$frames" | awk '{ print $3 }' | paste -sd,)" = \
		"$("$PROF" report --flamechart -i "$REC" | phase_runs | awk '{ print $3 }' | paste -sd,)" ]
}

@test "report --flamechart on folded text keeps its order and merges only neighbours" {
	printf 'main;a 2\nmain;a 1\nmain;b 4\nmain;a 1\n' >"$BATS_TEST_TMPDIR/in.folded"
	run "$PROF" report --flamechart -i "$BATS_TEST_TMPDIR/in.folded"
	[ "$status" -eq 0 ]
	diff -u <(printf 'main;a 3\nmain;b 4\nmain;a 1\n') <(echo "$output")
}

@test "--flamechart with what a flame chart cannot show: one error line, exit 2" {
	check() {
		local want="$1"
		shift
		run "$PROF" "$@"
		echo "$output" >&2
		[ "$status" -eq 2 ]
		[[ "${lines[0]}" == *"$want"* ]]
		[ "${#lines[@]}" -le 2 ] # the error, and the hint to -h
	}
	svg="$BATS_TEST_TMPDIR/x.svg"
	check "not with --diff" svg --flamechart --diff "$REC" "$REC" -o "$svg"
	check "not with --sort" svg --flamechart --sort weight -i "$REC" -o "$svg"
	check "not with --off-cpu" svg --flamechart --off-cpu -i "$REC" -o "$svg"
	check "not with --wall" report --flamechart --wall -i "$REC"
	check "not with --alloc" report --flamechart --alloc -i "$REC"
	check "not with --format" report --flamechart --format pprof -i "$REC" -o "$BATS_TEST_TMPDIR/x.pb.gz"
	check "not with --format" report --flamechart --format speedscope -i "$REC"
	check "not with --top" report --flamechart --top 5 -i "$REC"
	check "not with --header" report --flamechart --header -i "$REC"
	printf 'phases 1 1.000: 1 cpu-clock:\n\t1 main (/bin/x)\n\n' >"$BATS_TEST_TMPDIR/perf.txt"
	check "--flamechart needs a recording or folded text in time order" \
		report --flamechart -i "$BATS_TEST_TMPDIR/perf.txt"
	[ ! -e "$svg" ]
}
