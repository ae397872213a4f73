# helpers.bash: shared by the CLI tests. PROF and EXAMPLES point at the
# binaries under test (tools/run-tests.sh sets them; defaults for a manual
# `bats tests/cli`).
ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
PROF=${PROF:-$ROOT/build/prof}
EXAMPLES=${EXAMPLES:-$ROOT/build/examples}

# Strings reach awk through ENVIRON, never `awk -v`: -v processes escapes,
# and gawk turns a regex's `\[` into `[` (mawk keeps it), so a test would
# depend on which awk is installed. Numbers may go through -v.

# Sum of the counts of folded lines (stdin) whose stack matches an ERE.
folded_sum() {
	RE="$1" awk '{ n = $NF; $NF = ""; if ($0 ~ ENVIRON["RE"]) s += n } END { print s + 0 }'
}

# Sum of all counts of folded lines on stdin.
folded_total() {
	awk '{ s += $NF } END { print s + 0 }'
}

# Per-root totals ("root count") of folded lines on stdin.
folded_roots() {
	awk '{ n = $NF; split($0, a, ";"); s[a[1]] += n } END { for (r in s) print r, s[r] }' | sort
}

# Asserts lo <= value <= hi (decimals allowed), with a message.
assert_between() {
	local what=$1 value=$2 lo=$3 hi=$4
	if ! awk -v v="$value" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(v >= lo && v <= hi) }'; then
		echo "$what = $value, expected between $lo and $hi" >&2
		return 1
	fi
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "inf"; else printf "%.3f\n", a / b }'
}

# wait_until SECONDS CMD...: runs CMD every 50 ms until it succeeds (0), or
# fails (1) once SECONDS of wall clock passed: a bound for a hang, not a
# timing requirement (a count of tries would stretch on a loaded machine).
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < end)) || return 1
		sleep 0.05
	done
}

# wait_ready LOG PID [WORD]: waits until LOG has a line with WORD ("ready")
# (60 s at most), and gives up at once when PID exits first; fails with
# LOG's text.
wait_ready() {
	local log=$1 pid=$2 word=${3:-ready}
	wait_until 60 eval 'grep -q "$word" "$log" 2>/dev/null || ! kill -0 "$pid" 2>/dev/null' || true
	grep -q "$word" "$log" 2>/dev/null && return 0
	echo "process $pid did not print '$word': $(cat "$log" 2>/dev/null)" >&2
	return 1
}

# Starts an example in the background, waits until it prints "ready" on
# stderr (wait_ready), and sets EXAMPLE_PID.
start_example() {
	local name=$1
	shift
	local log="$BATS_FILE_TMPDIR/$name.log"
	"$EXAMPLES/$name" "$@" 2>"$log" &
	EXAMPLE_PID=$!
	wait_ready "$log" "$EXAMPLE_PID"
}

JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}

# start_jvm [as USER] JAVA-OPTIONS... -- SECONDS HANDLERS: starts the example
# JVM (examples/java/Service, run SECONDS with HANDLERS request handlers) in
# the background, as USER with `as`, and waits until it prints "ready"
# (wait_ready); sets JVM_PID, JVM_LOG (its stderr) and JVM_OUT (its stdout),
# and adds the pid to $BATS_FILE_TMPDIR/jvm-pids (whose /tmp/perf-PID.map a
# teardown_file removes).
start_jvm() {
	local opts=() run=()
	if [ "$1" = as ]; then
		# setpriv execs the JVM itself: runuser would stay as its parent,
		# stop itself when the test stops the JVM (as su does), and then
		# never reap it, holding the test's output open.
		run=(setpriv --reuid="$(id -u "$2")" --regid="$(id -g "$2")" --clear-groups --)
		shift 2
	fi
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	JVM_LOG="${BATS_TEST_TMPDIR:-$BATS_FILE_TMPDIR}/jvm.$RANDOM.log"
	JVM_OUT="$JVM_LOG.out"
	"${run[@]}" "$JAVA" "${opts[@]}" -cp "$EXAMPLES/java" Service "$@" 2>"$JVM_LOG" >"$JVM_OUT" &
	JVM_PID=$!
	echo "$JVM_PID" >>"$BATS_FILE_TMPDIR/jvm-pids"
	wait_ready "$JVM_LOG" "$JVM_PID"
}

