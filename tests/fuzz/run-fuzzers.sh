#!/bin/sh
# run-fuzzers.sh: runs every libFuzzer target for a bounded number of inputs
# (FUZZ_RUNS, default 200000) from its seed corpus, as TAP for prove.
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
	if build/fuzz/"$t" -runs="${FUZZ_RUNS:-200000}" -max_len=65536 "$corpus" >"$log" 2>&1; then
		echo "ok $i - $t: $(grep -o 'Done [0-9]* runs.*' "$log")"
	else
		echo "not ok $i - $t"
		sed 's/^/# /' "$log" | tail -40
	fi
	rm -rf "$corpus" "$log"
done
