#!/usr/bin/env bats
# t0645: HotSpot's own metadata read from outside a JVM started with no
# flags (jvm/vmstructs.c, codecache.c, method-name.c): `prof jvm-inspect`
# lists the code cache's compiled methods, checked against the JVM's own
# `jcmd PID Compiler.codelist` (the oracle) by code address and name.

load helpers

JCMD=${JCMD:-$(dirname "$JAVA")/jcmd}

export PIDS="$BATS_FILE_TMPDIR/jvm-pids"

setup_file() {
	start_jvm -- 60 2
	echo "$JVM_PID" >"$BATS_FILE_TMPDIR/pid"
}

teardown_file() {
	kill "$(cat "$BATS_FILE_TMPDIR/pid")" 2>/dev/null || true
}

# codelist FILE: the JVM's own list of compiled methods, one
# "CODE_BEGIN NAME" per method (its lines end "[HEADER, BEGIN - END]").
codelist() {
	"$JCMD" "$JVM_PID" Compiler.codelist |
		awk '/^[0-9]+ [0-9-]+ [0-9-]+ / { b = $(NF - 2); sub(/,$/, "", b); print b, $4 }' |
		sort >"$1"
}

@test "jvm-inspect: the code cache's compiled methods, named as Compiler.codelist names them" {
	JVM_PID=$(cat "$BATS_FILE_TMPDIR/pid")
	codelist "$BATS_TEST_TMPDIR/before"
	run "$PROF" jvm-inspect -p "$JVM_PID"
	[ "$status" -eq 0 ]
	echo "$output" | awk '/^0x/ { print $1, $4 }' | sort >"$BATS_TEST_TMPDIR/ours"
	codelist "$BATS_TEST_TMPDIR/after"
	# The JIT compiles and frees code meanwhile: judged on the methods the
	# oracle listed before and after (the same address and name).
	comm -12 "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after" >"$BATS_TEST_TMPDIR/stable"
	stable=$(wc -l <"$BATS_TEST_TMPDIR/stable")
	same=$(comm -12 "$BATS_TEST_TMPDIR/stable" "$BATS_TEST_TMPDIR/ours" | wc -l)
	echo "# $same of $stable compiled methods found and named alike" >&3
	comm -23 "$BATS_TEST_TMPDIR/stable" "$BATS_TEST_TMPDIR/ours" | head -5
	((stable > 100))
	((same * 100 >= stable * 99))
	# the example's own hot methods among them
	grep -q ' Service\$Handler\.parseRequest(' "$BATS_TEST_TMPDIR/ours" ||
		wait_until 30 eval '"$PROF" jvm-inspect -p "$JVM_PID" | grep -q " Service\$Handler\.parseRequest("'
	# frame sizes in bytes, whole words, and the counts on stderr
	echo "$output" | awk '/^0x/ && ($3 % 8 || $3 < 0) { exit 1 }'
	[[ "$output" == *"compiled methods, 0 unnamed"* ]]
}

@test "jvm-inspect --tables: HotSpot's field offsets, type sizes and constants" {
	JVM_PID=$(cat "$BATS_FILE_TMPDIR/pid")
	run "$PROF" jvm-inspect -p "$JVM_PID" --tables
	[ "$status" -eq 0 ]
	[[ "$output" == *"field CodeCache::_heaps static 0x"* ]]
	[[ "$output" == *"field Method::_constMethod offset 0x"* ]]
	[[ "$output" == *"type HeapBlock 16"* ]]
	[[ "$output" == *"int frame::interpreter_frame_last_sp_offset -2"* ]]
}

@test "jvm-inspect: a process that is not a JVM is refused with a reason" {
	run "$PROF" jvm-inspect -p $$
	[ "$status" -eq 1 ]
	[[ "$output" == *"maps no libjvm.so"* ]]
	run "$PROF" jvm-inspect
	[ "$status" -eq 2 ]
	# a process mapping a library named libjvm.so that is not HotSpot's
	cp "$EXAMPLES/libwork-nofp.so" "$BATS_TEST_TMPDIR/libjvm.so"
	LD_PRELOAD="$BATS_TEST_TMPDIR/libjvm.so" sleep 30 &
	fake=$!
	wait_until 10 grep -q '/libjvm.so$' "/proc/$fake/maps"
	run "$PROF" jvm-inspect -p "$fake"
	kill "$fake"
	[ "$status" -eq 1 ]
	[[ "$output" == *"libjvm.so exports no 'gHotSpotVMStructs'"* ]]
}

# in_java FOLDED: the samples whose leaf is a Java frame (`_[j]`), as
# "LEAF COUNT" lines.
in_java() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";")
		if (f[k] ~ /_\[j\]$/) print f[k], n }' "$1"
}

