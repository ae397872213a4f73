#!/usr/bin/env bats
# t0600: USDT probes and uprobes: `prof probes` (cross-checked against
# readelf -n), `prof record -e usdt:/uprobe:/uretprobe:` on
# examples/usdt-app.c run for real (arguments decoded exactly, semaphores
# set while attached and restored after, call counts exact with --every 1,
# about a tenth with --every 10), and the errors.

load helpers

LIBJVM=/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so

# readelf -n's stapsdt notes as "provider name address semaphore args" TSV.
readelf_probes() {
	readelf -n "$1" | awk '
		/Provider:/ { prov = $2 }
		/Name:/ { name = $2 }
		/Location:/ { loc = $2; sem = $6; sub(",", "", loc) }
		/Arguments:/ { $1 = ""; sub(/^ /, ""); printf "%s\t%s\t%s\t%s\t%s\n", prov, name, loc, sem, $0 }' |
		sed 's/0x0*\([0-9a-f]\)/0x\1/g' | sort
}

prof_probes_tsv() {
	"$PROF" probes --format tsv "$1" | awk -F'\t' 'NR > 1 { printf "%s\t%s\t%s\t%s\t%s\n", $2, $3, $4, $5, $8 }' | sort
}

@test "probes: the example's USDT probes, with semaphores and argument specs" {
	run "$PROF" probes "$EXAMPLES/usdt-app"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "PROVIDER"*"NAME"*"ADDRESS"*"SEMAPHORE"*"ARGS" ]]
	[[ "$output" == *"usdt_demo  tick"*"1@%dil -2@%cx -4@%edx 8@%rax -4@\$42 -8@-8(%rbp)"* ]]
	[[ "$output" == *"usdt_demo  gated"* ]]
	# Both have a semaphore (the example is built with _SDT_HAS_SEMAPHORES).
	[ "$(echo "$output" | awk '/usdt_demo/ && $4 != "0"' | wc -l)" -eq 2 ]
}

@test "probes: the same probes as readelf -n (the example and libjvm.so)" {
	diff -u <(readelf_probes "$EXAMPLES/usdt-app") <(prof_probes_tsv "$EXAMPLES/usdt-app")
	[ -r "$LIBJVM" ] || skip "no OpenJDK 17"
	readelf_probes "$LIBJVM" > "$BATS_TEST_TMPDIR/readelf.tsv"
	prof_probes_tsv "$LIBJVM" > "$BATS_TEST_TMPDIR/prof.tsv"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/prof.tsv")" -gt 400 ]
	diff -u "$BATS_TEST_TMPDIR/readelf.tsv" "$BATS_TEST_TMPDIR/prof.tsv"
	grep -q $'^hotspot\tobject__alloc\t' "$BATS_TEST_TMPDIR/prof.tsv"
}

@test "probes -p: every object the process maps, the binary named" {
	start_example usdt-app --loop 10
	run "$PROF" probes -p "$EXAMPLE_PID"
	kill "$EXAMPLE_PID"
	wait "$EXAMPLE_PID" || true
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "BINARY"*"PROVIDER"* ]]
	[[ "$output" == *"/usdt-app "*"usdt_demo"*"tick"* ]]
	# Only the example's probes (Debian's glibc has none); libjvm.so's
	# under -p are in t0610.
	[ "$(echo "$output" | grep -vc usdt_demo)" -eq 1 ]
}

@test "probes: errors say what and exit 1, usage errors exit 2" {
	run "$PROF" probes /no/such/binary
	[ "$status" -eq 1 ]
	[[ "$output" == "prof probes: cannot read '/no/such/binary': No such file or directory" ]]
	run "$PROF" probes /etc/passwd
	[ "$status" -eq 1 ]
	[[ "$output" == "prof probes: '/etc/passwd' is not an ELF binary" ]]
	run "$PROF" probes -p 999999999
	[ "$status" -eq 1 ]
	[[ "$output" == "prof probes: no such process: 999999999" ]]
	run "$PROF" probes
	[ "$status" -eq 2 ]
	run "$PROF" probes --format xml /bin/true
	[ "$status" -eq 2 ]
	run "$PROF" probes -h
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: prof probes"* ]]
}

