#!/usr/bin/env bats
# t0510: names for binaries built any way, recorded for real: a stripped
# copy of the threads example with its debug file in a private debug
# directory (build-id, .gnu_debuglink, a bad CRC), with MiniDebugInfo;
# `prof symbolize -i` on --no-symbolize recordings, after debug files were
# installed, under --root, and on bad input; JIT code named from the perf
# map the jit example writes, and maps prof must not trust. A stripped
# hotloop: `prof symbolize -e` finds its debug file as the recording's
# symbolizer does (same lines as report --lines and addr2line), and
# annotate finds its function in MiniDebugInfo alone.

load helpers

setup_file() {
	export D="$BATS_FILE_TMPDIR"
	mkdir -p "$D/empty-dbg"
	stripped_with_debug threads threads
	stripped_with_debug hotloop hot # -O2: its hot loop spans several lines
}

# stripped_with_debug EXAMPLE NAME: a stripped copy of the example and its
# debug file, as distributions ship them: $D/NAME-full (the copy),
# $D/NAME-stripped, and $D/NAME.debug, also under its build-id in the
# private debug directory $D/dbg.
stripped_with_debug() {
	local full=$D/$2-full bid
	cp "$EXAMPLES/$1" "$full"
	objcopy --only-keep-debug "$full" "$D/$2.debug"
	strip -o "$D/$2-stripped" "$full"
	bid=$(readelf -n "$full" | awk '/Build ID/ { print $3 }')
	mkdir -p "$D/dbg/.build-id/${bid:0:2}"
	cp "$D/$2.debug" "$D/dbg/.build-id/${bid:0:2}/${bid:2}.debug"
}

# add_minidebuginfo FULL DEBUG STRIPPED OUT: OUT is STRIPPED with a
# .gnu_debugdata section, as Fedora's find-debuginfo builds it: the
# function symbols of FULL that .dynsym lacks, from DEBUG, xz-compressed.
add_minidebuginfo() {
	local full=$1 debug=$2 stripped=$3 out=$4 dir
	dir=$(mktemp -d "$D/mini.XXXXXX")
	nm -D "$full" --format=posix --defined-only | awk '{ print $1 }' | sort >"$dir/dynsyms"
	nm "$full" --format=posix --defined-only | awk '$2 ~ /[Tt]/ { print $1 }' |
		sort >"$dir/funcsyms"
	comm -13 "$dir/dynsyms" "$dir/funcsyms" >"$dir/keep"
	objcopy -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols="$dir/keep" "$debug" "$dir/mini"
	xz "$dir/mini"
	objcopy --add-section .gnu_debugdata="$dir/mini.xz" "$stripped" "$out"
}

# Records `threads` (a copy, by path) for a second into OUT; the CPU its
# workers measured ("cpu NAME SECONDS" lines) in $THREADS_ERR.
record_threads() {
	local bin=$1 out=$2
	shift 2
	THREADS_ERR=$out.err
	"$PROF" record -q -F 499 "$@" -o "$out" -- "$bin" 1 2>"$THREADS_ERR"
}

# The static functions of the example, by name, and their share.
expect_names() {
	local folded=$1 total named
	total=$(echo "$folded" | folded_total)
	named=$(echo "$folded" | folded_sum 'burn_alpha|burn_beta|pool_burn')
	enough_samples threads "$total" 499 "$(awk '$1 == "cpu" { s += $3 } END { print s + 0 }' "$THREADS_ERR")"
	assert_between "share of samples in the named burn functions" \
		"$(ratio "$named" "$total")" 0.75 1.0
	echo "$folded" | grep -q "alpha_outer;alpha_inner;burn_alpha" || { echo "$folded" >&2; return 1; }
}

expect_no_names() {
	! echo "$1" | grep -Eq 'burn_alpha|burn_beta|pool_burn|alpha_inner'
	echo "$1" | grep -q '\[threads-stripped+0x'
}

@test "a stripped binary without debug files has no names for its functions" {
	PROF_DEBUGINFO_DIRS="$D/empty-dbg" record_threads "$D/threads-stripped" "$D/none.data"
	expect_no_names "$("$PROF" report -i "$D/none.data")"
}

@test "a stripped binary is named through its debug file, found by build-id" {
	PROF_DEBUGINFO_DIRS="$D/empty-dbg:$D/dbg" record_threads "$D/threads-stripped" "$D/bid.data"
	expect_names "$("$PROF" report -i "$D/bid.data")"
}