# jit_leaves: like in_java, from stdin, leaves in unnamed JIT code too.
jit_leaves() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";")
		while (k > 1 && f[k] ~ /_\[k\]$/) k--
		if (f[k] ~ /_\[j\]$/ || f[k] ~ /^\[unknown\+0x7f/) print f[k], n }'
}

@test "record --call-graph dwarf: interpreted frames (-Xint) named by their Method, whole stacks" {
	start_jvm -Xint -- 60 2
	"$PROF" record -q --call-graph dwarf -F 199 -d 5 -p "$JVM_PID" -o "$BATS_TEST_TMPDIR/xint.data"
	kill "$JVM_PID"
	"$PROF" report -i "$BATS_TEST_TMPDIR/xint.data" --threads >"$BATS_TEST_TMPDIR/folded"
	in_java "$BATS_TEST_TMPDIR/folded" >"$BATS_TEST_TMPDIR/leaves"
	java=$(awk '{ s += $NF } END { print s + 0 }' "$BATS_TEST_TMPDIR/leaves")
	interp=$(awk '$1 == "Interpreter_[j]" { s += $NF } END { print s + 0 }' "$BATS_TEST_TMPDIR/leaves")
	echo "# $interp of $java in-Java samples with an Interpreter_[j] leaf" >&3
	((java > 30))
	# none: in the interpreter's method entry, before the frame holds the
	# Method*, rbx does (jvm/interp-frames.c)
	((interp == 0))
	# The methods under their callers, as the example calls them, from the
	# thread's root (Thread.run) down.
	grep -q '^http-handler-1;.*java\.lang\.Thread\.run_\[j\];.*Service\.dutyCycle_\[j\];.*Service\$Handler\.handleRequest_\[j\];Service\$Handler\.parseRequest_\[j\]' "$BATS_TEST_TMPDIR/folded"
	grep -q '^metrics-reporter-1;.*Service\$MetricsReporter\.report_\[j\];Service\$MetricsReporter\.computePercentiles_\[j\]' "$BATS_TEST_TMPDIR/folded"
	# Every in-Java sample of a handler thread is in its request loop.
	all=$(grep '^http-handler' "$BATS_TEST_TMPDIR/folded" | in_java /dev/stdin | awk '{ s += $NF } END { print s + 0 }')
	under=$(grep '^http-handler.*Service\.dutyCycle_\[j\]' "$BATS_TEST_TMPDIR/folded" | in_java /dev/stdin | awk '{ s += $NF } END { print s + 0 }')
	echo "# handler threads: $under of $all in-Java samples under Service.dutyCycle" >&3
	((all > 20 && under * 100 >= all * 95))
}

@test "record --call-graph dwarf: a JVM with no flags gives whole Java stacks (compiled frames stepped by their frame sizes)" {
	start_jvm -- 60 2
	# once the handlers' loop is compiled (a frame without rbp to step over)
	wait_until 60 eval '"$PROF" jvm-inspect -p "$JVM_PID" 2>/dev/null | grep -q " Service\.dutyCycle("'
	"$PROF" record --call-graph dwarf -F 199 -d 5 -p "$JVM_PID" -o "$BATS_TEST_TMPDIR/nofp.data" 2>"$BATS_TEST_TMPDIR/err"
	kill "$JVM_PID"
	cat "$BATS_TEST_TMPDIR/err"
	"$PROF" report -i "$BATS_TEST_TMPDIR/nofp.data" --threads >"$BATS_TEST_TMPDIR/folded"
	# The handler threads' samples in Java code (a leaf in JIT code, named
	# or not: compiled code is named from the JIT map asked for at the
	# end): each one's stack from the thread's start (HotSpot's call stub,
	# the interpreted Thread.run); before, they stopped at the first
	# compiled frame.
	grep '^http-handler' "$BATS_TEST_TMPDIR/folded" | jit_leaves >"$BATS_TEST_TMPDIR/java"
	all=$(awk '{ s += $NF } END { print s + 0 }' "$BATS_TEST_TMPDIR/java")
	whole=$(grep '^http-handler.*StubRoutines_\[j\];java\.lang\.Thread\.run_\[j\];' "$BATS_TEST_TMPDIR/folded" |
		jit_leaves | awk '{ s += $NF } END { print s + 0 }')
	echo "# handler threads: $whole of $all samples in Java code with whole stacks" >&3
	# 95-100% on a warm JVM; while it still compiles (longer on a loaded
	# machine) a pc in code newer than prof's last read of the code cache
	# cuts a stack: 80% leaves room for that, and main's 0% still fails.
	((all > 20 && whole * 100 >= all * 80))
	# and the example's methods named in them
	grep -q '^http-handler.*java\.lang\.Thread\.run_\[j\];.*Service\.dutyCycle_\[j\];' "$BATS_TEST_TMPDIR/folded"
}
