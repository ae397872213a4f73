#!/bin/bash
# bench/names-speed.sh: `prof svg` and `prof report` on folded input whose
# frame names are nearly all distinct (unresolved "[lib+0x7f...]" addresses
# and JIT lambdas: about 940k distinct names in 30k stacks 23-48 deep, 28
# MB), where ordering the names dominates. hyperfine (1 warm-up, RUNS
# runs) times each; prints the CPU time (user + system) of each and, when
# FLAMEGRAPH_PL names FlameGraph's flamegraph.pl (not packaged in Debian
# 12: a checkout of github.com/brendangregg/FlameGraph), its CPU time on
# the same input and the ratio. BASE_PROF names another prof (say, main's
# build) to time as well, and whose outputs must be the same bytes (the
# SVGs once CDATA markers are removed, for a build from before the hidden
# table became CDATA).
# Figures: docs/BENCHMARKS-names.md, docs/BENCHMARKS-svg-speed.md.
#
# INTERLEAVE=N runs the commands one after another N times instead (a
# round of each, then the next round: on a shared machine, load changes
# every command's runs alike) and prints each one's median CPU time
# (/usr/bin/time's user + system) and its runs, sorted.
#
#   bench/names-speed.sh           PROF=path (default build/prof), RUNS (3)
#   FLAMEGRAPH_PL=/path/flamegraph.pl BASE_PROF=/path/prof bench/names-speed.sh
#   INTERLEAVE=8 FLAMEGRAPH_PL=... BASE_PROF=... bench/names-speed.sh
set -eu
BENCH_NAME=names-speed
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-3}
need_tools hyperfine python3

say "generating the input"
python3 - "$TMP/distinct.folded" <<'PY'
import random, sys
random.seed(7)
libs = ['libjvm.so', 'libc.so.6', '[anon]', 'libfoo.so', 'perf-1234.map']
with open(sys.argv[1], 'w') as out:
    for s in range(30000):
        fr = ['java', 'start_thread', 'thread_native_entry']
        for d in range(random.randint(20, 45)):
            if random.random() < 0.9:
                fr.append('[%s+0x7f%010x]' % (random.choice(libs), random.getrandbits(36)))
            else:
                fr.append('Lcom/example/Lambda$%d.apply' % random.randint(0, 100000))
        out.write(';'.join(fr) + ' %d\n' % random.randint(1, 50))
PY
names=$(cut -d' ' -f1 "$TMP/distinct.folded" | tr ';' '\n' | sort -u | wc -l)
cmds=("$PROF svg -i $TMP/distinct.folded -o $TMP/p.svg" "$PROF report -i $TMP/distinct.folded -o $TMP/p.txt")
[ -z "${FLAMEGRAPH_PL:-}" ] || cmds+=("perl $FLAMEGRAPH_PL $TMP/distinct.folded")
[ -z "${BASE_PROF:-}" ] || cmds+=("$BASE_PROF svg -i $TMP/distinct.folded -o $TMP/b.svg"
	"$BASE_PROF report -i $TMP/distinct.folded -o $TMP/b.txt")
if [ -n "${INTERLEAVE:-}" ]; then
	say "timing ${#cmds[@]} commands, $INTERLEAVE interleaved rounds"
	for ((r = 0; r < INTERLEAVE; r++)); do
		for i in "${!cmds[@]}"; do
			# shellcheck disable=SC2086 # a command line, split on purpose
			/usr/bin/time -f "%U %S" -o "$TMP/time" ${cmds[$i]} >/dev/null 2>&1 ||
				die "failed: ${cmds[$i]}"
			awk -v i="$i" '{ printf "%d %d\n", i, ($1 + $2) * 1000 + 0.5 }' "$TMP/time"
		done >>"$TMP/runs"
	done
	echo "_$(date -u +%Y-%m-%d), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
		"input $(du -m "$TMP/distinct.folded" | cut -f1) MB, $names distinct names," \
		"$INTERLEAVE interleaved rounds, CPU ms (user + system)_"
	echo
	echo "| command | median CPU ms | ratio to prof svg | runs, sorted |"
	echo "|---|---:|---:|---|"
	for i in "${!cmds[@]}"; do
		awk -v i="$i" '$1 == i { print $2 }' "$TMP/runs" | sort -n >"$TMP/sorted.$i"
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' \
			"$TMP/sorted.$i" >"$TMP/median.$i"
	done
	for i in "${!cmds[@]}"; do
		name=${cmds[$i]//$TMP\//}
		printf '| `%s` | %s | %.1f | %s |\n' "$name" "$(cat "$TMP/median.$i")" \
			"$(awk -v a="$(cat "$TMP/median.$i")" -v b="$(cat "$TMP/median.0")" 'BEGIN { print a / b }')" \
			"$(tr '\n' ' ' <"$TMP/sorted.$i" | sed 's/ $//')"
	done
else
	say "timing ${#cmds[@]} commands, $RUNS runs each"
	hyperfine -N --warmup 1 --runs "$RUNS" --export-csv "$TMP/t.csv" --output=null "${cmds[@]}" >&2
	echo "_$(date -u +%Y-%m-%d), $(nproc) CPUs, input $(du -m "$TMP/distinct.folded" | cut -f1) MB, $names distinct names, median of $RUNS runs (hyperfine -N)_"
	echo
	echo "| command | CPU s (user + system) | wall s | ratio to prof svg (CPU) |"
	echo "|---|---:|---:|---:|"
	# hyperfine's csv: command,mean,stddev,median,user,system,min,max
	awk -F, -v tmp="$TMP/" 'NR > 1 { c[NR] = $5 + $6; w[NR] = $4; n[NR] = $1 } END {
		for (i = 2; i <= NR; i++) { name = n[i]; gsub(tmp, "", name)
			printf "| `%s` | %.2f | %.2f | %.1f |\n", name, c[i], w[i], c[i] / c[2] } }' "$TMP/t.csv"
fi
if [ -n "${BASE_PROF:-}" ]; then
	same=yes
	cmp -s "$TMP/p.svg" "$TMP/b.svg" && cmp -s "$TMP/p.txt" "$TMP/b.txt" || same=NO
	# the hidden frames' table is CDATA since 2026-11-26 (no name here
	# holds <, & or "]]>"): the same once the sections' markers are gone
	cdata=yes
	sed 's/<!\[CDATA\[//g; s/\]\]>//g' "$TMP/p.svg" >"$TMP/p.plain"
	sed 's/<!\[CDATA\[//g; s/\]\]>//g' "$TMP/b.svg" >"$TMP/b.plain"
	cmp -s "$TMP/p.plain" "$TMP/b.plain" && cmp -s "$TMP/p.txt" "$TMP/b.txt" || cdata=NO
	echo
	echo "Outputs of both builds byte-identical (svg and report): $same;" \
		"without the CDATA sections' markers: $cdata"
fi
