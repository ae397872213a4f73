#!/usr/bin/env bats
# t0810: another local user (prof-t0810) against root's `prof record` of a
# JVM or a JIT process: a fake attach socket at /tmp/.java_pidPID (one that
# answers with crafted thread names and flags, one that never answers), a
# frozen JVM whose accept queue is full, a stop signal during the attach
# step, a 300 MB JIT map, and a stale root-owned /tmp/perf-PID.map left for
# whatever process gets that pid next. prof must refuse what is not the
# JVM's, finish with a complete recording, and say why in one line.

load helpers

U=prof-t0810

# fake_server PATH MODE: as $U, a unix socket server at PATH that answers
# every attach request with a crafted thread dump naming every thread of
# the JVM ($JVM_PID) "EVIL-<b>NID</b>", and VM.flags with
# -XX:+PreserveFramePointer (MODE answer), or accepts and never answers
# (MODE silent). Waits until it listens; sets FAKE_PID.
fake_server() {
	local log="$BATS_TEST_TMPDIR/fake.$RANDOM"
	as_user "$U" /usr/bin/python3 -c '
import os, socket, sys
path, mode, jvm = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
os.chmod(path, 0o600)
s.listen(16)
print("listening", flush=True)
held = []
while True:
    c, _ = s.accept()
    if mode == "silent":
        held.append(c)
        continue
    req = c.recv(4096)
    open(path + ".asked", "ab").write(req.replace(b"\0", b" ") + b"\n")
    if b"Thread.print" in req:
        body = b"0\n" + b"".join(b"\"EVIL-<b>%s</b>\" #1 prio=5 os_prio=0 tid=0x1 nid=0x%x runnable\n\n"
                                 % (t.encode(), int(t)) for t in os.listdir("/proc/%s/task" % jvm))
    elif b"VM.flags" in req:
        body = b"0\n-XX:+PreserveFramePointer\n"
    else:
        body = b"0\n"
    c.sendall(body)
    c.close()
' "$1" "$2" "$JVM_PID" >"$log" 2>&1 &
	FAKE_PID=$!
	wait_ready "$log" "$FAKE_PID" listening
}

# record_timed ARGS...: root's prof record, bounded by timeout(1) so that a
# hang fails the test instead of stalling it; `run` semantics.
record_timed() {
	run timeout -k 5 60 "$PROF" record "$@"
	[ "$status" -ne 124 ] && [ "$status" -ne 137 ] || {
		echo "prof record did not finish: $output" >&2
		return 1
	}
}

setup_file() {
	second_user_create "$U"
	command -v java >/dev/null || [ -x "$JAVA" ] || skip "no JDK"
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3 for the fake servers"
}

teardown_file() {
	local pid
	second_user_delete "$U"
	if [ -f "$BATS_FILE_TMPDIR/jvm-pids" ]; then
		while read -r pid; do
			kill -KILL "$pid" 2>/dev/null || true
			rm -f "/tmp/perf-$pid.map" "/tmp/.java_pid$pid" "/tmp/.java_pid$pid.asked"
		done <"$BATS_FILE_TMPDIR/jvm-pids"
	fi
}

teardown() {
	[ -n "${FAKE_PID:-}" ] && kill "$FAKE_PID" 2>/dev/null || true
	[ -n "${JVM_PID:-}" ] && kill -KILL "$JVM_PID" 2>/dev/null || true
	[ -n "${JVM_PID:-}" ] && rm -f "/tmp/.java_pid$JVM_PID" "/tmp/.java_pid$JVM_PID.asked"
	true
}

