#!/bin/bash
# bench/svg-speed.sh: how fast `prof svg` turns a big profile into a
# flamegraph, with how much memory, and how many bytes of SVG a frame costs;
# beside it, a perf-based pipeline on a real recording.
#
#   bench/svg-speed.sh            PROF=path (default build/prof)
#
# 1. Synthetic folded input (deterministic: an awk script with its own
#    PRNG, the same bytes in mawk and gawk): STACKS (100,000) unique stacks
#    and SAMPLES (1,000,000) samples, 8 roots, stacks 10 to 40 frames deep,
#    most of them siblings of an earlier stack (a shared prefix, the last
#    1-6 frames replaced), names from a pool of 20,000, sample counts skewed
#    towards a hot set. hyperfine (1 warm-up, RUNS runs) times
#      prof svg -i big.folded -o OUT.svg                (default: 0.1 px pruning)
#      prof svg -i big.folded --minwidth 0.1% -o OUT.svg (the default before)
#      prof svg -i big.folded --minwidth 0 -o OUT.svg   (every frame drawn)
#    /usr/bin/time -v gives the peak RSS of one more run of each; the drawn
#    frames are counted with xmllint (the children of svg#frames, the DOM of
#    docs/prof-svg.md), and bytes per frame are given whole (file / frames)
#    and for the frames alone (the bytes from <svg id="frames"> on: frames,
#    labels and the table of the frames too narrow to draw, which the
#    search reads, without the fixed style and script); "hidden table" is
#    that table's bytes (from <metadata id="hidden-names"> on).
# 2. Unless PERF_SAMPLES=0: bench/cpu-bound (one thread per CPU) recorded at
#    FREQ (4999) Hz for about PERF_SAMPLES (200,000) samples by prof and by
#    `perf record -g -e cpu-clock`; hyperfine times
#      prof svg -i REC -o OUT.svg
#      perf script -i DATA > /dev/null
#      perf script -i DATA | (fold in awk) | prof svg -o OUT.svg
#    The fold is a minimal stackcollapse-perf written in awk here: Debian 12
#    packages neither FlameGraph's stackcollapse-perf.pl/flamegraph.pl nor
#    inferno, so those are not run; the issue's figures for flamegraph.pl
#    are quoted instead.
#
# Env: STACKS, SAMPLES, SEED (12345), RUNS (5), PERF_SAMPLES, FREQ, PERF.
# Prints markdown on stdout; needs ~200 MB in TMPDIR.
set -eu
BENCH_NAME=svg-speed
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

STACKS=${STACKS:-100000}
SAMPLES=${SAMPLES:-1000000}
SEED=${SEED:-12345}
RUNS=${RUNS:-5}
PERF_SAMPLES=${PERF_SAMPLES:-200000}
FREQ=${FREQ:-4999}
need_tools hyperfine xmllint awk /usr/bin/time
ENV_LINE=$(env_line)

# ---- 1. synthetic folded input ----

