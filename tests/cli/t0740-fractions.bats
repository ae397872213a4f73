#!/usr/bin/env bats
# t0740: folded input with fractional counts ("main;foo 0.5", as
# flamegraph.pl sums them), kept exact (scaled integers, report.h): prof
# report prints the same decimals back, prof svg's frames are as wide as
# their counts and their titles say "0.5 samples", prof diff and prof check
# print fractional counts, pprof gets scaled integers with a unit that says
# so, speedscope float weights; a real recording's folded text with every
# count divided by 8 gives the same shares; too many decimals and sums past 64
# bits are clear errors; what flamegraph.pl ignores is a malformed line.

load helpers

setup_file() {
	export REC="$BATS_FILE_TMPDIR/threads.data"
	"$PROF" record -F 499 -o "$REC" -- "$EXAMPLES/threads" 1 40,20,10 2>/dev/null
}

# frame_attr NAME ATTR SVG: ATTR of the rect of the first frame named NAME.
frame_attr() {
	xmllint --xpath "string((//*[local-name()='g'][starts-with(*[local-name()='title'], '$1 (')])[1]/*[local-name()='rect']/@$2)" "$3"
}

frame_title() {
	xmllint --xpath "string((//*[local-name()='g'][starts-with(*[local-name()='title'], '$1 (')])[1]/*[local-name()='title'])" "$2"
}

@test "report: fractional counts are summed exactly and printed back as they were" {
	printf 'main;foo 0.5\nmain;bar 1.25\nmain;foo 0.25\nmain;baz 3\n' > "$BATS_TEST_TMPDIR/f"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/f"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'main;bar 1.25\nmain;baz 3\nmain;foo 0.75')" ]
	# the top table: exact counts, shares of 5
	run "$PROF" report -i "$BATS_TEST_TMPDIR/f" --top 10
	[ "$status" -eq 0 ]
	echo "$output" | grep -E '^ 15\.00% +15\.00% +0\.75 +0\.75 +foo$'
	echo "$output" | grep -E '^ +0\.00% +100\.00% +0 +5 +main$'
}

@test "report: a fraction first seen late rescales what came before it" {
	{ for i in $(seq 1 1000); do echo "main;int$((i % 7)) $i"; done; echo "main;late 0.001"; } \
		> "$BATS_TEST_TMPDIR/f"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/f"
	[ "$status" -eq 0 ]
	echo "$output" | grep -qx 'main;late 0.001'
	# every integer sum kept exact
	diff <(echo "$output" | grep -v late) \
		<(awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' "$BATS_TEST_TMPDIR/f" |
			grep -v late | LC_ALL=C sort)
}

@test "report: flamegraph.pl's non-counts are malformed lines; '1.' is 1" {
	printf 'a 1\nb .5\nc 1e3\nd -1\ne nan\nf 1.\n' > "$BATS_TEST_TMPDIR/f"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/f"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -v warning)" = "$(printf 'a 1\nf 1')" ]
	echo "$output" | grep -q 'skipped 4 malformed lines of .* (first: line 2)'
}

@test "report: more than 6 decimals and sums past 2^64 - 1 are errors, exit 1" {
	printf 'a 1\nb 0.1234567\n' > "$BATS_TEST_TMPDIR/f"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/f"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	echo "$output" | grep -q "line 2 has a count with more than 6 decimals"
	printf 'a 18446744073709551615\nb 1\n' > "$BATS_TEST_TMPDIR/f"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/f"
	[ "$status" -eq 1 ]
	echo "$output" | grep -q "add up to more than 2^64 - 1 at line 2"
	# 2^64 - 1 in tenths does not fit once a fraction comes
	printf 'a 2000000000000000000\nb 0.5\n' > "$BATS_TEST_TMPDIR/f"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/f"
	[ "$status" -eq 1 ]
	echo "$output" | grep -q "at line 2"
}

