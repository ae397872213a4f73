#!/usr/bin/env bats
# t0550-split-rust.bats: split DWARF and real Rust binaries.
#
# Split DWARF: binutils 2.40's addr2line does not read .dwo files (on a
# -gsplit-dwarf binary it prints no inlines, and for DWARF 5 not even
# lines), so the reference is addr2line on the same program built without
# -gsplit-dwarf: the code is the same (checked: same .text bytes), and
# prof symbolize on the split binary must print exactly what addr2line
# prints for the plain one. Covers DWARF 5 and GNU DWARF 4 split units,
# .dwo files found through DW_AT_comp_dir or beside a moved binary, a
# DWARF 4 .dwp package (binutils' dwp: it does not pack DWARF 5), and a
# deleted .dwo (one note, symbols still).
#
# Rust: examples/rust/rust-example.rs, built with legacy and v0 mangling.
# make deps installs rustc, so a missing build is a failure, not a skip.

bats_require_minimum_version 1.5.0
load helpers

SPLIT=$EXAMPLES/split-dwarf
RUST_LEGACY=$EXAMPLES/rust/rust-example
RUST_V0=$EXAMPLES/rust/rust-example-v0

# Compares `prof symbolize -e GOT_BIN` with `addr2line -e WANT_BIN` on the
# addresses in file $1, flags $4...; SED (may be empty) edits addr2line's
# output first (a build directory that moved).
same_as() {
	local addrs=$1 got_bin=$2 want_bin=$3 sed_expr=$4
	shift 4
	addr2line -e "$want_bin" "$@" < "$addrs" | sed -e "${sed_expr:-s/^//}" \
		> "$BATS_TEST_TMPDIR/want"
	"$PROF" symbolize -e "$got_bin" "$@" < "$addrs" > "$BATS_TEST_TMPDIR/got" \
		2> "$BATS_TEST_TMPDIR/err"
	if ! cmp -s "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"; then
		echo "prof symbolize -e $got_bin $* differs from addr2line -e $want_bin:" >&2
		diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" | head -20 >&2
		return 1
	fi
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
}

# The inline chain of the C++ example's hot loop is in the output.
has_inline_chain() {
	grep -qx 'shapes::mixer::next()' "$BATS_TEST_TMPDIR/got"
	grep -A6 -x 'shapes::mixer::next()' "$BATS_TEST_TMPDIR/got" |
		grep -qx 'hot_loop(unsigned long, long)'
}

# Builds the C++ example with split DWARF in DIR (the build directory,
# DW_AT_comp_dir) with extra flags; prints nothing.
build_split() {
	local dir=$1 out=$2
	shift 2
	mkdir -p "$dir"
	cp "$ROOT/examples/cxx-inline.cpp" "$dir/"
	(cd "$dir" && g++ -std=c++17 -O2 -g -fno-omit-frame-pointer -gsplit-dwarf "$@" \
		-o "$out" cxx-inline.cpp)
}

@test "split DWARF 5 and 4: same code as the plain builds, and the .dwo files are there" {
	for v in 5 4; do
		[ -f "$SPLIT/cxx-inline-dwarf$v-cxx-inline.dwo" ]
		run readelf -SW "$SPLIT/cxx-inline-dwarf$v"
		[[ "$output" != *".debug_info.dwo"* ]]
	done
	objcopy -O binary -j .text "$SPLIT/cxx-inline-dwarf5" "$BATS_TEST_TMPDIR/a"
	objcopy -O binary -j .text "$EXAMPLES/cxx-inline" "$BATS_TEST_TMPDIR/b"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	objcopy -O binary -j .text "$SPLIT/cxx-inline-dwarf4" "$BATS_TEST_TMPDIR/a"
	objcopy -O binary -j .text "$SPLIT/cxx-inline-dwarf4-plain" "$BATS_TEST_TMPDIR/b"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
}

@test "split DWARF 5 (.dwo): -f -i -C and -a -f -i match addr2line on the plain build" {
	text_addrs "$SPLIT/cxx-inline-dwarf5" 3 > "$BATS_TEST_TMPDIR/addrs"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/addrs")" -gt 1000 ]
	same_as "$BATS_TEST_TMPDIR/addrs" "$SPLIT/cxx-inline-dwarf5" "$EXAMPLES/cxx-inline" "" -f -i -C
	has_inline_chain
	same_as "$BATS_TEST_TMPDIR/addrs" "$SPLIT/cxx-inline-dwarf5" "$EXAMPLES/cxx-inline" "" -a -f -i
	# binutils itself does not read the .dwo: no inlines from it.
	addr2line -e "$SPLIT/cxx-inline-dwarf5" -f -i -C < "$BATS_TEST_TMPDIR/addrs" |
		{ ! grep -qx 'shapes::mixer::next()'; }
}

