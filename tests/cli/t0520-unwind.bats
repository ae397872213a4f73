#!/usr/bin/env bats
# t0520: user stacks, recorded for real. --call-graph dwarf on a binary
# built without frame pointers (examples/nofp-deep.c) gives whole stacks,
# where frame pointers give nothing; frame-pointer mode keeps
# the caller of a frameless leaf (examples/leaf-frameless.c), and
# --no-leaf-fix shows the bug it fixes; stacks deeper than the kernel's
# limit end in [truncated] (examples/recurse.c); bad sizes are usage
# errors; interrupted and cut-short dwarf recordings read.

load helpers

# The percentage of the samples of folded file $1 whose stack (without its
# count) matches the ERE $2, anchors included.
share() {
	RE="$2" awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); t += n; if (s ~ ENVIRON["RE"]) a += n }
		END { printf "%.1f\n", t ? 100 * a / t : 0 }' "$1"
}

@test "--call-graph dwarf: whole stacks of a binary without frame pointers" {
	run "$PROF" record -F 499 --call-graph dwarf -o "$BATS_TEST_TMPDIR/dwarf.data" \
		-- "$EXAMPLES/nofp-deep" 2 1
	[ "$status" -eq 0 ]
	# The summary: how many stacks reached their root (_start, or the
	# clone of a thread). Stated bound: at least 90%.
	line=$(echo "$output" | grep 'unwound to their root')
	pct=$(echo "$line" | sed -E 's/.*root \(([0-9.]+)%\).*/\1/')
	assert_between "unwound to root %" "$pct" 90 100
	"$PROF" report -i "$BATS_TEST_TMPDIR/dwarf.data" --threads >"$BATS_TEST_TMPDIR/dwarf.folded"
	# The known chain, in order, from the root: main thread and worker,
	# each with the share of the CPU it really used (nofp-deep prints it;
	# about half each on an idle machine), within 12 points.
	cpu() { echo "$output" | T="$1" awk '$1 == "cpu" && $2 == ENVIRON["T"] { print $3 }'; }
	main_pct=$(awk -v m="$(cpu nofp-deep)" -v w="$(cpu nofp-worker)" 'BEGIN { printf "%.1f", 100 * m / (m + w) }')
	assert_between "main thread's CPU %" "$main_pct" 20 80
	pm=$(awk -v p="$main_pct" 'BEGIN { print p - 12 }')
	pM=$(awk -v p="$main_pct" 'BEGIN { print p + 12 }')
	assert_between "main chain %" \
		"$(share "$BATS_TEST_TMPDIR/dwarf.folded" '^nofp-deep;_start;__libc_start_main;.*;main;(run_until_end;)?run_a;run_b;run_c;leaf$')" "$pm" "$pM"
	wm=$(awk -v p="$main_pct" 'BEGIN { print 100 - p - 12 }')
	wM=$(awk -v p="$main_pct" 'BEGIN { print 100 - p + 12 }')
	assert_between "worker chain %" \
		"$(share "$BATS_TEST_TMPDIR/dwarf.folded" '^nofp-worker;.*;worker;(run_until_end;)?run_a;run_b;run_c;leaf$')" "$wm" "$wM"
}

@test "frame pointers cannot walk the same binary (what dwarf is for)" {
	"$PROF" record -q -F 499 --call-graph fp -o "$BATS_TEST_TMPDIR/fp.data" -- "$EXAMPLES/nofp-deep" 1
	"$PROF" report -i "$BATS_TEST_TMPDIR/fp.data" >"$BATS_TEST_TMPDIR/fp.folded"
	assert_between "run_a;run_b;run_c;leaf %" \
		"$(share "$BATS_TEST_TMPDIR/fp.folded" 'run_a;run_b;run_c;leaf$')" 0 10
	run "$PROF" report -i "$BATS_TEST_TMPDIR/fp.data" --grep '^leaf$'
	[ "$status" -eq 0 ]
}