@test "svg: widths in proportion to fractional counts, titles with the decimals" {
	printf 'main;foo 0.5\nmain;bar 1.5\n' | "$PROF" svg -o "$BATS_TEST_TMPDIR/f.svg"
	foo=$(frame_attr foo width "$BATS_TEST_TMPDIR/f.svg")
	bar=$(frame_attr bar width "$BATS_TEST_TMPDIR/f.svg")
	[ "$foo" -gt 0 ]
	[ "$bar" -eq $((3 * foo)) ]
	[ "$(frame_title foo "$BATS_TEST_TMPDIR/f.svg")" = "foo (0.5 samples)" ]
	[ "$(frame_title bar "$BATS_TEST_TMPDIR/f.svg")" = "bar (1.5 samples)" ]
	[ "$(frame_title all "$BATS_TEST_TMPDIR/f.svg")" = "all (2 samples)" ]
	[ "$(xmllint --xpath 'string(/*/@data-total)' "$BATS_TEST_TMPDIR/f.svg")" = 2 ]
}

@test "svg --diff: titles show fractional OLD, NEW and delta" {
	printf 'main;foo 1\nmain;bar 1\n' > "$BATS_TEST_TMPDIR/old"
	printf 'main;foo 0.5\nmain;bar 1.5\n' > "$BATS_TEST_TMPDIR/new"
	"$PROF" svg --diff "$BATS_TEST_TMPDIR/old" "$BATS_TEST_TMPDIR/new" -o "$BATS_TEST_TMPDIR/d.svg"
	frame_title foo "$BATS_TEST_TMPDIR/d.svg" | grep -q 'foo (0.5 samples; old 1, new 0.5, -0.5, -50.00%)'
	frame_title bar "$BATS_TEST_TMPDIR/d.svg" | grep -q 'bar (1.5 samples; old 1, new 1.5, +0.5, +50.00%)'
}

@test "diff: fractional and integer profiles on one scale; two-column fractions read back" {
	printf 'main;foo 1\nmain;bar 3\n' > "$BATS_TEST_TMPDIR/old"
	printf 'main;foo 0.5\nmain;qux 1.25\n' > "$BATS_TEST_TMPDIR/new"
	run "$PROF" diff --raw "$BATS_TEST_TMPDIR/old" "$BATS_TEST_TMPDIR/new"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'main;bar 3 0\nmain;foo 1 0.5\nmain;qux 0 1.25')" ]
	# normalized: OLD times 1.75 / 4, rounded at the finest decimal
	run "$PROF" diff "$BATS_TEST_TMPDIR/old" "$BATS_TEST_TMPDIR/new"
	[ "$output" = "$(printf 'main;bar 1.31 0\nmain;foo 0.44 0.5\nmain;qux 0 1.25')" ]
	# two-column input with fractions: each column is a folded profile
	printf 'main;a 0.5 1.25\nmain;b 2 0.75\n' > "$BATS_TEST_TMPDIR/two"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/two"
	[ "$output" = "$(printf 'main;a 1.25\nmain;b 0.75')" ]
	run "$PROF" report -i "$BATS_TEST_TMPDIR/two" --top 5
	echo "$output" | grep -E '^ +62\.50% +62\.50% +1\.25 +1\.25 +a$'
	"$PROF" svg --diff -i "$BATS_TEST_TMPDIR/two" -o "$BATS_TEST_TMPDIR/two.svg"
	frame_title a "$BATS_TEST_TMPDIR/two.svg" | grep -q 'a (1.25 samples; old 0.5, new 1.25, +0.75'
}

