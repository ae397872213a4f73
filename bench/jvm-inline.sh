#!/bin/bash
# bench/jvm-inline.sh: Java top frames, inlined methods included, against
# JDK Flight Recorder on the same JVM at the same time (issue 23,
# docs/BENCHMARKS-jvm-inline.md).
#
#   bench/jvm-inline.sh      PROF=new build (build/prof), BASE=old build
#
# Workloads, each run once per build with no JVM flag for prof (default
# call graph) and JFR's `settings=profile` recording alongside:
#   javac: `prof record -- javac ... @files` compiling java/util (354 files
#          of the JDK 17 src.zip, --patch-module java.base=.), JFR started
#          with -J-XX:StartFlightRecording (the same run, start to end);
#   Service: examples/java/Service 2 handlers, warmed WARM s, then JFR
#          started (jcmd JFR.start) and `prof record -p PID -d D` side by
#          side, JFR stopped after.
# prof's in-Java samples: a leaf (past kernel frames) that is a Java frame
# (`_[j]`, `_[i]`) or unnamed JIT code. Named: a Java method (a dotted
# name, not the interpreter, a stub or an adapter). Top frame: the leaf,
# an inlined `_[i]` one included; "w/o inlines": the same recording with
# the `_[i]` frames dropped (the compiled method as the leaf, what prof
# showed before). JFR's top frame: the first frame of each
# jdk.ExecutionSample, without its parameters. TVD: half the sum over
# methods of |prof share - JFR share|, each over its named method leaves.
# Noise floor: (1) JFR against itself, its samples split in two halves at
# random (seeded), times 1/sqrt(2) (a half has half the samples); (2) the
# two runs' JFR recordings of one workload against each other (run to run:
# JIT decisions too).
#
# Env: BASE (a prof of the base commit; none: only PROF), F (99), D (20),
# WARM (10), SRC_ZIP, LIMIT (files, for a smoke test), JAVA_HOME.
set -eu
BENCH_NAME=jvm-inline
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
J=$JAVA_HOME/bin
need_tools "$J/java" "$J/javac" "$J/jfr" "$J/jcmd" unzip python3
F=${F:-99}
D=${D:-20}
WARM=${WARM:-10}
BASE=${BASE:-}
SRC_ZIP=${SRC_ZIP:-$JAVA_HOME/lib/src.zip}
[ -r "$SRC_ZIP" ] || die "cannot read '$SRC_ZIP'
hint: apt-get install openjdk-17-source"
build_java_examples

mkdir -p "$TMP/src"
(cd "$TMP/src" && unzip -q "$SRC_ZIP" 'java.base/java/util/*') || die "cannot unzip $SRC_ZIP"
(cd "$TMP/src/java.base" && find java/util -name '*.java' | head -n "${LIMIT:-100000}") >"$TMP/files"
NFILES=$(wc -l <"$TMP/files")

builds=(new)
[ -n "$BASE" ] && builds=(base new)
prof_of() { [ "$1" = base ] && echo "$BASE" || echo "$PROF"; }

# javac BUILD: one compile recorded by prof (launched) and JFR.
javac_run() {
	local p
	p=$(prof_of "$1")
	rm -rf "$TMP/out" && mkdir -p "$TMP/out"
	say "javac, $1: $NFILES files"
	(cd "$TMP/src/java.base" &&
		"$p" record -F "$F" -o "$TMP/javac-$1.data" -- "$J/javac" -J-Xmx1g \
			"-J-XX:StartFlightRecording=settings=profile,filename=$TMP/javac-$1.jfr" \
			--patch-module java.base=. -nowarn -XDignore.symbol.file -d "$TMP/out" \
			@"$TMP/files" >"$TMP/javac-$1.log" 2>&1) ||
		die "javac under prof failed: $(tail -5 "$TMP/javac-$1.log")"
}

# service BUILD: Service warmed, then D s of prof -p and JFR together.
service_run() {
	local p pid
	p=$(prof_of "$1")
	say "Service, $1: warm ${WARM} s, record ${D} s"
	"$J/java" -cp "$CP" Service $((WARM + D + 30)) 2 \
		>"$TMP/svc.out" 2>"$TMP/svc.err" &
	pid=$!
	[ -n "$(jvm_ready "$TMP/svc.err")" ] || die "Service did not start: $(cat "$TMP/svc.err")"
	sleep "$WARM" # the workload warms up: not a condition a test waits on
	"$J/jcmd" "$pid" JFR.start name=bench settings=profile \
		"filename=$TMP/service-$1.jfr" >/dev/null
	"$p" record -F "$F" -d "$D" -p "$pid" -o "$TMP/service-$1.data" \
		2>"$TMP/service-$1.log" || die "prof failed: $(cat "$TMP/service-$1.log")"
	"$J/jcmd" "$pid" JFR.stop name=bench >/dev/null
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	rm -f "/tmp/perf-$pid.map"
}

