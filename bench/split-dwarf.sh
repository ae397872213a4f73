#!/bin/bash
# bench/split-dwarf.sh: what reading split DWARF (.dwo files) costs `prof
# symbolize -e`, against the same program with its DWARF in the binary and
# against the other symbolizers.
#
#   bench/split-dwarf.sh             PROF=path (default build/prof)
#
# Builds examples/cxx-inline.cpp twice in TMP with g++ -O2 -g (DWARF 5):
# with -gsplit-dwarf (its DIEs in a .dwo file) and without (the same code).
# Then hyperfine times, on every byte address of .text (about 5,000, one
# process each run: load + lookups), RUNS runs after a warm-up:
#   prof symbolize -e split -f -i -C     (reads the .dwo)
#   prof symbolize -e plain -f -i -C
#   addr2line -e plain -f -i -C          (the reference output; addr2line
#                                         2.40 does not read .dwo files)
#   llvm-symbolizer --obj=split -f -i -C (reads the .dwo)
# and checks that prof's two outputs and addr2line's are identical.
#
# Env: RUNS (10). Prints markdown.
set -eu
BENCH_NAME=split-dwarf
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

RUNS=${RUNS:-10}
need_tools hyperfine g++ addr2line llvm-symbolizer readelf python3
ENV_LINE=$(env_line)

cp "$ROOT/examples/cxx-inline.cpp" "$TMP/"
(cd "$TMP" && g++ -std=c++17 -O2 -g -fno-omit-frame-pointer -gsplit-dwarf -o split cxx-inline.cpp &&
	g++ -std=c++17 -O2 -g -fno-omit-frame-pointer -o plain cxx-inline.cpp) ||
	die "cannot build the C++ example"
read -r start size < <(readelf -SW "$TMP/split" |
	awk '{ for (i = 1; i < NF; i++) if ($i == ".text") { print $(i + 2), $(i + 4); exit } }')
awk -v s=$((16#$start)) -v n=$((16#$size)) 'BEGIN { for (a = s; a < s + n; a++) printf "0x%x\n", a }' \
	>"$TMP/addrs"
naddrs=$(wc -l <"$TMP/addrs")

"$PROF" symbolize -e "$TMP/split" -f -i -C <"$TMP/addrs" >"$TMP/split.out"
"$PROF" symbolize -e "$TMP/plain" -f -i -C <"$TMP/addrs" >"$TMP/plain.out"
addr2line -e "$TMP/plain" -f -i -C <"$TMP/addrs" >"$TMP/a2l.out"
cmp -s "$TMP/split.out" "$TMP/a2l.out" || die "prof on the split build differs from addr2line"
cmp -s "$TMP/plain.out" "$TMP/a2l.out" || die "prof on the plain build differs from addr2line"

say "timing $naddrs addresses"
# Through hyperfine's shell (it subtracts the shell's start-up): stdin from
# the address file.
hyperfine -w 1 -r "$RUNS" --export-json "$TMP/h.json" \
	"$PROF symbolize -e $TMP/split -f -i -C < $TMP/addrs" \
	"$PROF symbolize -e $TMP/plain -f -i -C < $TMP/addrs" \
	"addr2line -e $TMP/plain -f -i -C < $TMP/addrs" \
	"llvm-symbolizer --obj=$TMP/split -f -i -C < $TMP/addrs" >&2

echo "| command ($naddrs addresses of the C++ example, -f -i -C) | wall (mean ± sd) |"
echo "|---|---|"
python3 -c 'import json, sys
names = ["prof symbolize, split DWARF 5 (.dwo)", "prof symbolize, DWARF in the binary",
         "addr2line 2.40, DWARF in the binary", "llvm-symbolizer, split DWARF 5 (.dwo)"]
for n, r in zip(names, json.load(open(sys.argv[1]))["results"]):
    print("| %s | %.1f ± %.1f ms |" % (n, r["mean"] * 1e3, r["stddev"] * 1e3))' "$TMP/h.json"
echo
echo "prof's output on the split build is identical to addr2line's on the plain build."
echo
echo "$ENV_LINE"
