#!/usr/bin/env bats
# t0616: native allocations (`prof record --malloc`, `--leaks`; `prof
# report --malloc`, `--leaks`) on examples/leaky.c, which leaks 1024 bytes
# a tick from main;tick;leak_outer;leak_inner;malloc and allocates and
# frees a known mix (mix_small: malloc 64 B, mix_medium: calloc 1 KiB,
# mix_large: malloc 1 KiB grown by realloc to 4 KiB), and prints its own
# totals. Estimates are checked against those totals: the sampler keeps
# one allocation per --every-bytes bytes on average, so the bounds are
# about 4 standard deviations of the sample counts the test gets.

load helpers

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	# The whole run of a launched command, probes attached all along, frees
	# too: every byte counted by the program is in the recording.
	"$PROF" record --malloc --leaks --probe-window off --every-bytes 1K -o leaks.data \
		-- "$EXAMPLES/leaky" 3 >leaks.out 2>leaks.log || true
	# Attached to a running one, in windows (100 of every 200 ms).
	"$EXAMPLES/leaky" 6 >mix.out 2>mix.log &
	pid=$!
	wait_ready mix.log "$pid"
	"$PROF" record --malloc --probe-window 100/200 --every-bytes 16K -p "$pid" -d 2 \
		-o mix.data 2>mix-record.log || true
	wait "$pid" || true
}

# own NAME FILE: the program's own byte count for NAME.
own() {
	awk -v n="$1" '$NF == n { print $2 }' "$2"
}

# by_site FUNC: the estimated bytes whose stack goes through FUNC.
by_site() {
	folded_sum ";$1;"
}

@test "malloc: the summary says what the probes trapped and kept" {
	cd "$BATS_FILE_TMPDIR"
	cat leaks.log >&2
	grep -Eq 'allocation calls trapped, [0-9]+ kept \(sampled by bytes\), [0-9]+ frees trapped' leaks.log
	grep -q 'probes attached' mix-record.log
}

@test "malloc: allocation sites at their callers, with the estimated total of the program's own" {
	cd "$BATS_FILE_TMPDIR"
	"$PROF" report -i leaks.data --malloc >malloc.folded 2>malloc.err
	cat malloc.err >&2
	grep -q 'allocations (estimates): .* from [0-9]* samples (one per 1024 bytes)' malloc.err
	grep -q '^__libc_start_call_main;main;tick;mix_small;malloc [0-9]*$' malloc.folded
	grep -q ';main;tick;mix_medium;[_a-z]*calloc [0-9]*$' malloc.folded
	grep -q ';main;tick;mix_large;realloc [0-9]*$' malloc.folded
	grep -q ';main;tick;leak_outer;leak_inner;malloc [0-9]*$' malloc.folded
	truth=$(awk '$1 == "leaked" || $1 == "allocated" { s += $2 } END { print s }' leaks.out)
	est=$(folded_total <malloc.folded)
	assert_between "estimated / allocated bytes" "$(ratio "$est" "$truth")" 0.9 1.1
	for f in mix_small mix_medium mix_large; do
		assert_between "$f estimate / own" \
			"$(ratio "$(by_site "$f" <malloc.folded)" "$(own "$f" leaks.out)")" 0.8 1.2
	done
}

@test "malloc: byte shares in windows against the program's own mix" {
	cd "$BATS_FILE_TMPDIR"
	"$PROF" report -i mix.data --malloc >mix.folded 2>mix.err
	cat mix.err mix.out >&2
	grep -q 'probes attached .*% of the time (totals scaled to all of it)' mix.err
	total=$(folded_total <mix.folded)
	truth=$(awk '$1 == "leaked" || $1 == "allocated" { s += $2 } END { print s }' mix.out)
	for f in mix_small mix_medium mix_large; do
		want=$(ratio "$(own "$f" mix.out)" "$truth")
		got=$(ratio "$(by_site "$f" <mix.folded)" "$total")
		assert_between "$f share (program: $want)" "$got" \
			"$(awk -v w="$want" 'BEGIN { print w - 0.06 }')" \
			"$(awk -v w="$want" 'BEGIN { print w + 0.06 }')"
	done
}

@test "malloc: --weight count estimates calls, --weight samples counts samples" {
	cd "$BATS_FILE_TMPDIR"
	"$PROF" report -i leaks.data --malloc --weight count 2>/dev/null >count.folded
	ticks=$(awk '$1 == "ticks" { print $2 }' leaks.out)
	# 400 malloc(64) a tick in mix_small
	assert_between "mix_small calls / (400 x ticks)" \
		"$(ratio "$(by_site mix_small <count.folded)" $((400 * ticks)))" 0.8 1.2
	samples=$("$PROF" report -i leaks.data --malloc --weight samples 2>/dev/null | folded_total)
	kept=$("$PROF" report -i leaks.data --header | awk '$1 == "malloc-kept:" { print $2 }')
	[ "$samples" -eq "$kept" ]
}

