#!/usr/bin/env bats
# t0610: JVM allocation profiling (`prof record --alloc`) on a real HotSpot
# JVM running examples/JavaAlloc.java, which allocates a known mix: 60%
# byte[16] (allocBytes), 30% java.lang.String (allocStrings), 10% Object[4]
# (allocOther), and starts a thread with a 43-character name while being
# recorded. Java method names need the JVM's JIT symbol map (the perfmap
# work of issue 6): until then the stacks are checked on the JVM's own
# (native) frames that allocate each kind of object.

load helpers
bats_require_minimum_version 1.5.0

setup_file() {
	command -v java >/dev/null || skip "no JDK"
	export CP="$EXAMPLES"
	if [ ! -f "$CP/JavaAlloc.class" ]; then
		CP="$BATS_FILE_TMPDIR/classes"
		mkdir -p "$CP"
		javac -d "$CP" "$ROOT/examples/JavaAlloc.java"
	fi
	# One recording of a 20-second service, 4 s of it, with the defaults.
	cd "$BATS_FILE_TMPDIR"
	java -XX:+DTraceAllocProbes -cp "$CP" JavaAlloc 20 2> jvm.log &
	jvm=$!
	for _ in $(seq 200); do grep -q ready jvm.log && break; sleep 0.05; done
	"$PROF" record -p "$jvm" --alloc -d 4 -o alloc.data 2> record.log || true
	kill "$jvm" 2>/dev/null || true
	wait "$jvm" 2>/dev/null || true
	rm -f "/tmp/perf-$jvm.map" # written for prof by the JVM (root's): pids come round
}

# A hit called from compiled code (a JIT frame, then the probe's function).
FROM_JIT='_\[j\];SharedRuntime::dtrace_object_alloc'

# Per-class totals ("class count") of `prof report --alloc` output.
class_totals() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s[f[k]] += n }
	     END { for (c in s) print c, s[c] }' | sort
}

share() { # share CLASS, from class_totals on stdin
	C="$1" awk '{ t += $NF; if ($1 == ENVIRON["C"]) n = $NF } END { printf "%.3f\n", t ? n / t : 0 }'
}

@test "alloc: the recording ran with windows, its duty cycle said" {
	cd "$BATS_FILE_TMPDIR"
	grep -q "probe hits kept; probes attached" record.log
	[ -s alloc.data ]
}

@test "alloc: the shares of the known classes (60/30/10 by count, +-0.08)" {
	cd "$BATS_FILE_TMPDIR"
	"$PROF" report -i alloc.data --alloc | class_totals > classes.txt
	cat classes.txt >&2
	total=$(awk '{ s += $NF } END { print s }' classes.txt)
	[ "$total" -gt 300 ]
	assert_between "byte[] share" "$(share 'byte[]' < classes.txt)" 0.52 0.68
	assert_between "String share" "$(share java.lang.String < classes.txt)" 0.22 0.38
	assert_between "Object[] share" "$(share 'java.lang.Object[]' < classes.txt)" 0.04 0.16
}

@test "alloc: each class under the JVM frames that allocate its kind" {
	cd "$BATS_FILE_TMPDIR"
	"$PROF" report -i alloc.data --alloc > alloc.folded
	# Compiled code calls the probe's function itself (C1 through its
	# "dtrace_object_alloc Runtime1 stub"), any kind: how many hits come
	# that way depends on how far the JVM got in compiling, which a loaded
	# machine moves (13-18% of the Strings beside two CPU hogs). The others:
	# instances through allocate_instance, primitive arrays through
	# TypeArrayKlass, into the probe's own function.
	grep -v -E "$FROM_JIT" alloc.folded >runtime.folded || true
	strings=$(folded_sum ';java\.lang\.String ?$' < runtime.folded)
	bytes=$(folded_sum ';byte\[\] ?$' < runtime.folded)
	assert_between "String under allocate_instance" \
		"$(ratio "$(folded_sum 'allocate_instance.*;java\.lang\.String ?$' < runtime.folded)" "$strings")" 0.9 1
	assert_between "byte[] under TypeArrayKlass" \
		"$(ratio "$(folded_sum 'TypeArrayKlass.*;byte\[\] ?$' < runtime.folded)" "$bytes")" 0.9 1
	[ "$(folded_sum 'dtrace_object_alloc' < alloc.folded)" -eq "$(folded_total < alloc.folded)" ]
}

