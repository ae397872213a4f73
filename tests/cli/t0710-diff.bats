#!/usr/bin/env bats
# t0710: prof diff and prof svg --diff on real recordings of examples/threads
# run twice with different work shares (OLD: alpha,beta,pool = 40,20,10% of
# a CPU; NEW: 40,0,30, so burn_beta exists only in OLD and pool_burn grew):
# the two-column output against both reports (raw and normalized), the
# vanished frame kept in the text and in the SVG (parsed with xmllint),
# colors red for grew and blue for shrank, --negate, two-column input read
# back by report/svg, filters, hostile names, usage errors.

load helpers

setup_file() {
	export OLD="$BATS_FILE_TMPDIR/old.data" NEW="$BATS_FILE_TMPDIR/new.data"
	"$PROF" record -F 999 -o "$OLD" -- "$EXAMPLES/threads" 2 40,20,10 2>/dev/null
	"$PROF" record -F 999 -o "$NEW" -- "$EXAMPLES/threads" 2 40,0,30 2>/dev/null
}

# xpath EXPR FILE: the string value of an XPath 1.0 expression.
xpath() {
	xmllint --xpath "$1" "$2"
}

# frame_attr NAME ATTR SVG: ATTR of the rect of the first frame named NAME.
frame_attr() {
	xpath "string((//*[local-name()='g'][starts-with(*[local-name()='title'], '$1 (')])[1]/*[local-name()='rect']/@$2)" "$3"
}

# frame_title NAME SVG: the title of the first frame named NAME.
frame_title() {
	xpath "string((//*[local-name()='g'][starts-with(*[local-name()='title'], '$1 (')])[1]/*[local-name()='title'])" "$2"
}

# fill CLASS SVG: the fill color (#rrggbb) of a color class.
fill() {
	grep -o "\.$1{fill:#[0-9a-f]*}" "$2" | grep -o '#[0-9a-f]*'
}

@test "diff --raw: every stack of both, with both counts; columns are the two reports" {
	run "$PROF" diff --raw "$OLD" "$NEW"
	[ "$status" -eq 0 ]
	echo "$output" > "$BATS_TEST_TMPDIR/raw"
	# every line is "stack N N"
	! grep -vqE '^.+ [0-9]+ [0-9]+$' "$BATS_TEST_TMPDIR/raw"
	# the NEW column is prof report of NEW; the OLD column of OLD
	diff <(awk '$NF > 0 { n = $NF; NF -= 2; print $0, n }' "$BATS_TEST_TMPDIR/raw") \
		<("$PROF" report -i "$NEW")
	diff <(awk '$(NF-1) > 0 { o = $(NF-1); NF -= 2; print $0, o }' "$BATS_TEST_TMPDIR/raw") \
		<("$PROF" report -i "$OLD")
	# burn_beta vanished: in OLD only, kept with a 0 for NEW
	beta=$(grep 'burn_beta' "$BATS_TEST_TMPDIR/raw" | awk '{ o += $(NF-1); n += $NF } END { print o + 0, n + 0 }')
	[ "${beta#* }" -eq 0 ]
	[ "${beta% *}" -eq "$("$PROF" report -i "$OLD" | folded_sum burn_beta)" ]
	[ "${beta% *}" -gt 0 ]
	# sorted like prof report
	diff <(LC_ALL=C sort "$BATS_TEST_TMPDIR/raw") "$BATS_TEST_TMPDIR/raw"
}

@test "diff normalizes OLD to NEW's total: round(old * new total / old total)" {
	"$PROF" diff --raw "$OLD" "$NEW" > "$BATS_TEST_TMPDIR/raw"
	"$PROF" diff "$OLD" "$NEW" > "$BATS_TEST_TMPDIR/norm"
	ot=$("$PROF" report -i "$OLD" | folded_total)
	nt=$("$PROF" report -i "$NEW" | folded_total)
	[ "$ot" -ne "$nt" ] # the runs differ: the test means something
	# line by line, computed here from the raw counts
	paste -d'\n' "$BATS_TEST_TMPDIR/raw" "$BATS_TEST_TMPDIR/norm" | awk -v ot="$ot" -v nt="$nt" '
		NR % 2 { want = int($(NF-1) * nt / ot + 0.5); next }
		$(NF-1) != want { print "line " NR / 2 ": " $(NF-1) " != " want; bad = 1 }
		END { exit bad }'
	sum=$(awk '{ s += $(NF-1) } END { print s }' "$BATS_TEST_TMPDIR/norm")
	lines=$(wc -l < "$BATS_TEST_TMPDIR/norm")
	# the scaled column adds up to NEW's total, give or take rounding
	assert_between "scaled OLD total" "$sum" $((nt - lines / 2 - 1)) $((nt + lines / 2 + 1))
}

