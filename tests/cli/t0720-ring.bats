#!/usr/bin/env bats
# t0720-ring: the flight recorder (`prof record --ring`) on examples/phases,
# whose main thread runs phase_a, then phase_b (with a "worker" thread on
# phase_c), then phase_a again, and prints each phase's end on its own
# CLOCK_MONOTONIC when it is over: nothing is written to -o's path while
# recording; SIGUSR1 saves the ring's last seconds as a new file named from
# -o, holding the new phase only and as many samples as the threads' CPU
# time (schedstat) over that window; a trigger writes one file per incident
# with the rule and its value in the meta; --holdoff spaces trips; the end
# saves unless --no-save-on-exit; a full disk is reported and the next save
# works; bad values are usage errors.

load helpers

setup() {
	D="$BATS_TEST_TMPDIR"
	PHASES_PID= REC_PID=
}

teardown() {
	[ -n "$REC_PID" ] && kill -INT "$REC_PID" 2>/dev/null
	[ -n "$PHASES_PID" ] && kill -KILL "$PHASES_PID" 2>/dev/null
	[ -n "$REC_PID" ] && wait "$REC_PID" 2>/dev/null
	if mountpoint -q "$D/small" 2>/dev/null; then umount "$D/small"; fi
	true
}

mono_ns() {
	python3 -c 'import time; print(time.monotonic_ns())'
}

# start_phases A_MS B_MS: examples/phases in the background (PHASES_PID),
# its clock lines in $D/phases.out.
start_phases() {
	"$EXAMPLES/phases" "$@" >"$D/phases.out" &
	PHASES_PID=$!
	# attach to phases, not to the shell about to exec it
	wait_until 10 eval '[ "$(readlink /proc/$PHASES_PID/exe)" = "$(readlink -f "$EXAMPLES/phases")" ]'
}

# ring_start ARGS...: `prof record -p PHASES_PID ARGS...` in the background
# (REC_PID, stderr in $D/rec.err), once it says it samples.
ring_start() {
	"$PROF" record -p "$PHASES_PID" "$@" 2>"$D/rec.err" &
	REC_PID=$!
	wait_ready "$D/rec.err" "$REC_PID" "in memory"
}

# The end of phase NAME's first run (monotonic ns), once printed.
phase_end() {
	awk -v n="$1" '$2 == n { print $5; exit }' "$D/phases.out"
}

meta() {
	"$PROF" report -i "$1" --header | K="$2" awk 'index($0, ENVIRON["K"] ": ") == 1 {
		print substr($0, length(ENVIRON["K"]) + 3); exit }'
}

# now_past NS: the monotonic clock is past NS
now_past() {
	[ "$(mono_ns)" -ge "$1" ]
}

