#!/usr/bin/env bats
# t0611: what `prof record --alloc` stores of a JDK 17 JVM's allocations,
# whichever way HotSpot allocates (issue 19):
# - sizes right or unknown: the interpreter (-Xint) and C1
#   (-XX:TieredStopAtLevel=1) call the probe without its size; those hits
#   carry -1 and weigh nothing in --weight bytes, every other size is the
#   object's true size (examples/JavaAlloc.java: byte[16] and Object[4]
#   take 32 bytes, a String 24, with compressed class pointers);
# - the error for a JVM without the flag says what the flag costs;
# - class names in Java's spelling, checked against JFR's own names for
#   the same JVM's allocations (JavaAlloc names).

load helpers

setup_file() {
	command -v java >/dev/null || skip "no JDK"
	# built by make (all), as t0610 does when it is missing
	[ -f "$EXAMPLES/JavaAlloc.class" ] || javac -d "$EXAMPLES" "$ROOT/examples/JavaAlloc.java"
	export CP="$EXAMPLES"
}

# record_alloc NAME JAVA-OPTIONS... -- ARGS...: JavaAlloc ARGS with the
# options, recorded 2 s with --alloc (defaults) once it is ready, into
# NAME.data; JFR's recording (if the options ask for one) in NAME.jfr.
# The JVM is stopped once recorded, but for JFR's, which runs its course.
record_alloc() {
	local name=$1 opts=()
	shift
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	java -XX:+DTraceAllocProbes "${opts[@]}" -cp "$CP" JavaAlloc "$@" 2> "$name.log" > /dev/null &
	local jvm=$!
	wait_ready "$name.log" "$jvm"
	"$PROF" record -q -p "$jvm" --alloc -d 2 -o "$name.data" || true
	[[ "${opts[*]}" == *StartFlightRecording* ]] || kill "$jvm" 2>/dev/null || true
	wait "$jvm" || true
	rm -f "/tmp/perf-$jvm.map" # written for prof by the JVM (root's): pids come round
}

# "class size hits" per (class, size) of a recording: the hits kept, not
# the estimates they stand for.
class_sizes() {
	"$PROF" report -i "$1" --event usdt:hotspot:object__alloc --args --weight samples 2>/dev/null |
		awk '{ n = $NF; $NF = ""; k = split($0, f, ";"); split(f[k], a, " ")
		       s[substr(a[1], 7) " " substr(a[2], 6)] += n }
		     END { for (c in s) print c, s[c] }' | sort
}

# sizes_right_or_unknown NAME: every size is -1 or possible (a positive
# multiple of 8); a class's instances all carry one size, a String's 24
# (not java.lang.Class's: a class's mirror holds its static fields);
# the known sizes most byte[] and Object[] hits carry are JavaAlloc's 32
# when most of the class's hits have a size (the JVM allocates arrays of
# other lengths of its own, through the runtime: under C1 those are all
# the known ones); garbage, which
# varies from hit to hit, fails these. --weight bytes adds up the known
# sizes only, and says how many hits it left out.
sizes_right_or_unknown() {
	class_sizes "$1.data" > "$1.sizes"
	cat "$1.sizes" >&2
	[ "$(awk '{ t += $3 } END { print t + 0 }' "$1.sizes")" -gt 100 ]
	awk '$2 == -1 { unk[$1] += $3; next }
	     { known[$1] += $3 }
	     $2 <= 0 || $2 % 8 { print "impossible:", $0; bad = 1 }
	     $1 !~ /\[\]$/ && $1 != "java.lang.Class" { if (($1 in one) && one[$1] != $2) { print "two sizes:", $1, one[$1], $2; bad = 1 }
	                      one[$1] = $2 }
	     $1 ~ /\[\]$/ && $3 > top[$1] { top[$1] = $3; mode[$1] = $2 }
	     END { if (("java.lang.String" in one) && one["java.lang.String"] != 24) { print "String", one["java.lang.String"]; bad = 1 }
	           if (known["byte[]"] > unk["byte[]"] && mode["byte[]"] != 32) { print "byte[]", mode["byte[]"]; bad = 1 }
	           o = "java.lang.Object[]"
	           if (known[o] > unk[o] && mode[o] != 32) { print "Object[]", mode[o]; bad = 1 }
	           exit bad }' "$1.sizes" >&2
	"$PROF" report -i "$1.data" --alloc --weight bytes 2> "$1.warn" |
		awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s[f[k]] += n }
		     END { for (c in s) print c, s[c] }' | sort > "$1.bytes"
	# and says how many hits had no size
	read -r unknown hits < <(awk '$2 == -1 { u += $3 } { t += $3 } END { print u + 0, t }' "$1.sizes")
	if [ "$unknown" -gt 0 ]; then
		grep -q "bytes unknown for .*% of hits ($unknown of $hits: " "$1.warn"
	else
		! grep -q "bytes unknown" "$1.warn"
	fi
	# --weight bytes is an estimate: each hit's size times the windows'
	# duty cycle (span over attached time), the same for every hit
	scale=$(ratio "$("$PROF" report -i "$1.data" --alloc 2>/dev/null | folded_total)" \
		"$("$PROF" report -i "$1.data" --alloc --weight samples 2>/dev/null | folded_total)")
	awk '$2 > 0 { b[$1] += $2 * $3 } END { for (c in b) print c, b[c] }' "$1.sizes" |
		sort > "$1.known"
	[ "$(cut -d' ' -f1 "$1.known")" = "$(awk '$NF > 0 { print $1 }' "$1.bytes")" ]
	while read -r c k; do
		b=$(C="$c" awk '{ n = $NF; $NF = ""; sub(/ $/, "") } $0 == ENVIRON["C"] { print n }' "$1.bytes")
		assert_between "$c bytes over its hits' sizes x $scale" \
			"$(ratio "${b:-0}" "$(awk -v w="$k" -v s="$scale" 'BEGIN { print w * s }')" %.4f)" 0.99 1.01
	done <"$1.known"
}