@test "--call-graph dwarf,SIZE: a copy too small for the stack ends it in [truncated]" {
	run "$PROF" record -F 499 --call-graph dwarf,1024 -o "$BATS_TEST_TMPDIR/small.data" \
		-- "$EXAMPLES/recurse" 1 200
	[ "$status" -eq 0 ]
	[[ "$output" == *"stack copies cut at 1024 bytes"* ]]
	"$PROF" report -i "$BATS_TEST_TMPDIR/small.data" >"$BATS_TEST_TMPDIR/small.folded"
	assert_between "[truncated] %" \
		"$(share "$BATS_TEST_TMPDIR/small.folded" '^\[truncated\];descend;')" 90 100
}

@test "dwarf stacks are not limited by perf_event_max_stack" {
	max=$(cat /proc/sys/kernel/perf_event_max_stack)
	[ "$max" -lt 200 ] || skip "kernel.perf_event_max_stack is $max: a 200-deep stack is not past it"
	"$PROF" record -q -F 499 --call-graph dwarf -o "$BATS_TEST_TMPDIR/deep.data" \
		-- "$EXAMPLES/recurse" 1 200
	"$PROF" report -i "$BATS_TEST_TMPDIR/deep.data" >"$BATS_TEST_TMPDIR/deep.folded"
	# main;descend x200;bottom, whole, from _start.
	whole=$(awk '{ n = $NF; t += n; s = $0; d = gsub(/;descend/, "", s)
		if (s ~ /^_start;__libc_start_main;.*;main;bottom [0-9]+$/ && d == 200) w += n }
		END { printf "%.1f\n", t ? 100 * w / t : 0 }' "$BATS_TEST_TMPDIR/deep.folded")
	assert_between "whole deep stacks %" "$whole" 90 100
}

@test "frame pointers: a stack deeper than perf_event_max_stack ends in [truncated]" {
	max=$(cat /proc/sys/kernel/perf_event_max_stack)
	# 73 frames past the limit (200 deep at the default 127).
	"$PROF" record -q -F 499 -o "$BATS_TEST_TMPDIR/fpdeep.data" -- "$EXAMPLES/recurse" 1 \
		$((max + 73))
	"$PROF" report -i "$BATS_TEST_TMPDIR/fpdeep.data" >"$BATS_TEST_TMPDIR/fpdeep.folded"
	# The kernel keeps the leaf end: bottom and max - 1 descend frames,
	# under a [truncated] root, never re-rooted at a descend frame.
	assert_between "[truncated] %" \
		"$(share "$BATS_TEST_TMPDIR/fpdeep.folded" '^\[truncated\];(descend;)+bottom$')" 90 100
	[ "$(share "$BATS_TEST_TMPDIR/fpdeep.folded" '^descend;')" = "0.0" ]
	line=$(grep '^\[truncated\];' "$BATS_TEST_TMPDIR/fpdeep.folded" | sort -k2 -nr | head -1)
	frames=$(echo "${line% *}" | tr ';' '\n' | grep -c '^descend$')
	[ "$frames" -eq $((max - 1)) ]
}

@test "fp mode keeps the caller of a frameless leaf; --no-leaf-fix shows the bug" {
	run "$PROF" record -F 499 --call-graph fp -o "$BATS_TEST_TMPDIR/leaf.data" -- "$EXAMPLES/leaf-frameless" 1
	[ "$status" -eq 0 ]
	"$PROF" report -i "$BATS_TEST_TMPDIR/leaf.data" >"$BATS_TEST_TMPDIR/leaf.folded"
	"$PROF" record -q -F 499 --call-graph fp --no-leaf-fix -o "$BATS_TEST_TMPDIR/noleaf.data" \
		-- "$EXAMPLES/leaf-frameless" 1
	"$PROF" report -i "$BATS_TEST_TMPDIR/noleaf.data" >"$BATS_TEST_TMPDIR/noleaf.folded"
	# The caller (middle) between the leaf and the grand-caller (outer).
	assert_between "fixed: outer;middle;spin_leaf %" \
		"$(share "$BATS_TEST_TMPDIR/leaf.folded" ';main;outer;middle;spin_leaf$')" 85 100
	# Off: the frame-pointer walk skips middle.
	assert_between "unfixed: outer;spin_leaf %" \
		"$(share "$BATS_TEST_TMPDIR/noleaf.folded" ';main;outer;spin_leaf$')" 85 100
	assert_between "unfixed: middle %" \
		"$(share "$BATS_TEST_TMPDIR/noleaf.folded" 'middle')" 0 5
}

