#!/bin/bash
# bench/symbolize-speed.sh: how fast `prof symbolize -e` answers, against
# binutils' addr2line and LLVM's llvm-symbolizer, on the same addresses, and
# whether it answers exactly what addr2line answers.
#
#   bench/symbolize-speed.sh          PROF=path (default build/prof)
#
# The binaries:
#   1. libjvm.so (JVM, default /usr/lib/jvm/java-17-openjdk-amd64/lib/
#      server/libjvm.so): symbol table only, no DWARF installed. NADDRS
#      unique random addresses of its .text.
#   2. libc.so.6 with its separate debug file from libc6-dbg (DWARF 5,
#      zlib-compressed sections, found by build-id): NADDRS unique random
#      addresses of its .text, and NADDRS unique addresses drawn from NFUNCS
#      functions (chosen at random among its .symtab functions), which is
#      what a profile looks like: a few hundred hot functions.
#   3. A large -g C++ build, generated here (NTYPES structs, each with a
#      std::map/std::vector/std::sort/std::function/lambda workload; g++ -O2
#      -g, DWARF 5, uncompressed; built once into $BUILD/bench): as one
#      translation unit (a unity build: one 13 MB unit) and split into 9
#      translation units. NADDRS unique random addresses of its .text.
# For each, hyperfine times (RUNS runs after a warm-up, through a shell:
# addresses on stdin, output to /dev/null; hyperfine subtracts the shell's
# own start-up):
#   prof symbolize -e BIN -f -i
#   addr2line -e BIN -f -i
#   llvm-symbolizer --obj=BIN --no-demangle   (functions and inlines, its
#                                             default; without demangling, like
#                                             the other two)
# and the outputs of prof and addr2line are compared byte for byte (the
# script fails when they differ). Also timed: prof with the first address
# only ("1 address": process start and loading, the floor of a run), prof
# on one thread (PROF_DWARF_ONE_THREAD=1: no DWARF units read ahead on a
# second thread; addr2line and llvm-symbolizer use one), and the CPU time
# (user + sys) of the prof runs, a steadier figure than wall time on a
# shared machine.
#
# With PROF_BEFORE=path (another prof binary, e.g. an older build), it is
# timed too, in an extra column.
#
# Env: NADDRS (10000), NFUNCS (300), NTYPES (160), RUNS (5), SEED (1), JVM,
# LIBC, CXX (g++), PROF_BEFORE. Prints markdown.
set -eu
BENCH_NAME=symbolize-speed
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

NADDRS=${NADDRS:-10000}
NFUNCS=${NFUNCS:-300}
NTYPES=${NTYPES:-160}
RUNS=${RUNS:-5}
SEED=${SEED:-1}
CXX=${CXX:-g++}
JVM=${JVM:-/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so}
LIBC=${LIBC:-/lib/x86_64-linux-gnu/libc.so.6}
need_tools hyperfine addr2line llvm-symbolizer readelf nm "$CXX"
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