@test "alloc: each class under the Java method that allocates it (JIT frames named)" {
	# A JVM with frame pointers in Java frames and the allocating methods
	# kept apart (not inlined into their caller): the JIT map prof asks the
	# JVM for at the end names them.
	cd "$BATS_FILE_TMPDIR"
	java -XX:+DTraceAllocProbes -XX:+PreserveFramePointer -XX:CompileCommand=quiet \
		'-XX:CompileCommand=dontinline,JavaAlloc::*' -cp "$CP" JavaAlloc 20 2> jvm2.log &
	local jvm=$!
	for _ in $(seq 200); do grep -q ready jvm2.log && break; sleep 0.05; done
	"$PROF" record -q -p "$jvm" --alloc -d 3 -o methods.data || true
	kill "$jvm" 2>/dev/null || true
	wait "$jvm" 2>/dev/null || true
	rm -f "/tmp/perf-$jvm.map" # written for prof by the JVM (root's): pids come round
	"$PROF" report -i methods.data --alloc > methods.folded
	# For each class: the share of its samples whose nearest JavaAlloc
	# frame is the method built to allocate it. Stated bound: 90%.
	under() { # CLASS_RE METHOD
		C="$1" M="JavaAlloc.$2_[j]" awk 'BEGIN { c = ENVIRON["C"]; m = ENVIRON["M"] } {
			n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";")
			if (f[k] !~ c) next
			t += n; near = ""
			for (i = k; i > 0; i--) if (f[i] ~ /^JavaAlloc\./) { near = f[i]; break }
			if (near == m) in_m += n
		} END { printf "%.3f\n", t ? in_m / t : 0 }' methods.folded
	}
	assert_between "byte[] in allocBytes" "$(under '^byte\[\]$' allocBytes)" 0.9 1
	assert_between "String in allocStrings" "$(under '^java\.lang\.String$' allocStrings)" 0.9 1
	assert_between "Object[] in allocOther" "$(under '^java\.lang\.Object\[\]$' allocOther)" 0.9 1
}

@test "alloc: --weight bytes weighs each class by its objects' sizes" {
	cd "$BATS_FILE_TMPDIR"
	"$PROF" report -i alloc.data --alloc | class_totals > count.txt
	"$PROF" report -i alloc.data --alloc --weight bytes | class_totals > bytes.txt
	# 64-bit HotSpot, compressed class pointers: byte[16] and Object[4] take
	# 32 bytes, a String 24: the size most of the class's hits of known size
	# carry (the JVM allocates some byte[] of its own, 24 to 1040 bytes: 88
	# of 4,000 under ASan beside two CPU hogs). The hits whose size HotSpot
	# 17 leaves unset (its interpreter's and C1's paths) carry -1, weigh
	# nothing, and nothing else is negative (t0611 checks their sizes).
	"$PROF" report -i alloc.data --event usdt:hotspot:object__alloc --args --weight samples \
		> args.folded
	# Both weights are estimates: each hit scaled by the windows' duty
	# cycle (the span over the attached time), the same for every hit.
	scale=$(ratio "$("$PROF" report -i alloc.data --alloc 2>/dev/null | folded_total)" \
		"$("$PROF" report -i alloc.data --alloc --weight samples 2>/dev/null | folded_total)")
	for c in 'byte[]:32' 'java.lang.String:24' 'java.lang.Object[]:32'; do
		# the class's known bytes, and the known size most of its hits carried
		read -r w mode < <(C="class=${c%:*}" awk '{ n = $NF; $NF = ""
			k = split($0, f, ";"); split(f[k], a, " "); if (a[1] != ENVIRON["C"]) next
			z = substr(a[2], 6) + 0; if (z < -1 || z == 0) bad = z ""
			if (z > 0) { h[z] += n; w += n * z } }
			END { for (z in h) if (h[z] > best) { best = h[z]; mode = z }
				if (bad != "") print "bad", bad; else print w + 0, best ? mode : "none" }' args.folded)
		[ "$w" != bad ] || { echo "${c%:*}: a size of $mode" >&2; false; }
		# (none: no hit of known size, as all Object[] from C1 once there)
		[ "$mode" = none ] || [ "$mode" -eq "${c##*:}" ] ||
			{ echo "${c%:*}: most hits carried $mode bytes" >&2; false; }
		b=$(C="${c%:*}" awk '$1 == ENVIRON["C"] { print $2 }' bytes.txt)
		assert_between "${c%:*} bytes over its hits' sizes x $scale" \
			"$(ratio "${b:-0}" "$(awk -v w="$w" -v s="$scale" 'BEGIN { print w * s }')")" 0.99 1.01
	done
}