@test "two-column text reads back: report and svg see NEW, svg --diff both" {
	"$PROF" diff "$OLD" "$NEW" > "$BATS_TEST_TMPDIR/d.folded"
	diff <("$PROF" report -i "$BATS_TEST_TMPDIR/d.folded") <("$PROF" report -i "$NEW")
	run "$PROF" check -i "$BATS_TEST_TMPDIR/d.folded" "'burn_beta' == 0 samples"
	[ "$status" -eq 0 ]
	"$PROF" svg -i "$BATS_TEST_TMPDIR/d.folded" -o "$BATS_TEST_TMPDIR/plain.svg"
	[ "$(xpath 'string(/*/@data-total)' "$BATS_TEST_TMPDIR/plain.svg")" -eq "$("$PROF" report -i "$NEW" | folded_total)" ]
	run "$PROF" svg --diff -i "$BATS_TEST_TMPDIR/d.folded" -o "$BATS_TEST_TMPDIR/d.svg"
	[ "$status" -eq 0 ]
	[ "$(xpath 'string(/*/@data-diff)' "$BATS_TEST_TMPDIR/d.svg")" = 1 ]
	[[ "$(frame_title burn_beta "$BATS_TEST_TMPDIR/d.svg")" == "burn_beta (0 samples; old "*", new 0, -"*", -100.00%, not in NEW)" ]]
	# from standard input too
	run sh -c "'$PROF' svg --diff < '$BATS_TEST_TMPDIR/d.folded' > '$BATS_TEST_TMPDIR/s.svg'"
	[ "$status" -eq 0 ]
	cmp "$BATS_TEST_TMPDIR/d.svg" "$BATS_TEST_TMPDIR/s.svg"
}

