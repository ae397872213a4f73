#!/usr/bin/env bats
# t0830: issue 15, finding 9: pathological folded input written by another
# local user, read by root's prof. Past the limits no real profile reaches
# (docs/prof-report.md, Limits) prof fails with one line, in memory a
# small multiple of the input, instead of taking gigabytes and minutes:
#   - a line of 26M frames (52 MB): report took 870 MB, svg 1.6 GB and
#     120 s; now both exit 1 at the line's 16385th frame;
#   - a stack 1M frames deep (7.9 MB) made a 118 MB SVG; now refused, and
#     a stack of 10,000 frames (within the reader's limit) is drawn cut at
#     4096 rows, with a note in the page;
#   - the same 26M frames as 1587 real-looking lines of 16,384 frames are
#     read, in about 3 times the input's size.
# The attacker (prof-t0830) writes the files into a directory it owns.
# Maximum RSS through /usr/bin/time (Debian's time, installed by make deps).

load helpers
bats_require_minimum_version 1.5.0

ATTACKER=prof-t0830

setup_file() {
	second_user_create "$ATTACKER"
	# a directory of the attacker's own under /tmp (bats' temporary
	# directories are root's, closed to other users)
	DIR=$(mktemp -d /tmp/prof-t0830.XXXXXX)
	export DIR
	chown "$ATTACKER" "$DIR"
	chmod 755 "$DIR"
	as_user "$ATTACKER" perl -e '
		my $d = shift;
		sub put { open(my $f, ">", "$d/$_[0]") or die; print $f $_[1]; close $f }
		put("wide.folded", join(";", ("a") x 26000000) . " 1\n");
		put("deep.folded", join(";", map { "f$_" } 1 .. 1000000) . " 1\n");
		put("tower.folded", join(";", map { "f$_" } 1 .. 10000) . " 7\nmain;leaf 3\n");
		put("many.folded", join("", map { join(";", ("a") x 16383) . ";b$_ 1\n" } 1 .. 1587));
	' "$DIR"
}

teardown_file() {
	second_user_delete "$ATTACKER"
	[ -z "${DIR:-}" ] || rm -rf "$DIR"
}

# Runs prof ARGS... as root, its maximum RSS in KB into $rss.
prof_rss() {
	run --separate-stderr /usr/bin/time -f '%M' -o "$BATS_TEST_TMPDIR/rss" "$PROF" "$@"
	rss=$(tail -1 "$BATS_TEST_TMPDIR/rss")
}

# KB of a file.
kb() {
	echo $(($(stat -c %s "$1") / 1024))
}

@test "the attacker owns the hostile inputs" {
	[ "$(stat -c %U "$DIR/wide.folded")" = "$ATTACKER" ]
	[ "$(stat -c %s "$DIR/wide.folded")" -eq 52000002 ]
	[ "$(stat -c %U "$DIR/deep.folded")" = "$ATTACKER" ]
}

@test "report: a 26M-frame line fails with one line, in memory a small multiple of the input" {
	prof_rss report -i "$DIR/wide.folded"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${stderr_lines[0]}" = "prof report: '$DIR/wide.folded': line 1 has more than 16384 frames, the most prof reads in a stack (no real stack is that deep)" ]
	# the input is read whole (52 MB); before, 870 MB
	assert_between "maximum RSS (KB)" "$rss" 1 $((3 * $(kb "$DIR/wide.folded")))
}

@test "svg: a 26M-frame line fails with one line, in bounded memory, no graph" {
	prof_rss svg -i "$DIR/wide.folded" -o "$BATS_TEST_TMPDIR/wide.svg"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${stderr_lines[0]}" = "prof svg: '$DIR/wide.folded': line 1 has more than 16384 frames, the most prof reads in a stack (no real stack is that deep)" ]
	assert_between "maximum RSS (KB)" "$rss" 1 $((3 * $(kb "$DIR/wide.folded")))
	[ ! -s "$BATS_TEST_TMPDIR/wide.svg" ]
}