@test "alloc: --class, --exclude-class and --class-root" {
	cd "$BATS_FILE_TMPDIR"
	all=$("$PROF" report -i alloc.data --alloc | folded_total)
	s=$("$PROF" report -i alloc.data --alloc --class 'String$' | folded_total)
	[ "$s" -eq "$("$PROF" report -i alloc.data --alloc | folded_sum ';java\.lang\.String ?$')" ]
	x=$("$PROF" report -i alloc.data --alloc --exclude-class 'String$' | folded_total)
	[ $((s + x)) -eq "$all" ]
	"$PROF" report -i alloc.data --alloc --class-root | folded_roots > roots.txt
	grep -q '^java.lang.String ' roots.txt
	grep -q '^byte\[\] ' roots.txt
	run "$PROF" report -i alloc.data --weight bytes
	[ "$status" -eq 2 ]
}

@test "alloc: a thread started while recording keeps its full name" {
	cd "$BATS_FILE_TMPDIR"
	grep -q started jvm.log
	"$PROF" report -i alloc.data --alloc --threads | folded_roots > threads.txt
	cat threads.txt >&2
	grep -q '^AsyncAppender-Worker-async-console-appender [0-9]' threads.txt
	! grep -q '^AsyncAppender-W ' threads.txt
}

@test "alloc: prof svg --alloc draws it with the mem palette" {
	cd "$BATS_FILE_TMPDIR"
	"$PROF" svg -i alloc.data --alloc -o alloc.svg
	xmllint --noout alloc.svg
	grep -q 'Allocation Flame Graph' alloc.svg
	grep -q 'java.lang.String' alloc.svg
}

@test "alloc: a JVM without -XX:+DTraceAllocProbes: says so and how to restart it" {
	cd "$BATS_TEST_TMPDIR"
	java -cp "$CP" JavaAlloc 10 2> plain.log &
	jvm=$!
	for _ in $(seq 200); do grep -q ready plain.log && break; sleep 0.05; done
	run "$PROF" record -p "$jvm" --alloc -d 1 -o none.data
	run2=$("$PROF" probes -p "$jvm")
	kill "$jvm"
	wait "$jvm" || true
	rm -f "/tmp/perf-$jvm.map" # written for prof by the JVM (root's): pids come round
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "prof record: JVM $jvm runs without -XX:+DTraceAllocProbes: HotSpot fires hotspot:object__alloc only with it, so no allocation would be recorded" ]]
	[[ "${lines[1]}" == "hint: restart it with 'java -XX:+DTraceAllocProbes ...'"* ]]
	[ ! -e none.data ]
	# prof probes -p lists libjvm.so's probes anyway.
	[[ "$run2" == *"libjvm.so"*"hotspot"*"object__alloc"* ]]
}

@test "alloc: --alloc on a process that is not a JVM" {
	start_example usdt-app --loop 10
	run "$PROF" record -p "$EXAMPLE_PID" --alloc -d 1 -o x.data
	kill "$EXAMPLE_PID"
	wait "$EXAMPLE_PID" || true
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "prof record: no HotSpot JVM (libjvm.so with hotspot:object__alloc) in process $EXAMPLE_PID" ]]
}

@test "alloc: prof check measures alloc: rules on the allocation samples" {
	cd "$BATS_FILE_TMPDIR"
	"$PROF" report -i alloc.data --alloc | class_totals > classes.txt
	want=$(share java.lang.String < classes.txt)
	# The JVM's internal name (java/lang/String) matches the dotted one.
	# (stderr apart: a loaded machine's recording may carry a lost-samples
	# warning, which is not JSON)
	run --separate-stderr "$PROF" check -i alloc.data --format json "'alloc:java/lang/String' <= 10%" \
		"'alloc:^byte\\[\\]\$' >= 40%"
	[ "$status" -eq 1 ]
	got=$(echo "$output" | jq -r '.[0].measured')
	assert_between "String share, check over report" "$(ratio "$got" "$(awk -v w="$want" 'BEGIN { print w * 100 }')")" 0.99 1.01
	[ "$(echo "$output" | jq -r '.[0].result')" = fail ]
	[ "$(echo "$output" | jq -r '.[1].result')" = pass ]
}