# The CPU time a process's threads used, as the kernel counts it: what a
# test compares sampled shares with (never the shares a workload is built
# for, which a loaded machine moves).
# task_cpu PID: "COMM<TAB>NANOSECONDS" per thread name of PID (schedstat's run
# time, summed over the threads of that name; COMM is the kernel's 15 bytes).
task_cpu() {
	local t comm ns
	for t in /proc/"$1"/task/*; do
		read -r comm <"$t/comm" 2>/dev/null && read -r ns _ <"$t/schedstat" 2>/dev/null &&
			printf '%s\t%s\n' "$comm" "$ns"
	done | awk -F'\t' '{ s[$1] += $2 } END { for (c in s) print c "\t" s[c] }'
}

# cpu_during COMM BEFORE AFTER: the seconds of CPU threads named COMM used
# between two task_cpu snapshots (files).
cpu_during() {
	C="$1" awk -F'\t' 'FNR == NR { if ($1 == ENVIRON["C"]) b = $2; next }
		$1 == ENVIRON["C"] { printf "%.4f\n", ($2 - b) / 1e9 }' "$2" "$3"
}

# example_cpu NAME: the CPU seconds worker NAME used, from the "cpu NAME
# SECONDS" lines examples/threads prints at exit (text on stdin).
example_cpu() {
	N="$1" awk '$1 == "cpu" && $2 == ENVIRON["N"] { print $3; f = 1 } END { exit !f }'
}

# TIMED: a prefix for a launched command, `prof record -- "${TIMED[@]}"
# FILE CMD...`: runs CMD under bash, then writes the CPU CMD and its
# children used (bash's `times`: user and system, to the millisecond; dash's
# counts 10 ms ticks, too coarse for a starved workload) to FILE, what a
# launched workload measured itself; timed_cpu FILE gives it in seconds.
TIMED=(bash -c '"$@"; s=$?; times >"$0"; exit $s')
timed_cpu() {
	awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] } }
		END { printf "%.4f\n", s }' "$1"
}

# readable FILE: the samples `prof report` reads from FILE now (0 if none),
# also while a recorder writes it.
readable() {
	"$PROF" report -i "$1" 2>/dev/null | folded_total
}

# record_start OUT ARGS...: starts `prof record -p EXAMPLE_PID -o OUT ARGS...`
# in the background (REC_PID), after a task_cpu snapshot of the example in
# OUT.cpu-before.
record_start() {
	local out=$1
	shift
	task_cpu "$EXAMPLE_PID" >"$out.cpu-before"
	"$PROF" record -p "$EXAMPLE_PID" -o "$out" "$@" 2>/dev/null &
	REC_PID=$!
}

# wait_readable OUT MIN [ABSENT]: waits until the recorder started last has
# flushed at least MIN samples that `prof report -i OUT` reads (and, with
# ABSENT, until report's messages no longer contain that text); sets
# READABLE to the samples read then. Fails if the recorder exits first, or
# after 10 minutes (a bound for a hang, not a timing requirement), and then
# kills the recorder and the example.
wait_readable() {
	local out=$1 min=$2 absent=${3:-} i
	READABLE=0
	for ((i = 0; i < 3000; i++)); do
		kill -0 "$REC_PID" 2>/dev/null || break
		READABLE=$(readable "$out")
		if [ "$READABLE" -ge "$min" ] &&
			{ [ -z "$absent" ] || ! "$PROF" report -i "$out" 2>&1 >/dev/null | grep -qF "$absent"; }; then
			return 0
		fi
		sleep 0.2
	done
	echo "$out: $READABLE samples readable when the recorder exited or 10 minutes passed;" \
		"waited for $min${absent:+ and no '$absent'}" >&2
	kill -KILL "$REC_PID" "$EXAMPLE_PID" 2>/dev/null
	return 1
}

# record_stop SIGNAL OUT: sends SIGNAL to the recorder started last, takes a
# task_cpu snapshot of the example in OUT.cpu-after, and waits for the
# recorder.
record_stop() {
	kill -"$1" "$REC_PID"
	task_cpu "$EXAMPLE_PID" >"$2.cpu-after"
	wait "$REC_PID" || true
}

# record_killed OUT FLUSHES ARGS...: records the example started last (-p
# EXAMPLE_PID -o OUT ARGS...), SIGKILLs the recorder once FLUSHES flushes
# made samples readable in OUT (each wait_readable for more than the last
# read: a condition, not a count of samples a loaded machine may never
# reach; READABLE is what was read last), then ends the example.
# cpu_during COMM OUT.cpu-before OUT.cpu-after gives the CPU its threads
# used while recorded.
record_killed() {
	local out=$1 flushes=$2 i
	shift 2
	record_start "$out" "$@"
	READABLE=0
	for ((i = 0; i < flushes; i++)); do
		wait_readable "$out" $((READABLE + 1)) || return 1
	done
	record_stop KILL "$out"
	kill "$EXAMPLE_PID" 2>/dev/null || true # (it may have ended: a slow machine)
}

# Every STEP-th address of BINARY's .text, one per line.
text_addrs() {
	local bin=$1 step=$2 start size
	read -r start size < <(readelf -SW "$bin" |
		awk '{ for (i = 1; i < NF; i++) if ($i == ".text") { print $(i + 2), $(i + 4); exit } }')
	awk -v s=$((16#$start)) -v n=$((16#$size)) -v step="$step" \
		'BEGIN { for (a = s; a < s + n; a += step) printf "0x%x\n", a }'
}

# The attacker tests (t08xx) play another local user against root's prof.
# second_user_create NAME: creates NAME, a system user without a home or a
# login shell, for this test file only (skips the test when not root or
# without useradd); second_user_delete NAME removes it again, with anything
# it still runs.
second_user_create() {
	local name=$1
	if [ "$(id -u)" -ne 0 ] || ! command -v useradd >/dev/null || ! command -v runuser >/dev/null; then
		skip "needs root, useradd and runuser to play a second user"
	fi
	if ! id "$name" >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /usr/sbin/nologin "$name"
	fi
}

second_user_delete() {
	local name=$1
	id "$name" >/dev/null 2>&1 || return 0
	pkill -KILL -u "$name" 2>/dev/null || true
	userdel "$name" 2>/dev/null || true
}

# as_user NAME CMD...: runs CMD as NAME (no login shell needed).
as_user() {
	local name=$1
	shift
	runuser -u "$name" -- "$@"
}

# thread_sched PID COMM: "WALL_NS RUN_NS WAIT_NS" for PID's (first) thread
# named COMM now: the clock and its schedstat run and run-queue wait times.
# blocked_between BEFORE AFTER (two of those lines): the share of the time
# between them the thread was off CPU and not waiting for one, as the
# kernel counted it: what a test compares a recording of that time with.
thread_sched() {
	local t comm
	for t in /proc/"$1"/task/*; do
		read -r comm <"$t/comm" 2>/dev/null || continue
		[ "$comm" = "$2" ] || continue
		printf '%s %s\n' "${EPOCHREALTIME/./}000" "$(cut -d' ' -f1,2 "$t/schedstat")"
		return 0
	done
	echo "no thread $2 in $1" >&2
	return 1
}
blocked_between() {
	awk -v b="$1" -v a="$2" 'BEGIN { split(b, x, " "); split(a, y, " ")
		printf "%.3f\n", 1 - (y[2] - x[2] + y[3] - x[3]) / (y[1] - x[1]) }'
}

# enough_samples WHAT TOTAL HZ CPU_SECONDS: asserts TOTAL samples are at
# least half of what HZ gives over the CPU time the workload measured
# itself (TIMED, its "cpu" lines, task_cpu), and at least one: a recorder
# that loses most samples fails, a starved workload does not (beside two
# CPU hogs the tests' workloads, at nice 10, get a tenth of their CPU).
enough_samples() {
	local what=$1 total=$2 hz=$3 cpu=$4
	if ! awk -v t="$total" -v w="$(awk -v h="$hz" -v c="$cpu" 'BEGIN { print h * c / 2 }')" \
		'BEGIN { exit !(t >= 1 && t >= w) }'; then
		echo "$what: $total samples, expected at least half of $hz a second over $cpu s of CPU" >&2
		return 1
	fi
}
