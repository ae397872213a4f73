#!/usr/bin/env bats
# t0620: profiling a real HotSpot JVM (examples/java/Service.java, OpenJDK
# 17): at the end of a recording prof asks the JVM over its attach socket
# for its JIT map and thread names. Java methods named in CPU stacks with
# `_[j]`, pool shares within bounds, full thread names, the
# PreserveFramePointer notice, a JVM that refuses attach, a non-JVM left
# alone, and launch mode. Each JVM start takes about a second here.

load helpers

# The example's own methods are kept out of their callers: a perf map names
# one blob per compiled method, so an inlined method has no frame of its own.
JFLAGS=(-XX:CompileCommand=quiet "-XX:CompileCommand=dontinline,Service*::*")

# compiled LOG METHOD...: the -XX:+PrintCompilation output in LOG shows a
# C2 (tier 4) compile of every METHOD ("Class::name") that is in use (not
# made not entrant).
compiled() {
	local log=$1 m
	shift
	for m in "$@"; do
		M=$m awk 'index($0, " " ENVIRON["M"] " (") && !/made not entrant/ && !/ % / &&
			$(NF - 3) == 4 { f = 1 } END { exit !f }' "$log" || return 1
	done
}

# launch_jvm OUT PROF-OPTIONS... -- JAVA-ARGS...: `run prof record -o OUT
# PROF-OPTIONS -- java JFLAGS JAVA-ARGS`, the JIT's compiles in OUT.jit
# (-XX:+PrintCompilation); fails when parseRequest was not compiled while
# recorded, as when a loaded machine starts the JVM slowly: the caller then
# tries again with more time.
launch_jvm() {
	local out=$1 opts=()
	shift
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	run env JOUT="$out.jit" "$PROF" record -o "$out" "${opts[@]}" -- \
		sh -c 'echo $$ >>"$0"; exec "$@" >"$JOUT"' "$PIDS" "$JAVA" "${JFLAGS[@]}" -XX:+PrintCompilation "$@"
	compiled "$out.jit" 'Service$Handler::parseRequest'
}

# jvm_cpu COMM: the seconds of CPU threads named COMM (the kernel's 15
# bytes: "AsyncAppender-W") used while recorded (helpers' task_cpu).
jvm_cpu() {
	cpu_during "$1" "$BATS_FILE_TMPDIR/cpu.before" "$BATS_FILE_TMPDIR/cpu.after"
}

# The JVMs' pids, so that the JIT maps they wrote in /tmp are removed.
export PIDS="$BATS_FILE_TMPDIR/jvm-pids"

teardown_file() {
	local pid
	while read -r pid; do
		rm -f "/tmp/perf-$pid.map"
	done <"$PIDS"
}

setup_file() {
	export REC="$BATS_FILE_TMPDIR/jvm.data" ERR="$BATS_FILE_TMPDIR/jvm.err"
	start_jvm "${JFLAGS[@]}" -XX:+PreserveFramePointer -XX:+PrintCompilation -- 60 3
	# Once the JIT compiled the hot methods the tests name (C2, so that no
	# compile replaces them while recorded); 60 s bounds a hang.
	wait_until 60 compiled "$JVM_OUT" 'Service$Handler::parseRequest' \
		'Service$AsyncLogger::formatLine' 'Service$MetricsReporter::computePercentiles' ||
		echo "# the hot methods were not all compiled in 60 s" >&3
	task_cpu "$JVM_PID" >"$BATS_FILE_TMPDIR/cpu.before"
	"$PROF" record -F 299 -d 3 -p "$JVM_PID" -o "$REC" 2>"$ERR"
	echo $? >"$BATS_FILE_TMPDIR/rc"
	task_cpu "$JVM_PID" >"$BATS_FILE_TMPDIR/cpu.after"
	# still running, and still answering (its attach listener works)
	kill -0 "$JVM_PID" && "$PROF" record -q -d 0.2 -p "$JVM_PID" -o "$REC.2" &&
		echo alive >"$BATS_FILE_TMPDIR/alive"
	kill "$JVM_PID"
	wait "$JVM_PID" || true
}

@test "attach to a JVM: recorded, JVM asked for its map and names, JVM unharmed" {
	[ "$(cat "$BATS_FILE_TMPDIR/rc")" -eq 0 ]
	grep -q 'asked 1 JVM for JIT maps and [0-9]* thread names' "$ERR"
	! grep -q PreserveFramePointer "$ERR"
	[ -f "$BATS_FILE_TMPDIR/alive" ]
}

