#!/usr/bin/env bats
# t0300: prof svg on a real recording of the named-threads example and on
# folded text: per-thread graphs whose frame widths are the counts prof
# report prints (checked by parsing the SVG with xmllint), the same bytes
# every run, hostile names escaped, empty input an error, option errors,
# palette files, and the -h synopsis matching docs/prof-svg.md.

load helpers

setup_file() {
	export REC="$BATS_FILE_TMPDIR/threads.data"
	"$PROF" record -F 999 -o "$REC" -- "$EXAMPLES/threads" 2 2>"$BATS_FILE_TMPDIR/record.err"
}

# xpath EXPR FILE: the string value of an XPath 1.0 expression (the SVG
# namespace is the default one, hence local-name()).
xpath() {
	xmllint --xpath "$1" "$2"
}

G="//*[local-name()='svg'][@id='frames']/*[local-name()='g']"

# The rect attribute of the first frame whose title starts with "NAME (".
frame_attr() {
	xpath "string(($G[starts-with(*[local-name()='title'], '$1 (')])[1]/*[local-name()='rect']/@$2)" "$3"
}

@test "--threads: a root per thread, widths equal to prof report's counts" {
	out="$BATS_TEST_TMPDIR/threads.svg"
	run "$PROF" svg -i "$REC" --threads -o "$out"
	[ "$status" -eq 0 ]
	xmllint --noout "$out"
	folded=$("$PROF" report -i "$REC" --threads)
	total=$(echo "$folded" | folded_total)
	[ "$(xpath 'string(/*/@data-total)' "$out")" -eq "$total" ]
	[ "$(frame_attr all width "$out")" -eq "$total" ]
	for t in alpha beta pool-1 pool-2; do
		want=$(echo "$folded" | folded_sum "^$t;")
		got=$(frame_attr "$t" width "$out")
		[ "$got" -eq "$want" ] || { echo "$t: width $got, folded $want" >&2; return 1; }
	done
	# alpha's width is its share of the CPU the threads really used (the
	# example prints it at exit; built to be 4 of 8), and the hot leaf.
	want=$(awk '$1 == "cpu" { all += $3; if ($2 == "alpha") a = $3 } END { printf "%.3f", a / all }' \
		"$BATS_FILE_TMPDIR/record.err")
	got=$(ratio "$(frame_attr alpha width "$out")" "$total")
	assert_between "alpha share over its CPU share" "$(ratio "$got" "$want")" 0.85 1.15
	alpha=$(frame_attr alpha width "$out")
	burn=$(xpath "sum($G[starts-with(*[local-name()='title'], 'burn_alpha (')]/*[local-name()='rect']/@width)" "$out")
	assert_between "burn_alpha in alpha" "$(ratio "$burn" "$alpha")" 0.75 1.0
	# burn_alpha sits inside the alpha thread's span.
	ax=$(frame_attr alpha x "$out")
	bx=$(frame_attr burn_alpha x "$out")
	bw=$(frame_attr burn_alpha width "$out")
	[ "$bx" -ge "$ax" ] && [ $((bx + bw)) -le $((ax + alpha)) ]
}

@test "the same input gives the same bytes; stdout and -o agree" {
	"$PROF" svg -i "$REC" --threads -o "$BATS_TEST_TMPDIR/a.svg"
	"$PROF" svg -i "$REC" --threads -o "$BATS_TEST_TMPDIR/b.svg"
	cmp "$BATS_TEST_TMPDIR/a.svg" "$BATS_TEST_TMPDIR/b.svg"
	"$PROF" svg -i "$REC" --threads > "$BATS_TEST_TMPDIR/c.svg"
	cmp "$BATS_TEST_TMPDIR/a.svg" "$BATS_TEST_TMPDIR/c.svg"
	# Folded text through a pipe draws the same graph as the recording.
	"$PROF" report -i "$REC" --threads | "$PROF" svg > "$BATS_TEST_TMPDIR/d.svg"
	cmp "$BATS_TEST_TMPDIR/a.svg" "$BATS_TEST_TMPDIR/d.svg"
}

