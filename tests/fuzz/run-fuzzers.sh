#!/bin/sh
# run-fuzzers.sh: runs every libFuzzer target from its seed corpus
# (tests/fuzz/corpus-TARGET, copied to a scratch directory so the checked-in
# seeds stay as they are), as TAP for prove. Each target runs for
# FUZZ_SECONDS (default 8: about 100 s for the twelve targets; -max_total_time)
# or FUZZ_RUNS inputs (default 200000; -runs), whichever ends first: on a
# loaded machine the time bounds the stage, on a quiet one the runs may.
set -u
cd "$(dirname "$0")/../.."
targets=$(ls build/fuzz/ 2>/dev/null)
n=$(echo "$targets" | wc -w)
echo "1..$n"
i=0
for t in $targets; do
	i=$((i + 1))
	corpus=$(mktemp -d)
	[ -d "tests/fuzz/corpus-$t" ] && cp "tests/fuzz/corpus-$t"/* "$corpus"/ 2>/dev/null
	log=$(mktemp)
	# A target's known library leaks (tests/fuzz/TARGET.lsan), matched on
	# full malloc stacks (the fast unwinder stops in libraries without
	# frame pointers).
	supp=
	[ ! -f "tests/fuzz/$t.lsan" ] ||
		supp="LSAN_OPTIONS=suppressions=tests/fuzz/$t.lsan ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
	# shellcheck disable=SC2086
	if env $supp build/fuzz/"$t" -runs="${FUZZ_RUNS:-200000}" -max_total_time="${FUZZ_SECONDS:-8}" \
		-max_len=65536 "$corpus" >"$log" 2>&1; then
		echo "ok $i - $t: $(grep -o 'Done [0-9]* runs.*' "$log")"
	else
		echo "not ok $i - $t"
		sed 's/^/# /' "$log" | tail -40
	fi
	rm -rf "$corpus" "$log"
done