for b in "${builds[@]}"; do
	javac_run "$b"
	service_run "$b"
done

for w in javac service; do
	for b in "${builds[@]}"; do
		"$PROF" report -i "$TMP/$w-$b.data" --threads >"$TMP/$w-$b.folded"
		"$J/jfr" print --events jdk.ExecutionSample "$TMP/$w-$b.jfr" |
			awk '/stackTrace = \[/ { getline; sub(/^ +/, ""); sub(/\(.*/, ""); print }' \
				>"$TMP/$w-$b.jfrtop"
	done
done

echo "# Java top frames against JFR, inlined methods included"
echo
echo "$(env_line)"
echo
echo "prof at $F Hz with its default call graph, no JVM flag; JFR settings=profile"
echo "(20 ms Java sampling) on the same JVM at the same time. javac: $NFILES files of"
echo "java/util; Service: 2 handlers, $WARM s warm, $D s recorded."
echo
python3 - "$TMP" "${builds[@]}" <<'EOF'
import math, random, re, sys
from collections import Counter
tmp, builds = sys.argv[1], sys.argv[2:]
NOT_METHOD = re.compile(r'^(Interpreter|StubRoutines|I2C|C2I|.*[Aa]dapter|.*[Ss]tub)')

def method(name):
    return '.' in name and not NOT_METHOD.match(name) and not name.startswith('[')

def prof_leaves(path, inlines):
    tops, java, named = Counter(), 0, 0
    for line in open(path):
        stack, _, n = line.rstrip('\n').rpartition(' ')
        fr = stack.split(';')[1:]  # the thread's name first
        while fr and fr[-1].endswith('_[k]'):
            fr.pop()
        k = len(fr) - 1
        while k >= 0 and fr[k].endswith('_[i]'):
            k -= 1
        if k < 0:
            continue
        outer = fr[k]  # the compiled or interpreted frame (a C++ one: not Java)
        if not (outer.endswith('_[j]') or outer.startswith('[anon')
                or outer.startswith('[unknown+0x7f')):
            continue
        leaf = fr[-1] if inlines else outer
        java += int(n)
        name = leaf[:-4] if leaf.endswith(('_[j]', '_[i]')) else leaf
        if method(name):
            named += int(n)
            tops[name] += int(n)
    return tops, java, named

def jfr_tops(path):
    return Counter(l.strip() for l in open(path) if l.strip())

def tvd(a, b):
    ta, tb = sum(a.values()), sum(b.values())
    if not ta or not tb:
        return float('nan')
    return 0.5 * sum(abs(a[k] / ta - b[k] / tb) for k in set(a) | set(b))

def split_floor(c):
    items = [k for k, v in c.items() for _ in range(v)]
    random.Random(23).shuffle(items)
    h = len(items) // 2
    return tvd(Counter(items[:h]), Counter(items[h:])) / math.sqrt(2)

print('| workload | build | view | prof in-Java | named leaf | JFR samples | TVD to JFR | floor: JFR split | floor: JFR run to run |')
print('|---|---|---|---|---|---|---|---|---|')
for w in ('javac', 'service'):
    jfrs = {b: jfr_tops(f'{tmp}/{w}-{b}.jfrtop') for b in builds}
    r2r = tvd(jfrs[builds[0]], jfrs[builds[-1]]) if len(builds) > 1 else float('nan')
    for b in builds:
        for inl in (False, True):
            if b == 'base' and inl:
                continue
            tops, java, named = prof_leaves(f'{tmp}/{w}-{b}.folded', inl)
            view = 'w/o inlines' if b != 'base' and not inl else 'top frame'
            print(f'| {w} | {b} | {view} | {java} | {100 * named / java if java else 0:.1f}% | '
                  f'{sum(jfrs[b].values())} | {tvd(tops, jfrs[b]):.3f} | {split_floor(jfrs[b]):.3f} | {r2r:.3f} |')
    # the hottest top frames, the last build, side by side
    tops, _, _ = prof_leaves(f'{tmp}/{w}-{builds[-1]}.folded', True)
    j = jfrs[builds[-1]]
    tp, tj = sum(tops.values()) or 1, sum(j.values()) or 1
    print(f'\n{w}, {builds[-1]}: the 8 hottest top frames in JFR, and prof\'s share\n')
    print('| method | JFR | prof |')
    print('|---|---|---|')
    for k, v in j.most_common(8):
        print(f'| {k} | {100 * v / tj:.1f}% | {100 * tops[k] / tp:.1f}% |')
    print()
EOF
