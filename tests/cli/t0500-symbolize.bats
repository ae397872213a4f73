#!/usr/bin/env bats
# t0500-symbolize.bats: `prof symbolize -e` against binutils' addr2line,
# line by line, on many addresses: every 7th byte of the C++ example's .text
# (templates, lambdas, forced inlining) with several flag sets, libc through
# its separate debug file (libc6-dbg), a stripped copy found through
# .gnu_debuglink, stdin and coprocess use, and the errors.

load helpers

CXX_EX="$EXAMPLES/cxx-inline"
LIBC=/lib/x86_64-linux-gnu/libc.so.6

# Compares prof symbolize with addr2line on the addresses in file $1 for
# BINARY $2 and flags $3...; prints the first differences on failure.
same_as_addr2line() {
	local addrs=$1 bin=$2
	shift 2
	addr2line -e "$bin" "$@" < "$addrs" > "$BATS_TEST_TMPDIR/want"
	"$PROF" symbolize -e "$bin" "$@" < "$addrs" > "$BATS_TEST_TMPDIR/got"
	if ! cmp -s "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"; then
		echo "prof symbolize -e $bin $* differs from addr2line:" >&2
		diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" | head -20 >&2
		return 1
	fi
	# Not trivially equal: real answers came out.
	[ "$(wc -l < "$BATS_TEST_TMPDIR/got")" -ge "$(wc -l < "$addrs")" ]
}

setup_file() {
	text_addrs "$CXX_EX" 7 > "$BATS_FILE_TMPDIR/cxx.addrs"
}

@test "C++ example: -f -i -C matches addr2line on every 7th address" {
	[ "$(wc -l < "$BATS_FILE_TMPDIR/cxx.addrs")" -gt 500 ]
	same_as_addr2line "$BATS_FILE_TMPDIR/cxx.addrs" "$CXX_EX" -f -i -C
	# The inline chains are there: the xorshift step, inlined into fold(),
	# into the lambda, into hot_loop().
	grep -qx 'shapes::mixer::next()' "$BATS_TEST_TMPDIR/got"
	grep -A6 -x 'shapes::mixer::next()' "$BATS_TEST_TMPDIR/got" |
		grep -qx 'hot_loop(unsigned long, long)'
}

@test "C++ example: -a -f -i (mangled), -f, -i, no flags, -p -s match addr2line" {
	same_as_addr2line "$BATS_FILE_TMPDIR/cxx.addrs" "$CXX_EX" -a -f -i
	grep -q '^_ZN6shapes5mixer4nextEv$' "$BATS_TEST_TMPDIR/got"
	same_as_addr2line "$BATS_FILE_TMPDIR/cxx.addrs" "$CXX_EX" -f
	same_as_addr2line "$BATS_FILE_TMPDIR/cxx.addrs" "$CXX_EX" -i
	same_as_addr2line "$BATS_FILE_TMPDIR/cxx.addrs" "$CXX_EX"
	same_as_addr2line "$BATS_FILE_TMPDIR/cxx.addrs" "$CXX_EX" -a -f -i -C -p -s
	grep -q ' (inlined by) ' "$BATS_TEST_TMPDIR/got"
}

@test "addresses on the command line give what stdin gives" {
	head -50 "$BATS_FILE_TMPDIR/cxx.addrs" > "$BATS_TEST_TMPDIR/a"
	"$PROF" symbolize -e "$CXX_EX" -f -i -C < "$BATS_TEST_TMPDIR/a" > "$BATS_TEST_TMPDIR/s"
	# shellcheck disable=SC2046
	"$PROF" symbolize -e "$CXX_EX" -f -i -C $(cat "$BATS_TEST_TMPDIR/a") > "$BATS_TEST_TMPDIR/c"
	cmp "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/c"
	# addr2line also takes addresses without 0x
	run "$PROF" symbolize -e "$CXX_EX" -a "$(head -1 "$BATS_TEST_TMPDIR/a" | cut -c3-)"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$(printf '0x%016x' "$(head -1 "$BATS_TEST_TMPDIR/a")")" ]
}

