#!/usr/bin/env bats
# t0640: JIT code that moves while recorded (docs/prof-jvm.md, "Code that
# moves"). examples/java/Moves.java runs PHASES phases, each in a class
# loaded afresh and unloaded after it: each phase's compiled code is freed
# and its addresses reused, so a JIT map read at the end names none of the
# earlier phases. Asked for during the recording too (--jit-every), every
# in-Java sample keeps its name; asked only at the end (--jit-every 0),
# most of them are `[anon+0x...]`: the same workload shows both.

load helpers

JFLAGS=(-XX:CompileCommand=quiet "-XX:CompileCommand=dontinline,Moves*::*")
PHASES=4
PHASE_MS=2500

export PIDS="$BATS_FILE_TMPDIR/jvm-pids"

teardown_file() {
	local pid
	[ -f "$PIDS" ] || return 0
	while read -r pid; do
		rm -f "/tmp/perf-$pid.map"
	done <"$PIDS"
}

# record_moves OUT PROF-OPTIONS...: records the whole run of Moves, stopped
# by -d in its last phase so that the JIT map is asked for at the end while
# the JVM lives; its stdout in OUT.out. -d bounds a hang too.
record_moves() {
	local out=$1
	shift
	run env JOUT="$out.out" "$PROF" record -o "$out" -d 8 "$@" -- \
		sh -c 'echo $$ >>"$0"; exec "$@" >"$JOUT"' "$PIDS" "$JAVA" "${JFLAGS[@]}" \
		-cp "$EXAMPLES/java" Moves "$PHASES" "$PHASE_MS"
}

# java_leaves FILE: "IN-JAVA ANON" sample counts: samples whose leaf is a
# Java frame (`_[j]`) or unnamed anonymous code (`[anon+`).
java_leaves() {
	"$PROF" report -i "$1" | awk '{ n = $NF; $NF = ""; sub(/ +$/, ""); k = split($0, f, ";")
		if (f[k] ~ /_\[j\]$/ || f[k] ~ /^\[anon\+/) { j += n; if (f[k] ~ /^\[anon\+/) a += n } }
		END { print j + 0, a + 0 }'
}

# phases_done OUT: how many phases the JVM finished while recorded (its own
# "phase N CALLS" lines).
phases_done() {
	grep -c '^phase ' "$1.out" || true
}

@test "code freed while recorded keeps its name: --jit-every 0.5 against only at the end" {
	rec="$BATS_TEST_TMPDIR/moves.data"
	record_moves "$rec" --jit-every 0.5
	[ "$status" -eq 0 ]
	# The JVM itself says it ran (and so unloaded) at least two phases:
	# code that the map at the end cannot name.
	done_with=$(phases_done "$rec")
	[ "$done_with" -ge 2 ] || skip "the JVM finished $done_with phases in 8 s (machine too loaded)"
	read -r java anon < <(java_leaves "$rec")
	echo "# every 0.5 s: $anon of $java in-Java samples unnamed" >&3
	[ "$java" -gt 0 ]
	# near zero: a sample of code compiled and freed between two snapshots
	# (phases last 2.5 s, snapshots 0.5 s apart) cannot be named.
	assert_between "unnamed share of in-Java samples" "$(ratio "$anon" "$java")" 0 0.05
	"$PROF" report -i "$rec" | grep -q 'Moves\$Kernel\.step_\[j\]'
	"$PROF" report -i "$rec" --header | grep -Eq '^jvm-jit-snapshots: ([3-9]|[1-9][0-9]+)$'

	base="$BATS_TEST_TMPDIR/moves-end.data"
	record_moves "$base" --jit-every 0
	[ "$status" -eq 0 ]
	done_without=$(phases_done "$base")
	[ "$done_without" -ge 2 ] || skip "the JVM finished $done_without phases in 8 s (machine too loaded)"
	read -r java0 anon0 < <(java_leaves "$base")
	echo "# only at the end: $anon0 of $java0 in-Java samples unnamed" >&3
	! "$PROF" report -i "$base" --header | grep -q '^jvm-jit-snapshots:'
	# Of PHASES phases run, the map at the end names the one running then:
	# at least a third of the samples were in the others.
	[ "$java0" -gt 0 ]
	assert_between "unnamed share, map at the end only" "$(ratio "$anon0" "$java0")" 0.33 1
}

@test "--jit-every takes seconds; a bad value is a usage error" {
	run "$PROF" record --jit-every nope -d 0.1 -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid --jit-every 'nope'"* ]]
	run "$PROF" record --jit-every -1 -d 0.1 -- true
	[ "$status" -eq 2 ]
}
