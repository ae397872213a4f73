#!/usr/bin/env bats
# t0635: the JVM attach step with no side effects and no hang
# (docs/prof-jvm.md): a JVM whose @argfile holds -XX:+DisableAttachMechanism
# and a non-JVM that maps a copy of libjvm.so are never sent SIGQUIT (their
# own output and counters say so, and strace when it is there); a stopped
# JVM with a full accept queue ends every prof at -d plus a few seconds
# with a complete file; thread names are the JVM's own ('main', a name set
# by another thread) as jcmd Thread.print gives them; a JVM that exited
# into a zombie gets the "exited before prof could ask" notice.

load helpers

setup_file() {
	command -v java >/dev/null || [ -x "$JAVA" ] || skip "no JDK"
}

teardown_file() {
	local pid
	if [ -f "$BATS_FILE_TMPDIR/jvm-pids" ]; then
		while read -r pid; do
			kill -CONT "$pid" 2>/dev/null || true
			kill -KILL "$pid" 2>/dev/null || true
			rm -f "/tmp/perf-$pid.map" "/tmp/.java_pid$pid"
		done <"$BATS_FILE_TMPDIR/jvm-pids"
	fi
}

teardown() {
	[ -n "${FAKE_PID:-}" ] && kill "$FAKE_PID" 2>/dev/null || true
	[ -n "${JVM_PID:-}" ] && kill -CONT "$JVM_PID" 2>/dev/null || true
	[ -n "${JVM_PID:-}" ] && kill -KILL "$JVM_PID" 2>/dev/null || true
	true
}

# record_traced OUT ARGS...: `run prof record -o OUT ARGS` bounded by
# timeout(1) (a hang fails the test), under strace -e kill,tgkill when
# strace is there (its log in OUT.strace) and prof is not an ASan build
# (LeakSanitizer does not run under ptrace: then the target's own output
# is the only oracle); `run` semantics.
record_traced() {
	local out=$1
	shift
	if command -v strace >/dev/null && ! grep -qa __asan_init "$PROF"; then
		run timeout -k 5 120 strace -f -qq -e trace=kill,tgkill,tkill -o "$out.strace" \
			"$PROF" record -o "$out" "$@"
	else
		run timeout -k 5 120 "$PROF" record -o "$out" "$@"
	fi
	[ "$status" -ne 124 ] && [ "$status" -ne 137 ] || {
		echo "prof record did not finish: $output" >&2
		return 1
	}
}

# no_signal_sent OUT PID: strace saw prof send PID no signal (signal 0,
# which asks only whether it lives, aside).
no_signal_sent() {
	[ -f "$1.strace" ] || return 0
	! grep -E "kill\\($2, SIG|tgkill\\($2, [0-9]+, SIG" "$1.strace"
}

@test "a JVM with -XX:+DisableAttachMechanism in an @argfile gets no SIGQUIT: its output is unchanged" {
	dir=$BATS_TEST_TMPDIR/app
	mkdir -p "$dir"
	printf '%s\n' '# the service options' '-Xss1m "-XX:+DisableAttachMechanism"' >"$dir/jvm.args"
	# Relative to its working directory, as a service's start script does.
	(cd "$dir" && exec "$JAVA" @jvm.args -cp "$EXAMPLES/java" Service 60 1 \
		>"$dir/out" 2>"$dir/err") &
	JVM_PID=$!
	echo "$JVM_PID" >>"$BATS_FILE_TMPDIR/jvm-pids"
	wait_ready "$dir/err" "$JVM_PID"
	record_traced "$BATS_TEST_TMPDIR/argfile.data" -p "$JVM_PID" -d 1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"JVM $JVM_PID refuses dynamic attach (-XX:+DisableAttachMechanism): not sent SIGQUIT"* ]]
	no_signal_sent "$BATS_TEST_TMPDIR/argfile.data" "$JVM_PID"
	# The oracle: a SIGQUIT would have printed a thread dump on its
	# stdout (Service prints nothing there). Give one time to appear: the
	# JVM answers SIGQUIT within milliseconds; a jcmd round trip after the
	# recording is later than that.
	kill -0 "$JVM_PID"
	jcmd "$JVM_PID" VM.version >/dev/null 2>&1 || true # refused: no attach
	[ "$(wc -l <"$dir/out")" -eq 0 ]
	"$PROF" report -i "$BATS_TEST_TMPDIR/argfile.data" --threads | folded_total | { read -r n; [ "$n" -gt 0 ]; }
}