@test "both leaf fixes name the caller; only the stack one through a call by register" {
	local m
	for m in callsite stack; do
		"$PROF" record -q -F 499 --call-graph fp --leaf-fix $m -o "$BATS_TEST_TMPDIR/$m.data" \
			-- "$EXAMPLES/leaf-frameless" 1
		"$PROF" report -i "$BATS_TEST_TMPDIR/$m.data" >"$BATS_TEST_TMPDIR/$m.folded"
		assert_between "$m: outer;middle;spin_leaf %" \
			"$(share "$BATS_TEST_TMPDIR/$m.folded" ';main;outer;middle;spin_leaf$')" 85 100
		# outer calls middle through a function pointer (call *%rax)
		"$PROF" record -q -F 499 --call-graph fp --leaf-fix $m -o "$BATS_TEST_TMPDIR/$m-ind.data" \
			-- "$EXAMPLES/leaf-frameless" 1 indirect
		"$PROF" report -i "$BATS_TEST_TMPDIR/$m-ind.data" >"$BATS_TEST_TMPDIR/$m-ind.folded"
	done
	assert_between "stack, by register: outer;middle;spin_leaf %" \
		"$(share "$BATS_TEST_TMPDIR/stack-ind.folded" ';main;outer;middle;spin_leaf$')" 85 100
	assert_between "callsite, by register: outer;spin_leaf %" \
		"$(share "$BATS_TEST_TMPDIR/callsite-ind.folded" ';main;outer;spin_leaf$')" 85 100
	# the default is the stack fix, at any rate
	"$PROF" record -q -F 1999 -o "$BATS_TEST_TMPDIR/default.data" \
		-- "$EXAMPLES/leaf-frameless" 1 indirect
	"$PROF" report -i "$BATS_TEST_TMPDIR/default.data" >"$BATS_TEST_TMPDIR/default.folded"
	assert_between "default at 1999 Hz, by register: outer;middle;spin_leaf %" \
		"$(share "$BATS_TEST_TMPDIR/default.folded" ';main;outer;middle;spin_leaf$')" 85 100
	run "$PROF" record --leaf-fix sideways -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid --leaf-fix 'sideways'"* ]]
}

@test "the call-site leaf fix reads the code from the file once the target has exited" {
	# The samples of a short run are processed after it exits: its memory
	# is gone, the mapped binary is read instead.
	"$PROF" record -q -F 999 --call-graph fp --leaf-fix callsite -o "$BATS_TEST_TMPDIR/short.data" \
		-- "$EXAMPLES/leaf-frameless" 0.3
	"$PROF" report -i "$BATS_TEST_TMPDIR/short.data" >"$BATS_TEST_TMPDIR/short.folded"
	assert_between "outer;middle;spin_leaf %" \
		"$(share "$BATS_TEST_TMPDIR/short.folded" ';main;outer;middle;spin_leaf$')" 85 100
}

@test "bad --call-graph values are usage errors" {
	for bad in dwarf,100 dwarf,0 dwarf,65536 dwarf,x dwarfish lbr "dwarf,"; do
		run "$PROF" record --call-graph "$bad" -- true
		[ "$status" -eq 2 ]
		[[ "$output" == *"invalid --call-graph"* ]]
	done
	run "$PROF" record -q --call-graph fp -o "$BATS_TEST_TMPDIR/fpok.data" -- true
	[ "$status" -eq 0 ]
	run "$PROF" record -q --call-graph dwarf,65528 -o "$BATS_TEST_TMPDIR/big.data" -- true
	[ "$status" -eq 0 ]
}

