#!/usr/bin/env bats
# t0730-timeline: `prof svg --timeline` on a real recording of
# examples/phases (phase_a, then phase_b, then phase_a on its main thread,
# phase_c on a "worker" started with phase_b; each phase's times printed by
# the program on CLOCK_MONOTONIC, the recording's clock): the page's
# heatmap has a column per second recorded and a row per 20 ms, its cells
# hold every sample once, the cells during phase_b hold the samples the
# program's clock puts there, the filters narrow it, hostile thread names
# stay text, and the errors say what is wrong. The range selection in a
# browser is tests/browser/timeline.test.mjs.

load helpers

setup_file() {
	export REC="$BATS_FILE_TMPDIR/phases.data" CLOCK="$BATS_FILE_TMPDIR/phases.out"
	"$PROF" record -F 999 -o "$REC" -- "$EXAMPLES/phases" 700 1400 >"$CLOCK" \
		2>"$BATS_FILE_TMPDIR/record.err"
	"$PROF" svg --timeline -i "$REC" -o "$BATS_FILE_TMPDIR/t.svg"
}

attr() { # NAME FILE: the root's data-NAME
	xmllint --xpath "string(/*/@data-$1)" "$2"
}

# The heatmap's cells, "COLUMN ROW COUNT" a line (zeros left out).
cells() {
	xmllint --xpath "string(//*[local-name()='metadata'][@id='tl-cells'])" "$1" |
		awk -F, '{ for (i = 1; i <= NF; i++) if ($i != "") print NR - 1, i - 1, $i }'
}