@test "Java methods are named, cleaned and annotated _[j]" {
	folded=$("$PROF" report -i "$REC")
	echo "$folded" | grep -q 'Service\$Handler\.parseRequest_\[j\]'
	echo "$folded" | grep -q 'Service\$AsyncLogger\.formatLine_\[j\]'
	echo "$folded" | grep -q 'Service\$MetricsReporter\.computePercentiles_\[j\]'
	echo "$folded" | grep -Eq ';java\.util\.[A-Za-z$]+\.[A-Za-z]+_\[j\]'
	# no return types, parameter lists or lambda addresses left
	! echo "$folded" | grep -Eq '(void |\(int\)|/0x[0-9a-f]+)[^;]*_\[j\]'
	# C++ frames of libjvm are named too
	echo "$folded" | grep -q 'JavaCalls::call_helper'
}

@test "with -XX:+PreserveFramePointer, Java stacks are whole" {
	folded=$("$PROF" report -i "$REC")
	parse=$(echo "$folded" | folded_sum 'parseRequest_\[j\]')
	whole=$(echo "$folded" | folded_sum '^start_thread;.*Service\.dutyCycle_\[j\];.*Service\$Handler\.handleRequest_\[j\];Service\$Handler\.parseRequest_\[j\]')
	# (Whole or not is each stack's own: no floor on how many a loaded
	# machine lets the handlers run.)
	[ "$parse" -gt 0 ]
	assert_between "parseRequest samples with the whole stack" "$(ratio "$whole" "$parse")" 0.9 1
}

@test "the pools' shares are the CPU each thread got (built 3 handlers at 30%, logger and reporter at 10%)" {
	roots=$("$PROF" report -i "$REC" --threads | folded_roots)
	h1=$(echo "$roots" | awk '$1 == "http-handler-1" { print $2 }')
	h2=$(echo "$roots" | awk '$1 == "http-handler-2" { print $2 }')
	h3=$(echo "$roots" | awk '$1 == "http-handler-3" { print $2 }')
	log=$(echo "$roots" | awk '$1 == "AsyncAppender-Worker-async-console-appender" { print $2 }')
	met=$(echo "$roots" | awk '$1 == "metrics-reporter-1" { print $2 }')
	[ "$log" -gt 0 ] && [ "$met" -gt 0 ]
	# Designed 3:1:1 (each handler, the logger, the reporter), but a loaded
	# machine can starve some threads more than others: the samples must
	# follow the CPU each thread really got while recorded (schedstat),
	# within 30% (sampled at 299 Hz), or three standard deviations of the
	# ratio of the two counts (sqrt(1/a + 1/b)) when a loaded machine gave
	# the threads too little CPU for 30% to be a fair bound.
	# near_one WHAT RATIO A B: RATIO is 1 within that bound for counts A, B.
	near_one() {
		local t
		t=$(awk -v a="$3" -v b="$4" 'BEGIN { t = 3 * sqrt(1 / a + 1 / b); print (t > 0.3 ? t : 0.3) }')
		assert_between "$1" "$2" "$(awk -v t="$t" 'BEGIN { print 1 - t }')" "$(awk -v t="$t" 'BEGIN { print 1 + t }')"
	}
	cpu_log=$(jvm_cpu AsyncAppender-W)
	for i in 1 2 3; do
		h=$(eval echo "\$h$i")
		[ "$h" -gt 0 ]
		want=$(ratio "$(jvm_cpu "http-handler-$i")" "$cpu_log")
		near_one "handler-$i/logger samples over CPU" "$(ratio "$(ratio "$h" "$log")" "$want")" "$h" "$log"
	done
	want=$(ratio "$(jvm_cpu metrics-reporte)" "$cpu_log")
	near_one "reporter/logger samples over CPU" "$(ratio "$(ratio "$met" "$log")" "$want")" "$met" "$log"
}

@test "--threads shows full Java thread names, not the kernel's 15 bytes" {
	roots=$("$PROF" report -i "$REC" --threads | folded_roots)
	echo "$roots" | grep -q '^AsyncAppender-Worker-async-console-appender '
	echo "$roots" | grep -q '^http-handler-1 '
	echo "$roots" | grep -q '^http-handler-3 '
	echo "$roots" | grep -q '^metrics-reporter-1 '
	! echo "$roots" | grep -q '^AsyncAppender-W '
	# --thread matches the full name; the SVG shows it
	run "$PROF" report -i "$REC" --threads --thread 'console-appender$'
	[ "$status" -eq 0 ] && [ -n "$output" ]
	"$PROF" svg -i "$REC" --threads --colors java -o "$BATS_TEST_TMPDIR/t.svg"
	grep -q 'AsyncAppender-Worker-async-console-appender' "$BATS_TEST_TMPDIR/t.svg"
}