@test "debug files installed later: prof symbolize -i names the old recording" {
	PROF_DEBUGINFO_DIRS="$D/empty-dbg" record_threads "$D/threads-stripped" "$D/later.data"
	before=$("$PROF" report -i "$D/later.data")
	expect_no_names "$before"
	run env PROF_DEBUGINFO_DIRS="$D/dbg" "$PROF" symbolize -i "$D/later.data"
	[ "$status" -eq 0 ]
	[[ "$output" =~ frames\ named.*\([1-9][0-9]*\ through\ debug\ files\) ]]
	after=$("$PROF" report -i "$D/later.data")
	expect_names "$after"
	# The same samples, only named: the totals agree.
	[ "$(echo "$before" | folded_total)" -eq "$(echo "$after" | folded_total)" ]
	# --debug-dir does the same as the environment.
	PROF_DEBUGINFO_DIRS="$D/empty-dbg" record_threads "$D/threads-stripped" "$D/later2.data"
	"$PROF" symbolize -q -i "$D/later2.data" --debug-dir "$D/dbg"
	expect_names "$("$PROF" report -i "$D/later2.data")"
}

@test "a .gnu_debuglink next to the binary is followed; a bad CRC is refused" {
	mkdir -p "$D/link"
	cp "$D/threads.debug" "$D/link/threads.debug"
	objcopy --add-gnu-debuglink="$D/link/threads.debug" "$D/threads-stripped" \
		"$D/link/threads-stripped"
	PROF_DEBUGINFO_DIRS="$D/empty-dbg" record_threads "$D/link/threads-stripped" "$D/link.data"
	expect_names "$("$PROF" report -i "$D/link.data")"
	# One changed byte at the end: same build-id, different CRC.
	printf x >>"$D/link/threads.debug"
	PROF_DEBUGINFO_DIRS="$D/empty-dbg" record_threads "$D/link/threads-stripped" "$D/crc.data"
	expect_no_names "$("$PROF" report -i "$D/crc.data")"
}

@test "MiniDebugInfo (.gnu_debugdata) names the static functions of a stripped binary" {
	mkdir -p "$D/mini"
	add_minidebuginfo "$D/threads-full" "$D/threads.debug" "$D/threads-stripped" \
		"$D/mini/threads-stripped"
	PROF_DEBUGINFO_DIRS="$D/empty-dbg" record_threads "$D/mini/threads-stripped" "$D/mini.data"
	expect_names "$("$PROF" report -i "$D/mini.data")"
}

@test "prof symbolize -e: a stripped binary's debug file from PROF_DEBUGINFO_DIRS, lines as report --lines and addr2line" {
	export PROF_DEBUGINFO_DIRS="$D/empty-dbg:$D/dbg"
	"$PROF" record -q -F 999 -o "$D/hot.data" -- "$D/hot-stripped" 1 >/dev/null
	# The sampled addresses of hot_function and their samples ("ADDR N"),
	# from annotate's listing.
	sampled=$("$PROF" annotate -i "$D/hot.data" hot_function |
		awk '/^ *[0-9.]+% +[0-9]+ +[0-9a-f]+: / { a = $3; sub(":", "", a); print a, $2 }')
	[ "$(echo "$sampled" | wc -l)" -ge 2 ]
	addrs=$(echo "$sampled" | awk '{ print $1 }')
	# Function, file and line of each: what addr2line prints from the
	# unstripped binary, byte for byte.
	diff -u <(addr2line -f -e "$D/hot-full" $addrs) \
		<("$PROF" symbolize -f -e "$D/hot-stripped" $addrs)
	# And report --lines puts each address's samples on that line.
	by_addr=$(paste -d' ' <("$PROF" symbolize -s -e "$D/hot-stripped" $addrs |
		sed 's/ (discriminator [0-9]*)$//') <(echo "$sampled" | awk '{ print $2 }') |
		awk '{ s[$1] += $2 } END { for (l in s) print l, s[l] }' | sort)
	by_report=$("$PROF" report -i "$D/hot.data" --lines |
		awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
			if (f[k] ~ /^hot_function \(/) { sub(/^hot_function \(/, "", f[k])
				sub(/\)$/, "", f[k]); s[f[k]] += n } }
			END { for (l in s) print l, s[l] }' | sort)
	[ -n "$by_report" ]
	diff -u <(echo "$by_report") <(echo "$by_addr")
	# Without the debug directory: no DWARF, no local symbol.
	run env PROF_DEBUGINFO_DIRS="$D/empty-dbg" "$PROF" symbolize -f -e "$D/hot-stripped" $addrs
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | sort -u)" = "$(printf '%s\n' '??' '??:0')" ]
}