@test "split GNU DWARF 4 (.dwo): -f -i -C, -a -f -i -p match addr2line on the plain build" {
	text_addrs "$SPLIT/cxx-inline-dwarf4" 3 > "$BATS_TEST_TMPDIR/addrs"
	same_as "$BATS_TEST_TMPDIR/addrs" "$SPLIT/cxx-inline-dwarf4" \
		"$SPLIT/cxx-inline-dwarf4-plain" "" -f -i -C
	has_inline_chain
	same_as "$BATS_TEST_TMPDIR/addrs" "$SPLIT/cxx-inline-dwarf4" \
		"$SPLIT/cxx-inline-dwarf4-plain" "" -a -f -i -p
}

@test "split DWARF: a moved binary finds its .dwo beside it; a DWARF 4 .dwp package" {
	build=$BATS_TEST_TMPDIR/build
	build_split "$build" x5 -gdwarf-5
	build_split "$build" x4 -gdwarf-4
	mkdir "$BATS_TEST_TMPDIR/moved" "$BATS_TEST_TMPDIR/pkg"
	cp "$build/x5" "$build/x5-cxx-inline.dwo" "$BATS_TEST_TMPDIR/moved/"
	command -v dwp
	(cd "$build" && dwp -e x4 -o "$BATS_TEST_TMPDIR/pkg/x4.dwp")
	cp "$build/x4" "$BATS_TEST_TMPDIR/pkg/"
	rm -rf "$build" # DW_AT_comp_dir is gone
	text_addrs "$BATS_TEST_TMPDIR/moved/x5" 5 > "$BATS_TEST_TMPDIR/addrs"
	same_as "$BATS_TEST_TMPDIR/addrs" "$BATS_TEST_TMPDIR/moved/x5" "$EXAMPLES/cxx-inline" \
		"s|^$ROOT/examples/|$build/|" -f -i -C
	has_inline_chain
	same_as "$BATS_TEST_TMPDIR/addrs" "$BATS_TEST_TMPDIR/pkg/x4" \
		"$SPLIT/cxx-inline-dwarf4-plain" "s|^$ROOT/examples/|$build/|" -f -i -C
	has_inline_chain
}

@test "split DWARF: a deleted .dwo gives one note, symbol names, no crash" {
	build=$BATS_TEST_TMPDIR/build
	build_split "$build" x5 -gdwarf-5
	rm "$build/x5-cxx-inline.dwo"
	text_addrs "$build/x5" 11 > "$BATS_TEST_TMPDIR/addrs"
	run --separate-stderr "$PROF" symbolize -e "$build/x5" -f -i -C < "$BATS_TEST_TMPDIR/addrs"
	[ "$status" -eq 0 ]
	[ "$(echo "$stderr" | grep -c 'warning: split DWARF')" -eq 1 ]
	[[ "$stderr" == *"split DWARF: 1 unit's .dwo files not found (first: $build/x5-cxx-inline.dwo)"* ]]
	# Functions from the symbol table, no inlined frames.
	[[ "$output" == *"hot_loop(unsigned long, long)"* ]]
	[[ "$output" != *"shapes::mixer::next()"* ]]
	# A recording says it once too.
	run "$PROF" record -F 499 -o "$BATS_TEST_TMPDIR/x.data" -- "$build/x5" 0.3
	[ "$status" -eq 0 ]
	[[ "$output" == *"prof record: split DWARF: 1 unit's .dwo files not found"* ]]
}

@test "split DWARF: a recording has inlined frames (_[i]) and lines from the .dwo" {
	rec=$BATS_TEST_TMPDIR/split.data
	"$PROF" record -F 499 -o "$rec" -- "${TIMED[@]}" "$BATS_TEST_TMPDIR/cpu" \
		"$SPLIT/cxx-inline-dwarf5" 2 2>/dev/null
	folded=$("$PROF" report -i "$rec")
	total=$(echo "$folded" | folded_total)
	# 499 samples a second of the CPU it used (-20%, +15%).
	assert_between "samples per CPU second" "$(ratio "$total" "$(timed_cpu "$BATS_TEST_TMPDIR/cpu")")" 400 575
	chain='hot_loop\(unsigned long, long\);operator\(\)_\[i\];unsigned long shapes::fold<unsigned long, 8>\(shapes::mixer&\)_\[i\]'
	assert_between "share under the inlined chain" \
		"$(ratio "$(echo "$folded" | folded_sum "$chain")" "$total")" 0.5 1
	src=$ROOT/examples/cxx-inline.cpp
	call=$(grep -n 'total += step(' "$src" | cut -d: -f1)
	fold=$(grep -n 'return shapes::fold<uint64_t, 8>(m)' "$src" | cut -d: -f1)
	lines=$("$PROF" report --lines -i "$rec")
	chain="hot_loop\\(unsigned long, long\\) \\(cxx-inline.cpp:$call\\);operator\\(\\) \\(cxx-inline.cpp:$fold\\)_\\[i\\]"
	assert_between "share under hot_loop:$call;operator():$fold" \
		"$(ratio "$(echo "$lines" | folded_sum "$chain")" "$total")" 0.5 1
}

