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

# record_moves OUT EVERY: records the whole run of Moves with --jit-every
# EVERY, stopped by -d in its last phase so that the JIT map is asked for at
# the end while the JVM lives (-d bounds a hang too); its stdout in OUT.out.
# Skips when the JVM finished fewer than two phases (a machine too loaded
# to move any code); sets JAVA and ANON: the samples whose leaf is a Java
# frame (`_[j]`) or unnamed anonymous code (`[anon+`), and of those the
# unnamed.
record_moves() {
	local out=$1 every=$2 done
	run env JOUT="$out.out" "$PROF" record -o "$out" -d 8 --jit-every "$every" -- \
		sh -c 'echo $$ >>"$0"; exec "$@" >"$JOUT"' "$PIDS" "$JAVA" "${JFLAGS[@]}" \
		-cp "$EXAMPLES/java" Moves "$PHASES" "$PHASE_MS"
	[ "$status" -eq 0 ]
	# The JVM's own count: each phase done was unloaded, its code freed.
	done=$(grep -c '^phase ' "$out.out" || true)
	[ "$done" -ge 2 ] || skip "the JVM finished $done phases in 8 s (machine too loaded)"
	read -r JAVA_N ANON_N < <("$PROF" report -i "$out" | awk '{ n = $NF; $NF = ""
		sub(/ +$/, ""); k = split($0, f, ";")
		if (f[k] ~ /_\[j\]$/ || f[k] ~ /^\[anon\+/) { j += n; if (f[k] ~ /^\[anon\+/) a += n } }
		END { print j + 0, a + 0 }')
	echo "# --jit-every $every: $ANON_N of $JAVA_N in-Java samples unnamed" >&3
	[ "$JAVA_N" -gt 0 ]
}

@test "code freed while recorded keeps its name: --jit-every 0.5 against only at the end" {
	rec="$BATS_TEST_TMPDIR/moves.data"
	record_moves "$rec" 0.5
	# near zero: only code compiled and freed between two snapshots (phases
	# last 2.5 s, snapshots 0.5 s apart) cannot be named.
	assert_between "unnamed share of in-Java samples" "$(ratio "$ANON_N" "$JAVA_N")" 0 0.05
	"$PROF" report -i "$rec" | grep -q 'Moves\$Kernel\.step_\[j\]'
	"$PROF" report -i "$rec" --header | grep -Eq '^jvm-jit-snapshots: ([3-9]|[1-9][0-9]+)$'

	base="$BATS_TEST_TMPDIR/moves-end.data"
	record_moves "$base" 0
	! "$PROF" report -i "$base" --header | grep -q '^jvm-jit-snapshots:'
	# Of the phases run, the map at the end names the one running then: at
	# least a third of the samples were in the others.
	assert_between "unnamed share, map at the end only" "$(ratio "$ANON_N" "$JAVA_N")" 0.33 1
}

@test "--jit-every takes seconds; a bad value is a usage error" {
	run "$PROF" record --jit-every nope -d 0.1 -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid --jit-every 'nope'"* ]]
	run "$PROF" record --jit-every -1 -d 0.1 -- true
	[ "$status" -eq 2 ]
}