@test "probes: a binary without probes lists none" {
	run "$PROF" probes --format tsv "$EXAMPLES/hotloop"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
}

# Ticks the example counted, from its "ticks=T enabled=E" line on SIGUSR1.
report_ticks() {
	local log=$1 pid=$2 before
	before=$(grep -c ticks= "$log")
	kill -USR1 "$pid"
	wait_until 60 eval '[ "$(grep -c ticks= "$log")" -gt "$before" ]' || true
	grep ticks= "$log" | tail -1
}

enabled_of() { echo "$1" | sed 's/.*enabled=\([0-9]*\).*/\1/'; }
enabled_ms_of() { echo "$1" | sed 's/.*enabled_ms //'; }
ticks_of() { echo "$1" | sed 's/ticks=\([0-9]*\).*/\1/'; }

@test "record -e usdt: every argument decoded exactly (registers, stack memory, constant)" {
	cd "$BATS_TEST_TMPDIR"
	run "$PROF" record -e usdt:usdt_demo:tick -o t.data -- "$EXAMPLES/usdt-app" 300
	[ "$status" -eq 0 ]
	[[ "$output" == *"300 probe hits kept"* ]]
	"$PROF" report -i t.data --event usdt:usdt_demo:tick --args > args.folded
	[ "$(folded_total < args.folded)" -eq 300 ]
	# tick i: arg0 = (uint8)i, arg1 = -i, arg2 = 1000i - 7, arg3 = i << 33,
	# arg4 = 42 (constant), arg5 = -3i (a volatile on the stack).
	awk '{
		leaf = $0; sub(/.*;/, "", leaf); split(leaf, f, " ")
		for (k = 1; k <= 6; k++) { split(f[k], kv, "="); v[k - 1] = kv[2] }
		i = (v[2] + 7) / 1000
		if (v[0] != i % 256 || v[1] != -i || v[3] != i * 8589934592 || v[4] != 42 || v[5] != -3 * i) {
			print "bad: " $0; bad = 1
		}
		seen[i]++
	} END {
		for (i = 0; i < 300; i++) if (seen[i] != 1) { print "tick " i " seen " seen[i] + 0; bad = 1 }
		exit bad
	}' args.folded
	# The hits have the probe's stack: main -> tick.
	[ "$(folded_sum ';main;tick;arg0=' < args.folded)" -eq 300 ]
}

@test "record -e uprobe/uretprobe: calls counted exactly, return values decoded" {
	cd "$BATS_TEST_TMPDIR"
	bin="$EXAMPLES/usdt-app"
	run "$PROF" record -e "uprobe:$bin:counted_call" -e "uretprobe:$bin:counted_call" \
		--every 1 -o u.data -- "$bin" 1000
	[ "$status" -eq 0 ]
	entry=$("$PROF" report -i u.data --event uprobe:usdt-app:counted_call)
	[ "$(echo "$entry" | folded_total)" -eq 1000 ]
	# The entry is the leaf, its caller put back (a frame not set up yet).
	[ "$(echo "$entry" | folded_sum ';main;tick;counted_call ?$')" -eq 1000 ]
	"$PROF" report -i u.data --event uretprobe:usdt-app:counted_call --args > ret.folded
	[ "$(folded_total < ret.folded)" -eq 1000 ]
	# counted_call(i) returns 2i + 1: every odd number below 2000, once.
	diff <(sed 's/.*ret=\([0-9-]*\) .*/\1/' ret.folded | sort -n) <(seq 1 2 1999)
}

