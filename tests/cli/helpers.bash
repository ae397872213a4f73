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

# Starts an example in the background, waits until it prints "ready" on
# stderr, and sets EXAMPLE_PID.
start_example() {
	local name=$1
	shift
	local log="$BATS_FILE_TMPDIR/$name.log"
	"$EXAMPLES/$name" "$@" 2>"$log" &
	EXAMPLE_PID=$!
	for _ in $(seq 100); do
		grep -q ready "$log" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "example $name did not get ready" >&2
	return 1
}

# Runs `prof record ARGS...` on the example started last (-p EXAMPLE_PID is
# added), SIGKILLs the recorder after SECONDS, then ends the example.
record_killed() {
	local seconds=$1 rec
	shift
	"$PROF" record -p "$EXAMPLE_PID" "$@" 2>/dev/null &
	rec=$!
	sleep "$seconds"
	kill -KILL $rec
	wait $rec || true
	kill "$EXAMPLE_PID"
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