gen_folded() {
	awk -v SEED="$SEED" -v STACKS="$STACKS" -v SAMPLES="$SAMPLES" '
	# Park-Miller: products stay below 2^46, exact in any awk
	function rnd() { X = (X * 16807) % 2147483647; return X / 2147483647 }
	function name() { return NAMES[int(rnd() ^ 2 * NNAMES)] }
	BEGIN {
		X = SEED
		split("net db http json alloc sched io crypto cache log tls rpc", mods, " ")
		split("read write parse encode decode step run poll flush hash lookup insert", verbs, " ")
		NNAMES = 20000
		for (k = 0; k < NNAMES; k++)
			NAMES[k] = mods[k % 12 + 1] "::" verbs[int(k / 12) % 12 + 1] "_" k
		split("main worker-1 worker-2 worker-3 worker-4 gc io-loop timer", roots, " ")
		n = 0
		while (n < STACKS) {
			if (n < 64 || rnd() < 0.04) {
				# a new path from one of the roots, 10 to 40 deep
				L = 10 + int(rnd() * 31)
				s = roots[int(rnd() * 8) + 1] ";start_" int(rnd() * 4)
				d = 2
			} else {
				# a sibling of an earlier (mostly recent) stack: its
				# prefix, then 1 to 5 new frames
				p = S[int(n - 1 - rnd() ^ 3 * (n - 1))]
				d = split(p, f, ";")
				keep = d - 1 - int(rnd() ^ 2 * 6)
				if (keep < 3) keep = 3
				L = keep + 1 + int(rnd() * 5)
				if (L < 10) L = 10
				if (L > 40) L = 40
				s = f[1]
				for (j = 2; j <= keep && j <= L - 1; j++)
					s = s ";" f[j]
				d = j - 1
			}
			for (; d < L; d++)
				s = s ";" name()
			if (s in seen)
				continue
			seen[s] = 1
			S[n] = s
			C[n] = 1
			n++
		}
		# one sample each, the rest skewed towards the early (hot) stacks
		for (m = SAMPLES - STACKS; m > 0; m--)
			C[int(rnd() ^ 3 * STACKS)]++
		for (k = 0; k < STACKS; k++)
			print S[k], C[k]
	}'
}

# frames SVG: the drawn frames (children of svg#frames), parsed by libxml2.
frames() {
	xmllint --huge --xpath "count(//*[local-name()='svg'][@id='frames']/*[local-name()='g'])" "$1"
}

# frame_bytes SVG: the bytes from '<svg id="frames"' to the end.
frame_bytes() {
	local off
	off=$(grep -bo '<svg id="frames"' "$1" | head -1 | cut -d: -f1)
	echo $(($(file_bytes "$1") - off))
}

# hidden_bytes SVG: the bytes from '<metadata id="hidden-names"' to the end
# (0: nothing hidden).
hidden_bytes() {
	local off
	off=$(grep -bo '<metadata id="hidden-names"' "$1" | head -1 | cut -d: -f1)
	if [ -n "$off" ]; then echo $(($(file_bytes "$1") - off)); else echo 0; fi
}

# peak_rss_mb LOG: "Maximum resident set size" of /usr/bin/time -v, in MB.
peak_rss_mb() {
	awk -F': ' '/Maximum resident set size/ {printf "%.0f\n", $2 / 1024}' "$1"
}

say "generating $STACKS stacks, $SAMPLES samples (seed $SEED)"
gen_folded >"$TMP/big.folded"
lines=$(wc -l <"$TMP/big.folded")
sum=$(awk '{n += $NF} END {print n}' "$TMP/big.folded")
if [ "$lines" -ne "$STACKS" ] || [ "$sum" -ne "$SAMPLES" ]; then
	die "generator: $lines stacks, $sum samples"
