#!/usr/bin/env bats
# t0165: every source of the recorder (record/engine.h) in one recording:
# CPU samples, scheduler events (CPU-wide) and probes, on examples/usdt-app
# run for real. Each engine is drained in its turn of the same loop; the
# probe hits must still be exactly the calls the program made, and the
# others present.

load helpers

@test "record --sched -e cpu-clock -e usdt: -e uprobe: every engine at once, hits exact" {
	cd "$BATS_TEST_TMPDIR"
	bin="$EXAMPLES/usdt-app"
	run "$PROF" record --sched -e cpu-clock -e usdt:usdt_demo:tick \
		-e "uprobe:$bin:counted_call" --every 1 -F 999 -o all.data -- "$bin" 20000
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"40000 probe hits kept"* ]]
	# The program fired its tick probe and called counted_call 20000 times.
	[ "$("$PROF" report -i all.data --event usdt:usdt_demo:tick | folded_total)" -eq 20000 ]
	[ "$("$PROF" report -i all.data --event uprobe:usdt-app:counted_call |
		folded_sum ';main;tick;counted_call ?$')" -eq 20000 ]
	# The CPU engine: samples of the program (the traps cost it CPU time),
	# as many as the file's stat says.
	header=$("$PROF" report -i all.data --header 2>&1)
	echo "$header" | grep -q '^scope: cpu-wide'
	samples=$(echo "$header" | awk '$1 == "samples:" { print $2 }')
	[ "$samples" -gt 0 ]
	[ "$("$PROF" report -i all.data | folded_total)" -eq "$samples" ]
	# The scheduler engine: the launched command's thread, from its start
	# (written as it was let go) to its exit.
	echo "$header" | grep -q '^sched-switches: '
	"$PROF" sched -i all.data --format csv | grep -q ',usdt-app,'
}
