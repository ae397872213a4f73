#!/usr/bin/env bats
# t0720: prof report --format pprof and speedscope, read by the real tools:
# Google's pprof (built from Debian's source package, offline:
# tests/pprof/build-pprof.sh) must show the same per-function self counts
# as `prof report --top`, the same stacks per thread as `prof report
# --threads`, the thread labels and the binaries' build-ids; speedscope
# files must validate against the schema speedscope publishes (npm package
# `speedscope`, tests/speedscope) and hold the same stacks.

load helpers

setup_file() {
	export PPROF
	PPROF=$(sh "$ROOT/tests/pprof/build-pprof.sh" "${PPROF_BUILD_DIR:-build}")
	export REC="$BATS_FILE_TMPDIR/threads.data" CXX="$BATS_FILE_TMPDIR/cxx.data"
	"$PROF" record -F 999 -o "$REC" -- "$EXAMPLES/threads" 2 2>/dev/null
	"$PROF" record -F 999 -o "$CXX" -- "$EXAMPLES/cxx-inline" 1 2>/dev/null
}

# pprof's -traces as folded stacks with thread roots, merged and sorted by prof.
pprof_folded() {
	"$PPROF" -symbolize=none -sample_index=samples -traces "$1" 2>/dev/null |
		awk -f "$ROOT/tests/pprof/traces-to-folded.awk" | "$PROF" report
}

# pprof's -top as "name<TAB>flat" lines, sorted; " (inline)" written "_[i]".
pprof_flat() {
	"$PPROF" -symbolize=none -sample_index=samples -nodecount=1000000 -nodefraction=0 \
		-edgefraction=0 -top "$1" 2>/dev/null |
		awk 'go && NF >= 6 && $1 > 0 { n = $1; s = $0
		     for (i = 0; i < 5; i++) sub(/^ *[^ ]+/, "", s); sub(/^ +/, "", s)
		     sub(/ \(inline\)$/, "_[i]", s); print s "\t" n }
		     /flat%/ { go = 1 }' | LC_ALL=C sort
}

# prof report --top as "name<TAB>self" lines, sorted, without zero rows.
prof_self() {
	"$PROF" report -i "$1" --top 1000000 |
		awk 'NR > 1 && $3 > 0 { n = $3; s = $0
		     for (i = 0; i < 4; i++) sub(/^ *[^ ]+/, "", s); sub(/^ +/, "", s)
		     print s "\t" n }' |
		LC_ALL=C sort
}

@test "pprof: per-function flat counts equal prof report --top's self counts" {
	for rec in "$REC" "$CXX"; do
		"$PROF" report -i "$rec" --format pprof -o "$BATS_TEST_TMPDIR/p.pb.gz"
		pprof_flat "$BATS_TEST_TMPDIR/p.pb.gz" > "$BATS_TEST_TMPDIR/pprof.txt"
		prof_self "$rec" > "$BATS_TEST_TMPDIR/prof.txt"
		[ -s "$BATS_TEST_TMPDIR/prof.txt" ]
		diff -u "$BATS_TEST_TMPDIR/prof.txt" "$BATS_TEST_TMPDIR/pprof.txt"
	done
	# The inlined functions of cxx-inline are pprof's inline lines.
	grep -q 'shapes::mixer::next()_\[i\]' "$BATS_TEST_TMPDIR/pprof.txt"
}

@test "pprof: -traces stacks and thread labels equal prof report --threads" {
	for rec in "$REC" "$CXX"; do
		"$PROF" report -i "$rec" --format pprof -o "$BATS_TEST_TMPDIR/p.pb.gz"
		pprof_folded "$BATS_TEST_TMPDIR/p.pb.gz" > "$BATS_TEST_TMPDIR/pprof.folded"
		"$PROF" report -i "$rec" --threads > "$BATS_TEST_TMPDIR/prof.folded"
		diff -u "$BATS_TEST_TMPDIR/prof.folded" "$BATS_TEST_TMPDIR/pprof.folded"
	done
	# Every thread of threads.c is a label value.
	"$PROF" report -i "$REC" --format pprof -o "$BATS_TEST_TMPDIR/t.pb.gz"
	run "$PPROF" -symbolize=none -tags "$BATS_TEST_TMPDIR/t.pb.gz"
	[ "$status" -eq 0 ]
	for t in alpha beta pool-1 pool-2; do echo "$output" | grep -Eq ": $t\$"; done
	echo "$output" | grep -q 'thread_id:'
}