@test "a process that maps a copy of libjvm.so but is no JVM is never sent SIGQUIT" {
	lib=$BATS_TEST_TMPDIR/jdk/lib/server
	mkdir -p "$lib"
	cp "$(dirname "$(readlink -f "$JAVA")")/../lib/server/libjvm.so" "$lib/"
	log=$BATS_TEST_TMPDIR/mapper.log
	"$EXAMPLES/libjvm-mapper" "$lib/libjvm.so" 60 >"$log.out" 2>"$log" &
	FAKE_PID=$!
	wait_ready "$log" "$FAKE_PID"
	grep -q "$lib/libjvm.so" "/proc/$FAKE_PID/maps"
	record_traced "$BATS_TEST_TMPDIR/mapper.data" -p "$FAKE_PID" -d 1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"process $FAKE_PID maps libjvm.so but is not a running HotSpot JVM (it runs no HotSpot Signal Dispatcher thread): not sent SIGQUIT"* ]]
	[[ "$output" != *"PreserveFramePointer"* ]]
	no_signal_sent "$BATS_TEST_TMPDIR/mapper.data" "$FAKE_PID"
	# Its own count of the SIGQUITs it took.
	kill -TERM "$FAKE_PID"
	wait "$FAKE_PID" || true
	cat "$log.out"
	grep -qx 'sigquit 0' "$log.out"
	"$PROF" report -i "$BATS_TEST_TMPDIR/mapper.data" --threads | grep -q '^libjvm-mapper;'
}

@test "a stopped JVM with a full accept queue: six recorders and a seventh end at -d plus seconds, files complete" {
	start_jvm -XX:+StartAttachListener -- 120 1
	sock=/tmp/.java_pid$JVM_PID
	wait_until 60 test -S "$sock"
	kill -STOP "$JVM_PID"
	pids=()
	for i in 1 2 3 4 5 6; do
		timeout -k 5 120 "$PROF" record -p "$JVM_PID" -d 1 -o "$BATS_TEST_TMPDIR/r$i.data" \
			2>"$BATS_TEST_TMPDIR/r$i.err" &
		pids+=($!)
	done
	# The six hold the JVM's backlog (HotSpot listens with 5: six fit)
	# once each has connected: then a seventh.
	wait_until 60 eval '[ "$(cat /proc/${pids[0]}/net/unix 2>/dev/null | grep -c "$sock")" -ge 7 ] ||
		! kill -0 ${pids[5]} 2>/dev/null'
	record_traced "$BATS_TEST_TMPDIR/r7.data" -p "$JVM_PID" -d 1
	seventh=$output
	rc=0
	for p in "${pids[@]}"; do wait "$p" || rc=$?; done
	kill -CONT "$JVM_PID"
	for i in 1 2 3 4 5 6; do echo "prof $i: $(cat "$BATS_TEST_TMPDIR/r$i.err")"; done
	echo "prof 7: $seventh"
	[ "$rc" -eq 0 ]
	[ "$status" -eq 0 ]
	for i in 1 2 3 4 5 6; do
		grep -q "JVM $JVM_PID is stopped (SIGSTOP or a debugger) and did not answer 'Compiler.perfmap'\|JVM $JVM_PID takes no connection on its attach socket (its accept queue stays full): it is stopped" \
			"$BATS_TEST_TMPDIR/r$i.err"
		"$PROF" report -i "$BATS_TEST_TMPDIR/r$i.data" --threads >/dev/null
	done
	[[ "$seventh" == *"JVM $JVM_PID takes no connection on its attach socket (its accept queue stays full): it is stopped (SIGSTOP or a debugger)"* ]]
	"$PROF" report -i "$BATS_TEST_TMPDIR/r7.data" --threads >/dev/null
	no_signal_sent "$BATS_TEST_TMPDIR/r7.data" "$JVM_PID"
	# The summary's duration is the sampling's: -d 1, not the JVM_STOPPED_MS
	# (3 s) more spent on the JVM.
	secs=$(echo "$seventh" | sed -n 's/^prof record: \([0-9.]*\) s, .*/\1/p')
	echo "summary duration $secs s"
	awk -v s="$secs" 'BEGIN { exit !(s >= 1 && s < 1 + 3) }'
}