@test "without -XX:+PreserveFramePointer: one notice that says how to fix it" {
	start_jvm "${JFLAGS[@]}" -- 60 2
	run "$PROF" record -q -d 0.5 -p "$JVM_PID" -o "$BATS_TEST_TMPDIR/q.data"
	[ "$status" -eq 0 ] && [ -z "$output" ] # -q: silent
	# frame-pointer stacks asked for: they stop at compiled Java frames
	run "$PROF" record --call-graph fp -d 1 -p "$JVM_PID" -o "$BATS_TEST_TMPDIR/nofp.data"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c 'runs without -XX:+PreserveFramePointer')" -eq 1 ]
	echo "$output" | grep -q 'hint: restart it with -XX:+PreserveFramePointer'
	# the default (auto) takes DWARF stacks for it instead, and says why
	run "$PROF" record -d 1 -p "$JVM_PID" -o "$BATS_TEST_TMPDIR/auto.data"
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "JVM $JVM_PID runs without -XX:+PreserveFramePointer: DWARF stacks"
	! echo "$output" | grep -q 'hint: restart it with -XX:+PreserveFramePointer'
	"$PROF" report -i "$BATS_TEST_TMPDIR/auto.data" --header | grep -q "call-graph-auto: JVM $JVM_PID runs without -XX:+PreserveFramePointer"
	kill "$JVM_PID"
	wait "$JVM_PID" || true
}

@test "a JVM that refuses attach: a clear warning, no SIGQUIT, and the recording works" {
	start_jvm "${JFLAGS[@]}" -XX:+DisableAttachMechanism -- 60 2
	# (Longer when a loaded machine gave the JVM no CPU while recorded.)
	for d in 1 2 4 8 16; do
		run "$PROF" record -d "$d" -p "$JVM_PID" -o "$BATS_TEST_TMPDIR/noattach.data"
		[ "$("$PROF" report -i "$BATS_TEST_TMPDIR/noattach.data" 2>/dev/null | folded_total)" -eq 0 ] || break
	done
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "JVM $JVM_PID refuses dynamic attach (-XX:+DisableAttachMechanism)"
	echo "$output" | grep -q 'hint: restart it without -XX:+DisableAttachMechanism'
	kill -0 "$JVM_PID"
	roots=$("$PROF" report -i "$BATS_TEST_TMPDIR/noattach.data" --threads | folded_roots)
	# kernel names, native frames
	echo "$roots" | grep -q '^AsyncAppender-W '
	"$PROF" report -i "$BATS_TEST_TMPDIR/noattach.data" | grep -q 'JavaCalls::call_helper'
	kill "$JVM_PID"
	wait "$JVM_PID" || true
	# a SIGQUIT would have printed a thread dump on the JVM's stdout
	[ ! -s "$JVM_OUT" ]
}

@test "a process that is not a JVM is never signalled" {
	start_example sleeper 60
	run "$PROF" record -d 0.5 -p "$EXAMPLE_PID" -o "$BATS_TEST_TMPDIR/native.data"
	[ "$status" -eq 0 ]
	! echo "$output" | grep -q JVM
	kill -0 "$EXAMPLE_PID"
	kill "$EXAMPLE_PID"
	wait "$EXAMPLE_PID" || true
}

@test "launch mode: a JVM still running at -d is asked before it is stopped" {
	for d in 2.5 5 10 20 40; do
		launch_jvm "$BATS_TEST_TMPDIR/launch.data" -d "$d" -- \
			-XX:+PreserveFramePointer -cp "$EXAMPLES/java" Service 60 2 && break
	done
	[ "$status" -eq 0 ]
	echo "$output" | grep -q 'asked 1 JVM for JIT maps'
	"$PROF" report -i "$BATS_TEST_TMPDIR/launch.data" | grep -q 'parseRequest_\[j\]'
	"$PROF" report -i "$BATS_TEST_TMPDIR/launch.data" --threads | folded_roots |
		grep -q '^AsyncAppender-Worker-async-console-appender '
}

@test "launch mode: a JVM that exits first gets a hint, or its map from -XX:+DumpPerfMapAtExit" {
	# --jit-every 0: a map asked for while recording would name its frames
	# (t0640), and leave the file the notice looks for.
	run "$PROF" record -o "$BATS_TEST_TMPDIR/exit.data" --jit-every 0 -- \
		sh -c 'echo $$ >>"$0"; exec "$@"' "$PIDS" "$JAVA" "${JFLAGS[@]}" -cp "$EXAMPLES/java" Service 1.5 1
	[ "$status" -eq 0 ]
	echo "$output" | grep -q 'exited before prof could ask for its JIT map'
	echo "$output" | grep -q 'DumpPerfMapAtExit'
	for t in 1.5 3 6 12 24; do
		launch_jvm "$BATS_TEST_TMPDIR/dump.data" -- -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions \
			-XX:+DumpPerfMapAtExit -cp "$EXAMPLES/java" Service "$t" 1 && break
	done
	[ "$status" -eq 0 ]
	! echo "$output" | grep -q 'exited before'
	"$PROF" report -i "$BATS_TEST_TMPDIR/dump.data" | grep -q 'parseRequest_\[j\]'
}
