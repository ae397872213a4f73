#!/usr/bin/env bats
# t0736: `perf script` text folded as FlameGraph's stackcollapse-perf.pl
# folds it with default flags (issue 18), on inputs generated here in the
# shapes of its test corpus: headers with and without periods and times,
# comm-only, pid and pid/tid forms, kernel and Java frames, JIT maps,
# unindented frame lines. The expected folds are written below (its rules,
# read from its source); when a stackcollapse-perf.pl is on PATH, its
# output (--all, --pid, --tid) is compared too. A real `perf record` of
# examples/threads checks the default weights against the periods perf
# printed.

load helpers

setup_file() {
	local d=$BATS_FILE_TMPDIR
	# Samples of a C program: "comm pid/tid [cpu] time: period event:",
	# indented frames, kernel frames, an unknown symbol in a DSO, C++
	# arguments, a "swapper 0/0" (tid 0), and a second event (skipped).
	{
		printf 'app 100/101 [000] 10.000100:     250000 cycles: \n'
		printf '\tffffffff81000010 native_safe_halt+0x10 ([kernel.kallsyms])\n'
		printf '\t    55d000001000 ns::work(int, char const*)+0x1c (/usr/bin/app)\n'
		printf '\t    7f0000002000 [unknown] (/usr/lib/libc.so.6)\n'
		printf '\n'
		printf 'app 100/102 [001] 10.000200:     750000 cycles: \n'
		printf '\t    55d000001000 ns::work(int, char const*)+0x1c (/usr/bin/app)\n'
		printf '\t    7f0000002000 [unknown] (/usr/lib/libc.so.6)\n'
		printf '\n'
		printf 'swapper 0/0 [002] 10.000300:     100000 cycles: \n'
		printf '\tffffffff81000010 native_safe_halt+0x10 ([kernel.kallsyms])\n'
		printf '\n'
		printf 'app 100/101 [000] 10.000400:          7 instructions: \n'
		printf '\t    55d000001000 ns::work(int, char const*)+0x1c (/usr/bin/app)\n'
		printf '\n'
	} > "$d/c.txt"
	# A JVM: "comm tid time: event:" without a period, Java signatures of
	# perf-map-agent, an [unknown] frame in the perf map, a JIT frame.
	{
		printf 'java 25607 4794564.109216: cpu-clock: \n'
		printf '\t    7f30ec1d57d5 Lorg/mozilla/Foo;::call (/tmp/perf-25600.map)\n'
		printf '\t    7f30ec000aa0 [unknown] (/tmp/perf-25600.map)\n'
		printf '\t    7f3102a1a6e6 JavaCalls::call_helper (/usr/lib/jvm/libjvm.so)\n'
		printf '\n'
		printf 'java 25607 4794564.119216: cpu-clock: \n'
		printf '\t    7f30ec1d57d5 Lorg/mozilla/Foo;::call (/tmp/perf-25600.map)\n'
		printf '\t    7f30ec000aa0 [unknown] (/tmp/perf-25600.map)\n'
		printf '\t    7f3102a1a6e6 JavaCalls::call_helper (/usr/lib/jvm/libjvm.so)\n'
		printf '\n'
	} > "$d/java.txt"
	# perf-java-stacks-02's shape: "comm pid event:" headers and frame lines
	# without indentation.
	{
		printf 'java 19983 cycles:\n'
		printf 'ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n'
		printf '7f722d119786 Ljava/io/FileOutputStream;::writeBytes (/tmp/perf-19982.map)\n'
		printf '7f72432b4e9a start_thread (/lib/x86_64-linux-gnu/libpthread-2.15.so)\n'
		printf '\n'
		printf 'java 19983 cycles:\n'
		printf '7f722d119786 Ljava/io/FileOutputStream;::writeBytes (/tmp/perf-19982.map)\n'
		printf '7f72432b4e9a start_thread (/lib/x86_64-linux-gnu/libpthread-2.15.so)\n'
		printf '\n'
	} > "$d/unindented.txt"
	# perf script -F comm,pid,tid,period,event,ip,sym,dso: a period, no time.
	{
		printf 'app 100/101 250000 cycles: \n'
		printf '\t    55d000001000 main (/usr/bin/app)\n'
		printf '\n'
		printf 'app 100/101 750000 cycles: \n'
		printf '\t    55d000001000 main (/usr/bin/app)\n'
		printf '\n'
	} > "$d/notime.txt"
}

# check FILE OPTION WANT: prof report's folds of FILE with OPTION ("" for
# none) are WANT; with a stackcollapse-perf.pl on PATH, so are its folds
# with --all and the matching option.
check() {
	local got sc opt
	got=$("$PROF" report -i "$1" $2 2>/dev/null | LC_ALL=C sort)
	[ "$got" = "$(printf '%s\n' "$3" | LC_ALL=C sort)" ] ||
		{ printf 'prof %s:\n%s\nwant:\n%s\n' "$2" "$got" "$3" >&2; return 1; }
	command -v stackcollapse-perf.pl >/dev/null || return 0
	case $2 in --pids) opt=--pid ;; --tids) opt=--tid ;; *) opt= ;; esac
	sc=$(stackcollapse-perf.pl --all $opt "$1" 2>/dev/null | LC_ALL=C sort)
	[ "$got" = "$sc" ] || { printf 'stackcollapse-perf.pl %s:\n%s\n' "$opt" "$sc" >&2; return 1; }
}

