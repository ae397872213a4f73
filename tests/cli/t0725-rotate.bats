#!/usr/bin/env bats
# t0725: continuous recording (`prof record --rotate SECONDS -o DIR/ [--keep
# AGE|SIZE]`) and the readers of many recordings and time ranges (`prof
# report -i DIR`, `-i A -i B`, `--since/--until`, `prof diff --old-since`).
# examples/hotloop is recorded rotated and, at the same time, by a second,
# unrotated recorder; examples/phases (whose hot function changes at times
# it prints on CLOCK_MONOTONIC) is recorded once for the time ranges.

load helpers
bats_require_minimum_version 1.5.0

setup_file() {
	export ROT="$BATS_FILE_TMPDIR/rot" ONE="$BATS_FILE_TMPDIR/one.data"
	export PH="$BATS_FILE_TMPDIR/phases.data" PHOUT="$BATS_FILE_TMPDIR/phases.out"
	"$EXAMPLES/hotloop" 60 2>/dev/null &
	local pid=$! one
	"$PROF" record -q -F 499 -p "$pid" -d 5 -o "$ONE" 2>"$BATS_FILE_TMPDIR/one.err" &
	one=$!
	"$PROF" record -F 499 -p "$pid" --rotate 1 -d 5 -o "$ROT/" 2>"$BATS_FILE_TMPDIR/rot.err"
	wait "$one"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	"$PROF" record -q -o "$PH" -- "$EXAMPLES/phases" 1000 1000 >"$PHOUT" \
		2>"$BATS_FILE_TMPDIR/phases.err"
}

teardown() {
	[ -z "${BG:-}" ] || kill "$BG" 2>/dev/null || true
}

# meta KEY FILE: a META value as `prof report --header` prints it.
meta() {
	"$PROF" report --header -i "$2" 2>/dev/null | awk -v k="$1:" '$1 == k { print $2, $3 }'
}

# The leaf functions of folded text (stdin), "FUNCTION COUNT", summed.
leaves() {
	awk '{ n = $NF; k = split($0, f, ";"); sub(/ [0-9]+$/, "", f[k]); s[f[k]] += n }
	     END { for (x in s) print x, s[x] }' | sort
}

