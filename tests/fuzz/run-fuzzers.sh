#!/bin/sh
# run-fuzzers.sh: runs every libFuzzer target from its seed corpus
# (tests/fuzz/corpus-TARGET, copied to a scratch directory so the checked-in
# seeds stay as they are), as TAP for prove. Each target runs for
# FUZZ_SECONDS (default 8; -max_total_time) or FUZZ_RUNS inputs (default
# 200000; -runs), whichever ends first: on a loaded machine the time bounds
# the stage, on a quiet one the runs may. FUZZ_JOBS targets (default 2) run
# at a time, each a single process: about 50 s for the twelve targets on two
# CPUs. A crash's input (and a slow one's) is kept in build/fuzz/artifacts/.
# Usage: run-fuzzers.sh   (or run-fuzzers.sh --one N TARGET: one target's TAP
# line, what the first form runs FUZZ_JOBS at a time)
set -u
cd "$(dirname "$0")/../.."

if [ "${1:-}" = --one ]; then
	i=$2 t=$3
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
		-max_len=65536 -artifact_prefix=build/fuzz/artifacts/ "$corpus" >"$log" 2>&1; then
		echo "ok $i - $t: $(grep -o 'Done [0-9]* runs.*' "$log")"
	else
		echo "not ok $i - $t"
		sed 's/^/# /' "$log" | tail -40
	fi
	rm -rf "$corpus" "$log"
	exit 0
fi

# the targets: build/fuzz/fuzz-* (build/fuzz/obj/ holds the library they link)
targets=$(cd build/fuzz 2>/dev/null && ls -d fuzz-*)
n=$(echo "$targets" | wc -w)
echo "1..$n"
mkdir -p build/fuzz/artifacts
out=$(mktemp -d)
echo "$targets" | awk 'NF { print NR, $1 }' |
	xargs -P "${FUZZ_JOBS:-2}" -L 1 sh -c 'sh "$0" --one "$1" "$2" >"'"$out"'/$1"' "$0"
# in the targets' order, whichever ended first
i=0
for t in $targets; do
	i=$((i + 1))
	cat "$out/$i" 2>/dev/null || echo "not ok $i - $t: did not run"
done
rm -rf "$out"