@test "pprof: sample types, period from the recording's rate, mappings with build-ids" {
	"$PROF" report -i "$REC" --format pprof -o "$BATS_TEST_TMPDIR/t.pb.gz"
	gzip -t "$BATS_TEST_TMPDIR/t.pb.gz"
	run "$PPROF" -raw "$BATS_TEST_TMPDIR/t.pb.gz"
	[ "$status" -eq 0 ]
	echo "$output" | grep -q '^PeriodType: cpu nanoseconds'
	echo "$output" | grep -q '^Period: 1001001$' # 999 Hz
	echo "$output" | grep -q '^samples/count cpu/nanoseconds'
	# Each sample's cpu value is its count times the period.
	echo "$output" | awk '/^samples\/count/ { go = 1; next } /^Locations/ { go = 0 }
		go && $2 ~ /:$/ { c = $1; ns = $2; sub(/:/, "", ns); n++;
		if (c * 1001001 != ns) bad++ } END { exit !(n > 0 && bad == 0) }'
	id=$(readelf -n "$EXAMPLES/threads" | awk '/Build ID/ { print $3 }')
	[ -n "$id" ]
	echo "$output" | grep -E "/threads $id \[FN\]"
}

@test "pprof: filters apply; folded and perf script input give name-only locations" {
	"$PROF" report -i "$REC" --thread '^beta$' --format pprof -o "$BATS_TEST_TMPDIR/b.pb.gz"
	pprof_folded "$BATS_TEST_TMPDIR/b.pb.gz" > "$BATS_TEST_TMPDIR/b.folded"
	"$PROF" report -i "$REC" --threads --thread '^beta$' > "$BATS_TEST_TMPDIR/want.folded"
	diff -u "$BATS_TEST_TMPDIR/want.folded" "$BATS_TEST_TMPDIR/b.folded"
	"$PROF" report -i "$REC" > "$BATS_TEST_TMPDIR/all.folded"
	"$PROF" report -i "$BATS_TEST_TMPDIR/all.folded" --format pprof | cat > "$BATS_TEST_TMPDIR/f.pb.gz"
	pprof_folded "$BATS_TEST_TMPDIR/f.pb.gz" > "$BATS_TEST_TMPDIR/f.folded"
	diff -u "$BATS_TEST_TMPDIR/all.folded" "$BATS_TEST_TMPDIR/f.folded"
}

@test "speedscope: validates against speedscope's schema, one profile per thread, same stacks" {
	"$PROF" report -i "$REC" --format speedscope -o "$BATS_TEST_TMPDIR/s.json"
	run node "$ROOT/tests/speedscope/validate.cjs" --folded "$BATS_TEST_TMPDIR/s.folded" \
		"$BATS_TEST_TMPDIR/s.json"
	[ "$status" -eq 0 ]
	for t in alpha beta pool-1 pool-2; do echo "$output" | grep -Eq "^$t \([0-9]+\)	[0-9]+	none\$"; done
	# The samples, merged, are prof's stacks.
	"$PROF" report -i "$BATS_TEST_TMPDIR/s.folded" > "$BATS_TEST_TMPDIR/got.folded"
	"$PROF" report -i "$REC" > "$BATS_TEST_TMPDIR/want.folded"
	diff -u "$BATS_TEST_TMPDIR/want.folded" "$BATS_TEST_TMPDIR/got.folded"
	# Per thread, the weights add up to the thread's samples.
	alpha=$(echo "$output" | awk -F'\t' '/^alpha / { print $2 }')
	[ "$alpha" -eq "$("$PROF" report -i "$REC" --threads --thread '^alpha$' | folded_total)" ]
}

@test "speedscope: hostile names stay valid JSON; folded input is one profile" {
	printf 'a"b;c\\\\d;\001e\x80\xff 3\nmain;caf\xc3\xa9 2\n' > "$BATS_TEST_TMPDIR/odd.folded"
	"$PROF" report -i "$BATS_TEST_TMPDIR/odd.folded" --format speedscope > "$BATS_TEST_TMPDIR/o.json"
	run node "$ROOT/tests/speedscope/validate.cjs" --folded "$BATS_TEST_TMPDIR/o.folded" \
		"$BATS_TEST_TMPDIR/o.json"
	[ "$status" -eq 0 ]
	[ "$output" = "all	5	none" ]
	grep -q 'a"b;c\\\\d;?e' "$BATS_TEST_TMPDIR/o.folded"
	grep -q 'main;café 2' "$BATS_TEST_TMPDIR/o.folded"
}

@test "--format: bad values and combinations are usage errors; -o writes a file" {
	run "$PROF" report -i "$REC" --format svg
	[ "$status" -eq 2 ]
	[[ "$output" == *"--format is folded, pprof or speedscope"* ]]
	run "$PROF" report -i "$REC" --format pprof --top 3
	[ "$status" -eq 2 ]
	run "$PROF" report -i "$REC" -o "$BATS_TEST_TMPDIR/out.folded"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	diff <("$PROF" report -i "$REC") "$BATS_TEST_TMPDIR/out.folded"
	run "$PROF" report -i "$BATS_TEST_TMPDIR/missing.data" --format pprof -o "$BATS_TEST_TMPDIR/x.pb.gz"
	[ "$status" -eq 1 ]
	[ ! -e "$BATS_TEST_TMPDIR/x.pb.gz" ]
}