@test "--tids and filters work as in prof report" {
	out="$BATS_TEST_TMPDIR/tids.svg"
	"$PROF" svg -i "$REC" --tids --thread '^beta$' -o "$out"
	n=$(xpath "count($G[starts-with(*[local-name()='title'], 'beta/')])" "$out")
	[ "$n" -eq 1 ]
	[ "$(xpath "count($G[starts-with(*[local-name()='title'], 'alpha')])" "$out")" -eq 0 ]
	"$PROF" svg -i "$REC" --exclude burn_alpha -o "$out"
	[ "$(xpath "count($G[starts-with(*[local-name()='title'], 'burn_alpha (')])" "$out")" -eq 0 ]
	[ "$(xpath "count($G[starts-with(*[local-name()='title'], 'burn_beta (')])" "$out")" -ge 1 ]
}

@test "hostile names from folded stdin are escaped text, never markup" {
	out="$BATS_TEST_TMPDIR/hostile.svg"
	printf '%s\n' '<script>alert(1)</script>;a"b&c'"'"'d 3' 'x]]>y;<!--z 2' | "$PROF" svg > "$out"
	xmllint --noout "$out"
	[ "$(xpath "count(//*[local-name()='script'])" "$out")" -eq 1 ]
	[ "$(xpath "string(($G/*[local-name()='title'])[2])" "$out")" = '<script>alert(1)</script> (3 samples)' ]
	[ "$(xpath "string(($G/*[local-name()='title'])[3])" "$out")" = "a\"b&c'd (3 samples)" ]
	! grep -q '<script>alert' "$out"
}

@test "empty or fully filtered input: exit 1 with a message, no SVG" {
	run sh -c "printf '' | '$PROF' svg -o '$BATS_TEST_TMPDIR/e.svg'"
	[ "$status" -eq 1 ]
	[[ "$output" == *"nothing to draw"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/e.svg" ]
	run "$PROF" svg -i "$REC" --include no_such_function -o "$BATS_TEST_TMPDIR/f.svg"
	[ "$status" -eq 1 ]
	[[ "$output" == *"nothing to draw: the filters left none of the"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/f.svg" ]
}

@test "malformed folded lines are counted and reported with the first line number" {
	run sh -c "printf 'a;b 3\nno count here\na;c 2\n' | '$PROF' svg -o '$BATS_TEST_TMPDIR/m.svg'"
	[ "$status" -eq 0 ]
	[[ "$output" == *"skipped 1 malformed line"*"line 2"* ]]
	[ "$(frame_attr a width "$BATS_TEST_TMPDIR/m.svg")" -eq 5 ]
	run sh -c "printf 'junk\n' | '$PROF' svg -o '$BATS_TEST_TMPDIR/j.svg'"
	[ "$status" -eq 1 ]
}

@test "drawing options reach the SVG" {
	out="$BATS_TEST_TMPDIR/o.svg"
	printf 'main;f_[k] 1\nmain;g 999\n' | "$PROF" svg --width 900 --height 20 --title 'T & T' \
		--subtitle sub --inverted --colors java --countname bytes --minwidth 0 -o "$out"
	[ "$(xpath 'string(/*/@width)' "$out")" = 900 ]
	[ "$(xpath 'string(/*/@data-fh)' "$out")" = 20 ]
	[ "$(xpath "string(//*[@id='title'])" "$out")" = 'T & T' ]
	[ "$(xpath "string(//*[@id='subtitle'])" "$out")" = sub ]
	[ "$(frame_attr all y "$out")" -eq 0 ]
	[ "$(xpath "string(($G/*[local-name()='title'])[1])" "$out")" = 'all (1,000 bytes)' ]
	# --minwidth 0 keeps the 0.1% frame; the default prunes below 0.1 px of
	# the 1200 px a fluid graph is laid out for (flamegraph.pl's rule), and
	# says so
	[ "$(xpath "count($G)" "$out")" -eq 4 ]
	[ "$(xpath "count(//*[@id='hidden'])" "$out")" -eq 0 ]
	printf 'main;f 1\nmain;g 11000\n' | "$PROF" svg -o "$out"
	[ "$(xpath "count($G)" "$out")" -eq 4 ]
	printf 'main;f 1\nmain;g 13000\n' | "$PROF" svg -o "$out"
	[ "$(xpath "count($G)" "$out")" -eq 3 ]
	[ "$(xpath "string(//*[@id='hidden'])" "$out")" = \
		"1 frame too narrow to draw (0.01% of the samples end in them); search counts them" ]
	[ "$(xpath "string(//*[@id='hidden-names'])" "$out")" = f ]
}

@test "a fluid graph has an intrinsic size (1200 px, a viewBox) for <img>; --width keeps its own" {
	out="$BATS_TEST_TMPDIR/f.svg"
	printf 'main;f 1\nmain;g 2\n' | "$PROF" svg -o "$out"
	h=$(xpath 'string(/*/@height)' "$out")
	[ "$(xpath 'string(/*/@width)' "$out")" = 1200 ]
	[ "$(xpath 'string(/*/@viewBox)' "$out")" = "0 0 1200 $h" ]
	[ "$(xpath 'string(/*/@data-fluid)' "$out")" = 1 ]
	printf 'main;f 1\nmain;g 2\n' | "$PROF" svg --width 800 -o "$out"
	[ "$(xpath 'string(/*/@width)' "$out")" = 800 ]
	[ "$(xpath 'count(/*/@viewBox)' "$out")" = 0 ]
	[ "$(xpath 'count(/*/@data-fluid)' "$out")" = 0 ]
}

@test "option errors are usage errors" {
	for args in "--colors nope" "--minwidth abc" "--minwidth 200%" "--width 5" \
		"--height 0" "--font-size x" "--sort size" "--countname 'a(b'" \
		"--diff-colors self" "--diff --diff-colors both"; do
		run sh -c "printf 'a 1\n' | '$PROF' svg $args"
		[ "$status" -eq 2 ] || { echo "$args: status $status" >&2; return 1; }
		[[ "$output" == *"prof svg: "* ]]
	done
	run "$PROF" svg -i "$REC" --include 'a(b' -o /dev/null
	[ "$status" -eq 2 ]
}

@test "--palette-file keeps colors across graphs" {
	pal="$BATS_TEST_TMPDIR/palette.map"
	"$PROF" svg -i "$REC" --palette-file "$pal" -o "$BATS_TEST_TMPDIR/p1.svg"
	grep -q '^burn_alpha->rgb([0-9]*,[0-9]*,[0-9]*)$' "$pal"
	sed -i 's/^burn_alpha->.*/burn_alpha->rgb(1,2,3)/' "$pal"
	"$PROF" svg -i "$REC" --palette-file "$pal" -o "$BATS_TEST_TMPDIR/p2.svg"
	cls=$(frame_attr burn_alpha class "$BATS_TEST_TMPDIR/p2.svg")
	grep -q "^\.$cls{fill:#010203}$" "$BATS_TEST_TMPDIR/p2.svg"
	grep -q '^burn_alpha->rgb(1,2,3)$' "$pal"
	echo 'bad line' >> "$pal"
	run "$PROF" svg -i "$REC" --palette-file "$pal" -o /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"line "*"NAME->rgb(R,G,B)"* ]]
}

@test "svg -h synopsis matches docs/prof-svg.md" {
	run "$PROF" svg -h
	[ "$status" -eq 0 ]
	# Every line of the synopsis, up to the first empty line, is in the page.
	echo "$output" | sed '/^$/q' | while IFS= read -r line; do
		[ -z "$line" ] && continue
		grep -qF -- "$line" "$ROOT/docs/prof-svg.md" || { echo "not in docs: $line" >&2; exit 1; }
	done
}
