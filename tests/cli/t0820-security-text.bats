#!/usr/bin/env bats
# t0820: what a target's owner puts into names reaches root's terminal only
# as text, numbers in perf script text are never wrapped or saturated, and
# damaged recordings are called what they are (issue 15, findings 6, 7, 10).
# The attacker, a second user, runs a program whose threads name themselves
# with terminal escapes and whose hot function's symbol holds them too;
# root records it with --sched and reads it back through every text output:
# no ESC (or other control byte) comes out, '?' stands in its place. Then
# perf script text with a period sum past 2^64 - 1 and a pid of 2^32 + 5,
# and recordings edited like a damaged disk would (a bad size field in the
# middle, a chunk written twice, a cut tail).

load helpers

bats_require_minimum_version 1.5.0

ATTACKER=prof-t0820
# What the attacker's program calls things (examples are in setup_file).
EVIL_SYM=$'evil\033]0;pwned\007\033[2J'
EVIL_THREAD=$'\033]0;pwn\007\033[2J'

# no_control FILE...: fails (showing the lines) when a file holds a control
# byte other than newline: ESC, BEL, CR, tab, ...
no_control() {
	local f
	for f in "$@"; do
		if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$f"; then
			LC_ALL=C grep -n $'[\x01-\x09\x0b-\x1f\x7f]' "$f" | cat -v >&2
			echo "$f holds control bytes" >&2
			return 1
		fi
	done
}

# chunks FILE: the chunks of a recording, "offset type size" a line.
chunks() {
	python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = struct.unpack_from('<I', d, 12)[0]
while off + 16 <= len(d):
    t, size, crc, count = struct.unpack_from('<IIII', d, off)
    print(off, t, size)
    off += 16 + size
EOF
}

setup_file() {
	second_user_create "$ATTACKER"
	# The attacker's directory: it owns the program and everything in it.
	export EVIL_DIR
	EVIL_DIR=$(mktemp -d /tmp/prof-t0820.XXXXXX)
	chmod 755 "$EVIL_DIR"
	cat >"$EVIL_DIR/evil.c" <<'EOF'
/* Threads named with terminal escapes, burning CPU in a function whose
 * symbol gets escapes too (objcopy --redefine-sym below). */
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noinline)) void evil_placeholder(void)
{
	for (unsigned long i = 0; i < 100000000ul; i++)
		sink += i * i;
}

static void *worker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "\033]0;pwn\007\033[2J");
	for (;;)
		evil_placeholder();
	return NULL;
}

int main(void)
{
	pthread_t t;

	prctl(PR_SET_NAME, "\033[31mmain\033[m");
	pthread_create(&t, NULL, worker, NULL);
	fprintf(stderr, "ready %d\n", (int)getpid());
	for (;;)
		evil_placeholder();
}
EOF
	gcc -O1 -g -fno-omit-frame-pointer -pthread -o "$EVIL_DIR/evil" "$EVIL_DIR/evil.c"
	objcopy --redefine-sym "evil_placeholder=$EVIL_SYM" "$EVIL_DIR/evil"
	# The probes example, its provider renamed with escapes (same length)
	# in its .note.stapsdt.
	python3 - "$EXAMPLES/usdt-app" "$EVIL_DIR/usdt-app" <<'EOF'
import sys
d = open(sys.argv[1], 'rb').read()
for name in (b'tick', b'gated'):
    d = d.replace(b'usdt_demo\0' + name + b'\0', b'usd\x1b[2J\x07x\0' + name + b'\0')