@test "libc through libc6-dbg's separate debug file matches addr2line" {
	id=$(readelf -n "$LIBC" | awk '/Build ID/ { print $3 }')
	[ -f "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] || skip "libc6-dbg not installed"
	text_addrs "$LIBC" 97 > "$BATS_TEST_TMPDIR/libc.addrs"
	same_as_addr2line "$BATS_TEST_TMPDIR/libc.addrs" "$LIBC" -a -f -i -C
	# Source lines came from the debug file.
	[ "$(grep -c '^\./malloc/.*malloc\.c:[0-9]' "$BATS_TEST_TMPDIR/got")" -gt 10 ]
}

@test "a stripped copy finds its DWARF through .gnu_debuglink" {
	dir=$BATS_TEST_TMPDIR/stripped
	mkdir -p "$dir"
	objcopy --only-keep-debug "$CXX_EX" "$dir/cxx-inline.debug"
	objcopy --strip-all --add-gnu-debuglink="$dir/cxx-inline.debug" "$CXX_EX" "$dir/cxx-inline"
	run readelf -S "$dir/cxx-inline"
	[[ "$output" != *debug_info* ]]
	awk 'NR % 5 == 0' "$BATS_FILE_TMPDIR/cxx.addrs" > "$BATS_TEST_TMPDIR/few"
	same_as_addr2line "$BATS_TEST_TMPDIR/few" "$dir/cxx-inline" -f -i -C
	grep -q 'cxx-inline\.cpp:[0-9]' "$BATS_TEST_TMPDIR/got"
	grep -qx 'hot_loop(unsigned long, long)' "$BATS_TEST_TMPDIR/got"
}

@test "a symbol table without DWARF: function names, ??:? lines, ??:0 outside" {
	cp "$CXX_EX" "$BATS_TEST_TMPDIR/nodwarf"
	strip --strip-debug "$BATS_TEST_TMPDIR/nodwarf"
	{ head -300 "$BATS_FILE_TMPDIR/cxx.addrs"; echo 0x0; echo 0xffffffffffff; } \
		> "$BATS_TEST_TMPDIR/a"
	same_as_addr2line "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/nodwarf" -a -f -i
	grep -qx '??:?' "$BATS_TEST_TMPDIR/got"
	[ "$(tail -1 "$BATS_TEST_TMPDIR/got")" = '??:0' ]
}

@test "works as a coprocess: each answer comes before the next question" {
	addr=$(grep -m1 . "$BATS_FILE_TMPDIR/cxx.addrs")
	coproc SYM { "$PROF" symbolize -e "$CXX_EX" -f; }
	pid=$SYM_PID
	echo "$addr" >&"${SYM[1]}"
	read -r -t 10 fn <&"${SYM[0]}"
	read -r -t 10 loc <&"${SYM[0]}"
	echo "$addr" >&"${SYM[1]}"
	read -r -t 10 fn2 <&"${SYM[0]}"
	exec {SYM[1]}>&-
	wait "$pid"
	[ -n "$fn" ] && [ -n "$fn2" ]
	[[ "$loc" == *:* ]]
}

@test "errors: missing binary, not ELF, bad address, no -e" {
	run "$PROF" symbolize -e /nonexistent/bin 0x10
	[ "$status" -eq 1 ]
	[[ "$output" == *"prof symbolize: cannot open '/nonexistent/bin': No such file or directory"* ]]
	run "$PROF" symbolize -e "$ROOT/README.md" 0x10
	[ "$status" -eq 1 ]
	[[ "$output" == *"is not an ELF file"* ]]
	run "$PROF" symbolize -e "$CXX_EX" 0x10 zz12
	[ "$status" -eq 2 ]
	[[ "$output" == *"'zz12' is not a hexadecimal address"* ]]
	run "$PROF" symbolize 0x10
	[ "$status" -eq 2 ]
	run "$PROF" symbolize -e "$CXX_EX" --bogus
	[ "$status" -eq 2 ]
}

@test "symbolize -h synopsis matches docs/prof-symbolize.md" {
	run "$PROF" symbolize -h
	[ "$status" -eq 0 ]
	first=$(echo "$output" | head -1)
	grep -qF -- "$first" "$ROOT/docs/prof-symbolize.md"
}

@test "a recording of the C++ example shows inlined frames (_[i]) under their callers" {
	rec=$BATS_TEST_TMPDIR/cxx.data
	"$PROF" record -F 499 -o "$rec" -- "${TIMED[@]}" "$BATS_TEST_TMPDIR/cpu" "$CXX_EX" 2 \
		2>"$BATS_TEST_TMPDIR/err"
	folded=$("$PROF" report -i "$rec")
	total=$(echo "$folded" | folded_total)
	enough_samples cxx "$total" 499 "$(timed_cpu "$BATS_TEST_TMPDIR/cpu")"
	# The hot loop's code is inlined: the xorshift step inside fold(), inside
	# the lambda, inside hot_loop(), the function the samples are in.
	chain='hot_loop\(unsigned long, long\);operator\(\)_\[i\];unsigned long shapes::fold<unsigned long, 8>\(shapes::mixer&\)_\[i\]'
	inlined=$(echo "$folded" | folded_sum "$chain")
	next=$(echo "$folded" | folded_sum "${chain};shapes::mixer::next\(\)_\[i\]")
	assert_between "share under the inlined chain" "$(ratio "$inlined" "$total")" 0.5 1
	[ "$next" -gt 0 ]
	# Names are demangled, and no frame is left mangled.
	! echo "$folded" | grep -q '_Z[A-Z0-9]'
	# --top counts inlined functions too.
	run "$PROF" report -i "$rec" --top 20
	[ "$status" -eq 0 ]
	[[ "$output" == *"shapes::mixer::next()_[i]"* ]]
}

@test "report --lines: each frame with its source line, inlined ones too" {
	rec=$BATS_TEST_TMPDIR/cxx-lines.data
	"$PROF" record -F 499 -o "$rec" -- "$CXX_EX" 2 2>/dev/null
	src=$ROOT/examples/cxx-inline.cpp
	# The lines of the example where each level calls the next one.
	call=$(grep -n 'total += step(' "$src" | cut -d: -f1)
	fold=$(grep -n 'return shapes::fold<uint64_t, 8>(m)' "$src" | cut -d: -f1)
	folded=$("$PROF" report --lines -i "$rec")
	total=$(echo "$folded" | folded_total)
	chain="hot_loop\\(unsigned long, long\\) \\(cxx-inline.cpp:$call\\);operator\\(\\) \\(cxx-inline.cpp:$fold\\)_\\[i\\]"
	assert_between "share under hot_loop:$call;operator():$fold" \
		"$(ratio "$(echo "$folded" | folded_sum "$chain")" "$total")" 0.5 1
	# The same samples as without --lines.
	[ "$total" -eq "$("$PROF" report -i "$rec" | folded_total)" ]
	# Folded text has no lines to show.
	run "$PROF" report --lines -i <(echo "a;b 1")
	[ "$status" -eq 2 ]
	[[ "$output" == *"--lines needs a recording"* ]]
}