@test "record --every 10: one hit in ten at random, estimated back to the calls" {
	cd "$BATS_TEST_TMPDIR"
	run "$PROF" record -e "uprobe:$EXAMPLES/usdt-app:counted_call" --every 10 -o e.data -- \
		"$EXAMPLES/usdt-app" 20000
	[ "$status" -eq 0 ]
	[[ "$output" == *" of 20000 hits kept (--every"* ]]
	n=$("$PROF" report -i e.data --weight samples | folded_total)
	# Each call kept with p = 1 - exp(-1/10): 1903 of 20000, a standard
	# deviation of about 43 (geometric gaps).
	assert_between "hits kept of 20000 with --every 10" "$n" 1750 2060
	# Each kept hit stands for 1/p: the calls, within 4 standard deviations.
	n=$("$PROF" report -i e.data | folded_total)
	assert_between "estimated calls (20000 made)" "$n" 18200 21800
	run "$PROF" report -i e.data
	[[ "$output" == *"estimated "*" K hits of uprobe:usdt-app:counted_call (from "*" samples, 100.0% of the time probed, 1 in ~10 kept)"* ]]
	# The notice's estimate is the folded total, in thousands: the same bounds.
	k=$(echo "$output" | sed -n 's/.*estimated \([0-9.]*\) K hits of uprobe:usdt-app.*/\1/p' | head -1)
	[ -n "$k" ]
	assert_between "estimated calls in the notice, in thousands" "$k" 18.2 21.8
}

@test "record -p -e usdt: with a semaphore: set while attached, restored after" {
	cd "$BATS_TEST_TMPDIR"
	start_example usdt-app --loop 2
	log="$BATS_FILE_TMPDIR/usdt-app.log"
	before=$(report_ticks "$log" "$EXAMPLE_PID")
	run "$PROF" record -p "$EXAMPLE_PID" -e usdt:usdt_demo:gated -d 1 -o s.data
	during=$(report_ticks "$log" "$EXAMPLE_PID")
	# The first report after the example ticked on without prof.
	wait_until 60 eval 'after=$(report_ticks "$log" "$EXAMPLE_PID");
		[ "$(ticks_of "$after")" -gt "$(ticks_of "$during")" ]' || true
	kill "$EXAMPLE_PID"
	wait "$EXAMPLE_PID" || true
	[ "$status" -eq 0 ]
	[ "$(enabled_of "$before")" -eq 0 ]
	e=$(enabled_of "$during")
	[ "$e" -gt 50 ]
	# Nobody attached: the example no longer sees its probe enabled.
	[ "$(enabled_of "$after")" -eq "$e" ]
	[ "$(ticks_of "$after")" -gt "$(ticks_of "$during")" ]
	# The hits are the ticks that found the probe enabled (a few are lost
	# while attaching and detaching).
	hits=$("$PROF" report -i s.data --event usdt:usdt_demo:gated | folded_total)
	assert_between "hits / enabled ticks" "$(ratio "$hits" "$e")" 0.8 1.0
}

# Records the gated probe from a background prof ($1: extra options),
# SIGKILLs it once the probe is enabled, and checks that it no longer is.
killed_prof_leaves_nothing() {
	cd "$BATS_TEST_TMPDIR"
	start_example usdt-app --loop 2
	log="$BATS_FILE_TMPDIR/usdt-app.log"
	"$PROF" record -p "$EXAMPLE_PID" -e usdt:usdt_demo:gated $1 -o k.data 2>/dev/null &
	rec=$!
	wait_until 60 eval '[ "$(enabled_of "$(report_ticks "$log" "$EXAMPLE_PID")")" -gt 0 ]' || true
	kill -KILL "$rec"
	wait "$rec" || true
	# The kernel closes the dead recorder's events: wait until the count
	# of enabled ticks stays put while the example ticks on (one, then
	# two); it never does if the probe stays enabled.
	one=$(report_ticks "$log" "$EXAMPLE_PID")
	wait_until 60 eval 'two=$(report_ticks "$log" "$EXAMPLE_PID")
		[ "$(ticks_of "$two")" -gt "$(ticks_of "$one")" ] &&
			[ "$(enabled_of "$two")" -eq "$(enabled_of "$one")" ] || { one=$two; false; }' || true
	kill "$EXAMPLE_PID"
	wait "$EXAMPLE_PID" || true
	[ "$(enabled_of "$one")" -gt 0 ]
	[ "$(enabled_of "$two")" -eq "$(enabled_of "$one")" ]
	[ "$(ticks_of "$two")" -gt "$(ticks_of "$one")" ]
}

