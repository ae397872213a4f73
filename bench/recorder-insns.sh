#!/bin/bash
# bench/recorder-insns.sh: the instructions the recorder spends on each
# sample while the target runs, counted by valgrind's callgrind: a figure
# that, unlike CPU time, a loaded machine does not move. On a 2-core
# machine whose cores the target keeps busy, every instruction the recorder
# runs is taken from the target, so this is the recorder's share of the
# slowdown bench/overhead.sh measures.
#
#   bench/recorder-insns.sh            PROF=path (default build/prof)
#
# Records bench/cpu-bound (2 threads, some 10,000 distinct stacks) at FREQ Hz
# with `prof record` under callgrind (the target itself runs natively:
# callgrind does not follow the fork), for each set of options in VARIANTS,
# and prints the instructions spent inside drain_all() (reading the rings,
# decoding, unwinding leaves, interning stacks, writing) per sample
# recorded. Start-up and finalization (symbolization) are not counted.
#
# Env: FREQ (4999), LEAVES (1500000: about 2 s per thread), VARIANTS
# ("default|--no-leaf-fix"). Needs valgrind. Prints markdown.
set -eu
BENCH_NAME=recorder-insns
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

FREQ=${FREQ:-4999}
LEAVES=${LEAVES:-1500000}
VARIANTS=${VARIANTS:-default|--no-leaf-fix}
need_tools valgrind callgrind_annotate
build_workload
ENV_LINE=$(env_line)

# insns OPTIONS...: "INSTRUCTIONS SAMPLES" of one recording.
insns() {
	local out=$TMP/cg.out rec=$TMP/cg.rec d n
	rm -f "$out" "$rec"
	# Under valgrind, glibc's heap cannot grow past valgrind's small brk
	# segment and some reallocs fail (ENOMEM, valgrind only): a big
	# top_pad makes the first brk take what the run needs.
	GLIBC_TUNABLES=glibc.malloc.top_pad=268435456 \
		valgrind --tool=callgrind --callgrind-out-file="$out" "$PROF" record "$@" -F "$FREQ" \
		-o "$rec" -- "$W" -t 2 -n "$LEAVES" >/dev/null 2>"$TMP/record.err" ||
		die "prof record failed under valgrind: $(tail -2 "$TMP/record.err")"
	d=$(callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
		awk '/:drain_all / {gsub(",", "", $1); print $1; exit}')
	n=$(summary_field "$TMP/record.err" samples)
	[ -n "$d" ] && [ "$n" != "?" ] && [ "$n" -gt 0 ] ||
		die "no drain_all count or sample count (is $PROF built with -g?)"
	echo "$d $n"
}

echo "## Recorder instructions per sample ($FREQ Hz, callgrind)"
echo
echo "$ENV_LINE"
echo
echo "| prof record options | samples | instructions in drain_all | per sample |"
echo "|---|---|---|---|"
IFS='|' read -r -a variants <<<"$VARIANTS"
for v in "${variants[@]}"; do
	say "callgrind: prof record $v"
	args=()
	[ "$v" = default ] || read -r -a args <<<"$v"
	read -r d n < <(insns "${args[@]}")
	echo "| $v | $n | $d | $((d / n)) |"
done
