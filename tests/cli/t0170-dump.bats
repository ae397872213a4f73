#!/usr/bin/env bats
# t0170: prof dump on examples/stuck, whose threads wait in known places: a
# spinner, a holder sleeping with a mutex and a rwlock, waiters blocked on
# them, a reader on a pipe, a napper, a condition waiter. Every output names
# each thread's state and stack, the locks section names the holder, and no
# thread is ever left stopped (after a run, after SIGINT/SIGTERM, with
# threads coming and going).

load helpers

setup_file() {
	start_example stuck 4
	export STUCK=$EXAMPLE_PID
	read -r _ _ MUTEX RWLOCK <"$BATS_FILE_TMPDIR/stuck.log"
	export MUTEX RWLOCK
	# every thread started and blocked where it should be (S), the spinner R
	wait_until 30 all_blocked "$STUCK"
	"$PROF" dump -p "$STUCK" --format pmp >"$BATS_FILE_TMPDIR/pmp" 2>"$BATS_FILE_TMPDIR/pmp.err"
}

teardown_file() {
	local pid
	kill "$STUCK" 2>/dev/null || true
	# a pid namespace's init (stuck) dies of SIGKILL only
	while read -r pid; do
		kill -KILL "$pid" 2>/dev/null || true
	done <"$BATS_FILE_TMPDIR/ns-pids" 2>/dev/null || true
	# the JVMs' JIT maps, written at prof's request
	while read -r pid; do
		rm -f "/tmp/perf-$pid.map"
	done <"$BATS_FILE_TMPDIR/jvm-pids" 2>/dev/null || true
}