@test "SIGINT during a dwarf recording: the file is complete, stacks whole" {
	start_example nofp-deep 30
	record_start "$BATS_TEST_TMPDIR/int.data" --call-graph dwarf -F 499
	wait_readable "$BATS_TEST_TMPDIR/int.data" 100
	record_stop INT "$BATS_TEST_TMPDIR/int.data"
	kill "$EXAMPLE_PID"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/int.data"
	[ "$status" -eq 0 ]
	[[ "$output" != *incomplete* ]]
	echo "$output" >"$BATS_TEST_TMPDIR/int.folded"
	assert_between "whole chain %" \
		"$(share "$BATS_TEST_TMPDIR/int.folded" '^_start;.*;main;(run_until_end;)?run_a;run_b;run_c;leaf$')" 85 100
}

@test "a dwarf recording killed or cut short reads, with whole stacks up to its end" {
	start_example nofp-deep 30
	# killed once a flush is readable
	record_killed "$BATS_TEST_TMPDIR/kill.data" 1 --call-graph dwarf -F 499
	run "$PROF" report -i "$BATS_TEST_TMPDIR/kill.data"
	[ "$status" -eq 0 ]
	[[ "$output" == *incomplete* ]]
	# DWARF recordings are never deferred (their raw stack copies would
	# cost more to write than to unwind): the stacks were unwound as they
	# came, and nothing raw is left for the reader to process; all that was
	# readable before the kill reads back.
	[[ "$output" != *"before processing its samples"* ]]
	[ "$(echo "$output" | grep -v '^prof report:' | folded_total)" -ge "$READABLE" ]
	# Symbols are written at the end: a killed recorder's file is named
	# afterwards, with the binaries here.
	run "$PROF" symbolize --incomplete -i "$BATS_TEST_TMPDIR/kill.data" -o "$BATS_TEST_TMPDIR/named.data"
	[ "$status" -eq 0 ]
	run "$PROF" report -i "$BATS_TEST_TMPDIR/named.data"
	[ "$status" -eq 0 ]
	echo "$output" | grep -v '^prof report:' >"$BATS_TEST_TMPDIR/kill.folded"
	[ "$(folded_total <"$BATS_TEST_TMPDIR/kill.folded")" -ge "$READABLE" ]
	# Whole stacks: _start, two libc frames, main and the chain of five:
	# at least 8 frames.
	whole=$(awk '{ n = $NF; t += n; if (split($0, f, ";") >= 8 && f[1] == "_start") w += n }
		END { printf "%.1f\n", t ? 100 * w / t : 0 }' "$BATS_TEST_TMPDIR/kill.folded")
	assert_between "whole stacks %" "$whole" 85 100
	# Cut in the middle of a chunk: still read up to the chunk before.
	size=$(stat -c %s "$BATS_TEST_TMPDIR/kill.data")
	head -c $((size * 2 / 3)) "$BATS_TEST_TMPDIR/kill.data" >"$BATS_TEST_TMPDIR/cut.data"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/cut.data"
	[ "$status" -eq 0 ]
	[[ "$output" == *incomplete* ]]
}

@test "unprivileged: --call-graph dwarf unwinds one's own processes" {
	if [ "$(id -u)" -ne 0 ] || ! command -v runuser >/dev/null || ! id nobody >/dev/null 2>&1; then
		skip "needs root (to become nobody) and runuser"
	fi
	dir=$(mktemp -d /tmp/prof-nobody.XXXXXX)
	cp "$PROF" "$EXAMPLES/nofp-deep" "$dir"/
	chmod 755 "$dir" "$dir"/*
	chown nobody "$dir"
	run runuser -u nobody -- "$dir/$(basename "$PROF")" record -F 499 --call-graph dwarf \
		-o "$dir/u.data" -- "$dir/nofp-deep" 1
	"$PROF" report -i "$dir/u.data" >"$BATS_TEST_TMPDIR/u.folded" || true
	rm -rf "$dir"
	[ "$status" -eq 0 ]
	[[ "$output" == *"unwound to their root"* ]]
	assert_between "whole chain %" \
		"$(share "$BATS_TEST_TMPDIR/u.folded" '^_start;.*;main;(run_until_end;)?run_a;run_b;run_c;leaf$')" 85 100
}