@test "a stack 1M frames deep: svg and report fail with one line (was a 118 MB SVG)" {
	prof_rss svg -i "$DIR/deep.folded" -o "$BATS_TEST_TMPDIR/deep.svg"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "${stderr_lines[0]}" == "prof svg: '$DIR/deep.folded': line 1 has more than 16384 frames"* ]]
	[ ! -s "$BATS_TEST_TMPDIR/deep.svg" ]
	run --separate-stderr "$PROF" report -i "$DIR/deep.folded"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "${stderr_lines[0]}" == "prof report: '$DIR/deep.folded': line 1 has more than 16384 frames"* ]]
}

@test "a 10,000-deep tower is drawn cut at 4096 rows, with a note in the page" {
	run --separate-stderr "$PROF" svg -i "$DIR/tower.folded" -o "$BATS_TEST_TMPDIR/tower.svg"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"warning: stacks cut at depth 4096 (the page says so)"* ]]
	svg=$BATS_TEST_TMPDIR/tower.svg
	grep -q 'data-rows="4096"' "$svg"
	grep -q '<text id="cut" x="50%" y="[0-9.]*">Stacks cut at depth 4096: 1 frame there and all above not drawn (at most 4096 rows and 1000000 frames)</text>' "$svg"
	# frames f1..f4095 drawn, f4096 and above not; main and leaf are
	grep -q '<title>f4095 (7 samples)</title>' "$svg"
	! grep -q '<title>f4096 ' "$svg"
	grep -q '<title>leaf (3 samples)</title>' "$svg"
	# about 100 bytes a frame: well under a megabyte
	assert_between "SVG size (KB)" "$(kb "$svg")" 1 1024
}

@test "26M frames in 1587 real-looking lines are read, in about 3 times the input" {
	# (ASan's shadow and quarantine take 6.7 times here: no bound on it)
	local bound=$((4 * $(kb "$DIR/many.folded")))
	[[ "$PROF" != *build-san* ]] || bound=$((100 * bound))
	prof_rss report -i "$DIR/many.folded"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1587 ]
	[ "$(printf '%s\n' "${lines[@]}" | folded_total)" -eq 1587 ]
	assert_between "maximum RSS (KB)" "$rss" 1 "$bound"
	prof_rss svg -i "$DIR/many.folded" -o "$BATS_TEST_TMPDIR/many.svg"
	[ "$status" -eq 0 ]
	assert_between "maximum RSS (KB)" "$rss" 1 "$bound"
	grep -q 'data-rows="4096"' "$BATS_TEST_TMPDIR/many.svg"
}

@test "perf script text: a sample 1M frames deep fails with one line, in bounded memory" {
	as_user "$ATTACKER" perl -e '
		open(my $f, ">", "$ARGV[0]") or die;
		print $f "prog 123/123 1.000000: 1 cpu-clock:\n";
		printf $f "\t%x f%d (/bin/x)\n", $_, $_ for 1 .. 1000000;
		print $f "\n";
	' "$DIR/deep.perf-script"
	prof_rss report -i "$DIR/deep.perf-script"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	[[ "$stderr" == *"the sample at line 1 has more than 16384 frames"* ]]
	echo "rss $rss KB, input $(kb "$DIR/deep.perf-script") KB"
	[ "$rss" -le $((3 * $(kb "$DIR/deep.perf-script") + 65536)) ]
}

@test "perf script text: a frame line without end fails with one line, streamed in bounded memory" {
	# 64 MiB of one frame line: the streamed reader would keep it whole
	as_user "$ATTACKER" perl -e '
		open(my $f, ">", "$ARGV[0]") or die;
		print $f "prog 123/123 1.000000: 1 cpu-clock:\n\t1 ";
		print $f "x" x 1048576 for 1 .. 64;
	' "$DIR/long.perf-script"
	prof_rss report -i "$DIR/long.perf-script"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	[[ "$stderr" == *"line 2 is longer than 1048576 bytes"* ]]
	echo "rss $rss KB, input $(kb "$DIR/long.perf-script") KB"
	[ "$rss" -le 32768 ]
}
