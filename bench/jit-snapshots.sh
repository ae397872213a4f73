#!/bin/bash
# bench/jit-snapshots.sh: what asking a JVM for its JIT map while recording
# (prof record --jit-every, docs/prof-jvm.md "Code that moves") costs the
# JVM, to choose the default period.
#
#   bench/jit-snapshots.sh         PROF=path (default build/prof)
#
# Workload: examples/java/Spin (THREADS threads, a fixed amount of hashing
# and sorting), which reports the elapsed time of its own work; it sleeps
# DELAY ms first, and `prof record -F F -p PID` attaches meanwhile and stops
# when the JVM exits. Per round, one run of each variant, the order rotated:
# bare (no recorder), `--jit-every 0` (the map at the end only, which a
# JVM that exits never gets: so no asks at all), and `--jit-every` each of
# PERIODS. The slowdown of a variant is its time over `--jit-every 0`'s in
# the same round (so the sampling's own cost cancels out); medians over
# ROUNDS. Also the maps read and prof's time per ask (stats
# jvm-jit-snapshots and jvm-jit-snapshot-ns: the attach round trip, the
# JVM writing its map, prof reading it; sampling paused meanwhile).
#
# Env: PERIODS ("5 1 0.5"), ROUNDS (5), THREADS (2), WORK (20000), F (99),
# DELAY (1500), JAVA. Prints markdown on stdout.
set -eu
BENCH_NAME=jit-snapshots
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

PERIODS=${PERIODS:-5 1 0.5}
ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-2}
WORK=${WORK:-20000}
F=${F:-99}
DELAY=${DELAY:-1500}
JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
need_tools "$JAVA"
make -s -C "$ROOT" BUILD="$BUILD" "$BUILD/examples/java/Service.class" >&2 ||
	die "cannot build examples/java"
CP=$BUILD/examples/java
LOG=$TMP/elapsed.log
: >"$LOG"

# one VARIANT: a run of Spin; logs "VARIANT SECONDS SNAPSHOTS NS".
one() {
	local v=$1 out=$TMP/jvm.out err=$TMP/jvm.err pid rec="" snaps=0 ns=0
	: >"$err"
	"$JAVA" -cp "$CP" Spin "$THREADS" "$WORK" "$DELAY" >"$out" 2>"$err" &
	pid=$(jvm_ready "$err")
	[ -n "$pid" ] || die "the JVM did not say 'ready': $(cat "$err")"
	if [ "$v" != bare ]; then
		"$PROF" record -q -F "$F" --jit-every "$v" -p "$pid" -o "$TMP/prof.data" \
			2>"$TMP/rec.err" &
		rec=$!
	fi
	wait "$pid" || die "the JVM failed: $(cat "$err")"
	if [ -n "$rec" ]; then
		stop_within "$rec" 30 || true
		snaps=$("$PROF" report -i "$TMP/prof.data" --header |
			awk '/^jvm-jit-snapshots:/ {print $2}')
		ns=$("$PROF" report -i "$TMP/prof.data" --header |
			awk '/^jvm-jit-snapshot-ns:/ {print $2}')
	fi
	echo "$v $(awk '/^elapsed/ {print $2}' "$out") ${snaps:-0} ${ns:-0}" >>"$LOG"
	rm -f "/tmp/perf-$pid.map"
}

variants=(bare 0 $PERIODS)
for r in $(seq "$ROUNDS"); do
	n=${#variants[@]}
	for i in $(seq 0 $((n - 1))); do
		v=${variants[$(((i + r) % n))]}
		say "round $r/$ROUNDS: $v"
		one "$v"
	done
done

echo "# JIT maps asked for while recording: the JVM's slowdown"
echo
echo "$(env_line)"
echo
echo "Spin, $THREADS threads, work $WORK, prof at $F Hz; $ROUNDS rounds; medians."
echo "Slowdown: against \`--jit-every 0\` in the same round (sampling's cost cancels)."
echo
echo "| variant | work (s) | slowdown | maps read | prof ms per map |"
echo "|---|---|---|---|---|"
awk "$AWK_MEDIAN"'
	{ v = $1; t[v, c[v]] = $2; s[v, c[v]] = $3; ns[v, c[v]] = $4; c[v]++
	  if (!(v in seen)) { seen[v] = 1; order[no++] = v } }
	END {
		for (k = 0; k < no; k++) {
			v = order[k]; m = c[v]
			for (i = 0; i < m; i++) { a[i] = t[v, i]; b[i] = s[v, i]
				d[i] = c["0"] > i ? (t[v, i] / t["0", i] - 1) * 100 : 0
				p[i] = s[v, i] ? ns[v, i] / s[v, i] / 1e6 : 0 }
			name = v == "bare" ? "no recorder" : v == "0" ? "--jit-every 0" : "--jit-every " v
			printf "| %s | %.2f | %s | %s | %s |\n", name, med(a, m),
				v == "0" ? "(base)" : sprintf("%+.1f%%", med(d, m)),
				v == "bare" ? "-" : med(b, m), v == "bare" || v == "0" ? "-" : sprintf("%.1f", med(p, m))
		}
	}' "$LOG"