open(sys.argv[2], 'wb').write(d)
EOF
	chmod 755 "$EVIL_DIR/usdt-app"
	chown -R "$ATTACKER" "$EVIL_DIR"

	# The attacker starts it; root records it.
	as_user "$ATTACKER" "$EVIL_DIR/evil" 2>"$BATS_FILE_TMPDIR/evil.log" &
	local pid=
	for _ in $(seq 200); do
		pid=$(awk '/^ready/ { print $2 }' "$BATS_FILE_TMPDIR/evil.log" 2>/dev/null)
		[ -n "$pid" ] && break
		sleep 0.05
	done
	[ -n "$pid" ] || { echo "the attacker's program did not start" >&2; return 1; }
	export REC="$BATS_FILE_TMPDIR/evil.data"
	"$PROF" record --sched -p "$pid" -d 1.5 -o "$REC" 2>"$BATS_FILE_TMPDIR/record.err"
	kill "$pid"
	# A plain recording to damage (the threads example, known shares).
	export OK="$BATS_FILE_TMPDIR/ok.data"
	"$PROF" record -F 499 -o "$OK" -- "$EXAMPLES/threads" 1 2>/dev/null
}

teardown_file() {
	second_user_delete "$ATTACKER"
	rm -rf "$EVIL_DIR"
}

@test "the attacker's names are in the recording, escapes and all" {
	# Else the tests below would prove nothing.
	grep -c $'\x1b' "$REC"
	LC_ALL=C grep -qF "$EVIL_SYM" "$REC"
	LC_ALL=C grep -qF "$EVIL_THREAD" "$REC"
}

@test "sched --format csv: thread names without ESC, '?' in their place, CSV intact" {
	"$PROF" sched -i "$REC" --format csv >"$BATS_TEST_TMPDIR/sched.csv"
	no_control "$BATS_TEST_TMPDIR/sched.csv"
	grep -q ',?\]0;pwn??\[2J,' "$BATS_TEST_TMPDIR/sched.csv"
	grep -q ',?\[31mmain?\[m,' "$BATS_TEST_TMPDIR/sched.csv"
	# Every row still has the header's 19 fields.
	[ "$(awk -F, '{ print NF }' "$BATS_TEST_TMPDIR/sched.csv" | sort -u)" = 19 ]
}

@test "report --threads and --top: no ESC, '?' in its place" {
	"$PROF" report -i "$REC" --threads >"$BATS_TEST_TMPDIR/threads.txt"
	"$PROF" report -i "$REC" --top 10 >"$BATS_TEST_TMPDIR/top.txt"
	no_control "$BATS_TEST_TMPDIR/threads.txt" "$BATS_TEST_TMPDIR/top.txt"
	[ "$(grep -c $'\x1b' "$BATS_TEST_TMPDIR/threads.txt")" -eq 0 ]
	# Folded text: ';' is ':' in names, control bytes are '?'.
	grep -q '^?\]0:pwn??\[2J;.*evil?\]0:pwned??\[2J [0-9]*$' "$BATS_TEST_TMPDIR/threads.txt"
	grep -q ' evil?\]0:pwned??\[2J$' "$BATS_TEST_TMPDIR/top.txt"
}

@test "report --header: how the file was made, control bytes as '?'" {
	local rec="$BATS_TEST_TMPDIR/"$'\e[2J'"x.data"
	"$PROF" record -q -F 499 -o "$rec" -- "$EXAMPLES/threads" 0.3
	"$PROF" report --header -i "$rec" >"$BATS_TEST_TMPDIR/header.txt"
	"$PROF" report --header -i "$REC" >>"$BATS_TEST_TMPDIR/header.txt"
	no_control "$BATS_TEST_TMPDIR/header.txt"
	grep -q '^cmdline: record -q -F 499 -o .*/?\[2Jx\.data -- .*/threads 0\.3$' \
		"$BATS_TEST_TMPDIR/header.txt"
	grep -Eq '^samples: [1-9][0-9]*$' "$BATS_TEST_TMPDIR/header.txt"
	grep -q '^sched: yes$' "$BATS_TEST_TMPDIR/header.txt"
	# not a recording: refused
	printf 'a;b 1\n' >"$BATS_TEST_TMPDIR/f.folded"
	run "$PROF" report --header -i "$BATS_TEST_TMPDIR/f.folded"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--header needs a recording"* ]]
}