@test "SIGTERM during the attach step ends prof at once (the wait wakes on it), recording complete" {
	start_jvm -XX:+StartAttachListener -- 120 1
	sock=/tmp/.java_pid$JVM_PID
	wait_until 60 test -S "$sock"
	kill -STOP "$JVM_PID"
	rec=$BATS_TEST_TMPDIR/term.data
	"$PROF" record -p "$JVM_PID" -d 0.5 -o "$rec" 2>"$rec.err" &
	prof=$!
	wait_until 60 eval 'ls -l "/proc/$prof/fd" 2>/dev/null | grep -q "socket:" || [ ! -d "/proc/$prof" ]'
	kill -TERM "$prof"
	rc=0
	timeout 60 tail --pid="$prof" -f /dev/null || rc=124
	wait "$prof" || rc=$?
	cat "$rec.err"
	[ "$rc" -eq 0 ]
	grep -q "stopped while waiting for JVM $JVM_PID's answer to 'Compiler.perfmap'" "$rec.err"
	"$PROF" report -i "$rec" --threads >/dev/null
}

@test "thread names are the JVM's: main (the kernel's 'java'), a name set by another thread, a self-rename kept" {
	log=$BATS_TEST_TMPDIR/renames.log
	"$JAVA" -cp "$EXAMPLES/java" Renames 120 1 2>"$log" &
	JVM_PID=$!
	echo "$JVM_PID" >>"$BATS_FILE_TMPDIR/jvm-pids"
	wait_ready "$log" "$JVM_PID"
	rec=$BATS_TEST_TMPDIR/renames.data
	"$PROF" record -p "$JVM_PID" -o "$rec" 2>"$rec.err" &
	REC_PID=$!
	# Recording while the renames happen: stop prof once they did and its
	# file has samples after them.
	wait_ready "$log" "$JVM_PID" renamed
	wait_readable "$rec" 1
	n=$READABLE
	wait_readable "$rec" $((n + 1))
	kill -INT "$REC_PID"
	wait "$REC_PID"
	cat "$rec.err"
	# The oracle: the JVM's own thread list, now.
	jcmd "$JVM_PID" Thread.print >"$BATS_TEST_TMPDIR/jcmd.txt"
	for name in main worker-renamed-by-main self-renamed-itself-later; do
		grep -q "^\"$name\" #" "$BATS_TEST_TMPDIR/jcmd.txt"
	done
	roots=$("$PROF" report -i "$rec" --threads | awk '{ split($0, a, ";"); s[a[1]] += $NF }
		END { for (r in s) print r "\t" s[r] }' | sort)
	echo "$roots"
	# The kernel calls both the launcher's thread and Java's main "java".
	grep -q 'java$' "/proc/$JVM_PID/task/$((JVM_PID + 1))/comm" || grep -q '^java$' /proc/"$JVM_PID"/task/*/comm
	echo "$roots" | grep -q '^main	'
	echo "$roots" | grep -q '^worker-renamed-by-main	'
	! echo "$roots" | grep -q '^worker-before	'
	echo "$roots" | grep -q '^self-renamed-itself-later	'
	! echo "$roots" | grep -q '^java	'
	# Every root with samples is a name the JVM gives or a kernel name
	# (a rename the kernel saw, VM threads): none is a stale Java name.
	echo "$roots" | cut -f1 | while read -r r; do
		grep -qF "\"$r\" " "$BATS_TEST_TMPDIR/jcmd.txt" || [ "$r" = self-before ] ||
			grep -qxF "$r" /proc/"$JVM_PID"/task/*/comm || { echo "stale: $r"; false; }
	done
}

@test "a JVM that exited into a zombie gets the 'exited before prof could ask' notice" {
	log=$BATS_TEST_TMPDIR/zombie.log
	# Its parent execs into sleep, which never reaps it: it stays a zombie.
	sh -c '"$0" -cp "$1" Renames 1.5 0.1 2>"$2" & echo $! >"$2.pid"; exec sleep 120' \
		"$JAVA" "$EXAMPLES/java" "$log" &
	FAKE_PID=$!
	wait_until 60 test -s "$log.pid"
	JVM_PID=$(cat "$log.pid")
	echo "$JVM_PID" >>"$BATS_FILE_TMPDIR/jvm-pids"
	wait_ready "$log" "$JVM_PID"
	# A map an earlier process with its pid left (pids come round: CI
	# had one) is no answer: the notice is still due.
	touch -d '1 hour ago' "/tmp/perf-$JVM_PID.map"
	# only the end's ask (a map read while it ran would name its frames,
	# and then no notice is due)
	record_traced "$BATS_TEST_TMPDIR/zombie.data" -p "$JVM_PID" -d 60 --jit-every 0
	rm -f "/tmp/perf-$JVM_PID.map"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^State:.*Z' "/proc/$JVM_PID/status"
	[[ "$output" == *"JVM $JVM_PID exited before prof could ask for its JIT map"* ]]
	no_signal_sent "$BATS_TEST_TMPDIR/zombie.data" "$JVM_PID"
}
