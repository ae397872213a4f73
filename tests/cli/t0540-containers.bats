#!/usr/bin/env bats
# t0540: a process in a container (its own pid and mount namespaces, as
# docker or podman make them) recorded from the host with `prof record -p
# HOSTPID`. Inside, the hotloop example runs from a path that on the host
# holds a DIFFERENT binary of the same name (an impostor with other
# functions), and the jit example, the namespace's pid 1, writes its map
# as /tmp/perf-1.map in a /tmp of the container's own. prof must read the
# binary through /proc/PID/root (else its frames are the impostor's, or
# unnamed: the build-ids differ) and the map as /proc/PID/root/tmp/
# perf-NSPID.map (neither /tmp/perf-1.map nor /tmp/perf-HOSTPID.map exists
# on the host). Needs root and unshare(1); skipped otherwise.

load helpers

setup_file() {
	export D="$BATS_FILE_TMPDIR"
	mkdir -p "$D/app" "$D/real"
	cp "$EXAMPLES/hotloop" "$D/real/hotloop"
	# Run from a copy: the container's own /tmp hides the host's, where
	# BATS_FILE_TMPDIR is, and where a CI checkout (so $EXAMPLES) may be.
	cp "$EXAMPLES/jit" "$D/real/jit"
	# The host's file at the path the container runs its binary from.
	cat > "$D/impostor.c" <<'EOF'
volatile long impostor_sink;
__attribute__((noinline)) void impostor_one(void) { for (int i = 0; i < 99; i++) impostor_sink += i; }
__attribute__((noinline)) void impostor_two(void) { for (int i = 0; i < 99; i++) impostor_sink ^= i; }
int main(void) { impostor_one(); impostor_two(); return 0; }
EOF
	cc -O1 -g -fno-omit-frame-pointer -o "$D/app/hotloop" "$D/impostor.c"
	# Run inside the namespaces (sh is their pid 1, then execs jit): keep
	# a way to the test's files, give the container its own /tmp, put the
	# real binary at the impostor's path there, start it, become the JIT.
	# (Both run long enough for prof to name them on a loaded machine: the
	# tests end the container.)
	cat > "$D/container.sh" <<'EOF'
set -e
dir=$1
mount --bind "$dir" /mnt
mount -t tmpfs container-tmp /tmp
mkdir -p "$dir/app"
cp /mnt/real/hotloop "$dir/app/hotloop"
"$dir/app/hotloop" 120 > /dev/null &
exec /mnt/real/jit 120
EOF
}

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (unshare, mount)"
	unshare --pid --fork --mount --mount-proc true 2>/dev/null ||
		skip "unshare --pid --mount is not allowed here"
}

# Starts the container; sets UNSHARE_PID, JIT_PID and HOT_PID (host pids).
start_container() {
	unshare --pid --fork --mount --mount-proc sh "$D/container.sh" "$D" \
		2> "$D/container.log" &
	UNSHARE_PID=$!
	JIT_PID="" HOT_PID=""
	# Read the pids once jit said ready: before its exec, sh's child can
	# be the cp of container.sh, not hotloop.
	for _ in $(seq 200); do
		if grep -q '^ready 1' "$D/container.log"; then
			JIT_PID=$(tr -d ' ' < "/proc/$UNSHARE_PID/task/$UNSHARE_PID/children" 2>/dev/null || true)
			[ -n "$JIT_PID" ] &&
				HOT_PID=$(tr -d ' ' < "/proc/$JIT_PID/task/$JIT_PID/children" 2>/dev/null || true)
			[ -n "$HOT_PID" ] && grep -q hotloop "/proc/$HOT_PID/cmdline" 2>/dev/null && return 0
		fi
		sleep 0.05
	done
	cat "$D/container.log" >&2
	return 1
}

stop_container() {
	# The namespace's pid 1: its end ends every process in it.
	[ -z "$JIT_PID" ] || kill -9 "$JIT_PID" 2>/dev/null || true
	wait "$UNSHARE_PID" 2>/dev/null || true
}

teardown() {
	[ -z "${UNSHARE_PID:-}" ] || stop_container
}

# record_container OUT ARGS...: records both of the container's programs
# into OUT until 60 samples are readable (enough for the shares below; a
# second or so here, longer on a loaded machine), then stops with SIGINT.
record_container() {
	local out=$1
	shift
	"$PROF" record -q -F 499 -o "$out" -p "$JIT_PID,$HOT_PID" "$@" &
	REC_PID=$!
	wait_readable "$out" 60
	kill -INT "$REC_PID"
	wait "$REC_PID"
}

# The shares of the container's two programs in folded stacks ($1).
expect_container_names() {
	local folded=$1 total hot jit
	total=$(echo "$folded" | folded_total)
	hot=$(echo "$folded" | folded_sum ';main;hot_function')
	jit=$(echo "$folded" | folded_sum 'jit_loop_(hot|cold)_\[j\]')
	[ "$total" -gt 30 ] || { echo "total $total" >&2; return 1; }
	# Two busy processes on a shared machine: how the CPUs are shared
	# between them varies with the load, but each shows, under its names,
	# and together they are nearly all of the samples.
	assert_between "share of hotloop's hot_function" "$(ratio "$hot" "$total")" 0.05 0.95
	assert_between "share of the JIT's loops" "$(ratio "$jit" "$total")" 0.05 0.95
	assert_between "share of both" "$(ratio $((hot + jit)) "$total")" 0.75 1.0
	! echo "$folded" | grep -q impostor
}

@test "a container's process, recorded from the host: binary via /proc/PID/root, JIT map as /tmp/perf-NSPID.map" {
	start_container
	# What the host sees at the same paths.
	grep -q "$D/app/hotloop" "/proc/$HOT_PID/maps"
	! cmp -s "$D/app/hotloop" "$D/real/hotloop"
	grep -q '^NSpid:.*[[:space:]]1$' "/proc/$JIT_PID/status"
	[ ! -e /tmp/perf-1.map ] || skip "the host has a /tmp/perf-1.map of its own"
	[ ! -e "/tmp/perf-$JIT_PID.map" ]
	[ -f "/proc/$JIT_PID/root/tmp/perf-1.map" ]
	record_container "$D/ctr.data"
	folded=$("$PROF" report -i "$D/ctr.data")
	stop_container
	expect_container_names "$folded"
}

@test "prof symbolize -i on a --no-symbolize recording of the container, while it runs" {
	start_container
	record_container "$D/ctr-raw.data" --no-symbolize
	! "$PROF" report -i "$D/ctr-raw.data" | grep -q 'hot_function'
	# The host's files (--root /) are not the container's: no names.
	cp "$D/ctr-raw.data" "$D/ctr-host.data"
	"$PROF" symbolize -q --root / -i "$D/ctr-host.data"
	host=$("$PROF" report -i "$D/ctr-host.data")
	! echo "$host" | grep -Eq 'hot_function|jit_loop|impostor'
	"$PROF" symbolize -q -i "$D/ctr-raw.data"
	folded=$("$PROF" report -i "$D/ctr-raw.data")
	stop_container
	expect_container_names "$folded"
}