@test "svg --diff OLD NEW: the vanished frame is drawn, blue, outlined; grown frames red" {
	svg="$BATS_TEST_TMPDIR/diff.svg"
	run "$PROF" svg --diff "$OLD" "$NEW" -o "$svg"
	[ "$status" -eq 0 ]
	xmllint --noout "$svg"
	nt=$("$PROF" report -i "$NEW" | folded_total)
	[ "$(xpath 'string(/*/@data-total)' "$svg")" -eq "$nt" ]
	# burn_beta: gone from NEW, kept with its OLD width (scaled), class v
	old_beta=$("$PROF" diff "$OLD" "$NEW" | grep burn_beta | awk '{ s += $(NF-1) } END { print s }')
	title=$(frame_title burn_beta "$svg")
	[[ "$title" == "burn_beta (0 samples; old "*", new 0, -"*", -100.00%, not in NEW)" ]]
	[ "$(xpath "count(//*[local-name()='g'][@class='v'][starts-with(*[local-name()='title'], 'burn_beta (')])" "$svg")" -ge 1 ]
	w=$(frame_attr burn_beta width "$svg")
	# the first burn_beta frame is the widest path: most of OLD's burn_beta
	assert_between "burn_beta width" "$w" $((old_beta / 2)) $((old_beta + 2))
	color=$(fill "$(frame_attr burn_beta class "$svg")" "$svg")
	[[ "$color" == \#????ff ]] && [ "$color" != "#ffffff" ] # blue: shrank
	# pool_burn grew: red
	color=$(fill "$(frame_attr pool_burn class "$svg")" "$svg")
	[[ "$color" == \#ff???? ]] && [ "$color" != "#ffffff" ]
	[[ "$(frame_title pool_burn "$svg")" == "pool_burn ("*" samples; old "*", new "*", +"*"%)" ]]
	# the widest change is the deepest color: pool_burn or burn_beta
	grep -Eq '\{fill:#(ff0000|0000ff)\}' "$svg"
}

@test "svg --diff --negate: widths from OLD, burn_beta a plain frame, the title says it" {
	svg="$BATS_TEST_TMPDIR/neg.svg"
	run "$PROF" svg --diff --negate "$OLD" "$NEW" -o "$svg"
	[ "$status" -eq 0 ]
	[ "$(xpath 'string(/*/@data-diff)' "$svg")" = negate ]
	[ "$(xpath 'string(/*/@data-total)' "$svg")" -eq "$("$PROF" report -i "$OLD" | folded_total)" ]
	[ "$(xpath "count(//*[local-name()='g'][@class='v'][starts-with(*[local-name()='title'], 'burn_beta (')])" "$svg")" -eq 0 ]
	old_beta=$("$PROF" diff --raw "$OLD" "$NEW" | grep burn_beta | awk '{ s += $(NF-1) } END { print s }')
	[[ "$(frame_title burn_beta "$svg")" == "burn_beta ("*" samples; old "*", new 0, -"*", -100.00%, not in NEW)" ]]
	[ "$(xpath 'string(//*[local-name()="text"][@id="subtitle"])' "$svg")" = "widths: OLD; red: more in NEW, blue: less" ]
	w=$(frame_attr burn_beta width "$svg")
	assert_between "burn_beta width" "$w" $((old_beta / 2)) "$old_beta"
}

@test "filters apply to both sides" {
	run "$PROF" diff --threads --thread '^beta$' "$OLD" "$NEW"
	[ "$status" -eq 0 ]
	! echo "$output" | grep -vq '^beta;'
	echo "$output" | grep -q 'burn_beta'
	run "$PROF" diff --exclude 'burn_beta' "$OLD" "$NEW"
	! echo "$output" | grep -q 'burn_beta'
}

@test "hostile names are escaped in the diff SVG" {
	printf 'main;<script>alert(1)</script> 5\nmain;"q"&amp 2\n' > "$BATS_TEST_TMPDIR/o.folded"
	printf 'main;b 3\n' > "$BATS_TEST_TMPDIR/n.folded"
	run "$PROF" svg --diff "$BATS_TEST_TMPDIR/o.folded" "$BATS_TEST_TMPDIR/n.folded" -o "$BATS_TEST_TMPDIR/h.svg"
	[ "$status" -eq 0 ]
	xmllint --noout "$BATS_TEST_TMPDIR/h.svg"
	[ "$(xpath "count(//*[local-name()='script'])" "$BATS_TEST_TMPDIR/h.svg")" -eq 1 ]
	[[ "$(frame_title '<script>alert(1)</script>' "$BATS_TEST_TMPDIR/h.svg")" == *"not in NEW)" ]]
	run "$PROF" diff "$BATS_TEST_TMPDIR/o.folded" "$BATS_TEST_TMPDIR/n.folded"
	[ "${lines[0]}" = 'main;"q"&amp 1 0' ]
}

@test "usage errors exit 2; unreadable inputs exit 1" {
	run "$PROF" diff "$OLD"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"give two inputs, OLD and NEW"* ]]
	run "$PROF" diff -i "$OLD" "$NEW"
	[ "$status" -eq 2 ]
	run "$PROF" diff - -
	[ "$status" -eq 2 ]
	run "$PROF" diff "$OLD" "$BATS_TEST_TMPDIR/none.data"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == *"cannot open"*"none.data"* ]]
	printf 'a;b 1\n' > "$BATS_TEST_TMPDIR/one.folded"
	run "$PROF" svg --diff -i "$BATS_TEST_TMPDIR/one.folded" -o "$BATS_TEST_TMPDIR/x.svg"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"--diff needs OLD NEW, or a two-column input"* ]]
	run "$PROF" svg --negate -i "$OLD" -o "$BATS_TEST_TMPDIR/x.svg"
	[ "$status" -eq 2 ]
	run "$PROF" svg --diff --colors java "$OLD" "$NEW" -o "$BATS_TEST_TMPDIR/x.svg"
	[ "$status" -eq 2 ]
}

@test "diff -h synopsis matches docs/prof-diff.md" {
	run "$PROF" diff -h
	[ "$status" -eq 0 ]
	echo "$output" | sed '/^$/q' | while IFS= read -r line; do
		[ -z "$line" ] && continue
		grep -qF -- "$line" "$ROOT/docs/prof-diff.md"
	done
}