@test "--rotate 1: a complete recording per period, named by its UTC start, 0600 in a 0700 dir" {
	run ls "$ROT"
	[ "${#lines[@]}" -eq 5 ]
	for f in "${lines[@]}"; do [[ $f =~ ^prof-[0-9]{8}T[0-9]{6}Z(-[1-9])?\.data$ ]]; done
	[ "$(stat -c %a "$ROT")" = 700 ]
	for f in "$ROT"/*; do
		[ "$(stat -c %a "$f")" = 600 ]
		"$PROF" report -i "$f" --header | grep -q '^symbolized: yes'
		! "$PROF" report -i "$f" 2>&1 >/dev/null | grep -q incomplete
	done
	# one summary line per file (a period begun late on a loaded machine
	# says so: shown, not judged; the totals are, in the next test)
	[ "$(grep -c ' samples, ' "$BATS_FILE_TMPDIR/rot.err")" -eq 5 ]
	grep missing "$BATS_FILE_TMPDIR/rot.err" >&2 || true
}

@test "--rotate: every sample in exactly one file: periods contiguous, samples inside, total as an unrotated recorder's" {
	local prev_end="" f w start s u n sum=0 total
	for f in "$ROT"/*; do
		w=$(meta rotate-window-ns "$f")
		start=$(meta start-monotonic-ns "$f")
		set -- $w
		if [ -n "$prev_end" ]; then [ "$1" = "$prev_end" ]; fi
		prev_end=$2
		n=$("$PROF" report -i "$f" 2>/dev/null | folded_total)
		# the file's samples, cut to its own period: all of them
		s=$(awk -v a="$1" -v b="$start" 'BEGIN { printf "%.9f", (a > b ? (a - b) / 1e9 : 0) }')
		u=$(awk -v a="$2" -v b="$start" 'BEGIN { printf "%.9f", (a - b) / 1e9 }')
		[ "$("$PROF" report -i "$f" --since "$s" --until "$u" 2>/dev/null | folded_total)" -eq "$n" ]
		sum=$((sum + n))
	done
	total=$("$PROF" report -i "$ONE" | folded_total)
	echo "rotated $sum, unrotated $total" >&2
	# two recorders' independent samples of the same CPU time: within 15%
	# and three standard deviations of counting noise (few samples when
	# the machine starves the workload)
	awk -v a="$sum" -v b="$total" 'BEGIN { d = a - b; if (d < 0) d = -d
		exit !(b > 0 && d <= 0.15 * b + 3 * sqrt(a + b)) }'
}

@test "report -i DIR: the merged report equals the sum of the per-file reports, stack by stack" {
	local f
	for f in "$ROT"/*; do "$PROF" report -i "$f"; done |
		awk '{ n = $NF; $NF = ""; s[$0] += n } END { for (k in s) print k s[k] }' |
		sed 's/  */ /g' | sort >"$BATS_TEST_TMPDIR/sum"
	"$PROF" report -i "$ROT" | sed 's/  */ /g' | sort >"$BATS_TEST_TMPDIR/merged"
	diff -u "$BATS_TEST_TMPDIR/sum" "$BATS_TEST_TMPDIR/merged"
	# -i A -i B: the same as a directory holding A and B
	set -- "$ROT"/*
	"$PROF" report -i "$1" -i "$2" | folded_total >"$BATS_TEST_TMPDIR/two"
	[ "$(cat "$BATS_TEST_TMPDIR/two")" -eq \
	  "$(( $("$PROF" report -i "$1" | folded_total) + $("$PROF" report -i "$2" | folded_total) ))" ]
	# svg and check read a directory too
	"$PROF" svg -i "$ROT" -o "$BATS_TEST_TMPDIR/m.svg"
	grep -q hot_function "$BATS_TEST_TMPDIR/m.svg"
	run "$PROF" check -i "$ROT" "'hot_function' >= 50%"
	[ "$status" -eq 0 ]
}

# The program's clock: "START END" of phase NAME's first run, in seconds
# from the recording's start.
phase_range() {
	local start
	start=$(meta start-monotonic-ns "$PH")
	awk -v p="$1" -v s="$start" '$2 == p && !done { printf "%.3f %.3f\n", ($4 - s) / 1e9, ($5 - s) / 1e9; done = 1 }' "$PHOUT"
}

@test "--since/--until on examples/phases select the phase the program ran then" {
	local a b
	read -r as ae <<<"$(phase_range phase_a)"
	read -r bs be <<<"$(phase_range phase_b)"
	# a little inside each phase: a sample at the very switch may be either
	"$PROF" report -i "$PH" --since "$(awk -v x="$bs" 'BEGIN { print x + 0.05 }')" \
		--until "$(awk -v x="$be" 'BEGIN { print x - 0.05 }')" | leaves >"$BATS_TEST_TMPDIR/b"
	cat "$BATS_TEST_TMPDIR/b" >&2
	! grep -q '^burn_a ' "$BATS_TEST_TMPDIR/b"
	b=$(awk '$1 == "burn_b" { print $2 }' "$BATS_TEST_TMPDIR/b")
	[ "${b:-0}" -gt 20 ]
	"$PROF" report -i "$PH" --until "$(awk -v x="$ae" 'BEGIN { print x - 0.05 }')" | leaves \
		>"$BATS_TEST_TMPDIR/a"
	! grep -q '^burn_[bc] ' "$BATS_TEST_TMPDIR/a"
	a=$(awk '$1 == "burn_a" { print $2 }' "$BATS_TEST_TMPDIR/a")
	[ "${a:-0}" -gt 20 ]
	# the two ranges add up to the same range read whole
	local all one two
	all=$("$PROF" report -i "$PH" --since 0.5 --until "$be" | folded_total)
	one=$("$PROF" report -i "$PH" --since 0.5 --until "$bs" | folded_total)
	two=$("$PROF" report -i "$PH" --since "$bs" --until "$be" | folded_total)
	[ "$all" -eq $((one + two)) ]
}

@test "--since/--until as UTC times of day and ISO times: the same samples as seconds" {
	local wall bs be s_ms u_ms rel_s rel_u
	wall=$(meta start-time-ns "$PH")
	read -r bs be <<<"$(phase_range phase_b)"
	# wall-clock times (whole ms) inside phase b, and the same moments in
	# seconds from the start, to the ns (bash's 64-bit integers)
	s_ms=$(awk -v w="$wall" -v x="$bs" 'BEGIN { printf "%.0f", int(w / 1e6) + (x + 0.1) * 1000 }')
	u_ms=$(awk -v w="$wall" -v x="$be" 'BEGIN { printf "%.0f", int(w / 1e6) + (x - 0.1) * 1000 }')
	rel_s=$((s_ms * 1000000 - wall))
	rel_u=$((u_ms * 1000000 - wall))
	rel_s=$(printf '%d.%09d' $((rel_s / 1000000000)) $((rel_s % 1000000000)))
	rel_u=$(printf '%d.%09d' $((rel_u / 1000000000)) $((rel_u % 1000000000)))
	"$PROF" report -i "$PH" --since "$rel_s" --until "$rel_u" >"$BATS_TEST_TMPDIR/rel"
	"$PROF" report -i "$PH" --since "$(date -u -d "@${s_ms:0:-3}.${s_ms: -3}" +%H:%M:%S.%3N)" \
		--until "$(date -u -d "@${u_ms:0:-3}.${u_ms: -3}" +%H:%M:%S.%3N)" >"$BATS_TEST_TMPDIR/clock"
	"$PROF" report -i "$PH" --since "$(date -u -d "@${s_ms:0:-3}.${s_ms: -3}" +%Y-%m-%dT%H:%M:%S.%3NZ)" \
		--until "$(date -u -d "@${u_ms:0:-3}.${u_ms: -3}" +%Y-%m-%dT%H:%M:%S.%3NZ)" >"$BATS_TEST_TMPDIR/iso"
	[ -s "$BATS_TEST_TMPDIR/rel" ]
	diff -u "$BATS_TEST_TMPDIR/rel" "$BATS_TEST_TMPDIR/clock"
	diff -u "$BATS_TEST_TMPDIR/rel" "$BATS_TEST_TMPDIR/iso"
}

@test "diff --old-until T --since T: the switch from burn_a to burn_b" {
	read -r as ae <<<"$(phase_range phase_a)"
	read -r bs be <<<"$(phase_range phase_b)"
	run "$PROF" diff --raw --old-until "$(awk -v x="$ae" 'BEGIN { print x - 0.05 }')" \
		--since "$(awk -v x="$bs" 'BEGIN { print x + 0.05 }')" \
		--until "$(awk -v x="$be" 'BEGIN { print x - 0.05 }')" "$PH" "$PH"
	[ "$status" -eq 0 ]
	# burn_a: only OLD; burn_b: only NEW
	echo "$output" | awk '$0 ~ /;burn_a / { if ($(NF - 1) == 0 || $NF != 0) bad = 1; a = 1 }
		$0 ~ /;burn_b / { if ($(NF - 1) != 0 || $NF == 0) bad = 1; b = 1 }
		END { exit bad || !a || !b }'
}

@test "--keep AGE and --keep SIZE bound the files while recording; only prof's files go" {
	"$EXAMPLES/hotloop" 60 2>/dev/null &
	BG=$!
	local dir="$BATS_TEST_TMPDIR/keep" max=0 n victim="$BATS_TEST_TMPDIR/victim" rec
	mkdir -m 700 "$dir"
	echo precious >"$victim"
	# a symlink with the pattern's name, and an old file of the pattern's
	# name that is not prof's (another owner): both stay
	ln -s "$victim" "$dir/prof-20000101T000000Z.data"
	if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
		echo theirs >"$dir/prof-20000101T000001Z.data"
		chown nobody "$dir/prof-20000101T000001Z.data"
		touch -d 2000-01-01 "$dir/prof-20000101T000001Z.data"
	fi
	"$PROF" record -q -p "$BG" --rotate 1 --keep 2 -d 12 -o "$dir" &
	rec=$!
	# files beyond those whose recorders still run (written, or being
	# finished): at most the files of the last 2 s, and the period pruning
	# waits for
	local kids
	while kill -0 "$rec" 2>/dev/null; do
		kids=$(pgrep -c -P "$rec" || true)
		n=$(find "$dir" -name 'prof-2026*.data' -o -name 'prof-20[3-9]*.data' | wc -l)
		((n - kids > max)) && max=$((n - kids))
		sleep 0.2
	done
	wait "$rec"
	n=$(find "$dir" -type f -user "$(id -u)" -name 'prof-*.data' | wc -l)
	echo "at most $max finished files at once, $n at the end, of 12 periods" >&2
	# (a loaded machine finishes several at once: one more)
	((max <= 5))
	((n <= 5 && n >= 1))
	[ -L "$dir/prof-20000101T000000Z.data" ]
	[ "$(cat "$victim")" = precious ]
	if [ -e "$dir/prof-20000101T000001Z.data" ]; then
		[ "$(cat "$dir/prof-20000101T000001Z.data")" = theirs ]
	fi
	# by size: what is left adds up to at most the bound
	local sdir="$BATS_TEST_TMPDIR/size" bytes
	"$PROF" record -q -p "$BG" --rotate 1 --keep 6K -d 4 -o "$sdir/"
	bytes=$(find "$sdir" -name 'prof-*.data' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	echo "$bytes bytes left" >&2
	((bytes <= 6144 && bytes > 0))
}

@test "hostile DIR: a symlink, another user's, one others can write: refused; planted names untouched" {
	local d="$BATS_TEST_TMPDIR/h" real="$BATS_TEST_TMPDIR/real"
	mkdir -m 700 "$real"
	ln -s "$real" "$d"
	run "$PROF" record -p $$ --rotate 1 -d 1 -o "$d/"
	[ "$status" -eq 1 ]
	[[ $output == *"is a symlink"* ]]
	[ -z "$(ls "$real")" ]
	mkdir -m 777 "$BATS_TEST_TMPDIR/open"
	run "$PROF" record -p $$ --rotate 1 -d 1 -o "$BATS_TEST_TMPDIR/open"
	[ "$status" -eq 1 ]
	[[ $output == *"others can write"* ]]
	if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
		mkdir -m 700 "$BATS_TEST_TMPDIR/theirs"
		chown nobody "$BATS_TEST_TMPDIR/theirs"
		run "$PROF" record -p $$ --rotate 1 -d 1 -o "$BATS_TEST_TMPDIR/theirs"
		[ "$status" -eq 1 ]
		[[ $output == *"another user"* ]]
	fi
	# files planted under the names of the next seconds: kept as they
	# were, the recordings take other names
	local p="$BATS_TEST_TMPDIR/planted" now i name
	mkdir -m 700 "$p"
	now=$(date -u +%s)
	for i in 0 1 2 3 4; do
		name=$(date -u -d "@$((now + i))" +prof-%Y%m%dT%H%M%SZ.data)
		echo planted >"$p/$name"
	done
	"$EXAMPLES/hotloop" 10 2>/dev/null &
	BG=$!
	"$PROF" record -q -p "$BG" --rotate 1 -d 2 -o "$p"
	for i in 0 1 2 3 4; do
		name=$(date -u -d "@$((now + i))" +prof-%Y%m%dT%H%M%SZ.data)
		[ "$(cat "$p/$name")" = planted ]
	done
	ls "$p" | grep -Eq -- '-1\.data$'
}

@test "readers: an empty directory, a range without samples, a corrupt file among several" {
	mkdir "$BATS_TEST_TMPDIR/empty"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/empty"
	[ "$status" -eq 1 ]
	[[ $output == *"holds no recordings"* ]]
	run "$PROF" report -i "$PH" --since 3600
	[ "$status" -eq 1 ]
	[[ $output == *"no samples"*"between 3600 and the end"* ]]
	run "$PROF" report -i "$PH" --since 2 --until 1
	[ "$status" -eq 2 ]
	run "$PROF" report -i "$PH" --since yesterday
	[ "$status" -eq 2 ]
	local d="$BATS_TEST_TMPDIR/mixed" good bad
	mkdir "$d"
	cp "$ROT"/* "$d/"
	set -- "$d"/*
	good=$(for f in "${@:2}"; do "$PROF" report -i "$f"; done | folded_total)
	# damage a chunk's payload in the middle of the first file
	printf 'XXXXXXXXXXXXXXXX' | dd of="$1" bs=1 seek=200 conv=notrunc 2>/dev/null
	run --separate-stderr "$PROF" report -i "$d"
	[ "$status" -eq 0 ]
	[[ $stderr == *"skipped"*"corrupt"* ]]
	[ "$(echo "$output" | folded_total)" -eq "$good" ]
}

@test "--rotate on a full disk: the period's failure is said, recording goes on" {
	local d="$BATS_TEST_TMPDIR/full" rec
	mkdir -m 700 "$d"
	mount -t tmpfs -o size=256k,mode=0700 tmpfs "$d" || skip "cannot mount a tmpfs"
	dd if=/dev/zero of="$d/filler" bs=4k count=1000 2>/dev/null || true
	"$EXAMPLES/hotloop" 30 2>/dev/null &
	BG=$!
	"$PROF" record -p "$BG" --rotate 1 -d 4 -o "$d" 2>"$BATS_TEST_TMPDIR/err" &
	rec=$!
	# room again once a period has failed
	wait_until 30 grep -q 'recording goes on' "$BATS_TEST_TMPDIR/err" || true
	rm -f "$d/filler"
	wait "$rec" || { cat "$BATS_TEST_TMPDIR/err"; umount "$d"; false; }
	cat "$BATS_TEST_TMPDIR/err" >&2
	ls -la "$d" >&2
	local ok n
	grep -q 'No space left on device' "$BATS_TEST_TMPDIR/err" &&
		grep -q 'recording goes on' "$BATS_TEST_TMPDIR/err" && ok=1
	n=$("$PROF" report -i "$d" 2>/dev/null | folded_total)
	umount "$d"
	[ "${ok:-0}" = 1 ]
	((n > 0))
}