@test "prof annotate: a stripped binary with only MiniDebugInfo gets its function's bounds" {
	add_minidebuginfo "$D/hot-full" "$D/hot.debug" "$D/hot-stripped" "$D/hot-mini"
	export PROF_DEBUGINFO_DIRS="$D/empty-dbg"
	"$PROF" record -q -F 999 -o "$D/mini-hot.data" -- "$D/hot-mini" 1 >/dev/null
	run "$PROF" annotate -i "$D/mini-hot.data" hot_function
	[ "$status" -eq 0 ]
	# Its instructions are hot_function's bytes in the unstripped binary.
	read -r start size < <(nm -S "$D/hot-full" | awk '$4 == "hot_function" { print $1, $2 }')
	[[ "$output" == *"$(printf '%d bytes at 0x%x' $((16#$size)) $((16#$start)))"* ]]
	rows=$(echo "$output" | awk '/^ +([0-9.]+% +[0-9]+ +)?[0-9a-f]+: / {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9a-f]+:$/) { sub(":", "", $i); print $i; break } }')
	[ "$(echo "$rows" | head -1)" = "$(printf '%x' $((16#$start)))" ]
	[ $((16#$(echo "$rows" | tail -1))) -lt $((16#$start + 16#$size)) ]
	[ "$(echo "$rows" | wc -l)" -ge 8 ]
	# The stripped binary without it has no such function.
	"$PROF" record -q -F 999 -o "$D/nomini.data" -- "$D/hot-stripped" 1 >/dev/null
	run "$PROF" annotate -i "$D/nomini.data" hot_function
	[ "$status" -eq 1 ]
}

@test "--no-symbolize, then prof symbolize -i: named like a recording symbolized at once" {
	record_threads "$EXAMPLES/threads" "$D/raw.data" --no-symbolize
	raw=$("$PROF" report -i "$D/raw.data")
	echo "$raw" | grep -q '\[threads+0x'
	run "$PROF" symbolize -i "$D/raw.data" -o "$D/named.data"
	[ "$status" -eq 0 ]
	named=$("$PROF" report -i "$D/named.data")
	expect_names "$named"
	! echo "$named" | grep -q '\[threads+0x'
	[ "$(echo "$raw" | folded_total)" -eq "$(echo "$named" | folded_total)" ]
	# Symbolizing a symbolized recording changes nothing.
	"$PROF" symbolize -q -i "$D/named.data" -o "$D/again.data"
	diff -u <(echo "$named") <("$PROF" report -i "$D/again.data")
	diff -u <("$PROF" report -i "$D/named.data" --threads) \
		<("$PROF" report -i "$D/again.data" --threads)
}

@test "prof symbolize --root: binaries from a copy of the target's files" {
	mkdir -p "$D/app" "$D/sysroot$D/app"
	cp "$EXAMPLES/threads" "$D/app/threads"
	record_threads "$D/app/threads" "$D/root.data" --no-symbolize
	mv "$D/app/threads" "$D/sysroot$D/app/threads"
	"$PROF" symbolize -q -i "$D/root.data" -o "$D/noroot.data"
	! "$PROF" report -i "$D/noroot.data" | grep -q burn_alpha
	"$PROF" symbolize -q -i "$D/root.data" --root "$D/sysroot"
	expect_names "$("$PROF" report -i "$D/root.data")"
}

@test "prof symbolize: damaged, incomplete or missing input fails and writes nothing" {
	record_threads "$EXAMPLES/threads" "$D/ok.data" --no-symbolize
	size=$(stat -c %s "$D/ok.data")
	# Truncated: the end mark is gone.
	head -c $((size - 100)) "$D/ok.data" >"$D/cut.data"
	cp "$D/cut.data" "$D/cut.orig"
	run "$PROF" symbolize -i "$D/cut.data"
	[ "$status" -eq 1 ]
	[[ "$output" == *"'$D/cut.data' is incomplete"* ]]
	[[ "$output" == *"hint:"* ]]
	cmp "$D/cut.data" "$D/cut.orig"
	# ...unless asked for: then what it holds is named and closed.
	run "$PROF" symbolize -q -i "$D/cut.data" -o "$D/cut-named.data" --incomplete
	[ "$status" -eq 0 ]
	"$PROF" report -i "$D/cut-named.data" | grep -q burn_
	# Corrupt: bytes of the first chunk's payload changed (checksum mismatch).
	cp "$D/ok.data" "$D/bad.data"
	printf '\377\377\377\377' | dd of="$D/bad.data" bs=1 seek=40 conv=notrunc 2>/dev/null
	cp "$D/bad.data" "$D/bad.orig"
	run "$PROF" symbolize -i "$D/bad.data"
	[ "$status" -eq 1 ]
	[[ "$output" == *"is not a usable recording"*corrupt* ]]
	cmp "$D/bad.data" "$D/bad.orig"
	# Not a recording, missing, a directory.
	echo "main;f 3" >"$D/folded.txt"
	run "$PROF" symbolize -i "$D/folded.txt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"bad magic"* ]]
	run "$PROF" symbolize -i "$D/nonexistent.data"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot read"*"No such file"* ]]
	run "$PROF" symbolize -i "$D"
	[ "$status" -eq 1 ]
	# No temporary files left behind.
	[ -z "$(ls "$D" | grep '\.tmp\.')" ]
	# Usage errors.
	run "$PROF" symbolize -i "$D/ok.data" --bogus
	[ "$status" -eq 2 ]
	run "$PROF" symbolize -i
	[ "$status" -eq 2 ]
	run "$PROF" symbolize -h
	[ "$status" -eq 0 ]
	[[ "$output" == *prof\ symbolize\ -i\ RECORDING* ]]
}

@test "prof symbolize on an unwritable destination fails and keeps the input" {
	record_threads "$EXAMPLES/threads" "$D/keep.data" --no-symbolize
	cp "$D/keep.data" "$D/keep.orig"
	run "$PROF" symbolize -i "$D/keep.data" -o "$D/no/such/dir/out.data"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot write '$D/no/such/dir/out.data': No such file or directory"* ]]
	[[ "$output" == *"was left as it was"* ]]
	cmp "$D/keep.data" "$D/keep.orig"
}

# Starts the jit example and waits for its map.
start_jit() {
	start_example jit 30
	JIT_MAP="/tmp/perf-$EXAMPLE_PID.map"
	[ -f "$JIT_MAP" ]
}

stop_jit() {
	kill "$EXAMPLE_PID" 2>/dev/null || true
	wait "$EXAMPLE_PID" 2>/dev/null || true
	rm -f "$JIT_MAP"
}

@test "JIT code is named from /tmp/perf-PID.map, as _[j] frames" {
	start_jit
	# Until 100 samples were flushed, however long a loaded machine takes
	# (a second gave 6 to 41 beside two CPU hogs), then a clean stop.
	record_start "$D/jit.data" -q -F 499
	wait_readable "$D/jit.data" 100
	record_stop TERM "$D/jit.data"
	folded=$("$PROF" report -i "$D/jit.data")
	stop_jit
	total=$(echo "$folded" | folded_total)
	hot=$(echo "$folded" | folded_sum 'jit_loop_hot_\[j\]')
	cold=$(echo "$folded" | folded_sum 'jit_loop_cold_\[j\]')
	[ "$total" -ge 100 ]
	assert_between "share in the generated code" "$(ratio $((hot + cold)) "$total")" 0.75 1.0
	assert_between "hot/cold (built as 3)" "$(ratio "$hot" "$cold")" 2.0 4.5
}

@test "a JIT map writable by others, or owned by someone else, is ignored with a notice" {
	start_jit
	chmod 666 "$JIT_MAP"
	run "$PROF" record -F 499 -d 0.5 -o "$D/jit-w.data" -p "$EXAMPLE_PID"
	[[ "$output" == *"ignoring JIT map '/proc/$EXAMPLE_PID/root/tmp/perf-$EXAMPLE_PID.map': writable by others"* ]]
	! "$PROF" report -i "$D/jit-w.data" | grep -q '_\[j\]'
	chmod 644 "$JIT_MAP"
	if [ "$(id -u)" -eq 0 ]; then
		chown 4242 "$JIT_MAP"
		run "$PROF" record -F 499 -d 0.5 -o "$D/jit-o.data" -p "$EXAMPLE_PID"
		[[ "$output" == *"ignoring JIT map"*"not owned by root, the user running prof or the process's owner"* ]]
		! "$PROF" report -i "$D/jit-o.data" | grep -q '_\[j\]'
		# Fixed later: prof symbolize -i names the frames (the process lives).
		chown 0 "$JIT_MAP"
		"$PROF" symbolize -q -i "$D/jit-o.data"
		"$PROF" report -i "$D/jit-o.data" | grep -q 'jit_loop_hot_\[j\]'
	fi
	stop_jit
}

@test "prof symbolize -i: a progress line on a terminal, none otherwise" {
	command -v script >/dev/null || skip "no script(1) for a pseudo-terminal"
	rec=$BATS_TEST_TMPDIR/progress.data
	"$PROF" record -q --no-symbolize -F 499 -o "$rec" -- "$EXAMPLES/threads" 0.5 2>/dev/null
	# On a pseudo-terminal (script(1)): "N/M frames (P%)" updates, ending at 100%.
	out=$(script -qec "'$PROF' symbolize -i '$rec' -o '$BATS_TEST_TMPDIR/tty.data'" /dev/null)
	echo "$out" | tr '\r' '\n' | grep -Eq '^prof symbolize: [0-9]+/[0-9]+ frames \(100%\)$'
	# Piped: the summary only.
	run "$PROF" symbolize -i "$rec" -o "$BATS_TEST_TMPDIR/pipe.data"
	[ "$status" -eq 0 ]
	[[ "$output" != *"frames ("* ]]
	[[ "$output" == *"frames named"* ]]
}
