#!/bin/bash
# bench/symbolize-speed.sh: how fast `prof symbolize -e` answers, against
# binutils' addr2line and LLVM's llvm-symbolizer, on the same addresses, and
# whether it answers exactly what addr2line answers.
#
#   bench/symbolize-speed.sh          PROF=path (default build/prof)
#
# Two binaries:
#   1. libjvm.so (JVM, default /usr/lib/jvm/java-17-openjdk-amd64/lib/
#      server/libjvm.so): symbol table only, no DWARF installed. NADDRS
#      unique random addresses of its .text.
#   2. libc.so.6 with its separate debug file from libc6-dbg (DWARF 5,
#      found by build-id): NADDRS unique random addresses of its .text.
# For each, hyperfine times (RUNS runs after a warm-up, through a shell:
# addresses on stdin, output to /dev/null; hyperfine subtracts the shell's
# own start-up):
#   prof symbolize -e BIN -f -i
#   addr2line -e BIN -f -i
#   llvm-symbolizer --obj=BIN --no-demangle   (functions and inlines, its
#                                             default; without demangling, like
#                                             the other two)
# and the outputs of prof and addr2line are compared byte for byte (the
# script fails when they differ).
#
# Env: NADDRS (10000), RUNS (5), SEED (1), JVM, LIBC. Prints markdown.
set -eu
BENCH_NAME=symbolize-speed
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

NADDRS=${NADDRS:-10000}
RUNS=${RUNS:-5}
SEED=${SEED:-1}
JVM=${JVM:-/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so}
LIBC=${LIBC:-/lib/x86_64-linux-gnu/libc.so.6}
need_tools hyperfine addr2line llvm-symbolizer readelf
[ -r "$JVM" ] || die "cannot read '$JVM'
hint: install openjdk-17-jre-headless, or point JVM=path at a libjvm.so"
ENV_LINE=$(env_line)

# unique_addrs BIN: NADDRS distinct random addresses of BIN's .text.
unique_addrs() {
	local start size
	read -r start size < <(readelf -SW "$1" |
		awk '{ for (i = 1; i < NF; i++) if ($i == ".text") { print $(i + 2), $(i + 4); exit } }')
	[ -n "$size" ] || die "no .text in $1"
	awk -v s=$((16#$start)) -v n=$((16#$size)) -v want="$NADDRS" -v seed="$SEED" 'BEGIN {
		srand(seed)
		while (got < want) {
			a = s + int(rand() * n)
			if (!(a in seen)) { seen[a] = 1; got++; printf "0x%x\n", a }
		} }'
}

# compare TAG NAME BIN: times the three tools on NADDRS addresses of BIN,
# checks prof against addr2line, and appends a table row (NAME) to $TMP/rows.
compare() {
	local tag=$1 name=$2 bin=$3 addrs=$TMP/$1.addrs
	unique_addrs "$bin" > "$addrs"
	say "$name: checking that prof symbolize prints what addr2line prints"
	addr2line -e "$bin" -f -i < "$addrs" > "$TMP/$tag.a2l"
	"$PROF" symbolize -e "$bin" -f -i < "$addrs" > "$TMP/$tag.prof"
	if ! cmp -s "$TMP/$tag.a2l" "$TMP/$tag.prof"; then
		diff "$TMP/$tag.a2l" "$TMP/$tag.prof" | head -20 >&2
		die "$name: prof symbolize and addr2line differ"
	fi
	local lines located
	lines=$(wc -l < "$TMP/$tag.prof")
	located=$(grep -c ':[0-9]' "$TMP/$tag.prof" || true)
	say "$name: timing, $RUNS runs each"
	hyperfine --warmup 1 --runs "$RUNS" --export-csv "$TMP/$tag.csv" \
		-n prof "$PROF symbolize -e $bin -f -i < $addrs > /dev/null" \
		-n addr2line "addr2line -e $bin -f -i < $addrs > /dev/null" \
		-n llvm-symbolizer "llvm-symbolizer --obj=$bin --no-demangle < $addrs > /dev/null" >&2
	awk -F, -v name="$name" -v lines="$lines" -v located="$located" '
		NR > 1 { mean[$1] = $4; sd[$1] = $3 }  # the median, and the sd
		END {
			printf "| %s | %.3f ± %.3f | %.3f ± %.3f | %.3f ± %.3f | %.0f× | %.1f× | %s lines, %s with file:line, identical |\n",
				name, mean["prof"], sd["prof"], mean["addr2line"], sd["addr2line"],
				mean["llvm-symbolizer"], sd["llvm-symbolizer"],
				mean["addr2line"] / mean["prof"], mean["llvm-symbolizer"] / mean["prof"],
				lines, located
		}' "$TMP/$tag.csv" >> "$TMP/rows"
}

: > "$TMP/rows"
compare jvm "libjvm.so (symbols only)" "$JVM"
id=$(readelf -n "$LIBC" | awk '/Build ID/ { print $3 }')
if [ -f "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ]; then
	compare libc "libc.so.6 + libc6-dbg (DWARF 5)" "$LIBC"
else
	say "libc6-dbg is not installed: skipping the DWARF run"
fi

echo "$ENV_LINE"
echo
echo "$NADDRS unique random .text addresses per binary (awk srand($SEED)), on stdin;"
echo "seconds per run, median ± sd of $RUNS hyperfine runs after a warm-up (medians: on a"
echo "shared VM a few runs are much slower than the rest):"
echo
echo "| binary | prof symbolize -f -i | addr2line -f -i | llvm-symbolizer | vs addr2line | vs llvm-symbolizer | output |"
echo "|---|---|---|---|---|---|---|"
cat "$TMP/rows"
