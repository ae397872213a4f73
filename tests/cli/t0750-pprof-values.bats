#!/usr/bin/env bats
# t0750: the values of prof report --format pprof beyond CPU samples, read
# by the real pprof (tests/pprof/build-pprof.sh): a JVM allocation
# recording (examples/JavaAlloc.java under `prof record --alloc`) carries
# two sample types, alloc_objects/count and alloc_space/bytes, both per
# sample whatever --weight says, alloc_space the default, and pprof's
# per-class flat values equal `prof report --alloc --top`'s self counts and
# `--weight bytes`' self bytes exactly; an off-CPU recording (examples/
# sched-mix under `prof record --sched`) carries off-cpu/nanoseconds, 1000
# times the microseconds of `prof report --off-cpu`, per function.

load helpers

setup_file() {
	export PPROF
	PPROF=$(sh "$ROOT/tests/pprof/build-pprof.sh" "${PPROF_BUILD_DIR:-build}")
	command -v java >/dev/null || { echo "t0750 needs a JDK (make deps)" >&2; return 1; }
	export CP="$EXAMPLES"
	if [ ! -f "$CP/JavaAlloc.class" ]; then
		CP="$BATS_FILE_TMPDIR/classes"
		mkdir -p "$CP"
		javac -d "$CP" "$ROOT/examples/JavaAlloc.java"
	fi
	cd "$BATS_FILE_TMPDIR"
	java -XX:+DTraceAllocProbes -cp "$CP" JavaAlloc 20 2> jvm.log &
	jvm=$!
	for _ in $(seq 200); do grep -q ready jvm.log && break; sleep 0.05; done
	"$PROF" record -q -p "$jvm" --alloc -d 3 -o alloc.data || true
	kill "$jvm" 2>/dev/null || true
	wait "$jvm" 2>/dev/null || true
	rm -f "/tmp/perf-$jvm.map" # written for prof by the JVM (root's): pids come round
	"$PROF" record --sched --sched-stacks 1 -F 199 -o sched.data -- "$EXAMPLES/sched-mix" 1 \
		2>/dev/null
}

# pprof_flat INDEX UNIT FILE: pprof -top of sample type INDEX as
# "name<TAB>flat" lines, sorted, values in UNIT (B, ns; "" for counts)
# without the unit's name.
pprof_flat() {
	"$PPROF" -symbolize=none -sample_index="$1" ${2:+-unit=$2} -nodecount=1000000 \
		-nodefraction=0 -edgefraction=0 -top "$3" 2>/dev/null |
		awk 'go && NF >= 6 && $1 != "0" { n = $1; sub(/[a-zA-Z]+$/, "", n); s = $0
		     for (i = 0; i < 5; i++) sub(/^ *[^ ]+/, "", s); sub(/^ +/, "", s)
		     print s "\t" n }
		     /flat%/ { go = 1 }' | LC_ALL=C sort
}

# prof_self ARGS...: prof report ARGS --top as "name<TAB>self" lines, sorted,
# without zero rows.
prof_self() {
	"$PROF" report "$@" --top 1000000 |
		awk 'NR > 1 && $3 > 0 { n = $3; s = $0
		     for (i = 0; i < 4; i++) sub(/^ *[^ ]+/, "", s); sub(/^ +/, "", s)
		     print s "\t" n }' |
		LC_ALL=C sort
}

@test "pprof --alloc: alloc_objects/count and alloc_space/bytes, alloc_space the default" {
	cd "$BATS_FILE_TMPDIR"
	[ -s alloc.data ]
	"$PROF" report -i alloc.data --alloc --format pprof -o a.pb.gz
	run "$PPROF" -symbolize=none -raw a.pb.gz
	[ "$status" -eq 0 ]
	echo "$output" | grep -qx 'alloc_objects/count alloc_space/bytes\[dflt\]'
	run "$PPROF" -symbolize=none -top a.pb.gz
	echo "$output" | grep -qx 'Type: alloc_space'
	# --weight bytes changes the folded counts, not the pprof values
	"$PROF" report -i alloc.data --alloc --weight bytes --format pprof -o b.pb.gz
	diff <("$PPROF" -symbolize=none -raw a.pb.gz) <("$PPROF" -symbolize=none -raw b.pb.gz)
}

# same_values A B: the same classes in two "class<TAB>value" files, values
# within 0.05% or 2 (the estimates are rounded once per stack in a report,
# once per stack and thread in pprof).
same_values() {
	awk -F'\t' 'FNR == NR { v[$1] = $2; next }
		{ d = $2 - v[$1]; if (d < 0) d = -d; if (!($1 in v) || (d > 2 && d > $2 * 0.0005)) bad = 1; n++ }
		END { exit bad || n != length(v) }' "$1" "$2" || { diff -u "$1" "$2"; false; }
}

@test "pprof --alloc: per-class objects and bytes equal prof report's, to the rounding" {
	cd "$BATS_FILE_TMPDIR"
	"$PROF" report -i alloc.data --alloc --format pprof -o a.pb.gz
	pprof_flat alloc_objects "" a.pb.gz > pprof-objects.txt
	prof_self -i alloc.data --alloc > prof-objects.txt
	pprof_flat alloc_space B a.pb.gz > pprof-bytes.txt
	prof_self -i alloc.data --alloc --weight bytes > prof-bytes.txt
	cat prof-objects.txt prof-bytes.txt >&2
	# the known classes are there, with plausible counts and sizes
	[ "$(awk -F'\t' '$1 == "byte[]" { print $2 }' prof-objects.txt)" -gt 100 ]
	[ "$(awk -F'\t' '$1 == "java.lang.String" { print $2 }' prof-bytes.txt)" -gt 1000 ]
	same_values prof-objects.txt pprof-objects.txt
	same_values prof-bytes.txt pprof-bytes.txt
	# a class filter applies to both values alike
	"$PROF" report -i alloc.data --alloc --class String --format pprof -o s.pb.gz
	pprof_flat alloc_space B s.pb.gz > s-bytes.txt
	same_values <(grep '^java.lang.String	' prof-bytes.txt) s-bytes.txt
}

@test "pprof --off-cpu: off-cpu/nanoseconds, 1000 times prof report's microseconds" {
	cd "$BATS_FILE_TMPDIR"
	"$PROF" report -i sched.data --off-cpu --format pprof -o off.pb.gz
	run "$PPROF" -symbolize=none -raw off.pb.gz
	[ "$status" -eq 0 ]
	echo "$output" | grep -qx 'off-cpu/nanoseconds'
	echo "$output" | grep -qx 'PeriodType: off-cpu nanoseconds'
	pprof_flat off-cpu ns off.pb.gz > pprof.txt
	# per thread, as pprof's samples are (a thread filter builds so: the
	# microseconds are rounded once per thread and stack)
	prof_self -i sched.data --off-cpu --thread . | awk -F'\t' '{ print $1 "\t" $2 "000" }' \
		> prof.txt
	grep -q '\[S sleeping\]' prof.txt
	diff -u prof.txt pprof.txt
}