@test "annotate: the escaped symbol's listing holds no control byte" {
	run --separate-stderr "$PROF" annotate -i "$REC" "$EVIL_SYM"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/annotate.out"
	printf '%s\n' "$stderr" >"$BATS_TEST_TMPDIR/annotate.err"
	no_control "$BATS_TEST_TMPDIR/annotate.out" "$BATS_TEST_TMPDIR/annotate.err"
	[[ "${lines[0]}" == "evil?]0;pwned??[2J  $EVIL_DIR/evil" ]]
	# Its source lines are shown (and cleaned) too.
	grep -q 'evil.c:[0-9]*  sink += i \* i;' "$BATS_TEST_TMPDIR/annotate.out"
	# A near miss lists close names on stderr: cleaned as well.
	run --separate-stderr "$PROF" annotate -i "$REC" "evil"
	[ "$status" -eq 1 ]
	printf '%s\n' "$stderr" >"$BATS_TEST_TMPDIR/miss.err"
	no_control "$BATS_TEST_TMPDIR/miss.err"
	[[ "$stderr" == *"close names: evil?]0;pwned??[2J"* ]]
}

@test "error messages quote names cleaned" {
	run --separate-stderr "$PROF" annotate -i "$REC" $'nosuch\033[2J\nfake line'
	[ "$status" -eq 1 ]
	printf '%s\n' "$stderr" >"$BATS_TEST_TMPDIR/err.txt"
	no_control "$BATS_TEST_TMPDIR/err.txt"
	[[ "$stderr" == *"no function named 'nosuch?[2J?fake line'"* ]]
}

@test "probes: a provider named with escapes is listed cleaned, columns and tsv intact" {
	run --separate-stderr "$PROF" probes "$EVIL_DIR/usdt-app"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/probes.txt"
	no_control "$BATS_TEST_TMPDIR/probes.txt"
	[[ "$output" == *"usd?[2J?x  tick"* ]]
	"$PROF" probes --format tsv "$EVIL_DIR/usdt-app" >"$BATS_TEST_TMPDIR/probes.tsv"
	# Tabs separate the 8 fields; none comes from a name.
	[ "$(awk -F'\t' '{ print NF }' "$BATS_TEST_TMPDIR/probes.tsv" | sort -u)" = 8 ]
	[ "$(tr -d '\t' <"$BATS_TEST_TMPDIR/probes.tsv" | LC_ALL=C grep -c $'[\x01-\x09\x0b-\x1f]')" -eq 0 ]
}

@test "perf script: a period sum past 2^64 - 1 fails, it does not saturate" {
	printf 'prog 5/5 1.000: 18446744073709551615 cycles:\n\t1 a (/x)\n\nprog 5/5 1.001: 1 cycles:\n\t1 b (/x)\n\n' \
		>"$BATS_TEST_TMPDIR/sum.txt"
	run --separate-stderr "$PROF" report --period -i "$BATS_TEST_TMPDIR/sum.txt"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "prof report: '$BATS_TEST_TMPDIR/sum.txt': the periods add up to more than 2^64 - 1 at line 4; prof does not round or wrap them" ]
	# By default too (periods weigh, as stackcollapse-perf.pl weighs them).
	run "$PROF" report -i "$BATS_TEST_TMPDIR/sum.txt"
	[ "$status" -eq 1 ]
	# With --no-period each sample counts 1: fine.
	run "$PROF" report -i "$BATS_TEST_TMPDIR/sum.txt" --no-period
	[ "$status" -eq 0 ]
}

@test "perf script: a pid of 2^32 + 5 fails, it does not become 4294967295" {
	printf 'prog 4294967301/5 1.000: 1 cycles:\n\t1 a (/x)\n\n' >"$BATS_TEST_TMPDIR/pid.txt"
	run --separate-stderr "$PROF" report --tids -i "$BATS_TEST_TMPDIR/pid.txt"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "prof report: '$BATS_TEST_TMPDIR/pid.txt': line 1 has a pid or tid above 2147483647, which no process has; prof does not wrap or clamp ids" ]
	# A tid too, after a good sample.
	printf 'prog 5/5 1.000: 1 cycles:\n\t1 a (/x)\n\nprog 5/4294967301 1.000: 1 cycles:\n\t1 a (/x)\n' \
		>"$BATS_TEST_TMPDIR/tid.txt"
	run --separate-stderr "$PROF" report -i "$BATS_TEST_TMPDIR/tid.txt"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == *"line 4 has a pid or tid above 2147483647"* ]]
}