@test "ring: SIGUSR1 after the switch saves the last seconds: the new phase only, samples as schedstat's CPU" {
	start_phases 1500 60000
	ring_start --ring 3 -o "$D/prof.data"
	wait_until 120 grep -q "^phase phase_a" "$D/phases.out"
	local switch
	switch=$(phase_end phase_a)
	# the window starts after the switch: wait a second past it, then a
	# ring's length with the threads' CPU counted over it
	wait_until 30 now_past $((switch + 1000000000))
	task_cpu "$PHASES_PID" >"$D/cpu-before"
	local t0
	t0=$(mono_ns)
	wait_until 30 now_past $((t0 + 3000000000))
	kill -USR1 "$REC_PID"
	task_cpu "$PHASES_PID" >"$D/cpu-after"
	wait_until 60 grep -q "saved '" "$D/rec.err"
	cat "$D/rec.err"
	# nothing at -o itself; the save named from it and the UTC time
	[ ! -e "$D/prof.data" ]
	local f
	f=$(ls "$D"/prof-*.data)
	[[ "$(basename "$f")" =~ ^prof-[0-9]{8}T[0-9]{6}Z\.data$ ]]
	[ "$(stat -c %a "$f")" = 600 ]
	grep -qF "saved '$f' (signal SIGUSR1)" "$D/rec.err"
	[ "$(meta "$f" ring-reason)" = "signal SIGUSR1" ]
	local from to
	from=$(meta "$f" ring-from-monotonic-ns)
	to=$(meta "$f" ring-to-monotonic-ns)
	echo "switch $switch window $from..$to"
	assert_between "window (s)" "$(ratio $((to - from)) 1000000000)" 2 4
	[ "$from" -gt "$switch" ]
	[[ "$(meta "$f" ring-from)" =~ ^20[0-9-]+T[0-9:]+Z$ ]]
	# the new phase only (phase_b on the main thread, phase_c on the worker)
	"$PROF" report -i "$f" >"$D/folded"
	local total new cpu
	total=$(folded_total <"$D/folded")
	new=$(folded_sum 'burn_[bc]' <"$D/folded")
	echo "samples $total, of burn_b/burn_c $new; per thread: $(folded_roots <"$D/folded" | tr "\n" " ")"; cat "$D/cpu-before" "$D/cpu-after"
	[ "$total" -gt 0 ]
	assert_between "share of the new phase" "$(ratio "$new" "$total")" 0.95 1
	[ "$(folded_sum 'burn_a' <"$D/folded")" -eq 0 ]
	# each thread's share as its CPU over the window (schedstat); no more
	# samples than that CPU at 99 Hz (a loaded machine's cpu-clock takes
	# fewer, never more: the ring holds its window only)
	local main worker
	main=$(cpu_during phases "$D/cpu-before" "$D/cpu-after")
	worker=$(cpu_during worker "$D/cpu-before" "$D/cpu-after")
	if [ -z "$worker" ]; then
		# The worker ended inside the window (its phase_c is A_MS of its
		# CPU): its CPU at the end is the one it printed for phase_c.
		wait_until 30 grep -q "^phase phase_c" "$D/phases.out"
		worker=$(awk -F'\t' '$1 == "worker" { print $2 }' "$D/cpu-before" |
			awk -v e="$(awk '$2 == "phase_c" { print $6; exit }' "$D/phases.out")" \
				'{ b = $1 } END { printf "%.4f\n", b == "" ? 0 : (e - b) / 1e9 }')
	fi
	cpu=$(echo "$main + $worker" | bc -l)
	echo "cpu over the window: main $main s, worker $worker s;" \
		"samples $(ratio "$total" "$(echo "$cpu * 99" | bc -l)") of 99 Hz"
	assert_between "main thread's share" \
		"$(echo "$(ratio "$(folded_sum 'burn_b' <"$D/folded")" "$total") - $(ratio "$main" "$cpu")" | bc -l)" -0.25 0.25
	assert_between "samples / (CPU s x 99 Hz)" "$(ratio "$total" "$(echo "$cpu * 99" | bc -l)")" 0.05 1.3
	# a second save in the same run: a new file
	kill -USR1 "$REC_PID"
	wait_until 60 eval '[ "$(grep -c "saved '"'"'" "$D/rec.err")" -ge 2 ]'
	[ "$(ls "$D"/prof-*.data | wc -l)" -eq 2 ]
	kill -INT "$REC_PID"
	wait "$REC_PID"
	REC_PID=
	# the end saves once more
	[ "$(ls "$D"/prof-*.data | wc -l)" -eq 3 ]
	grep -q "(end of recording)" "$D/rec.err"
	grep -q "ring of 3 s: 3 saved, 0 failed" "$D/rec.err"
	[ ! -e "$D/prof.data" ]
}

@test "ring: a trigger on the new phase writes one file for the incident, with the rule and its value" {
	start_phases 2000 60000
	ring_start --ring 4 --trigger "'burn_b' >= 25%" --no-save-on-exit -o "$D/t.data"
	wait_until 120 grep -q "saved '" "$D/rec.err"
	local switch f
	switch=$(phase_end phase_a)
	f=$(ls "$D"/t-*.data)
	cat "$D/rec.err"
	grep -q "prof record: trigger 'burn_b' >= 25%: [0-9.]*% over [0-9]* s" "$D/rec.err"
	local reason value
	reason=$(meta "$f" ring-reason)
	local re="^trigger 'burn_b' >= 25%: ([0-9.]+)% over [0-9]+ s$"
	[[ "$reason" =~ $re ]]
	value=${BASH_REMATCH[1]}
	# the value measured live is the file's share (same window, give or
	# take the second the save came after)
	"$PROF" report -i "$f" >"$D/folded"
	local share
	share=$(ratio "$(folded_sum 'burn_b' <"$D/folded")" "$(folded_total <"$D/folded")")
	echo "measured $value%, in the file $share; switch $switch, saved at $(meta "$f" ring-to-monotonic-ns)"
	echo "trigger delay: $(ratio $(( $(meta "$f" ring-to-monotonic-ns) - switch )) 1000000000) s after the switch"
	assert_between "measured share" "$(ratio "$value" 100)" 0.25 1
	assert_between "share in the file" "$share" 0.15 1
	# the window holds the switch: the old phase then the new one
	[ "$(meta "$f" ring-from-monotonic-ns)" -lt "$switch" ]
	[ "$(meta "$f" ring-to-monotonic-ns)" -gt "$switch" ]
	[ "$(folded_sum 'burn_a' <"$D/folded")" -gt 0 ]
	# the condition holds on through phase_b: a few more seconds, no new
	# file (--holdoff's default 60 s)
	local t0
	t0=$(mono_ns)
	wait_until 30 now_past $((t0 + 4000000000))
	kill -INT "$REC_PID"
	wait "$REC_PID"
	REC_PID=
	[ "$(ls "$D"/t-*.data | wc -l)" -eq 1 ]
	grep -q "1 saved, 0 failed, 0 records dropped, 1 trigger trip$" "$D/rec.err"
}