@test "a socket planted at /tmp/.java_pidPID by another user is refused, nothing asked of it" {
	start_jvm -XX:+PreserveFramePointer -- 60 2
	sock=/tmp/.java_pid$JVM_PID
	fake_server "$sock" answer
	rec=$BATS_TEST_TMPDIR/planted.data
	record_timed -p "$JVM_PID" -d 1 -o "$rec"
	[ "$status" -eq 0 ]
	[[ "$output" == *"refusing JVM $JVM_PID's attach socket '$sock': owned by uid $(id -u "$U"), not by the JVM's uid 0"* ]]
	[[ "$output" == *"hint: another user may have planted it: remove it (rm /proc/$JVM_PID/root$sock) and record again"* ]]
	# The fake server was never sent a request, and nothing it would say is in the recording.
	[ ! -e "$sock.asked" ]
	"$PROF" report -i "$rec" --threads >"$BATS_TEST_TMPDIR/threads.txt"
	! grep -q EVIL "$BATS_TEST_TMPDIR/threads.txt"
	# The recording is complete: samples, under the JVM's own thread names
	# (the kernel's: which threads got the CPU in 1 s is the machine's
	# business, but every root is one of them).
	[ "$(folded_total <"$BATS_TEST_TMPDIR/threads.txt")" -gt 0 ]
	cat /proc/"$JVM_PID"/task/*/comm >"$BATS_TEST_TMPDIR/comms"
	folded_roots <"$BATS_TEST_TMPDIR/threads.txt" | sed 's/ [0-9]*$//' |
		{ ! grep -vxF -f "$BATS_TEST_TMPDIR/comms"; }
}

@test "a socket of the JVM's own user, but another process listening on it, is refused" {
	# The JVM and the silent server both run as $U: the owner check passes,
	# the listener's pid (SO_PEERCRED) is not the JVM's.
	start_jvm as "$U" -- 60 2
	sock=/tmp/.java_pid$JVM_PID
	fake_server "$sock" silent
	rec=$BATS_TEST_TMPDIR/silent.data
	record_timed -p "$JVM_PID" -d 1 -o "$rec"
	[ "$status" -eq 0 ]
	[[ "$output" == *"refusing JVM $JVM_PID's attach socket '$sock': process $FAKE_PID (uid $(id -u "$U")) listens on it, not the JVM"* ]] ||
		[[ "$output" == *"refusing JVM $JVM_PID's attach socket '$sock': process "*" (uid $(id -u "$U")) listens on it, not the JVM"* ]]
	[[ "$output" != *"asked 1 JVM"* ]]
	"$PROF" report -i "$rec" --threads | folded_total | { read -r n; [ "$n" -gt 0 ]; }
}

@test "a frozen JVM whose accept queue is full: prof gives up connecting, the recording is complete" {
	start_jvm as "$U" -XX:+StartAttachListener -- 60 2
	sock=/tmp/.java_pid$JVM_PID
	wait_until 60 test -S "$sock"
	kill -STOP "$JVM_PID"
	# Fill its accept queue (as its own user): connect() would now block.
	log=$BATS_TEST_TMPDIR/flood.log
	as_user "$U" /usr/bin/python3 -c '
import socket, sys, time
held = []
while True:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(sys.argv[1])
    except BlockingIOError:
        break
    held.append(s)
print("full", len(held), flush=True)
time.sleep(120)
' "$sock" >"$log" 2>&1 &
	FAKE_PID=$!
	wait_ready "$log" "$FAKE_PID" full
	rec=$BATS_TEST_TMPDIR/frozen.data
	record_timed -p "$JVM_PID" -d 0.5 -o "$rec"
	kill -CONT "$JVM_PID"
	# what prof said, and how full the queue was, if the check below fails
	printf 'prof: %s\nflood: %s\n' "$output" "$(cat "$log")" >&2
	[ "$status" -eq 0 ]
	[[ "$output" == *"JVM $JVM_PID takes no connection on its attach socket (its accept queue stays full)"* ]]
	"$PROF" report -i "$rec" --threads >/dev/null
}

@test "SIGTERM while prof waits for a JVM's answer ends prof with a complete recording" {
	start_jvm as "$U" -XX:+StartAttachListener -- 60 2
	sock=/tmp/.java_pid$JVM_PID
	wait_until 60 test -S "$sock"
	rec=$BATS_TEST_TMPDIR/term.data
	err=$BATS_TEST_TMPDIR/term.err
	# Sampled while it runs (until samples are readable: flushed once a
	# second), then frozen before -d ends: it takes prof's connection (the
	# kernel queues it) and never answers. A loaded machine may delay the
	# samples past a short -d: then again with a longer one.
	for d in 2 4 8 16 32; do
		rm -f "$rec"
		t0=$(date +%s%N)
		"$PROF" record -p "$JVM_PID" -d "$d" -o "$rec" 2>"$err" &
		prof=$!
		REC_PID=$prof
		if wait_readable "$rec" 1; then
			kill -STOP "$JVM_PID"
			(($(date +%s%N) - t0 < d * 1000000000)) && break
			kill -CONT "$JVM_PID"
		fi
		wait "$prof" || true
	done
	# Wait for prof's connection to the attach socket (not for a prof
	# that is gone), then stop prof.
	wait_until 60 eval 'ls -l "/proc/$prof/fd" 2>/dev/null | grep -q "socket:" || [ ! -d "/proc/$prof" ]'
	ls -l "/proc/$prof/fd" | grep -q 'socket:' || { cat "$err"; false; }
	kill -TERM "$prof"
	# Bounded: prof's own deadline would end it too, but much later.
	rc=0
	timeout 60 tail --pid="$prof" -f /dev/null || rc=124
	wait "$prof" || rc=$?
	kill -CONT "$JVM_PID"
	cat "$err"
	[ "$rc" -eq 0 ]
	grep -q "stopped while waiting for JVM $JVM_PID's answer to 'Compiler.perfmap'" "$err"
	"$PROF" report -i "$rec" --threads | folded_total | { read -r n; [ "$n" -gt 0 ]; }
}

# start_jit: the jit example as $U (it writes its own /tmp/perf-PID.map);
# sets JIT_PID and JIT_MAP.
start_jit() {
	local log=$BATS_TEST_TMPDIR/jit.log
	touch "$log"
	chmod 666 "$log"
	as_user "$U" env JIT_KEEP_MAP=1 "$EXAMPLES/jit" 60 2>"$log" &
	wait_ready "$log" $!
	JIT_PID=$(awk '/ready/ { print $2; exit }' "$log")
	[ -n "$JIT_PID" ]
	echo "$JIT_PID" >>"$BATS_FILE_TMPDIR/jvm-pids"
	JIT_MAP=/tmp/perf-$JIT_PID.map
	[ -f "$JIT_MAP" ]
}

@test "a 300 MB JIT map from the target's owner: read only in part, with a notice; memory bounded" {
	start_jit
	# The owner makes its map huge: its two real lines, then 300 MB more.
	as_user "$U" /usr/bin/python3 -c '
import sys
path = sys.argv[1]
lines = "".join("%x 10 java.lang.Object.generated_method_%d(java.lang.String, int)\n"
                % (0x100000000 + i * 16, i) for i in range(100000))
with open(path, "a") as f:
    while f.tell() < 300 * 1000 * 1000:
        f.write(lines)
' "$JIT_MAP"
	[ "$(stat -c %s "$JIT_MAP")" -ge 300000000 ]
	rec=$BATS_TEST_TMPDIR/big.data
	run timeout -k 5 60 /usr/bin/time -f 'maxrss %M' "$PROF" record -p "$JIT_PID" -d 1 -o "$rec"
	[ "$status" -eq 0 ]
	[[ "$output" == *"JIT map '/proc/$JIT_PID/root$JIT_MAP' is larger than prof reads (64 MB or 2097152 lines): only its start is used"* ]]
	# prof's peak memory: what 64 MB of map lines need, not what 300 MB
	# would. Measured here: 125 MB (290 MB under ASan, its shadow and
	# quarantine), 750 MB before the cap; the bound leaves room for both.
	rss=$(echo "$output" | awk '/^maxrss/ { print $2 }')
	echo "# max RSS ${rss} KB" >&3
	[ "$rss" -lt $((400 * 1024)) ]
	# Its real lines, at the start, still name its code.
	"$PROF" report -i "$rec" | grep -q 'jit_loop_hot_\[j\]'
}

@test "a root-owned /tmp/perf-PID.map older than process PID is ignored; a fresh one is used" {
	start_jit
	cp "$JIT_MAP" "$BATS_TEST_TMPDIR/map"
	rm -f "$JIT_MAP"
	# As if left by a root process that had this pid before (it died an hour ago).
	cp "$BATS_TEST_TMPDIR/map" "$JIT_MAP"
	chown root:root "$JIT_MAP"
	touch -d '-1 hour' "$JIT_MAP"
	rec=$BATS_TEST_TMPDIR/stale.data
	record_timed -p "$JIT_PID" -d 1 -o "$rec"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ignoring JIT map '/proc/$JIT_PID/root$JIT_MAP': older than the process: left by an earlier process with its pid"* ]]
	! "$PROF" report -i "$rec" | grep -q '_\[j\]'
	# Written after the process started: its own, used.
	touch "$JIT_MAP"
	record_timed -p "$JIT_PID" -d 1 -o "$rec"
	[ "$status" -eq 0 ]
	[[ "$output" != *"ignoring JIT map"* ]]
	"$PROF" report -i "$rec" | grep -q 'jit_loop_hot_\[j\]'
}