@test "leaks: the leak at its allocation site, its size near the program's own" {
	cd "$BATS_FILE_TMPDIR"
	"$PROF" report -i leaks.data --leaks --leak-age 0 >leaks.folded 2>leaks.err
	cat leaks.err leaks.folded >&2
	grep -q 'leaks (estimates): .* still allocated at the end' leaks.err
	leak=$(folded_sum ';main;tick;leak_outer;leak_inner;malloc' <leaks.folded)
	all=$(folded_total <leaks.folded)
	# everything else was freed but stdout's buffer (4 KiB, still in use):
	# the leak is nearly all that is left
	assert_between "leak share of live bytes" "$(ratio "$leak" "$all")" 0.7 1
	assert_between "leak estimate / leaked" "$(ratio "$leak" "$(own leak_inner leaks.out)")" 0.65 1.35
}

@test "leaks: the youngest blocks are left out by the leak age" {
	cd "$BATS_FILE_TMPDIR"
	"$PROF" report -i leaks.data --leaks --leak-age 0 --weight samples 2>/dev/null >young.folded
	"$PROF" report -i leaks.data --leaks --weight samples 2>leaks-default.err >old.folded
	grep -q 'older than 0\.[0-9]* s' leaks-default.err
	[ "$(folded_total <old.folded)" -lt "$(folded_total <young.folded)" ]
	"$PROF" svg -i leaks.data --leaks -o leaks.svg 2>/dev/null
	grep -q 'leak_inner' leaks.svg
	grep -q 'Leak Flame Graph' leaks.svg
}

@test "malloc: a target that exits in the middle of a window leaves a good recording" {
	cd "$BATS_FILE_TMPDIR"
	run "$PROF" record --malloc --probe-window 400/500 --every-bytes 4K -o short.data \
		-- "$EXAMPLES/leaky" 0.2
	[ "$status" -eq 0 ]
	"$PROF" report -i short.data --malloc 2>/dev/null | grep -q ';mix_small;malloc '
}

@test "malloc errors: --leaks without --malloc, --every-bytes with --every, no frees, a static binary without symbols" {
	cd "$BATS_FILE_TMPDIR"
	run "$PROF" record --leaks -- "$EXAMPLES/leaky" 0.1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--leaks goes with --malloc"* ]]
	# one --every-bytes for --alloc and --malloc, not with --every
	run "$PROF" record --malloc --every-bytes 4K --every 2 -- "$EXAMPLES/leaky" 0.1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--every-bytes goes with --alloc or --malloc, and not with --every"* ]]
	run "$PROF" report -i mix.data --leaks
	[ "$status" -eq 1 ]
	[[ "$output" == *"has no frees: record with 'prof record --malloc --leaks'"* ]]
	run "$PROF" report -i mix.data --leak-age 1
	[ "$status" -eq 2 ]
	command -v cc >/dev/null && [ -f /usr/lib/x86_64-linux-gnu/libc.a ] || skip "no static libc"
	printf '#include <unistd.h>\nint main(void) { sleep(1); return 0; }\n' >st.c
	cc -static -s -o st st.c
	run "$PROF" record --malloc -o st.data -- ./st
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == *"'./st' is static and has no malloc symbol"* ]]
	./st &
	run "$PROF" record --malloc -p $! -d 1 -o st.data
	kill $! 2>/dev/null || true
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == *"no malloc in the files process"* ]]
}

# preloaded LIB NAME: records leaky run with LD_PRELOAD=LIB; the
# allocator probed must be LIB, and the sites the program's.
preloaded() {
	local lib=$1 name=$2 pid
	cd "$BATS_FILE_TMPDIR"
	LD_PRELOAD=$lib "$EXAMPLES/leaky" 4 >"$name.out" 2>"$name.log" &
	pid=$!
	wait_ready "$name.log" "$pid"
	"$PROF" record --malloc --probe-window off --every-bytes 16K -p "$pid" -d 1 \
		-o "$name.data" 2>/dev/null
	kill "$pid" 2>/dev/null || true
	"$PROF" report -i "$name.data" --header | grep "^malloc-allocator: $lib"
	"$PROF" report -i "$name.data" --malloc 2>/dev/null | grep -q ';main;tick;mix_small;'
}

@test "malloc: a jemalloc the program loads is the one probed" {
	lib=$(ls /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 2>/dev/null) || skip "no libjemalloc2"
	preloaded "$lib" je
}

@test "malloc: a tcmalloc the program loads is the one probed" {
	lib=$(ls /usr/lib/x86_64-linux-gnu/libtcmalloc.so.4 2>/dev/null) ||
		skip "no libgoogle-perftools4"
	preloaded "$(readlink -f "$lib")" tc
}