@test "Rust: the examples were built (rustc is installed by make deps)" {
	if [ ! -x "$RUST_LEGACY" ] || [ ! -x "$RUST_V0" ]; then
		echo "no Rust examples in $EXAMPLES/rust: install rustc (make deps) and run make" >&2
		return 1
	fi
	# Legacy mangling (_ZN...17h<hash>E) and v0 (_R...).
	nm "$RUST_LEGACY" | grep -q ' _ZN12rust_example8hot_loop17h[0-9a-f]\{16\}E$'
	nm "$RUST_V0" | grep -q ' _RNvCs[0-9A-Za-z_]*12rust_example8hot_loop$'
}

@test "Rust: prof symbolize matches addr2line on legacy and v0 binaries" {
	for bin in "$RUST_LEGACY" "$RUST_V0"; do
		text_addrs "$bin" 17 > "$BATS_TEST_TMPDIR/addrs"
		[ "$(wc -l < "$BATS_TEST_TMPDIR/addrs")" -gt 5000 ]
		same_as "$BATS_TEST_TMPDIR/addrs" "$bin" "$bin" "" -f -i -C
		grep -qx 'rust_example::hot_loop' "$BATS_TEST_TMPDIR/got"
		grep -qx 'rust_example::mix' "$BATS_TEST_TMPDIR/got"
		# v0 names carry their generic arguments.
		[ "$bin" != "$RUST_V0" ] ||
			grep -qx 'rust_example::fold_all::<u8, rust_example::worker_loop::{closure#1}>' \
				"$BATS_TEST_TMPDIR/got"
		same_as "$BATS_TEST_TMPDIR/addrs" "$bin" "$bin" "" -a -f -i -p
	done
	# Legacy names have no hash.
	text_addrs "$RUST_LEGACY" 17 > "$BATS_TEST_TMPDIR/addrs"
	"$PROF" symbolize -e "$RUST_LEGACY" -f -C < "$BATS_TEST_TMPDIR/addrs" > "$BATS_TEST_TMPDIR/l"
	grep -qx 'rust_example::fold_all' "$BATS_TEST_TMPDIR/l"
	! grep -qE '::h[0-9a-f]{16}$' "$BATS_TEST_TMPDIR/l"
}

@test "Rust: a recording shows demangled paths, inlined frames and the named thread" {
	for bin in "$RUST_LEGACY" "$RUST_V0"; do
		rec=$BATS_TEST_TMPDIR/rust.data
		"$PROF" record -F 499 -o "$rec" -- "${TIMED[@]}" "$BATS_TEST_TMPDIR/cpu" "$bin" 2 2>/dev/null
		folded=$("$PROF" report --threads -i "$rec")
		total=$(echo "$folded" | folded_total)
		# 499 samples a second of the CPU it used (-20%, +15%).
		assert_between "samples per CPU second" "$(ratio "$total" "$(timed_cpu "$BATS_TEST_TMPDIR/cpu")")" 400 575
		# Two roots, the main thread (its command name) and rs-worker, hold
		# the samples. Not each about half: how a loaded machine shares its
		# CPUs between two busy threads is its business (rs-worker 0.18 and
		# 0.21 beside two CPU hogs); the shares' accuracy is t0100's.
		worker=$(echo "$folded" | folded_sum '^rs-worker;')
		main=$(echo "$folded" | folded_sum "^$(basename "$bin" | cut -c1-15);")
		[ "$worker" -gt 0 ]
		[ "$main" -gt 0 ]
		assert_between "the two threads' share" "$(ratio $((worker + main)) "$total")" 0.9 1
		# Demangled as addr2line -C / nm -C name them: no hash suffix, no
		# mangled frame.
		! echo "$folded" | grep -qE '::h[0-9a-f]{16}([;[:space:]]|$)'
		! echo "$folded" | grep -qE '(^|;)(_ZN|_R[A-Z])'
		[ "$(echo "$folded" | folded_sum ';rust_example::hot_loop([; ]|$)')" -gt 0 ]
		[ "$(echo "$folded" | folded_sum '^rs-worker;.*;rust_example::worker_loop([; ]|$)')" -gt 0 ]
		# mix() is #[inline(always)]: an inlined frame from DWARF.
		[ "$(echo "$folded" | folded_sum ';rust_example::mix_\[i\]')" -gt 0 ]
	done
	# v0: generic arguments in the names.
	echo "$folded" | grep -qF 'rust_example::fold_all::<u'
}