@test "ring: --holdoff spaces the trips of a condition that stays true" {
	start_phases 300 60000
	ring_start --ring 2 --trigger 'total >= 1 samples' --holdoff 2 --no-save-on-exit -o "$D/h.data"
	wait_until 120 eval '[ "$(grep -c "saved '"'"'" "$D/rec.err")" -ge 3 ]'
	kill -INT "$REC_PID"
	wait "$REC_PID"
	REC_PID=
	cat "$D/rec.err"
	local prev= t n=0
	for t in $(for f in "$D"/h-*.data; do meta "$f" ring-to-monotonic-ns; done | sort -n); do
		if [ -n "$prev" ]; then
			echo "trips $(ratio $((t - prev)) 1000000000) s apart"
			[ $((t - prev)) -ge 1900000000 ]
		fi
		prev=$t
		n=$((n + 1))
	done
	[ "$n" -ge 3 ]
}

@test "ring: --after saves that long past the trip" {
	start_phases 300 60000
	ring_start --ring 2 --trigger 'total >= 1 samples' --after 3 --no-save-on-exit -o "$D/a.data"
	wait_until 120 grep -q "saved '" "$D/rec.err"
	cat "$D/rec.err"
	local f start to
	f=$(ls "$D"/a-*.data)
	local re="^trigger total >= 1 samples: [0-9]+ samples over [0-9]+ s$"
	[[ "$(meta "$f" ring-reason)" =~ $re ]]
	# the first trip comes once a second was measured (1 to 2 s after the
	# start without --after), the save 3 s later
	start=$(meta "$f" start-monotonic-ns)
	to=$(meta "$f" ring-to-monotonic-ns)
	echo "saved $(ratio $((to - start)) 1000000000) s after the start"
	[ $((to - start)) -ge 3500000000 ]
}

@test "ring: the end of a launched command saves; --no-save-on-exit does not" {
	run "$PROF" record --ring 2 -o "$D/e.data" -- "$EXAMPLES/phases" 300 300
	[ "$status" -eq 0 ]
	echo "$output"
	[ "$(ls "$D"/e-*.data | wc -l)" -eq 1 ]
	[ "$(meta "$(ls "$D"/e-*.data)" ring-reason)" = "end of recording" ]
	[ "$("$PROF" report -i "$(ls "$D"/e-*.data)" | folded_total)" -gt 0 ]
	[ ! -e "$D/e.data" ]
	run "$PROF" record --ring 2 --no-save-on-exit -o "$D/n.data" -- "$EXAMPLES/phases" 300 300
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 saved, 0 failed"* ]]
	! ls "$D"/n*.data
}

@test "ring: a save onto a full disk is reported, recording goes on, the next save works" {
	mkdir "$D/small"
	mount -t tmpfs -o size=256k tmpfs "$D/small" || skip "cannot mount a tmpfs here"
	dd if=/dev/zero of="$D/small/fill" bs=4k 2>/dev/null || true
	start_phases 60000 60000
	ring_start --ring 2 -o "$D/small/full.data"
	wait_until 30 now_past $(( $(mono_ns) + 1500000000 ))
	kill -USR1 "$REC_PID"
	wait_until 60 grep -q "cannot save" "$D/rec.err"
	cat "$D/rec.err"
	grep -q "prof record: cannot save '$D/small/full-[0-9TZ]*.data': No space left on device (recording goes on)" "$D/rec.err"
	! ls "$D"/small/full-*.data
	kill -0 "$REC_PID"
	rm "$D/small/fill"
	kill -USR1 "$REC_PID"
	wait_until 60 grep -q "saved '" "$D/rec.err"
	local f
	f=$(ls "$D"/small/full-*.data)
	[ "$("$PROF" report -i "$f" | folded_total)" -gt 0 ]
	kill -INT "$REC_PID"
	wait "$REC_PID"
	REC_PID=
	grep -q "ring of 2 s: 2 saved, 1 failed" "$D/rec.err"
}

@test "ring: bad values are usage errors, one line each" {
	local -a cases=(
		"--ring|0" "--ring|5000" "--ring|x" "--after|3" "--holdoff|5" "--trigger|total>=1"
		"--no-save-on-exit" "--ring|5|--trigger|bogus" "--ring|5|--trigger|'x' grew <= 1%"
		"--ring|5|--after|-1"
	)
	local c
	for c in "${cases[@]}"; do
		IFS='|' read -r -a args <<<"$c"
		run "$PROF" record "${args[@]}" -o "$D/bad.data" -- true
		echo "${args[*]} -> $status: $output"
		[ "$status" -eq 2 ]
		[[ "${lines[0]}" == "prof record: "* ]]
		[[ "${lines[0]}" == *"--ring"* || "${lines[0]}" == *"--trigger"* || "${lines[0]}" == *"--after"* ]]
	done
	! ls "$D"/bad*
}