# func_addrs BIN SYMFILE: NADDRS distinct addresses inside NFUNCS functions
# of BIN, chosen at random among SYMFILE's function symbols of at least 16
# bytes (SYMFILE: the file with BIN's .symtab, e.g. its debug file).
func_addrs() {
	nm -S --defined-only "$2" | awk -v want="$NADDRS" -v nf="$NFUNCS" -v seed="$SEED" '
		function hex(s,  v, i) {
			v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		NF == 4 && $3 ~ /^[tTwW]$/ && hex($2) >= 16 && !($1 in dup) {
			dup[$1] = 1; L[n] = hex($1); S[n] = hex($2); n++
		}
		END {
			srand(seed)
			for (i = 0; i < nf && n > 0; i++) { F[i] = int(rand() * n); tot += S[F[i]] }
			if (want > tot / 2) want = int(tot / 2)
			while (got < want) {
				k = F[int(rand() * nf)]; a = L[k] + int(rand() * S[k])
				if (!(a in seen)) { seen[a] = 1; got++; printf "0x%x\n", a }
			} }'
}

# gen_cxx DIR: writes the large C++ program: DIR/common.h, DIR/tuK.cpp
# (K = 0..7, NTYPES/8 types each), DIR/tumain.cpp, and DIR/unity.cpp (all
# of them in one).
gen_cxx() {
	local dir=$1 i k per
	per=$(((NTYPES + 7) / 8))
	printf '#include <%s>\n' algorithm deque functional iostream map memory numeric set \
		sstream string unordered_map vector > "$dir/common.h"
	for ((k = 0; k < 8; k++)); do
		{
			echo '#include "common.h"'
			for ((i = k * per; i < (k + 1) * per && i < NTYPES; i++)); do
				cat <<EOF
struct T$i { int a; double b; std::string s;
	bool operator<(const T$i &o) const { return a < o.a || (a == o.a && s < o.s); } };
template <typename K> static std::map<K, std::vector<T$i>> build$i(int n)
{
	std::map<K, std::vector<T$i>> m;
	for (int k = 0; k < n; k++) {
		std::ostringstream os;
		os << "k" << k * $((i + 1));
		m[K(k % 17)].push_back(T$i{k, k * 0.5, os.str()});
	}
	for (auto &kv : m)
		std::sort(kv.second.begin(), kv.second.end(),
			  [](const T$i &x, const T$i &y) { return y < x; });
	return m;
}
__attribute__((noinline)) double use$i(int n)
{
	auto m = build$i<long>(n);
	std::unordered_map<std::string, int> h;
	std::set<std::string> st;
	std::deque<double> dq;
	double acc = 0;
	for (auto &kv : m)
		for (auto &t : kv.second) { h[t.s] += t.a; st.insert(t.s); dq.push_back(t.b); acc += t.b; }
	std::function<double(double)> f = [&](double x) { return x * $((i + 2)) + (double)h.size(); };
	acc = std::accumulate(dq.begin(), dq.end(), acc, [&](double s, double x) { return s + f(x); });
	return acc + (double)st.size();
}
EOF
			done
		} > "$dir/tu$k.cpp"
	done
	{
		echo '#include "common.h"'
		for ((i = 0; i < NTYPES; i++)); do echo "double use$i(int n);"; done
		echo 'int main(int argc, char **argv)'
		echo '{'
		echo '	double s = 0;'
		echo '	(void)argv;'
		for ((i = 0; i < NTYPES; i++)); do echo "	s += use$i(argc * 20);"; done
		printf '\tstd::cout << s << "\\n";\n'
		echo '	return 0;'
		echo '}'
	} > "$dir/tumain.cpp"
	cat "$dir"/tu?.cpp "$dir/tumain.cpp" | grep -v '^#include "common.h"' |
		cat "$dir/common.h" - > "$dir/unity.cpp"
}

# build_cxx: builds (once per NTYPES and version of this script) the unity
# and the split program; sets CXX_UNITY and CXX_SPLIT.
build_cxx() {
	local dir=$BUILD/bench/dwarf-cxx-$NTYPES k
	CXX_UNITY=$dir/unity
	CXX_SPLIT=$dir/split
	if [ -x "$CXX_UNITY" ] && [ -x "$CXX_SPLIT" ] && [ "$CXX_SPLIT" -nt "$0" ]; then
		return
	fi
	mkdir -p "$dir"
	gen_cxx "$dir"
	say "building the large C++ program ($NTYPES types; a few minutes)"
	for k in 0 1 2 3 4 5 6 7 main; do
		nice "$CXX" -O2 -g -c -o "$dir/tu$k.o" "$dir/tu$k.cpp" >&2 ||
			die "cannot build $dir/tu$k.cpp"
	done
	"$CXX" -o "$CXX_SPLIT" "$dir"/tu?.o "$dir/tumain.o" >&2 || die "cannot link $CXX_SPLIT"
	nice "$CXX" -O2 -g -o "$CXX_UNITY" "$dir/unity.cpp" >&2 || die "cannot build $dir/unity.cpp"
}

# compare TAG NAME BIN [ADDRS]: times the three tools on addresses of BIN
# (the file ADDRS, else NADDRS random ones of its .text), checks prof
# against addr2line, and appends a table row (NAME) to $TMP/rows.
compare() {
	local tag=$1 name=$2 bin=$3 addrs=$TMP/$1.addrs
	if [ -n "${4:-}" ]; then
		addrs=$4
	else
		unique_addrs "$bin" > "$addrs"
	fi
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
	local before=()
	[ -z "${PROF_BEFORE:-}" ] ||
		before=(-n before "$PROF_BEFORE symbolize -e $bin -f -i < $addrs > /dev/null")
	hyperfine --warmup 1 --runs "$RUNS" --export-csv "$TMP/$tag.csv" \
		-n prof "$PROF symbolize -e $bin -f -i < $addrs > /dev/null" "${before[@]}" \
		-n one "$PROF symbolize -e $bin -f -i $(head -1 "$addrs") > /dev/null" \
		-n one-thread "PROF_DWARF_ONE_THREAD=1 $PROF symbolize -e $bin -f -i < $addrs > /dev/null" \
		-n addr2line "addr2line -e $bin -f -i < $addrs > /dev/null" \
		-n llvm-symbolizer "llvm-symbolizer --obj=$bin --no-demangle < $addrs > /dev/null" >&2
	awk -F, -v name="$name" -v lines="$lines" -v located="$located" \
		-v before="${PROF_BEFORE:+1}" '
		NR > 1 { mean[$1] = $4; sd[$1] = $3; cpu[$1] = $5 + $6 }  # median, sd, user+sys
		END {
			printf "| %s | %.3f ± %.3f | %.3f | %.3f ± %.3f | %.3f | ", name, mean["prof"],
				sd["prof"], cpu["prof"], mean["one-thread"], sd["one-thread"], mean["one"]
			if (before)
				printf "%.3f ± %.3f | ", mean["before"], sd["before"]
			printf "%.3f ± %.3f | %.3f ± %.3f | %.1f× | %.1f× | %s lines, %s with file:line, identical |\n",
				mean["addr2line"], sd["addr2line"],
				mean["llvm-symbolizer"], sd["llvm-symbolizer"],
				mean["addr2line"] / mean["prof"], mean["llvm-symbolizer"] / mean["prof"],
				lines, located
		}' "$TMP/$tag.csv" >> "$TMP/rows"
}

: > "$TMP/rows"
compare jvm "libjvm.so (symbols only)" "$JVM"
id=$(readelf -n "$LIBC" | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
if [ -f "$dbg" ]; then
	compare libc "libc.so.6 + libc6-dbg (DWARF 5, compressed), random" "$LIBC"
	func_addrs "$LIBC" "$dbg" > "$TMP/libc-funcs.addrs"
	compare libc-funcs "libc.so.6 + libc6-dbg, in $NFUNCS functions" "$LIBC" "$TMP/libc-funcs.addrs"
else
	say "libc6-dbg is not installed: skipping the libc DWARF runs"
fi
build_cxx
compare cxx-unity "C++ -O2 -g, 1 unit ($(du -m "$CXX_UNITY" | cut -f1) MB)" "$CXX_UNITY"
compare cxx-split "C++ -O2 -g, 9 units ($(du -m "$CXX_SPLIT" | cut -f1) MB)" "$CXX_SPLIT"

echo "$ENV_LINE"
echo
echo "$NADDRS unique addresses per row, on stdin: random ones of .text (awk srand($SEED)), or"
echo "random ones inside $NFUNCS random functions; seconds per run, median ± sd of $RUNS"
echo "hyperfine runs after a warm-up (medians: on a shared VM a few runs are much slower"
echo "than the rest):"
echo
if [ -n "${PROF_BEFORE:-}" ]; then
	echo "| binary | prof symbolize -f -i | prof CPU (user+sys) | prof, one thread | prof, 1 address | before ($PROF_BEFORE) | addr2line -f -i | llvm-symbolizer | vs addr2line | vs llvm-symbolizer | output |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
else
	echo "| binary | prof symbolize -f -i | prof CPU (user+sys) | prof, one thread | prof, 1 address | addr2line -f -i | llvm-symbolizer | vs addr2line | vs llvm-symbolizer | output |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
fi
cat "$TMP/rows"