all_blocked() {
	local n
	n=$(for t in /proc/"$1"/task/*; do
		awk '{ sub(/.*\) /, ""); print substr($0, 1, 1) }' "$t/stat"
	done | grep -c S)
	[ "$n" -ge 10 ]
}

# tid_of NAME: the tid of stuck's thread called NAME.
tid_of() {
	local t
	for t in /proc/"$STUCK"/task/*; do
		[ "$(cat "$t/comm")" = "$1" ] && basename "$t" && return 0
	done
	return 1
}

# thread_state PID NAME: the state letter of PID's thread called NAME.
thread_state() {
	local t
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] &&
			awk '{ sub(/.*\) /, ""); print substr($0, 1, 1) }' "$t/stat" && return 0
	done
	return 1
}

# no_thread_stopped PID: no thread of PID is in a stop (T/t) or traced.
no_thread_stopped() {
	local t
	for t in /proc/"$1"/task/*; do
		if awk '{ sub(/.*\) /, ""); exit !(substr($0, 1, 1) ~ /[tT]/) }' "$t/stat" 2>/dev/null ||
			grep -q '^TracerPid:[[:space:]]*[1-9]' "$t/status" 2>/dev/null; then
			echo "thread $(basename "$t") is stopped or traced" >&2
			return 1
		fi
	done
}

@test "pmp: identical stacks merged with their threads, states and frames" {
	cat "$BATS_FILE_TMPDIR/pmp"
	grep -E '^ +4  waiter-0\.\.waiter-3 \(S\)  .*pthread_mutex_lock <- wait_for_lock <- run <- start_thread' \
		"$BATS_FILE_TMPDIR/pmp"
	grep -E '^ +1  spinner \(R\)  spin_forever <- run <- start_thread' "$BATS_FILE_TMPDIR/pmp"
	grep -E '^ +1  reader \(S\)  .*_\[k\] <- .*read <- read_pipe <- run' "$BATS_FILE_TMPDIR/pmp"
	grep -E '^ +1  napper \(S\)  .*nanosleep <- nap <- run' "$BATS_FILE_TMPDIR/pmp"
	grep -E '^ +1  cond \(S\)  .*pthread_cond_wait <- wait_for_signal <- run' "$BATS_FILE_TMPDIR/pmp"
	grep -E '^ +1  holder \(S\)  .*sleep <- hold_lock <- run' "$BATS_FILE_TMPDIR/pmp"
	grep -E '^ +1  stuck \(S\)  .*main <- __libc_start_call_main' "$BATS_FILE_TMPDIR/pmp"
}

@test "locks: the mutex and the rwlock are held by the holder, with their waiters" {
	holder=$(tid_of holder)
	grep -E "^  mutex $MUTEX held by holder/$holder \(S: .*\): 4 waiting: waiter-0/[0-9]+, waiter-1/[0-9]+, waiter-2/[0-9]+, waiter-3/[0-9]+$" \
		"$BATS_FILE_TMPDIR/pmp"
	grep -E "^  rwlock $RWLOCK held by holder/$holder .*: 1 waiting: rwwaiter/$(tid_of rwwaiter)$" \
		"$BATS_FILE_TMPDIR/pmp"
	grep -E "^  condition variable 0x[0-9a-f]+: a condition variable has no owner.*: 1 waiting: cond/" \
		"$BATS_FILE_TMPDIR/pmp"
}

@test "the summary says how long each thread was held, and apart how long the stops took to come" {
	grep -E '^prof dump: 11 threads x 1 snapshot, paused [0-9.]+ ms median, [0-9.]+ ms max per thread \(stopped; the stops came [0-9.]+ ms median, [0-9.]+ ms max after the interrupts\)$' \
		"$BATS_FILE_TMPDIR/pmp.err"
}

@test "json: each capture's pause, wait for its stop and stop time, in the order the snapshots took them" {
	"$PROF" dump -p "$STUCK" -n 3 -i 0.02 --format json >"$BATS_TEST_TMPDIR/j" 2>"$BATS_TEST_TMPDIR/j.err"
	cat "$BATS_TEST_TMPDIR/j.err"
	python3 - "$BATS_TEST_TMPDIR/j" "$BATS_TEST_TMPDIR/j.err" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
th = [t for t in d["threads"] if t["captured"]]
assert len(th) == 33, len(th)
for t in th:
    assert isinstance(t["pause_ns"], int) and t["pause_ns"] > 0, t
    assert isinstance(t["stop_wait_ns"], int) and t["stop_wait_ns"] >= 0, t
# a snapshot's stops all come before the next snapshot's
last = {}
for t in th:
    last[t["snapshot"]] = max(last.get(t["snapshot"], 0), t["time_ns"])
for t in th:
    if t["snapshot"] > 0:
        assert t["time_ns"] > last[t["snapshot"] - 1], t
# the summary's maxima are the json's
m = re.search(r"paused [0-9.]+ ms median, ([0-9.]+) ms max per thread \(stopped; the stops came "
              r"[0-9.]+ ms median, ([0-9.]+) ms max", open(sys.argv[2]).read())
assert m, "no summary"
assert m.group(1) == "%.3f" % (max(t["pause_ns"] for t in th) / 1e6), m.group(1)
assert m.group(2) == "%.3f" % (max(t["stop_wait_ns"] for t in th) / 1e6), m.group(2)
PY
}

@test "raw (the default off a terminal): one block per thread, frames innermost first" {
	"$PROF" dump -p "$STUCK" >"$BATS_TEST_TMPDIR/raw"
	[ "$(grep -c '^Thread ' "$BATS_TEST_TMPDIR/raw")" -eq 11 ]
	# the spinner's block: its first frame is spin_forever
	awk '/^Thread .*"spinner" state R/ { getline; print; exit }' "$BATS_TEST_TMPDIR/raw" |
		grep -qx '#0  spin_forever'
	# a waiter's block goes from the kernel's futex wait up to start_thread
	awk '/"waiter-2" state S/ { on = 1; next } on && /^$/ { exit } on' "$BATS_TEST_TMPDIR/raw" \
		>"$BATS_TEST_TMPDIR/w2"
	grep -q '_\[k\]$' "$BATS_TEST_TMPDIR/w2"
	grep -q '^#[0-9]*  wait_for_lock$' "$BATS_TEST_TMPDIR/w2"
	# the classic PMP one-liner, on frame names in $2, merges the waiters
	awk '/^Thread/ { if (s) print s; s = "" } /^#/ { s = s (s ? "," : "") $2 } END { print s }' \
		"$BATS_TEST_TMPDIR/raw" | sort | uniq -c | sort -rn | head -1 | grep -E '^ +4 .*wait_for_lock'
}

@test "user frames agree with eu-stack's on the same threads" {
	command -v eu-stack >/dev/null || skip "eu-stack (elfutils) is not installed"
	"$PROF" dump -p "$STUCK" --format json >"$BATS_TEST_TMPDIR/j"
	eu-stack -p "$STUCK" >"$BATS_TEST_TMPDIR/eu" 2>/dev/null || true
	for name in reader napper cond waiter-1 spinner; do
		tid=$(tid_of "$name")
		# eu-stack: "TID 123:" then "#N  0xADDR function"
		want=$(awk -v t="TID $tid:" '$0 == t { on = 1; next } /^TID / { on = 0 } on && $3 ~ /^(spin_forever|wait_for_lock|read_pipe|nap|wait_for_signal|run|start_thread)$/ { print $3 }' \
			"$BATS_TEST_TMPDIR/eu" | tr '\n' ' ')
		got=$(TID=$tid python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
keep = {"spin_forever", "wait_for_lock", "read_pipe", "nap", "wait_for_signal", "run", "start_thread"}
for t in d["threads"]:
    if t["tid"] == int(os.environ["TID"]):
        print(" ".join(f for f in t["frames"] if f in keep) + " ")' "$BATS_TEST_TMPDIR/j")
		echo "$name: eu-stack [$want] prof [$got]"
		[ -n "$want" ]
		[ "$want" = "$got" ]
	done
}

@test "json: every thread with its state, and what the waiters wait for" {
	"$PROF" dump -p "$STUCK" --format json >"$BATS_TEST_TMPDIR/j"
	HOLDER=$(tid_of holder) python3 - "$BATS_TEST_TMPDIR/j" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
by = {t["name"]: t for t in d["threads"]}
assert len(d["threads"]) == 11, len(d["threads"])
assert by["spinner"]["state"] == "R" and by["spinner"]["frames"][0] == "spin_forever", by["spinner"]
for n in ("waiter-0", "waiter-3"):
    w = by[n]["waits_for"]
    assert w["kind"] == "mutex" and w["owner_tid"] == int(os.environ["HOLDER"]), w
assert by["cond"]["waits_for"]["kind"] == "condition variable"
assert all(t["captured"] for t in d["threads"]), [t["name"] for t in d["threads"] if not t["captured"]]
PY
}

@test "-o keeps a recording that prof report reads: one sample per thread per snapshot" {
	"$PROF" dump -p "$STUCK" -n 3 -i 0.02 -o "$BATS_TEST_TMPDIR/d.data" --format folded \
		>"$BATS_TEST_TMPDIR/folded"
	[ "$(folded_total <"$BATS_TEST_TMPDIR/folded")" -eq 33 ]
	"$PROF" report -i "$BATS_TEST_TMPDIR/d.data" --threads >"$BATS_TEST_TMPDIR/report"
	[ "$(folded_total <"$BATS_TEST_TMPDIR/report")" -eq 33 ]
	# waiter-1 in its mutex wait in all 3 (a thread still on its way back
	# into the wait after the last snapshot's hold shows as R, without
	# kernel frames), with the kernel's futex wait in at least one
	[ "$(grep -E '^waiter-1;.*;pthread_mutex_lock;' "$BATS_TEST_TMPDIR/report" | folded_total)" -eq 3 ]
	grep -qE '^waiter-1;.*;pthread_mutex_lock;.*;futex_[a-z_]*_\[k\] [0-9]+$' "$BATS_TEST_TMPDIR/report"
	grep -E '^spinner;.*;run;spin_forever 3$' "$BATS_TEST_TMPDIR/report"
}

@test "threads created and exiting during -n 50 are handled, none left stopped" {
	start_example stuck 2 churn
	local pid=$EXAMPLE_PID
	"$PROF" dump -p "$pid" -n 50 -i 0.01 --format folded >"$BATS_TEST_TMPDIR/churn" \
		2>"$BATS_TEST_TMPDIR/churn.err"
	cat "$BATS_TEST_TMPDIR/churn.err"
	no_thread_stopped "$pid"
	# the short-lived threads were seen (under stuck's name, in nanosleep)
	grep -E '^stuck;.*short_lived' "$BATS_TEST_TMPDIR/churn"
	kill "$pid"
}

@test "SIGINT and SIGTERM stop a long dump between threads: output written, no thread left held" {
	for sig in INT TERM; do
		"$PROF" dump -p "$STUCK" -n 100000 -i 0.001 -o "$BATS_TEST_TMPDIR/s.data" --format folded \
			>"$BATS_TEST_TMPDIR/s.out" 2>"$BATS_TEST_TMPDIR/s.err" &
		local p=$!
		# a whole snapshot is in the file (flushed after each one)
		wait_until 30 eval '"$PROF" report -i "$BATS_TEST_TMPDIR/s.data" 2>/dev/null | grep -q "^spinner;" ||
			"$PROF" report -i "$BATS_TEST_TMPDIR/s.data" --threads 2>/dev/null | grep -q "^spinner;"'
		kill -"$sig" "$p"
		local rc=0
		wait "$p" || rc=$?
		[ "$rc" -eq 0 ]
		grep -q 'stopped early' "$BATS_TEST_TMPDIR/s.err"
		no_thread_stopped "$STUCK"
		"$PROF" report -i "$BATS_TEST_TMPDIR/s.data" | grep -q 'run;spin_forever '
	done
}

@test "SIGKILL of prof mid-dump leaves the target running" {
	"$PROF" dump -p "$STUCK" -n 100000 -i 0.001 -o "$BATS_TEST_TMPDIR/k.data" >/dev/null 2>&1 &
	local p=$!
	wait_until 30 test -s "$BATS_TEST_TMPDIR/k.data"
	kill -KILL "$p"
	wait "$p" || true
	wait_until 10 no_thread_stopped "$STUCK"
	# the spinner still spins
	a=$(cut -d' ' -f1 /proc/"$STUCK"/task/"$(tid_of spinner)"/schedstat)
	wait_until 30 eval '[ "$(cut -d" " -f1 /proc/'"$STUCK"'/task/'"$(tid_of spinner)"'/schedstat)" -gt '"$a"' ]'
}

@test "a traced target: one clear error naming the tracer, exit 1" {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -p "$STUCK" -o /dev/null &
	local s=$!
	wait_until 30 grep -q "^TracerPid:[[:space:]]*$s" /proc/"$STUCK"/status
	run "$PROF" dump -p "$STUCK"
	kill "$s"
	wait "$s" || true
	[ "$status" -eq 1 ]
	[[ "$output" == *"process $STUCK is being traced by process $s"* ]]
}

@test "bad input: missing process, bad options" {
	run "$PROF" dump -p 999999999
	[ "$status" -eq 2 ] || [ "$status" -eq 1 ]
	run "$PROF" dump -p 4194304
	[ "$status" -eq 1 ]
	[[ "$output" == *"no process 4194304"* ]]
	run "$PROF" dump
	[ "$status" -eq 2 ]
	[[ "$output" == *"-p PID is required"* ]]
	run "$PROF" dump -p "$STUCK" --format xml
	[ "$status" -eq 2 ]
	run "$PROF" dump -p "$STUCK" -n 0
	[ "$status" -eq 2 ]
}

@test "another user cannot dump root's process" {
	second_user_create prof-t0170
	run as_user prof-t0170 "$PROF" dump -p "$STUCK"
	second_user_delete prof-t0170
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot hold the threads of process $STUCK"* ]]
}

@test "a JVM: Java frames and full thread names, and it runs on" {
	[ -x "$JAVA" ] || skip "no JDK at $JAVA"
	start_jvm -- 120 2
	"$PROF" dump -p "$JVM_PID" -n 20 -i 0.02 --format raw >"$BATS_TEST_TMPDIR/jvm" \
		2>"$BATS_TEST_TMPDIR/jvm.err"
	cat "$BATS_TEST_TMPDIR/jvm.err"
	# a thread name longer than the kernel's 15 bytes, from the JVM itself
	grep -q '"AsyncAppender-Worker-async-console-appender" state' "$BATS_TEST_TMPDIR/jvm"
	# Java methods of the service named through its JIT map
	grep -qE '(Service|Handler|AsyncLogger|MetricsReporter)[.$][A-Za-z$.]*_\[j\]' "$BATS_TEST_TMPDIR/jvm"
	# held 20 times at arbitrary points, it runs on: nothing stopped, and
	# its handlers keep working (their CPU time grows)
	no_thread_stopped "$JVM_PID"
	a=$(thread_sched "$JVM_PID" http-handler-1)
	wait_until 60 eval '[ "$(thread_sched "$JVM_PID" http-handler-1 | cut -d" " -f2)" -gt "$(echo "$a" | cut -d" " -f2)" ]'
	kill "$JVM_PID"
}

@test "a thread in uninterruptible sleep: its state and kernel stack, never left stopped" {
	start_example stuck 2 dstate
	local pid=$EXAMPLE_PID vf
	# the vforker waits in D for its child
	wait_until 30 eval '[ "$(thread_state "$pid" vforker)" = D ]'
	run timeout 120 "$PROF" dump -p "$pid" --format raw
	[ "$status" -eq 0 ]
	echo "$output" | awk '/"vforker" state D/ { on = 1 } on && /^$/ { exit } on' >"$BATS_TEST_TMPDIR/vf"
	cat "$BATS_TEST_TMPDIR/vf"
	grep -q '_\[k\]$' "$BATS_TEST_TMPDIR/vf"
	grep -q 'user stack not taken: the thread did not stop' "$BATS_TEST_TMPDIR/vf"
	# its interrupt was dropped when prof exited: once the child is gone
	# it runs on, neither stopped nor traced
	pkill -KILL -P "$pid"
	wait_until 30 eval '[ "$(thread_state "$pid" vforker)" = S ]'
	no_thread_stopped "$pid"
	kill "$pid"
}

@test "a process in its own pid namespace: stacks, and the lock owner by its host tid" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (unshare)"
	unshare --pid --fork --mount-proc true 2>/dev/null || skip "unshare --pid is not allowed here"
	unshare --pid --fork --mount-proc "$EXAMPLES/stuck" 2 2>"$BATS_TEST_TMPDIR/ns.log" 3>&- &
	local u=$! pid holder mutex
	wait_ready "$BATS_TEST_TMPDIR/ns.log" "$u"
	pid=$(pgrep -P "$u" | head -1)
	# the namespace's init ignores what it has no handler for: SIGKILL
	echo "$pid" >>"$BATS_FILE_TMPDIR/ns-pids"
	read -r _ _ mutex _ <"$BATS_TEST_TMPDIR/ns.log"
	wait_until 30 eval '[ "$(thread_state "$pid" waiter-1)" = S ]'
	"$PROF" dump -p "$pid" --format pmp >"$BATS_TEST_TMPDIR/ns" 2>&1
	cat "$BATS_TEST_TMPDIR/ns"
	holder=$(for t in /proc/"$pid"/task/*; do [ "$(cat "$t/comm")" != holder ] || basename "$t"; done)
	# inside, the holder's id is small; the mutex holds that id; prof names
	# the host's thread
	grep -E "^  mutex $mutex held by holder/$holder " "$BATS_TEST_TMPDIR/ns"
	grep -E 'wait_for_lock <- run <- start_thread' "$BATS_TEST_TMPDIR/ns"
}

@test "a thread name with control bytes comes out cleaned in every format" {
	start_example stuck 2 hostile
	local pid=$EXAMPLE_PID
	for f in pmp raw folded json; do
		"$PROF" dump -p "$pid" --format "$f" >"$BATS_TEST_TMPDIR/esc.$f" 2>&1
		! grep -q $'\033' "$BATS_TEST_TMPDIR/esc.$f"
		grep -q 'nap' "$BATS_TEST_TMPDIR/esc.$f"
	done
	kill "$pid"
}
