#!/usr/bin/env bats
# t0305: folded text whose frame names are nearly all distinct (unresolved
# "[lib+0x...]" addresses, JIT lambdas), the input where prof compares
# names by their text instead of ranking them all, and where prof svg
# takes its lines unsorted: prof report's folded text is what `LC_ALL=C
# sort` and an awk merge make of the input, and prof svg's frame widths
# are the counts awk sums from it.

load helpers

setup_file() {
	export IN="$BATS_FILE_TMPDIR/distinct.folded"
	# 4000 stacks 8-20 deep below a shared prefix, 9 in 10 names distinct
	# addresses; every 50th line repeated later, so lines merge.
	awk 'function rnd() { X = (X * 16807) % 2147483647; return X / 2147483647 }
	BEGIN {
		X = 42
		split("libjvm.so libc.so.6 [anon] libfoo.so perf-1234.map", libs, " ")
		for (s = 0; s < 4000; s++) {
			line = "java;start_thread;thread_native_entry"
			d = 8 + int(rnd() * 13)
			for (k = 0; k < d; k++) {
				if (rnd() < 0.9)
					line = line sprintf(";[%s+0x7f%08x]", libs[int(rnd() * 5) + 1], int(rnd() * 2147483647))
				else
					line = line sprintf(";Lcom/example/Lambda$%d.apply", int(rnd() * 300))
			}
			line = line " " (1 + int(rnd() * 50))
			print line
			if (s % 50 == 0)
				again[s] = line
		}
		for (s in again)
			print again[s]
	}' >"$IN"
}

@test "distinct names: prof report's folded text is sort's order, equal stacks merged" {
	want="$BATS_TEST_TMPDIR/want"
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); c[$0] += n } END { for (s in c) print s " " c[s] }' "$IN" |
		LC_ALL=C sort >"$want"
	[ "$(wc -l <"$want")" -eq 4000 ]
	"$PROF" report -i "$IN" >"$BATS_TEST_TMPDIR/got"
	diff -u "$want" "$BATS_TEST_TMPDIR/got"
}

@test "distinct names: prof svg's widths are the folded counts" {
	out="$BATS_TEST_TMPDIR/d.svg"
	run "$PROF" svg -i "$IN" --minwidth 0 -o "$out"
	[ "$status" -eq 0 ]
	xmllint --noout "$out"
	total=$(folded_total <"$IN")
	[ "$(xmllint --xpath 'string(/*/@data-total)' "$out")" -eq "$total" ]
	G="//*[local-name()='svg'][@id='frames']/*[local-name()='g']"
	# Every frame a name: as many frames as distinct paths (awk counts the
	# prefixes), and a lambda's frames add up to the lines it is in.
	paths=$(awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); p = ""
		for (k = 1; k <= n; k++) { p = p ";" f[k]; seen[p] = 1 } }
		END { print length(seen) + 1 }' "$IN")
	[ "$(xmllint --xpath "count($G)" "$out")" -eq "$paths" ]
	name='Lcom/example/Lambda$7.apply'
	want=$(awk -v n="$name" '{ c = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		for (i = 1; i <= k; i++) if (f[i] == n) s += c } END { print s + 0 }' "$IN")
	[ "$want" -gt 0 ]
	got=$(xmllint --xpath "sum($G[starts-with(*[local-name()='title'], '$name (')]/*[local-name()='rect']/@width)" "$out")
	[ "$got" -eq "$want" ] || { echo "$name: widths $got, folded $want" >&2; return 1; }
}

@test "distinct names: the hidden names' table holds each hidden name once, ']]>' split, in pieces" {
	in="$BATS_TEST_TMPDIR/c.folded" out="$BATS_TEST_TMPDIR/c.svg"
	# 3000 stacks of distinct addresses beside a heavy one, so that
	# none is drawn; every 7th with a name holding "]]>" (split across two
	# CDATA sections) and one with '<' and '&' (unescaped there): the
	# table is near 1 MB, written in pieces of 64 KB, and such names
	# fall in each.
	awk 'function rnd() { X = (X * 16807) % 2147483647; return X / 2147483647 }
	BEGIN {
		X = 7
		for (s = 0; s < 3000; s++) {
			line = "java;start_thread"
			d = 8 + int(rnd() * 8)
			for (k = 0; k < d; k++) {
				line = line sprintf(";[libjvm.so+0x7f%08x]", int(rnd() * 2147483647))
				if (s % 7 == 0 && k == 3)
					line = line ";odd]]>name_" s ";a<&b_" s
			}
			print line " " (1 + int(rnd() * 50))
		}
		print "java;heavy 10000000" # all else too narrow to draw
	}' >"$in"
	run "$PROF" svg -i "$in" -o "$out"
	[ "$status" -eq 0 ]
	xmllint --noout "$out"
	xmllint --xpath "string(//*[@id='hidden-names'])" "$out" >"$BATS_TEST_TMPDIR/table"
	[ "$(wc -c <"$BATS_TEST_TMPDIR/table")" -gt 800000 ]
	[ -z "$(sort "$BATS_TEST_TMPDIR/table" | uniq -d)" ]
	# The drawn frames' names and the table's, together: every name of
	# the input (none has a count of 0), and the table holds no other.
	xmllint --xpath "//*[@id='frames']/*/*[local-name()='title']/text()" "$out" |
		sed 's/ ([0-9,]* samples)$//' | grep -vx all >"$BATS_TEST_TMPDIR/drawn"
	sed 's/ [0-9]*$//' "$in" | tr ';' '\n' | LC_ALL=C sort -u >"$BATS_TEST_TMPDIR/all"
	cat "$BATS_TEST_TMPDIR/table" "$BATS_TEST_TMPDIR/drawn" | LC_ALL=C sort -u |
		diff -u "$BATS_TEST_TMPDIR/all" -
	[ -z "$(LC_ALL=C sort -u "$BATS_TEST_TMPDIR/table" | LC_ALL=C comm -23 - "$BATS_TEST_TMPDIR/all")" ]
	[ "$(grep -c '^odd]]>name_' "$BATS_TEST_TMPDIR/table")" -eq 429 ]
	[ "$(grep -c '^a<&b_' "$BATS_TEST_TMPDIR/table")" -eq 429 ]
}
