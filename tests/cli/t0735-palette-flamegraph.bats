#!/usr/bin/env bats
# t0735: `prof svg --palette-file` and flamegraph.pl's `--cp` palette.map
# (issue 18): a file in flamegraph.pl's format (its first line "->rgb(...)",
# the root's empty name; names sorted bytewise; one "->" a line) is read,
# its colors drawn, kept and written back in that format; when flamegraph.pl
# is on PATH, each reads the other's file and draws the same colors.

load helpers

setup_file() {
	export REC="$BATS_FILE_TMPDIR/threads.data" FOLDED="$BATS_FILE_TMPDIR/threads.folded"
	"$PROF" record -F 999 -o "$REC" -- "$EXAMPLES/threads" 1 2>"$BATS_FILE_TMPDIR/record.err"
	"$PROF" report -i "$REC" > "$FOLDED"
}

G="//*[local-name()='svg'][@id='frames']/*[local-name()='g']"

# fill NAME SVG: the fill of the first frame NAME drawn by prof, "#rrggbb".
fill() {
	local cls
	cls=$(xmllint --xpath "string(($G[starts-with(*[local-name()='title'], '$1 (')])[1]/*[local-name()='rect']/@class)" "$2")
	[ -n "$cls" ] || return 1
	sed -n "s/^\.$cls{fill:\(#[0-9a-f]*\)}\$/\1/p" "$2"
}

# hex "rgb(R,G,B)": "#rrggbb".
hex() {
	echo "$1" | sed 's/rgb(\([0-9]*\),\([0-9]*\),\([0-9]*\))/\1 \2 \3/' |
		{ read -r r g b; printf '#%02x%02x%02x\n' "$r" "$g" "$b"; }
}

# A line flamegraph.pl's read_palette (split "->", key and value) reads back
# as written: exactly one "->", then rgb(R,G,B).
flamegraph_lines() {
	! grep -Ev '^([^-]|-[^>])*->rgb\([0-9]{1,3},[0-9]{1,3},[0-9]{1,3}\)$' "$1"
}

@test "a palette.map as flamegraph.pl --cp writes it: read, drawn, kept, written back" {
	pal="$BATS_TEST_TMPDIR/palette.map"
	# flamegraph.pl's shape: the root's empty name first, then the frames
	# of the graph sorted, annotated names as they are in the stacks.
	{
		echo '->rgb(213,39,9)'
		echo 'burn_alpha->rgb(1,2,3)'
		echo 'burn_beta->rgb(4,5,6)'
		# the kernel frame with the most samples (drawn, however pruned)
		awk '{ n = split($1, f, ";"); for (i = 1; i <= n; i++) if (f[i] ~ /_\[k\]$/) s[f[i]] += $NF }
			END { for (k in s) if (s[k] > m) { m = s[k]; b = k } if (b != "") print b "->rgb(7,8,9)" }' "$FOLDED"
	} > "$pal"
	kname=$(sed -n '4s/->.*//p' "$pal")
	cp "$pal" "$BATS_TEST_TMPDIR/before.map"
	run "$PROF" svg -i "$REC" --palette-file "$pal" -o "$BATS_TEST_TMPDIR/p.svg"
	[ "$status" -eq 0 ]
	[ "$(fill burn_alpha "$BATS_TEST_TMPDIR/p.svg")" = "#010203" ]
	[ "$(fill burn_beta "$BATS_TEST_TMPDIR/p.svg")" = "#040506" ]
	if [ -n "$kname" ]; then
		[ "$(fill "$kname" "$BATS_TEST_TMPDIR/p.svg")" = "#070809" ]
	fi
	# Written back: the root's line first and every line read kept, the
	# graph's other names added, sorted bytewise as Perl's sort keys.
	[ "$(head -n 1 "$pal")" = '->rgb(213,39,9)' ]
	while IFS= read -r line; do grep -qxF -- "$line" "$pal"; done < "$BATS_TEST_TMPDIR/before.map"
	[ "$(wc -l < "$pal")" -gt 4 ]
	LC_ALL=C sort -c "$pal"
	flamegraph_lines "$pal"
	# Every other frame of the graph is in it with the color prof drew.
	grep -q '^pool_burn->rgb(' "$pal"
	[ "$(fill pool_burn "$BATS_TEST_TMPDIR/p.svg")" = "$(hex "$(sed -n 's/^pool_burn->//p' "$pal")")" ]
	# Read again, unchanged: the same file.
	cp "$pal" "$BATS_TEST_TMPDIR/after.map"
	"$PROF" svg -i "$REC" --palette-file "$pal" -o /dev/null
	cmp "$pal" "$BATS_TEST_TMPDIR/after.map"
}

@test "names flamegraph.pl cannot read back are not written; bad lines still fail" {
	pal="$BATS_TEST_TMPDIR/palette.map"
	printf 'main;a->b 3\nmain;c 1\n' > "$BATS_TEST_TMPDIR/arrow.folded"
	"$PROF" svg -i "$BATS_TEST_TMPDIR/arrow.folded" --palette-file "$pal" -o /dev/null
	grep -qx 'c->rgb([0-9,]*)' "$pal"
	! grep -q '^a->b' "$pal"
	flamegraph_lines "$pal"
	[ "$(wc -l < "$pal")" -eq 2 ] # c, main
	echo '->rgb(1,2)' >> "$pal"
	run "$PROF" svg -i "$BATS_TEST_TMPDIR/arrow.folded" --palette-file "$pal" -o /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"line 3"*"NAME->rgb(R,G,B)"* ]]
}

@test "round trip with flamegraph.pl --cp, when it is on PATH" {
	command -v flamegraph.pl >/dev/null || skip "flamegraph.pl is not on PATH (FlameGraph is not packaged in Debian)"
	d=$BATS_TEST_TMPDIR
	# flamegraph.pl writes palette.map in its working directory; prof reads
	# it and draws its colors.
	(cd "$d" && flamegraph.pl --cp "$FOLDED" > fg.svg)
	head -n 1 "$d/palette.map" | grep -q '^->rgb('
	"$PROF" svg -i "$REC" --palette-file "$d/palette.map" -o "$d/p.svg"
	for f in burn_alpha burn_beta pool_burn; do
		[ "$(fill "$f" "$d/p.svg")" = "$(hex "$(sed -n "s/^$f->//p" "$d/palette.map")")" ]
	done
	# prof's file, fresh, read by flamegraph.pl: its frames take prof's colors.
	mkdir "$d/fresh"
	"$PROF" svg -i "$REC" --palette-file "$d/fresh/palette.map" -o "$d/fresh/p.svg"
	sed -i 's/^burn_alpha->.*/burn_alpha->rgb(1,2,3)/' "$d/fresh/palette.map"
	(cd "$d/fresh" && flamegraph.pl --cp "$FOLDED" > fg.svg)
	grep -A3 '<title>burn_alpha (' "$d/fresh/fg.svg" | grep -q 'fill="rgb(1,2,3)"'
	pb=$(sed -n 's/^pool_burn->//p' "$d/fresh/palette.map")
	grep -A3 '<title>pool_burn (' "$d/fresh/fg.svg" | grep -qF "fill=\"$pb\""
}
