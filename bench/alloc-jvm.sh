#!/bin/bash
# bench/alloc-jvm.sh: what -XX:+DTraceAllocProbes itself costs a real
# allocation-heavy JVM workload, what `prof record --alloc` adds, against
# JFR's allocation sampling as the anchor; and whether prof's classes agree
# with JFR's (issue 19).
#
#   bench/alloc-jvm.sh      PROF=path (default build/prof)
#
# Workload: javac compiling java.util and its subpackages from the JDK's own
# sources (src.zip of openjdk-17-source: 354 files, --patch-module
# java.base, about 1,370 classes written), a fresh output folder each run.
# 1. Wall and CPU time, RUNS rounds, each round running the four variants
#    one after another through hyperfine (so load drifts hit all four):
#    plain; -J-XX:+DTraceAllocProbes; the flag with `prof record -p PID
#    --alloc` (defaults: windows) attached as soon as the JVM maps
#    libjvm.so, until javac exits; JFR's `settings=profile` (its
#    jdk.ObjectAllocationSample at 300 events/s) without the flag.
# 2. Classes: prof's per-class shares (hits) from the last prof run against
#    JFR's from the last JFR run (jdk.ObjectAllocationSample events, and
#    their weights in bytes against prof's known bytes): the total
#    variation distance over the top TOP classes of either (the rest
#    lumped as one "other"; a hidden class's address and a lambda's
#    number, which differ from JVM to JVM, shown as *).
#
# Env: RUNS (3), TOP (10), SRC_ZIP, LIMIT (a smoke test: that many files). Prints markdown on stdout. Needs root
# (uprobes), JDK 17, hyperfine and openjdk-17-source.
set -eu
BENCH_NAME=alloc-jvm
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools java javac jfr hyperfine unzip
RUNS=${RUNS:-3}
TOP=${TOP:-10}
JHOME=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
SRC_ZIP=${SRC_ZIP:-$JHOME/lib/src.zip}
[ -r "$SRC_ZIP" ] || die "cannot read '$SRC_ZIP'
hint: apt-get install openjdk-17-source"

mkdir -p "$TMP/src"
(cd "$TMP/src" && unzip -q "$SRC_ZIP" 'java.base/java/util/*') || die "cannot unzip $SRC_ZIP"
(cd "$TMP/src/java.base" && find java/util -name '*.java' | head -n "${LIMIT:-100000}") > "$TMP/files"
NFILES=$(wc -l < "$TMP/files")
say "$NFILES source files"

# The compile, JVM options first ("$@": -J... words).
cat > "$TMP/javac.sh" <<EOF
#!/bin/bash
rm -rf "$TMP/out"; mkdir -p "$TMP/out"
cd "$TMP/src/java.base"
exec javac -J-Xmx1g "\$@" --patch-module java.base=. -nowarn -XDignore.symbol.file \\
	-d "$TMP/out" @"$TMP/files" > "$TMP/javac.log" 2>&1
EOF
# The flag with prof attached for the whole compile.
cat > "$TMP/with-prof.sh" <<EOF
#!/bin/bash
"$TMP/javac.sh" -J-XX:+DTraceAllocProbes &
pid=\$!
for _ in \$(seq 500); do grep -q libjvm.so /proc/\$pid/maps 2>/dev/null && break; sleep 0.01; done
"$PROF" record -p \$pid --alloc -o "$TMP/prof.data" 2> "$TMP/rec.log"
wait \$pid
EOF
chmod +x "$TMP/javac.sh" "$TMP/with-prof.sh"

say "time: $RUNS rounds of 4 compiles"
for r in $(seq "$RUNS"); do
	hyperfine -N --runs 1 --style none --export-json "$TMP/round$r.json" \
		-n plain "$TMP/javac.sh" \
		-n flag "$TMP/javac.sh -J-XX:+DTraceAllocProbes" \
		-n "flag+prof" "$TMP/with-prof.sh" \
		-n jfr "$TMP/javac.sh -J-XX:StartFlightRecording=settings=profile,filename=$TMP/jfr.jfr" \
		>&2 || die "hyperfine failed: $(tail -3 "$TMP/javac.log")"
done
[ -s "$TMP/prof.data" ] || die "no prof recording: $(cat "$TMP/rec.log")"

# name wall user+sys per run, all rounds
python3 - "$TMP" "$RUNS" > "$TMP/times" <<'EOF'
import json, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
for r in range(1, runs + 1):
    for res in json.load(open(f"{tmp}/round{r}.json"))["results"]:
        print(res["command"], res["times"][0], res["user"] + res["system"])