fi
depths=$(awk '{n = split($1, a, ";"); s += n; if (n < lo || !lo) lo = n; if (n > hi) hi = n}
	END {printf "%d-%d, mean %.1f\n", lo, hi, s / NR}' "$TMP/big.folded")
fsum=$(md5sum <"$TMP/big.folded" | cut -c1-12)
fbytes=$(file_bytes "$TMP/big.folded")

say "timing prof svg, $RUNS runs each"
hyperfine -N --warmup 1 --runs "$RUNS" --export-csv "$TMP/svg.csv" \
	-n default "$(printf '%q ' "$PROF" svg -i "$TMP/big.folded" -o "$TMP/default.svg")" \
	-n pct "$(printf '%q ' "$PROF" svg -i "$TMP/big.folded" --minwidth 0.1% -o "$TMP/pct.svg")" \
	-n minwidth0 "$(printf '%q ' "$PROF" svg -i "$TMP/big.folded" --minwidth 0 -o "$TMP/all.svg")" >&2
# hyperfine's csv: command,mean,stddev,median,user,system,min,max
t() { awk -F, -v c="$1" '$1 == c {printf "%.3f ± %.3f", $2, $3}' "$2"; }

# row LABEL NAME REF [OPTION...]: one more run under /usr/bin/time -v, which
# must give the same bytes as REF (hyperfine's output), and a table row.
row() {
	local label=$1 name=$2 ref=$3 n b fb
	shift 3
	/usr/bin/time -v "$PROF" svg -i "$TMP/big.folded" "$@" -o "$TMP/$name.again.svg" \
		2>"$TMP/$name.time" || die "prof svg $* failed: $(tail -3 "$TMP/$name.time")"
	cmp -s "$ref" "$TMP/$name.again.svg" || die "$name: not the same bytes twice"
	n=$(frames "$ref")
	b=$(file_bytes "$ref")
	fb=$(frame_bytes "$ref")
	hb=$(hidden_bytes "$ref")
	echo "| $label | $(t "$name" "$TMP/svg.csv") | $(peak_rss_mb "$TMP/$name.time") MB | $n |" \
		"$(awk -v b="$b" 'BEGIN {printf "%.2f", b / 1e6}') MB | $(ratio "$b" "$n") |" \
		"$(ratio "$fb" "$n") | $(awk -v b="$hb" 'BEGIN {printf "%.2f", b / 1e6}') MB |"
}

echo "### prof svg on 1,000,000 samples of 100,000 unique stacks"
echo
echo "$ENV_LINE"
echo
echo "Synthetic folded input from \`bench/svg-speed.sh\`'s generator (seed $SEED): $lines" \
	"unique stacks, $sum samples, depths $depths, $((fbytes / 1024)) KB (md5 $fsum…)." \
	"hyperfine, 1 warm-up and $RUNS runs, mean ± sd; peak RSS from \`/usr/bin/time -v\`;" \
	"frames counted with xmllint (children of \`svg#frames\`); \"frames only\" counts the" \
	"bytes from \`<svg id=\"frames\">\` to the end (frames and labels, without the fixed" \
	"style and script). Each SVG was written twice and compared: the same bytes."
echo
echo "| \`prof svg -i big.folded\` | time (s) | peak RSS | drawn frames | SVG | bytes/frame | bytes/frame, frames only | hidden table |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
row "default (\`--minwidth 0.1\` px)" default "$TMP/default.svg"
row "\`--minwidth 0.1%\`" pct "$TMP/pct.svg" --minwidth 0.1%
row "\`--minwidth 0\` (every frame)" minwidth0 "$TMP/all.svg" --minwidth 0
echo
echo "FlameGraph's flamegraph.pl, as the issue measured it (not packaged in Debian 12, so" \
	"not run here): 10,000 unique stacks in 2.0 s, 100,000 in 16.5 s with 1.2 GB of" \
	"memory, about 200 bytes per frame; unpruned, 100,000 stacks made a 554 MB SVG."

# ---- 2. a perf-based pipeline on a real recording ----

[ "$PERF_SAMPLES" -gt 0 ] || exit 0
need_tools
build_workload
THREADS=$(nproc)
cal=$("$W" -t 1 -n 100000 2>/dev/null | awk '{print $2}')
secs=$(awk -v s="$PERF_SAMPLES" -v f="$FREQ" -v t="$THREADS" 'BEGIN {printf "%.1f\n", 1.05 * s / (f * t)}')
leaves=$(awk -v c="$cal" -v s="$secs" 'BEGIN {printf "%d\n", 100000 / c * s}')
say "recording bench/cpu-bound with prof and with perf, about $secs s each"
"$PROF" record -F "$FREQ" -o "$TMP/rec.data" -- "$W" -t "$THREADS" -n "$leaves" \
	>/dev/null 2>"$TMP/prof.err" || die "prof record failed: $(tail -3 "$TMP/prof.err")"
"$PERF" record -g -e cpu-clock -F "$FREQ" -o "$TMP/perf.data" -- "$W" -t "$THREADS" -n "$leaves" \
	>/dev/null 2>"$TMP/perf.err" || die "perf record failed: $(tail -3 "$TMP/perf.err")"
fs=$(summary_field "$TMP/prof.err" samples)
ps=$(perf_samples "$TMP/perf.err")

# A minimal stackcollapse-perf: perf script's default output, one header
# line per sample ("comm pid ... cpu-clock:"), then its frames leaf first
# ("\tADDR SYM+0xOFF (DSO)"), then a blank line; printed root first, with
# the comm as the root, counted per unique stack.
cat >"$TMP/fold.awk" <<'EOF'
function flush() {
	if (comm != "") {
		s = comm
		for (i = nf; i >= 1; i--)
			s = s ";" fr[i]
		count[s]++
	}
	comm = ""; nf = 0
}
/^[^ \t]/ { flush(); comm = $1; next }
/^[ \t]+[0-9a-f]+ / {
	sym = $2
	for (i = 3; i < NF; i++)
		sym = sym " " $i
	sub(/\+0x[0-9a-f]+$/, "", sym)
	if (sym == "[unknown]") { sym = $NF; gsub(/[()]/, "", sym); sub(/.*\//, "", sym) }
	fr[++nf] = sym
	next
}
/^$/ { flush() }
END { flush(); for (s in count) print s, count[s] }
EOF
FOLD="$TMP/fold.awk"
printf '%q script -i %q | awk -f %q | %q svg -i - -o %q\n' "$PERF" "$TMP/perf.data" "$FOLD" \
	"$PROF" "$TMP/perf.svg" >"$TMP/pipeline.sh"
say "timing prof svg and perf script pipelines, $RUNS runs each"
hyperfine -N --warmup 1 --runs "$RUNS" --export-csv "$TMP/pipe.csv" \
	-n prof-svg "$(printf '%q ' "$PROF" svg -i "$TMP/rec.data" -o "$TMP/rec.svg")" \
	-n perf-script "$(printf '%q ' "$PERF" script -i "$TMP/perf.data")" \
	-n perf-fold-svg "bash $(printf '%q' "$TMP/pipeline.sh")" >&2
/usr/bin/time -v "$PROF" svg -i "$TMP/rec.data" -o "$TMP/rec.svg" 2>"$TMP/rec.time"
/usr/bin/time -v "$PERF" script -i "$TMP/perf.data" >/dev/null 2>"$TMP/ps.time"
ustacks_prof=$("$PROF" report -i "$TMP/rec.data" | wc -l)
ustacks_perf=$("$PERF" script -i "$TMP/perf.data" 2>/dev/null | awk -f "$FOLD" | wc -l)
per_m() { awk -v c="$1" -v n="$2" -F, '$1 == c {if (n + 0 > 0) printf "%.2f", $2 * 1e6 / n; else printf "?"}' "$TMP/pipe.csv"; }

echo
echo "### prof svg from a recording, beside perf script pipelines"
echo
echo "\`bench/cpu-bound -t $THREADS\` recorded at $FREQ Hz by \`prof record\` ($fs samples," \
	"$ustacks_prof unique stacks) and by \`perf record -g -e cpu-clock\` ($ps samples," \
	"$ustacks_perf unique stacks once folded). hyperfine, 1 warm-up and $RUNS runs," \
	"mean ± sd; the fold is the awk stackcollapse in bench/svg-speed.sh (FlameGraph's" \
	"perl scripts and inferno are not in Debian 12)."
echo
echo "| command | time (s) | s per million samples | peak RSS |"
echo "|---|---:|---:|---:|"
echo "| \`prof svg -i REC -o out.svg\` | $(t prof-svg "$TMP/pipe.csv") | $(per_m prof-svg "$fs") |" \
	"$(peak_rss_mb "$TMP/rec.time") MB |"
echo "| \`perf script -i DATA\` (output thrown away) | $(t perf-script "$TMP/pipe.csv") |" \
	"$(per_m perf-script "$ps") | $(peak_rss_mb "$TMP/ps.time") MB |"
echo "| \`perf script -i DATA \| awk -f fold.awk \| prof svg -o out.svg\` |" \
	"$(t perf-fold-svg "$TMP/pipe.csv") | $(per_m perf-fold-svg "$ps") | — |"