@test "periods weigh by default, as stackcollapse-perf.pl; --no-period counts samples" {
	check "$BATS_FILE_TMPDIR/c.txt" "" "app;[libc.so.6];ns::work;native_safe_halt_[k] 250000
app;[libc.so.6];ns::work 750000
swapper;native_safe_halt_[k] 100000"
	run "$PROF" report -i "$BATS_FILE_TMPDIR/c.txt" --no-period
	[ "$status" -eq 0 ]
	[[ "$output" == *"counted only the samples of event 'cycles'"* ]]
	echo "$output" | grep -qx 'app;\[libc.so.6\];ns::work 1'
	# Without a time before it, its regex sees no period: 1 each.
	check "$BATS_FILE_TMPDIR/notime.txt" "" "app;main 2"
	[ "$("$PROF" report -i "$BATS_FILE_TMPDIR/notime.txt" --period | folded_total)" -eq 1000000 ]
}

@test "pid and pid/tid roots, tid 0 as stackcollapse-perf.pl names it" {
	check "$BATS_FILE_TMPDIR/c.txt" --pids "app-100;[libc.so.6];ns::work;native_safe_halt_[k] 250000
app-100;[libc.so.6];ns::work 750000
swapper-?;native_safe_halt_[k] 100000"
	check "$BATS_FILE_TMPDIR/c.txt" --tids "app-100/101;[libc.so.6];ns::work;native_safe_halt_[k] 250000
app-100/102;[libc.so.6];ns::work 750000
swapper-?/0;native_safe_halt_[k] 100000"
}

@test "Java frames: L stripped with every root style, perf-map frames JIT" {
	want='JavaCalls::call_helper;[perf-25600.map]_[j];org/mozilla/Foo:::call_[j] 2'
	check "$BATS_FILE_TMPDIR/java.txt" "" "java;$want"
	check "$BATS_FILE_TMPDIR/java.txt" --pids "java-?;$want"
	check "$BATS_FILE_TMPDIR/java.txt" --tids "java-?/25607;$want"
	# --colors java paints the perf map's unknown frames as JIT (green).
	"$PROF" svg -i "$BATS_FILE_TMPDIR/java.txt" --colors java --palette-file "$BATS_TEST_TMPDIR/p.map" -o /dev/null
	rgb=$(sed -n 's/^\[perf-25600.map\]_\[j\]->rgb(\([0-9]*\),\([0-9]*\),\([0-9]*\))$/\1 \2 \3/p' "$BATS_TEST_TMPDIR/p.map")
	read -r r g b <<<"$rgb"
	[ "$g" -ge 200 ] && [ "$r" -lt "$g" ] && [ "$b" -lt "$g" ]
}

@test "frame lines without indentation (perf-java-stacks-02's shape)" {
	check "$BATS_FILE_TMPDIR/unindented.txt" "" "java;start_thread;java/io/FileOutputStream:::writeBytes_[j];native_write_msr_safe_[k] 1
java;start_thread;java/io/FileOutputStream:::writeBytes_[j] 1"
	# Detected on standard input too, by its first lines.
	[ "$("$PROF" report < "$BATS_FILE_TMPDIR/unindented.txt" | folded_total)" -eq 2 ]
}

@test "a real perf record: default weights are perf's periods; stackcollapse-perf.pl agrees" {
	perf record -q -g -F 499 -o "$BATS_TEST_TMPDIR/p.data" -- "$EXAMPLES/threads" 1 >/dev/null 2>&1
	perf script -i "$BATS_TEST_TMPDIR/p.data" > "$BATS_TEST_TMPDIR/p.txt" 2>/dev/null
	echo >> "$BATS_TEST_TMPDIR/p.txt" # stackcollapse-perf.pl drops a last sample without one
	"$PROF" report -i "$BATS_TEST_TMPDIR/p.txt" > "$BATS_TEST_TMPDIR/prof.folded"
	want=$(awk '/^[^[:space:]]/ && $(NF - 1) ~ /^[0-9]+$/ { s += $(NF - 1); next }
		/^[^[:space:]]/ { s += 1 } END { print s }' "$BATS_TEST_TMPDIR/p.txt")
	[ "$(folded_total < "$BATS_TEST_TMPDIR/prof.folded")" -eq "$want" ]
	grep -q '^alpha;.*burn_alpha ' "$BATS_TEST_TMPDIR/prof.folded"
	command -v stackcollapse-perf.pl >/dev/null || skip "stackcollapse-perf.pl is not on PATH"
	stackcollapse-perf.pl --all "$BATS_TEST_TMPDIR/p.txt" 2>/dev/null | LC_ALL=C sort > "$BATS_TEST_TMPDIR/sc.folded"
	LC_ALL=C sort "$BATS_TEST_TMPDIR/prof.folded" | diff -u "$BATS_TEST_TMPDIR/sc.folded" -
}