EOF

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
col() { awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$TMP/times" | median; }
base_w=$(col plain 2)
base_c=$(col plain 3)
echo "## JVM allocation profiling: javac, $NFILES files of java.util ($(date -u +%Y-%m-%d))"
echo
echo "$(nproc) CPUs, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg);" \
	"$(java -version 2>&1 | head -1); medians of $RUNS interleaved rounds."
echo
echo "| variant | wall s | CPU s (user+sys) | wall vs plain | CPU vs plain |"
echo "|---|---:|---:|---:|---:|"
for v in plain flag flag+prof jfr; do
	w=$(col "$v" 2)
	c=$(col "$v" 3)
	awk -v v="$v" -v w="$w" -v c="$c" -v bw="$base_w" -v bc="$base_c" \
		'BEGIN { printf "| %s | %.1f | %.1f | %.2fx | %.2fx |\n", v, w, c, w / bw, c / bc }'
done
echo
echo "prof's summary (last run): $(grep -o '[0-9,]* probe hits kept.*' "$TMP/rec.log" | head -1)"
echo

# Classes: "class value" lines of prof (hits, known bytes) and of JFR
# (events, weights in bytes).
"$PROF" report -i "$TMP/prof.data" --args 2>/dev/null |
	awk '{ n = $NF; $NF = ""; k = split($0, f, ";"); c = f[k]; sub(/^class=/, "", c)
	       s = c; sub(/ size=.*/, "", c); sub(/.* size=/, "", s); s += 0
	       hits[c] += n; if (s > 0) { bytes[c] += n * s } else { unk += n }; all += n }
	     END { for (c in hits) print c "\t" hits[c] "\t" bytes[c] + 0
	           printf "%d %d\n", unk, all > "/dev/stderr" }' > "$TMP/prof.classes" 2> "$TMP/prof.unknown"
jfr print --events jdk.ObjectAllocationSample "$TMP/jfr.jfr" |
	awk '/objectClass = / { c = $3 } /weight = / { w = $3; u = $4
	       m = u == "kB" ? 1e3 : u == "MB" ? 1e6 : u == "GB" ? 1e9 : 1
	       n[c]++; b[c] += w * m }
	     END { for (c in n) print c "\t" n[c] "\t" b[c] }' > "$TMP/jfr.classes"

# tvd COLUMN: TVD between prof's and JFR's shares in COLUMN (2: count, 3:
# bytes) over the top TOP classes of either, and the top rows.
tvd() {
	python3 - "$TMP/prof.classes" "$TMP/jfr.classes" "$1" "$TOP" <<'EOF'
import re, sys
def load(p, col):
    d = {}
    for line in open(p):
        f = line.rstrip("\n").split("\t")
        # A hidden class's address differs from JVM to JVM, and a lambda's
        # number too (JFR's own lambdas come first); JFR adds
        # ".<identity hash>" and keeps HotSpot's '+': compare the names.
        c = re.sub(r"[+/]0x[0-9a-f]+(\.[0-9]+)?$", "/0x*", f[0])
        c = re.sub(r"\$\$Lambda\$[0-9]+/0x\*$", "$$Lambda$*/0x*", c)
        if len(f) > col and float(f[col]) > 0:
            d[c] = d.get(c, 0) + float(f[col])
    t = sum(d.values()) or 1
    return {k: v / t for k, v in d.items()}
a, b = load(sys.argv[1], int(sys.argv[3]) - 1), load(sys.argv[2], int(sys.argv[3]) - 1)
top = int(sys.argv[4])
keys = set(sorted(a, key=a.get, reverse=True)[:top]) | set(sorted(b, key=b.get, reverse=True)[:top])
pa = {k: a.get(k, 0) for k in keys}; pb = {k: b.get(k, 0) for k in keys}
pa["other"] = 1 - sum(pa.values()); pb["other"] = 1 - sum(pb.values())
print("TVD %.3f over %d classes + other" % (0.5 * sum(abs(pa[k] - pb[k]) for k in pa), len(keys)))
print()
print("| class | prof | JFR |")
print("|---|---:|---:|")
for k in sorted(keys, key=lambda k: -(pa[k] + pb[k]))[:top]:
    print("| %s | %.1f%% | %.1f%% |" % (k, 100 * pa[k], 100 * pb[k]))
EOF
}
read -r unk all < "$TMP/prof.unknown"
echo "### Classes by count: prof's hits against JFR's jdk.ObjectAllocationSample events"
echo
tvd 2
echo
echo "### Classes by bytes: prof's known sizes against JFR's weights"
echo
echo "prof: size unknown for $unk of $all hits (HotSpot 17's interpreter and C1 paths), left out."
echo
tvd 3