@test "alloc sizes: -Xint: the interpreter's new unknown (-1), the runtime's right" {
	cd "$BATS_FILE_TMPDIR"
	record_alloc xint -Xint -- 10
	sizes_right_or_unknown xint
	# the interpreter allocates Strings itself (its TLAB fast path: no
	# size); arrays through the runtime, with their size
	grep -q '^java.lang.String -1 ' xint.sizes
	grep -q '^byte\[\] 32 ' xint.sizes
}

@test "alloc sizes: C1 only (-XX:TieredStopAtLevel=1): its stub's hits unknown" {
	cd "$BATS_FILE_TMPDIR"
	record_alloc c1 -XX:TieredStopAtLevel=1 -- 10
	sizes_right_or_unknown c1
	grep -q '^java.lang.String -1 ' c1.sizes
}

@test "alloc sizes: default tiering: right or unknown" {
	cd "$BATS_FILE_TMPDIR"
	record_alloc tiered -- 10
	sizes_right_or_unknown tiered
}

@test "alloc: a JVM without -XX:+DTraceAllocProbes: the error says what the flag costs" {
	cd "$BATS_TEST_TMPDIR"
	java -cp "$CP" JavaAlloc 10 2> plain.log &
	jvm=$!
	wait_ready plain.log "$jvm"
	run "$PROF" record -p "$jvm" --alloc -d 1 -o none.data
	kill "$jvm"
	wait "$jvm" || true
	rm -f "/tmp/perf-$jvm.map"
	[ "$status" -eq 1 ]
	[[ "${lines[1]}" == "hint: restart it with 'java -XX:+DTraceAllocProbes ...'"* ]]
	[[ "${lines[1]}" == *"; the flag costs the JVM whether recorded or not, as every allocation calls into the JVM and C2 no longer allocates inline (here: a tight allocation loop "*"x slower, javac "*"; docs/BENCHMARKS-alloc-jvm.md)" ]]
}

@test "alloc: class names in Java's spelling, as JFR names the same JVM's allocations" {
	cd "$BATS_FILE_TMPDIR"
	record_alloc names -XX:StartFlightRecording=settings=profile,filename=names.jfr -- names 6
	class_sizes names.data | awk '{ print $1 }' | sort -u > names.prof
	cat names.prof >&2
	for c in 'int[][]' 'int[]' 'java.lang.String[]' 'java.lang.String[][]'; do
		grep -qxF "$c" names.prof
	done
	lambda=$(grep -E '^JavaAlloc\$\$Lambda\$[0-9]+/0x[0-9a-f]+$' names.prof)
	[ -n "$lambda" ]
	# JFR 17 prints a hidden class as HotSpot names it inside ('+') with
	# its own ".<identity hash>": the same class, the same address
	jfr print --events jdk.ObjectAllocationSample names.jfr |
		awk '/objectClass = / { print $3 }' | sort -u > names.jfr.txt
	grep -qxF 'int[][]' names.jfr.txt
	grep -qxF 'java.lang.String[][]' names.jfr.txt
	jfr_lambda=$(grep -E '^JavaAlloc\$\$Lambda\$' names.jfr.txt | head -1)
	[ -n "$jfr_lambda" ] || skip "JFR sampled no lambda"
	[ "${lambda}" = "$(echo "$jfr_lambda" | sed -E 's/\+(0x[0-9a-f]+)\.[0-9]+$/\/\1/')" ]
}