@test "timeline: a column per second recorded, 50 rows of 20 ms at 999 Hz, every sample once" {
	svg="$BATS_FILE_TMPDIR/t.svg"
	xmllint --noout "$svg"
	secs=$(awk '/^prof record: [0-9.]+ s,/ { print $3 }' "$BATS_FILE_TMPDIR/record.err")
	cols=$(attr columns "$svg")
	echo "recorded $secs s, $cols columns" >&2
	assert_between "columns - seconds recorded" "$(awk -v a="$cols" -v b="$secs" 'BEGIN { print a - b }')" -1 1
	[ "$(attr rows "$svg")" -eq 50 ]
	[ "$(attr cell-ms "$svg")" -eq 20 ]
	# a line per column in the table, and the cells sum to the samples
	# prof report counts
	[ "$(xmllint --xpath "string(//*[local-name()='metadata'][@id='tl-cells'])" "$svg" | awk 'END { print NR }')" -eq "$cols" ]
	total=$("$PROF" report -i "$REC" | folded_total)
	[ "$(cells "$svg" | awk '{ s += $3 } END { print s }')" -eq "$total" ]
	[ "$(attr total "$svg")" -eq "$total" ]
	[ "$(attr max "$svg")" -eq "$(cells "$svg" | awk '$3 > m { m = $3 } END { print m }')" ]
	grep -q 'id="legend-max"[^>]*>0, 1 to [0-9]* samples a cell<' "$svg"
}

# Cells (from the page's origin) of a phase on the program's clock,
# widened by PAD cells each side (negative: narrowed): "FIRST LAST".
phase_cells() { # PHASE PAD SVG
	awk -v o="$(attr origin-ns "$3")" -v p="$1" -v pad="$2" '$2 == p {
		printf "%d %d\n", int(($4 - o) / 2e7) - pad, int(($5 - o) / 2e7) + pad }' "$CLOCK"
}

# The samples of cells FIRST..LAST (inside=1) or outside them (inside=0).
cells_sum() { # SVG FIRST LAST INSIDE
	cells "$1" | awk -v a="$2" -v b="$3" -v want="$4" '{ c = $1 * 50 + $2; i = c >= a && c <= b }
		i == want { s += $3 } END { print s + 0 }'
}

@test "timeline: each phase's samples are in the cells of its time by the program's clock" {
	b="$BATS_TEST_TMPDIR/b.svg" a="$BATS_TEST_TMPDIR/a.svg" c="$BATS_TEST_TMPDIR/c.svg"
	"$PROF" svg --timeline --include burn_b -i "$REC" -o "$b"
	"$PROF" svg --timeline --include burn_a -i "$REC" -o "$a"
	"$PROF" svg --timeline --thread '^worker$' -i "$REC" -o "$c"
	cat "$CLOCK" >&2
	# burn_b: all of its samples within phase_b's span (2 cells, 40 ms,
	# of slack each side), and as many as prof report counts
	read -r b0 b1 < <(phase_cells phase_b 2 "$b")
	echo "phase_b: cells $b0..$b1" >&2
	[ "$(cells_sum "$b" "$b0" "$b1" 0)" -eq 0 ]
	[ "$(cells_sum "$b" "$b0" "$b1" 1)" -eq "$("$PROF" report --include burn_b -i "$REC" | folded_total)" ]
	# burn_a: none inside phase_b (narrowed by the slack), most outside
	read -r i0 i1 < <(phase_cells phase_b -2 "$a")
	[ "$(cells_sum "$a" "$i0" "$i1" 1)" -eq 0 ]
	[ "$(cells_sum "$a" "$i0" "$i1" 0)" -gt 0 ]
	# the worker's thread: only within phase_c's span
	read -r c0 c1 < <(phase_cells phase_c 2 "$c")
	[ "$(cells_sum "$c" "$c0" "$c1" 0)" -eq 0 ]
	[ "$(cells_sum "$c" "$c0" "$c1" 1)" -gt 0 ]
}

@test "timeline: --thread and --include narrow the cells, the columns stay the recording's" {
	svg="$BATS_FILE_TMPDIR/t.svg"
	for f in "--thread ^worker$" "--include burn_b" "--exclude burn_a"; do
		# shellcheck disable=SC2086
		"$PROF" svg --timeline $f -i "$REC" -o "$BATS_TEST_TMPDIR/f.svg"
		# shellcheck disable=SC2086
		want=$("$PROF" report $f -i "$REC" | folded_total)
		got=$(cells "$BATS_TEST_TMPDIR/f.svg" | awk '{ s += $3 } END { print s + 0 }')
		echo "$f: $got cells' samples, report $want" >&2
		[ "$got" -eq "$want" ]
		[ "$got" -lt "$(attr total "$svg")" ]
		[ "$(attr columns "$BATS_TEST_TMPDIR/f.svg")" -eq "$(attr columns "$svg")" ]
	done
	# --threads: the thread names are frames of the page's tree
	"$PROF" svg --timeline --threads -i "$REC" -o "$BATS_TEST_TMPDIR/t.svg"
	xmllint --xpath "string(//*[local-name()='metadata'][@id='tl-names'])" "$BATS_TEST_TMPDIR/t.svg" | grep -qx worker
}

@test "timeline: a hostile thread name is text: one script element, the name in the table whole" {
	rec="$BATS_TEST_TMPDIR/h.data" svg="$BATS_TEST_TMPDIR/h.svg"
	"$PROF" record -F 999 -o "$rec" -- sh -c 'printf "<script>]]>x" >/proc/self/comm
		i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done' 2>/dev/null
	"$PROF" svg --timeline --threads -i "$rec" -o "$svg"
	xmllint --noout "$svg"
	[ "$(xmllint --xpath "count(//*[local-name()='script'])" "$svg")" -eq 1 ]
	xmllint --xpath "string(//*[local-name()='metadata'][@id='tl-names'])" "$svg" | grep -qxF '<script>]]>x'
	# the CDATA was split around "]]>", not ended by it
	grep -qF '<script>]]]]><![CDATA[>x' "$svg"
}

@test "timeline: no samples, no recording, and options that do not apply are clear errors" {
	run "$PROF" svg --timeline --include no_such_function -i "$REC" -o "$BATS_TEST_TMPDIR/x.svg"
	[ "$status" -eq 1 ]
	[[ "$output" == *"nothing to draw: the filters left none of the"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/x.svg" ]
	"$PROF" record -o "$BATS_TEST_TMPDIR/empty.data" -- true 2>/dev/null
	run "$PROF" svg --timeline -i "$BATS_TEST_TMPDIR/empty.data" -o "$BATS_TEST_TMPDIR/x.svg"
	[ "$status" -eq 1 ]
	[[ "$output" == *"holds no samples"* ]]
	run sh -c "printf 'a;b 3\n' | '$PROF' svg --timeline -o '$BATS_TEST_TMPDIR/x.svg'"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--timeline needs a recording"* ]]
	for opt in --flamechart --off-cpu --inverted "--width 800" "--colors mem"; do
		# shellcheck disable=SC2086
		run "$PROF" svg --timeline $opt -i "$REC" -o "$BATS_TEST_TMPDIR/x.svg"
		[ "$status" -eq 2 ]
		[[ "$output" == *"--timeline draws CPU samples over time: not with ${opt%% *}"* ]]
	done
}