@test "record: a SIGKILLed prof leaves no probe armed (the semaphore drops back)" {
	killed_prof_leaves_nothing ""
	# Its tracefs definition (no breakpoint without events) is removed by
	# the next prof that places probes.
	run "$PROF" record -e usdt:usdt_demo:tick -o n.data -- "$EXAMPLES/usdt-app" 1
	[ "$status" -eq 0 ]
	if [ -r /sys/kernel/tracing/uprobe_events ]; then
		! grep -q "prof_$rec/" /sys/kernel/tracing/uprobe_events
	fi
}

@test "record --uprobe-pmu: the same through the uprobe PMU, nothing left at all" {
	killed_prof_leaves_nothing --uprobe-pmu
	cd "$BATS_TEST_TMPDIR"
	run "$PROF" record --uprobe-pmu -e "uprobe:$EXAMPLES/usdt-app:counted_call" -o p.data -- \
		"$EXAMPLES/usdt-app" 500
	[ "$status" -eq 0 ]
	[ "$("$PROF" report -i p.data | folded_total)" -eq 500 ]
}

@test "record --probe-window: probes attached W ms out of every P ms, duty reported" {
	cd "$BATS_TEST_TMPDIR"
	start_example usdt-app --loop 1
	log="$BATS_FILE_TMPDIR/usdt-app.log"
	t0=$(report_ticks "$log" "$EXAMPLE_PID")
	run "$PROF" record -p "$EXAMPLE_PID" -e usdt:usdt_demo:gated --probe-window 100/400 -d 3 \
		-o w.data
	t1=$(report_ticks "$log" "$EXAMPLE_PID")
	kill "$EXAMPLE_PID"
	wait "$EXAMPLE_PID" || true
	[ "$status" -eq 0 ]
	duty=$(echo "$output" | sed -n 's/.*probes attached \([0-9.]*\)% of the time (\([0-9]*\) windows.*/\1 \2/p')
	# 100 ms of 400: a quarter; 3 s give 8 windows (the first at the start,
	# then one at a random time in each 400 ms). Beside two CPU hogs, prof
	# at nice 10: 20-27% (38-44% when each window ran 100 ms from its late
	# opening); 100% if windows never close.
	assert_between "duty %" "${duty% *}" 18 35
	assert_between "windows" "${duty#* }" 7 9
	# The workload's view: the time it saw the probe enabled (to within a
	# tick) over the recording's duration, not the time from before prof
	# started to after it exited (which a loaded machine stretches): what
	# prof reported, within 0.05 (0.26-0.27 against 24-27% beside two
	# hogs; the share of ticks was 0.11-0.13: the example ticks less
	# while prof drains the hits).
	secs=$(echo "$output" | sed -n 's/^prof record: \([0-9.]*\) s,.*/\1/p')
	own=$(awk -v a="$(enabled_ms_of "$t0")" -v b="$(enabled_ms_of "$t1")" -v s="$secs" \
		'BEGIN { printf "%.3f\n", (b - a) / 1000 / s }')
	assert_between "share of the time the example saw the probe enabled" "$own" \
		"$(awk -v d="${duty% *}" 'BEGIN { print d / 100 - 0.05 }')" "$(awk -v d="${duty% *}" 'BEGIN { print d / 100 + 0.05 }')"
	[ "$("$PROF" report -i w.data | folded_total)" -gt 0 ]
}

