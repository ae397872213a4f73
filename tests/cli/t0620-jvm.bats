#!/usr/bin/env bats
# t0620: profiling a real HotSpot JVM (examples/java/Service.java, OpenJDK
# 17): at the end of a recording prof asks the JVM over its attach socket
# for its JIT map and thread names. Java methods named in CPU stacks with
# `_[j]`, pool shares within bounds, full thread names, the
# PreserveFramePointer notice, a JVM that refuses attach, a non-JVM left
# alone, and launch mode. Each JVM start takes about a second here.

load helpers

JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
# The example's own methods are kept out of their callers: a perf map names
# one blob per compiled method, so an inlined method has no frame of its own.
JFLAGS=(-XX:CompileCommand=quiet "-XX:CompileCommand=dontinline,Service*::*")

# Starts the example JVM with extra options ($@ before "--") and SECONDS
# HANDLERS after it; waits for "ready"; sets JVM_PID and JVM_OUT (stdout).
start_jvm() {
	local opts=() log="$BATS_TEST_TMPDIR/jvm.$RANDOM.log"
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	JVM_OUT="$log.out"
	"$JAVA" "${JFLAGS[@]}" "${opts[@]}" -cp "$EXAMPLES/java" Service "$@" 2>"$log" >"$JVM_OUT" &
	JVM_PID=$!
	echo "$JVM_PID" >>"$PIDS"
	for _ in $(seq 200); do
		grep -q ready "$log" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "JVM did not get ready: $(cat "$log")" >&2
	return 1
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
	BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR start_jvm -XX:+PreserveFramePointer -- 60 3
	sleep 1 # let the JIT compile the hot methods
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
	[ "$parse" -ge 50 ]
	assert_between "parseRequest samples with the whole stack" "$(ratio "$whole" "$parse")" 0.9 1
}

@test "the pools' shares are the CPU each thread got (built 3 handlers at 30%, logger and reporter at 10%)" {
	roots=$("$PROF" report -i "$REC" --threads | folded_roots)
	h1=$(echo "$roots" | awk '$1 == "http-handler-1" { print $2 }')
	h2=$(echo "$roots" | awk '$1 == "http-handler-2" { print $2 }')
	h3=$(echo "$roots" | awk '$1 == "http-handler-3" { print $2 }')
	log=$(echo "$roots" | awk '$1 == "AsyncAppender-Worker-async-console-appender" { print $2 }')
	met=$(echo "$roots" | awk '$1 == "metrics-reporter-1" { print $2 }')
	[ "$log" -ge 20 ] && [ "$met" -ge 20 ]
	# Designed 3:1:1 (each handler, the logger, the reporter), but a loaded
	# machine can starve some threads more than others: the samples must
	# follow the CPU each thread really got while recorded (schedstat),
	# within 30% (sampled at 299 Hz).
	cpu_log=$(jvm_cpu AsyncAppender-W)
	for i in 1 2 3; do
		h=$(eval echo "\$h$i")
		want=$(ratio "$(jvm_cpu "http-handler-$i")" "$cpu_log")
		assert_between "handler-$i/logger samples over CPU" "$(ratio "$(ratio "$h" "$log")" "$want")" 0.7 1.3
	done
	want=$(ratio "$(jvm_cpu metrics-reporte)" "$cpu_log")
	assert_between "reporter/logger samples over CPU" "$(ratio "$(ratio "$met" "$log")" "$want")" 0.7 1.3
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
	start_jvm -- 4 2
	run "$PROF" record -q -d 0.5 -p "$JVM_PID" -o "$BATS_TEST_TMPDIR/q.data"
	[ "$status" -eq 0 ] && [ -z "$output" ] # -q: silent
	run "$PROF" record -d 1 -p "$JVM_PID" -o "$BATS_TEST_TMPDIR/nofp.data"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c 'runs without -XX:+PreserveFramePointer')" -eq 1 ]
	echo "$output" | grep -q 'hint: restart it with -XX:+PreserveFramePointer'
	wait "$JVM_PID"
}

@test "a JVM that refuses attach: a clear warning, no SIGQUIT, and the recording works" {
	start_jvm -XX:+DisableAttachMechanism -- 4 2
	run "$PROF" record -d 1 -p "$JVM_PID" -o "$BATS_TEST_TMPDIR/noattach.data"
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "JVM $JVM_PID refuses dynamic attach (-XX:+DisableAttachMechanism)"
	echo "$output" | grep -q 'hint: restart it without -XX:+DisableAttachMechanism'
	kill -0 "$JVM_PID"
	roots=$("$PROF" report -i "$BATS_TEST_TMPDIR/noattach.data" --threads | folded_roots)
	# kernel names, native frames
	echo "$roots" | grep -q '^AsyncAppender-W '
	"$PROF" report -i "$BATS_TEST_TMPDIR/noattach.data" | grep -q 'JavaCalls::call_helper'
	wait "$JVM_PID"
	# a SIGQUIT would have printed a thread dump on the JVM's stdout
	[ ! -s "$JVM_OUT" ]
}

@test "a process that is not a JVM is never signalled" {
	start_example sleeper 3
	run "$PROF" record -d 0.5 -p "$EXAMPLE_PID" -o "$BATS_TEST_TMPDIR/native.data"
	[ "$status" -eq 0 ]
	! echo "$output" | grep -q JVM
	kill -0 "$EXAMPLE_PID"
	wait "$EXAMPLE_PID"
}

@test "launch mode: a JVM still running at -d is asked before it is stopped" {
	run "$PROF" record -d 2.5 -o "$BATS_TEST_TMPDIR/launch.data" -- \
		sh -c 'echo $$ >>"$0"; exec "$@"' "$PIDS" "$JAVA" "${JFLAGS[@]}" -XX:+PreserveFramePointer -cp "$EXAMPLES/java" Service 20 2
	[ "$status" -eq 0 ]
	echo "$output" | grep -q 'asked 1 JVM for JIT maps'
	"$PROF" report -i "$BATS_TEST_TMPDIR/launch.data" | grep -q 'parseRequest_\[j\]'
	"$PROF" report -i "$BATS_TEST_TMPDIR/launch.data" --threads | folded_roots |
		grep -q '^AsyncAppender-Worker-async-console-appender '
}

@test "launch mode: a JVM that exits first gets a hint, or its map from -XX:+DumpPerfMapAtExit" {
	run "$PROF" record -o "$BATS_TEST_TMPDIR/exit.data" -- \
		sh -c 'echo $$ >>"$0"; exec "$@"' "$PIDS" "$JAVA" "${JFLAGS[@]}" -cp "$EXAMPLES/java" Service 1.5 1
	[ "$status" -eq 0 ]
	echo "$output" | grep -q 'exited before prof could ask for its JIT map'
	echo "$output" | grep -q 'DumpPerfMapAtExit'
	run "$PROF" record -o "$BATS_TEST_TMPDIR/dump.data" -- \
		sh -c 'echo $$ >>"$0"; exec "$@"' "$PIDS" "$JAVA" "${JFLAGS[@]}" -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions \
		-XX:+DumpPerfMapAtExit -cp "$EXAMPLES/java" Service 1.5 1
	[ "$status" -eq 0 ]
	! echo "$output" | grep -q 'exited before'
	"$PROF" report -i "$BATS_TEST_TMPDIR/dump.data" | grep -q 'parseRequest_\[j\]'
}