@test "check: shares and counts of fractional input, against a baseline too" {
	printf 'main;foo 0.5\nmain;bar 1.5\n' > "$BATS_TEST_TMPDIR/f"
	printf 'main;foo 1\nmain;bar 1\n' > "$BATS_TEST_TMPDIR/b"
	run "$PROF" check -i "$BATS_TEST_TMPDIR/f" "'foo' <= 25%" "'bar' <= 1 samples"
	[ "$status" -eq 1 ]
	echo "$output" | grep -qx "PASS  'foo' <= 25%  measured 25.00% (0.5 of 2 samples)"
	echo "$output" | grep -qx "FAIL  'bar' <= 1 samples  measured 1.5 samples (75.00% of 2 samples)"
	run "$PROF" check -i "$BATS_TEST_TMPDIR/f" -b "$BATS_TEST_TMPDIR/b" \
		"'bar' grew <= 0.5 samples" "'foo' grew <= -25pt" --format json
	[ "$status" -eq 0 ]
	echo "$output" | grep -q '"measured":0.5,"unit":"samples"'
	echo "$output" | grep -q '"matched":1.5,"total":2,"baseline_matched":1,"baseline_total":2'
}

@test "a real recording's folded text with every count divided by 8: same shares everywhere" {
	"$PROF" report -i "$REC" > "$BATS_TEST_TMPDIR/int"
	# n / 8 in at most 3 decimals, trailing zeros dropped. The recording has
	# only 6-13 stacks, so halving left no fraction at all in about one run
	# in a hundred; eighths leave none with odds under 1 in 250,000.
	awk '{ n = $NF; $NF = ""; v = sprintf("%.3f", n / 8); sub(/0+$/, "", v); sub(/\.$/, "", v)
		printf "%s%s\n", $0, v }' "$BATS_TEST_TMPDIR/int" > "$BATS_TEST_TMPDIR/half"
	grep -Eq '\.[0-9]+$' "$BATS_TEST_TMPDIR/half" # the test means something
	# read back: exactly the eighths
	diff <("$PROF" report -i "$BATS_TEST_TMPDIR/half") "$BATS_TEST_TMPDIR/half"
	# the top table's shares are the same (all of it, sorted: functions
	# with equal counts may come in another order from another input)
	diff <("$PROF" report -i "$REC" --top 100000 | awk '{ print $1, $2, $NF }' | sort) \
		<("$PROF" report -i "$BATS_TEST_TMPDIR/half" --top 100000 | awk '{ print $1, $2, $NF }' | sort)
	# check measures the same share
	a=$("$PROF" check -i "$REC" "'burn_alpha' <= 100%")
	b=$("$PROF" check -i "$BATS_TEST_TMPDIR/half" "'burn_alpha' <= 100%")
	[ "$(echo "$a" | awk '{ print $5 }')" = "$(echo "$b" | awk '{ print $5 }')" ]
}

@test "pprof: scaled integers with a unit that names the scale; speedscope: float weights" {
	PPROF=$(sh "$ROOT/tests/pprof/build-pprof.sh" "${PPROF_BUILD_DIR:-build}")
	printf 'main;foo 0.5\nmain;bar 1.25\n' > "$BATS_TEST_TMPDIR/f"
	"$PROF" report -i "$BATS_TEST_TMPDIR/f" --format pprof -o "$BATS_TEST_TMPDIR/f.pb.gz"
	run "$PPROF" -raw "$BATS_TEST_TMPDIR/f.pb.gz"
	[ "$status" -eq 0 ]
	echo "$output" | grep -qx 'samples/hundredths'
	run "$PPROF" -top "$BATS_TEST_TMPDIR/f.pb.gz"
	echo "$output" | grep -E '^ *125hundredths +71\.43% .* bar$'
	echo "$output" | grep -E '^ *50hundredths +28\.57% .* foo$'
	"$PROF" report -i "$BATS_TEST_TMPDIR/f" --format speedscope -o "$BATS_TEST_TMPDIR/f.json"
	node "$ROOT/tests/speedscope/validate.cjs" "$BATS_TEST_TMPDIR/f.json"
	grep -q '"endValue":1.75,' "$BATS_TEST_TMPDIR/f.json"
	grep -q '"weights":\[0.5,1.25\]' "$BATS_TEST_TMPDIR/f.json"
}