@test "record -e: errors name the probe, the symbol or the binary" {
	cd "$BATS_TEST_TMPDIR"
	bin="$EXAMPLES/usdt-app"
	run "$PROF" record -e usdt:usdt_demo:nope -o x.data -- "$bin" 1
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "prof record: no probe usdt:usdt_demo:nope in 'usdt-app'" ]]
	[ ! -e x.data ]
	run "$PROF" record -e "uprobe:$bin:no_such_function" -o x.data -- "$bin" 1
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "prof record: no function 'no_such_function' in '$bin'" ]]
	run "$PROF" record -e "uprobe:/no/such/binary:f" -o x.data -- "$bin" 1
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "prof record: cannot read '/no/such/binary': No such file or directory" ]]
	run "$PROF" record -e "usdt:/no/such/binary:p:n" -o x.data -- "$bin" 1
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "prof record: cannot read '/no/such/binary': No such file or directory" ]]
	run "$PROF" record -e "uprobe:$bin:counted_call+100000" -o x.data -- "$bin" 1
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == *"is past the end of 'counted_call'"* ]]
	start_example usdt-app --loop 10
	run "$PROF" record -p "$EXAMPLE_PID" -e "uprobe:$EXAMPLES/hotloop:main" -o x.data
	run2=$output
	run "$PROF" record -p "$EXAMPLE_PID" -e usdt:hotspot:object__alloc -o x.data
	kill "$EXAMPLE_PID"
	wait "$EXAMPLE_PID" || true
	[[ "$run2" == "prof record: '$EXAMPLES/hotloop' is not mapped by process $EXAMPLE_PID: uprobe:main would never fire" ]]
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "prof record: no probe usdt:hotspot:object__alloc in the mappings of the target process" ]]
	[ ! -e x.data ]
	run "$PROF" record -e bogus -- true
	[ "$status" -eq 2 ]
	run "$PROF" record --every 0 -e usdt:a:b -- true
	[ "$status" -eq 2 ]
	run "$PROF" record --probe-window 5/5 -e usdt:a:b -- true
	[ "$status" -eq 2 ]
	run "$PROF" record --every 10 -- true
	[ "$status" -eq 2 ]
}

@test "report --event: one event's stacks; the CPU samples stay the default" {
	cd "$BATS_TEST_TMPDIR"
	# Each hit traps (a few microseconds here): CPU time to sample.
	run "$PROF" record -F 999 -e cpu-clock -e usdt:usdt_demo:tick -o c.data -- \
		"$EXAMPLES/usdt-app" 200000
	[ "$status" -eq 0 ]
	cpu=$("$PROF" report -i c.data | folded_total)
	hits=$("$PROF" report -i c.data --event usdt:usdt_demo:tick | folded_total)
	# Every hit kept is there (a loaded machine may make the recorder lose
	# some: they are counted, not hidden).
	kept=$(echo "$output" | sed -n 's/.* \([0-9]*\) probe hits kept.*/\1/p')
	lost=$(echo "$output" | sed -n 's/.* \([0-9]*\) lost.*/\1/p')
	[ "$hits" -eq "$kept" ]
	[ $((hits + lost)) -ge 200000 ]
	[ "$cpu" -gt 0 ]
	[ "$cpu" -lt 100000 ]
	[ "$("$PROF" report -i c.data --event cpu-clock | folded_total)" -eq "$cpu" ]
	run "$PROF" report -i c.data --event nope
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "prof report: 'c.data' has no event 'nope'" ]]
}

@test "symbolize -i keeps the probe arguments" {
	cd "$BATS_TEST_TMPDIR"
	"$PROF" record -q --no-symbolize -e usdt:usdt_demo:tick -o raw.data -- "$EXAMPLES/usdt-app" 20
	"$PROF" symbolize -i raw.data -o named.data 2>/dev/null
	a=$("$PROF" report -i named.data --event usdt:usdt_demo:tick --args)
	[ "$(echo "$a" | folded_sum ';main;tick;arg0=19 arg1=-19 arg2=18993 ')" -eq 1 ]
	[ "$(echo "$a" | folded_total)" -eq 20 ]
}

@test "record -e with --call-graph dwarf: probe stacks unwound like CPU samples" {
	cd "$BATS_TEST_TMPDIR"
	run "$PROF" record --call-graph dwarf -e "uprobe:$EXAMPLES/usdt-app:counted_call" -o d.data -- \
		"$EXAMPLES/usdt-app" 100
	[ "$status" -eq 0 ]
	[[ "$output" == *"100 of 100 user stacks unwound to their root"* ]]
	[ "$("$PROF" report -i d.data | folded_sum '^_start;.*;main;tick;counted_call ?$')" -eq 100 ]
}
