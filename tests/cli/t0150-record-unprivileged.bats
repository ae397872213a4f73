#!/usr/bin/env bats
# t0150: as an unprivileged user (kernel.perf_event_paranoid=2 forbids kernel
# sampling), prof records the user part of every stack and says so once;
# someone else's process is refused with a hint about perf_event_paranoid.

load helpers

setup() {
	if [ "$(id -u)" -ne 0 ] || ! command -v runuser >/dev/null || ! id nobody >/dev/null 2>&1; then
		skip "needs root (to become nobody) and runuser"
	fi
	if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -lt 2 ]; then
		skip "kernel.perf_event_paranoid < 2: kernel sampling is allowed here"
	fi
	DIR=$(mktemp -d /tmp/prof-nobody.XXXXXX)
	chmod 755 "$DIR"
	cp "$PROF" "$EXAMPLES/threads" "$DIR"/
	chmod 755 "$DIR"/*
	chown nobody "$DIR"
}

teardown() {
	[ -n "${DIR:-}" ] && rm -rf "$DIR"
}

@test "unprivileged: user stacks kept, one notice about kernel sampling" {
	prof_bin=$DIR/$(basename "$PROF")
	run runuser -u nobody -- "$prof_bin" record -F 499 -o "$DIR/u.data" -- "$DIR/threads" 1
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c 'kernel sampling not allowed')" -eq 1 ]
	folded=$("$PROF" report -i "$DIR/u.data" --threads)
	echo "$folded" | grep -q '^alpha;.*alpha_outer;alpha_inner;burn_alpha'
	! echo "$folded" | grep -q '_\[k\]'
}

@test "unprivileged: another user's process is refused with a paranoid hint" {
	prof_bin=$DIR/$(basename "$PROF")
	run runuser -u nobody -- "$prof_bin" record -p 1 -o "$DIR/p.data"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot profile process 1: Permission denied"* ]]
	[[ "$output" == *"hint: kernel.perf_event_paranoid is"* ]]
	[ ! -e "$DIR/p.data" ]
}