@test "recording: a bad size field mid-file is corrupt, not a stopped recorder" {
	local bad="$BATS_TEST_TMPDIR/bad-size.data" off
	cp "$OK" "$bad"
	# The third chunk's size field says 2 GB; chunks follow it.
	off=$(chunks "$OK" | awk 'NR == 3 { print $1 }')
	printf '\377\377\377\177' | dd of="$bad" bs=1 seek=$((off + 4)) conv=notrunc 2>/dev/null
	run --separate-stderr "$PROF" report -i "$bad"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"is corrupt: corrupt chunk at byte $off (its size, 2147483647 bytes, runs past the end of the file, and chunks follow it)"* ]]
	[[ "$stderr" != *stopped* && "$stderr" != *killed* ]]
	# The same in a file without its end mark (a recorder killed later).
	head -c -16 "$bad" >"$bad.noend"
	run --separate-stderr "$PROF" report -i "$bad.noend"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"corrupt chunk at byte $off"* ]]
}

@test "recording: a cut tail is a stopped recorder, and no claim of a kill" {
	local cut="$BATS_TEST_TMPDIR/cut.data" off size
	# Cut inside the last samples chunk.
	read -r off size < <(chunks "$OK" | awk '$2 == 7 { o = $1; s = $3 } END { print o, s }')
	head -c $((off + 16 + size / 2)) "$OK" >"$cut"
	run --separate-stderr "$PROF" report -i "$cut"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"is incomplete (its recorder stopped at byte $off before finishing: killed, or its disk filled); showing what it holds"* ]]
	[[ "$stderr" != *corrupt* ]]
}

@test "recording: a samples chunk written twice is counted once, with a warning" {
	local dup="$BATS_TEST_TMPDIR/dup.data" off size want got
	read -r off size < <(chunks "$OK" | awk '$2 == 7 { print $1, $3; exit }')
	# The chunk, CRC and all, inserted again right after itself.
	{ head -c $((off + 16 + size)) "$OK"; tail -c +$((off + 1)) "$OK"; } >"$dup"
	[ $(($(stat -c %s "$dup") - $(stat -c %s "$OK"))) -eq $((16 + size)) ]
	want=$("$PROF" report -i "$OK" 2>/dev/null | folded_total)
	run --separate-stderr "$PROF" report -i "$dup"
	[ "$status" -eq 0 ]
	got=$(printf '%s\n' "$output" | folded_total)
	[ "$got" -eq "$want" ]
	[[ "$stderr" == *"holds 1 duplicated chunk (the first at byte $((off + 16 + size)) copies the one at byte $off): skipped, not counted twice"* ]]
	# The undamaged file says nothing of the kind.
	run --separate-stderr "$PROF" report -i "$OK"
	[[ "$stderr" != *duplicated* ]]
}

@test "recording: a disk that fills ends the file in STOP, and readers name the error" {
	local small="$BATS_TEST_TMPDIR/small" rc last
	mkdir "$small"
	mount -t tmpfs -o size=16k tmpfs "$small" || skip "cannot mount a tmpfs"
	run --separate-stderr "$PROF" record -F 999 --no-defer -o "$small/full.data" -- "$EXAMPLES/threads" 2
	rc=$status
	cp "$small/full.data" "$BATS_TEST_TMPDIR/full.data" || true
	umount "$small"
	echo "$stderr"
	[ "$rc" -eq 1 ]
	[[ "$stderr" == *"No space left on device"* ]]
	# The partial chunk was cut off and a STOP chunk (type 16) ends the file.
	last=$(chunks "$BATS_TEST_TMPDIR/full.data" | tail -n 1)
	echo "last chunk: $last"
	[ "$(echo "$last" | awk '{ print $2 }')" -eq 16 ]
	run --separate-stderr "$PROF" report -i "$BATS_TEST_TMPDIR/full.data"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"is incomplete (its recorder stopped writing at byte "*": No space left on device)"* ]]
	[[ "$stderr" != *killed* ]]
}
