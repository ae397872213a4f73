#!/bin/bash
# bench/unwind-speed.sh: what user-stack unwinding costs and how well it does.
#
#   bench/unwind-speed.sh            PROF=path (default build/prof)
#
# 1. Post-processing speed of --call-graph dwarf: bench/cpu-bound built
#    WITHOUT frame pointers (-O1 -fomit-frame-pointer) on THREADS threads,
#    recorded with `prof record -F FREQ --call-graph dwarf` for about SAMPLES
#    samples; prof unwinds during the recording and says how long it spent
#    unwinding (the "ms unwinding" of its summary; it also writes it as the
#    stat unwind-ns). Against perf: the same workload under `perf record -e
#    cpu-clock -F FREQ --call-graph dwarf,SIZE` for about PERF_SAMPLES
#    samples, then `perf report --stdio` and `perf script` timed by
#    hyperfine (perf unwinds in the report, with libdw or libunwind),
#    compared per sample. Bytes per sample of both files.
# 2. The stack copy size: share of stacks unwound to their root with
#    --call-graph dwarf,SIZE for SIZE in SIZES, on real programs (python3
#    running a small JSON/regex/recursion script, gcc compiling a C file,
#    perl), and the target's cost at 999 Hz for each size against frame
#    pointers (bench/cpu-bound: its CPU time, user + system, from
#    /usr/bin/time; ROUNDS rounds of the modes in turn, each compared with
#    the bare run of its round, the median ratio reported: on a shared
#    machine the load drifts, and wall times mean little).
# 3. The cost of the frameless-leaf fix of frame-pointer mode (default on):
#    target CPU at 999 Hz with and without it (--no-leaf-fix), and the
#    recorder's CPU time, in attach mode, the same way.
#
# Env: PARTS ("speed sizes cost leaf": which parts to run), SAMPLES
# (100000), PERF_SAMPLES (20000), FREQ (4999), THREADS (2), SIZE (32768),
# SIZES ("4096 8192 16384 32768 65528"), ROUNDS (5), PERF (perf). Needs about
# 1 GB in TMPDIR for perf.data. Prints markdown.
set -eu
BENCH_NAME=unwind-speed
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

SAMPLES=${SAMPLES:-100000}
PERF_SAMPLES=${PERF_SAMPLES:-20000}
FREQ=${FREQ:-4999}
THREADS=${THREADS:-2}
SIZE=${SIZE:-32768}
SIZES=${SIZES:-4096 8192 16384 32768 65528}
ROUNDS=${ROUNDS:-5}
PARTS=${PARTS:-speed sizes cost leaf}
part() { [[ " $PARTS " == *" $1 "* ]]; }
need_tools hyperfine python3 gcc perl /usr/bin/time
build_workload
ENV_LINE=$(env_line)

NOFP=$BUILD/bench/cpu-bound-nofp
if [ ! -x "$NOFP" ] || [ "$ROOT/bench/cpu-bound.c" -nt "$NOFP" ]; then
	${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -g -fomit-frame-pointer -fno-inline -pthread \
		-o "$NOFP" "$ROOT/bench/cpu-bound.c" >&2 || die "cannot build cpu-bound-nofp"
fi

# Leaves per CPU-second of one thread, and the leaves for n samples.
cal=$("$NOFP" -t 1 -n 100000 2>/dev/null | awk '{print $2}')
leaves_for() {
	awk -v c="$cal" -v s="$1" -v f="$FREQ" -v t="$THREADS" \
		'BEGIN {printf "%d\n", 100000 / c * (1.05 * s / (f * t))}'
}

# "root% cut-at-size ms" of a prof record summary (stderr file).
unwind_fields() {
	awk '/unwound to their root/ {
		match($0, /\(([0-9.]+)%\)/); pct = substr($0, RSTART + 1, RLENGTH - 3)
		for (i = 1; i <= NF; i++) {
			if ($(i + 1) == "stack" && $(i + 2) == "copies") cut = $i
			if ($(i + 1) == "ms") ms = $i
			if ($(i + 1) == "of") root = $i
			if ($(i + 1) == "user") all = $i
		}
	} END { printf "%s %s %s %s %s\n", pct != "" ? pct : "?", cut != "" ? cut : "?",
		ms != "" ? ms : "?", root != "" ? root : "?", all != "" ? all : "?" }' "$1"
}

# ---- 1. post-processing speed ----
echo "### Unwinding (--call-graph dwarf)"
echo
echo "$ENV_LINE"
echo
if part speed; then
say "prof: recording about $SAMPLES dwarf samples"
"$PROF" record -F "$FREQ" --call-graph "dwarf,$SIZE" -o "$TMP/dwarf.rec" \
	-- "$NOFP" -t "$THREADS" -n "$(leaves_for "$SAMPLES")" >/dev/null 2>"$TMP/prof.err" ||
	die "prof record failed: $(tail -3 "$TMP/prof.err")"
fs=$(grep 'written to' "$TMP/prof.err" | grep -oE '[0-9]+ samples' | cut -d' ' -f1)
read -r fpct fcut fms froot fall < <(unwind_fields "$TMP/prof.err")
fb=$(file_bytes "$TMP/dwarf.rec")

say "perf: recording about $PERF_SAMPLES dwarf samples"
"$PERF" record -e cpu-clock -F "$FREQ" --call-graph "dwarf,$SIZE" -o "$TMP/dwarf.data" \
	-- "$NOFP" -t "$THREADS" -n "$(leaves_for "$PERF_SAMPLES")" >/dev/null 2>"$TMP/perf.err" ||
	die "perf record failed: $(tail -3 "$TMP/perf.err")"
ps=$(perf_samples "$TMP/perf.err")
pb=$(file_bytes "$TMP/dwarf.data")
# perf: a sample is whole when its outermost frame is _start or clone3.
pdeep=$("$PERF" script -F comm,ip,sym -i "$TMP/dwarf.data" 2>/dev/null |
	awk '/^[^ \t]/ {t++; last = ""; next} NF >= 2 {last = $2}
		NF == 0 && last != "" {if (last ~ /^(_start|clone3|__clone3)$/) w++; last = ""}
		END {if (last ~ /^(_start|clone3|__clone3)$/) w++; printf "%.1f\n", t ? 100 * w / t : 0}')

say "timing perf report and perf script"
hyperfine -N --warmup 1 --runs 3 --export-csv "$TMP/times.csv" \
	-n perf-report "$(printf '%q ' "$PERF" report --stdio -i "$TMP/dwarf.data")" \
	-n perf-script "$(printf '%q ' "$PERF" script -i "$TMP/dwarf.data")" >&2
t() { awk -F, -v c="$1" '$1 == c {printf "%.3f %.3f\n", $2, $3}' "$TMP/times.csv"; }
read -r tr trsd < <(t perf-report)
read -r tsc tscsd < <(t perf-script)
per_100k() { awk -v t="$1" -v n="$2" 'BEGIN {if (n + 0 > 0) printf "%.2f\n", t * 1e5 / n; else print "?"}'; }
fsec=$(awk -v m="$fms" 'BEGIN {printf "%.3f\n", m / 1000}')

echo "Post-processing: \`bench/cpu-bound -t $THREADS\` built with \`-O1 -fomit-frame-pointer\`," \
	"recorded at $FREQ Hz with \`--call-graph dwarf,$SIZE\` by each tool. prof unwinds while it" \
	"records (after each drain of the rings) and reports the time spent in it; perf unwinds" \
	"when the file is read (hyperfine, 1 warm-up and 3 runs, mean ± sd). The last column" \
	"scales each to 100,000 samples. \"whole\": the share of samples whose stack reaches" \
	"its root (\`_start\`, or \`clone3\` for threads; for prof, its summary's count)."
echo
echo "| tool | samples | whole | file size | bytes/sample | unwinding time (s) | s per 100,000 samples |"
echo "|---|---:|---:|---:|---:|---:|---:|"
echo "| \`prof record\` (during recording) | $fs | $fpct% | $((fb / 1024)) KB |" \
	"$(ratio "$fb" "$fs" %.0f) | $fsec | $(per_100k "$fsec" "$fs") |"
echo "| \`perf report --stdio\` | $ps | $pdeep% | $((pb / 1024)) KB | $(ratio "$pb" "$ps" %.0f) |" \
	"$tr ± $trsd | $(per_100k "$tr" "$ps") |"
echo "| \`perf script\` | $ps | $pdeep% | $((pb / 1024)) KB | $(ratio "$pb" "$ps" %.0f) |" \
	"$tsc ± $tscsd | $(per_100k "$tsc" "$ps") |"
echo
echo "prof's summary: $froot of $fall user stacks unwound to their root ($fpct%), $fcut stack" \
	"copies cut at $SIZE bytes."
echo
fi

# ---- 2. stack copy size ----
if part sizes; then
cat >"$TMP/work.py" <<'EOF'
import json, re, hashlib
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
d = {str(i): [i, str(i) * 3] for i in range(20000)}
for _ in range(3):
    s = json.dumps(d); json.loads(s); hashlib.sha256(s.encode()).hexdigest()
    re.findall(r'"(\d+)"', s); fib(22)
EOF
progs=("python3 $TMP/work.py" "gcc -O2 -I$ROOT -c $ROOT/record/session.c -o $TMP/x.o"
	"perl -e \$s=0;for\$i(1..3000000){\$s+=sqrt(\$i)}print\$s")
names=("python3 (json, re, recursion)" "gcc -O2 -c record/session.c" "perl (a loop)")
echo "Stack copy size: share of user stacks unwound to their root with" \
	"\`--call-graph dwarf,SIZE\` at 499 Hz (one run each; failures are copies cut too" \
	"short, and a few pcs without CFI, e.g. in PLT or \`_init\`)."
echo
printf "| program |"
for s in $SIZES; do printf " %s |" "$s"; done
printf "\n|---|"
for _ in $SIZES; do printf -- "---:|"; done
echo
for i in "${!progs[@]}"; do
	printf "| %s |" "${names[$i]}"
	for s in $SIZES; do
		say "${names[$i]} at dwarf,$s"
		# shellcheck disable=SC2086
		nice "$PROF" record -F 499 --call-graph "dwarf,$s" -o "$TMP/size.rec" -- ${progs[$i]} \
			>/dev/null 2>"$TMP/size.err" || true
		read -r pct _ < <(unwind_fields "$TMP/size.err")
		printf " %s%% |" "$pct"
	done
	echo
done
echo
fi

# Target cost at 999 Hz: bare, fp, dwarf at each size, rounds alternating.
# The measure is the target's own CPU time (user + system, from
# /usr/bin/time around the workload: the kernel's sampling work is charged
# to it), compared round by round with the bare run of the same round, so
# that the load of a shared machine, which drifts, cancels out.
LOG=$TMP/cpu.log
WARGS=(-t "$THREADS")
# timed LABEL CMD...: runs CMD (the workload comes last) with its CPU time
# logged as "LABEL SECONDS".
timed() {
	local label=$1
	shift
	"$@" >/dev/null 2>>"$TMP/timed.err" || die "$label failed: $(tail -3 "$TMP/timed.err")"
	echo "$label $(tail -1 "$TMP/t.out" | awk '{printf "%.3f\n", $1 + $2}')" >>"$LOG"
}
TW=(/usr/bin/time -f "%U %S" -o "$TMP/t.out" "$W" "${WARGS[@]}")
# ratios LOG BASE LABEL: median over rounds of LABEL's value / BASE's, as +x%.
ratios() {
	awk -v b="$2" -v l="$3" '$1 == b {base[nb++] = $2} $1 == l {v[nl++] = $2}
		END {n = nb < nl ? nb : nl; if (!n) {print "?"; exit}
			for (i = 0; i < n; i++) r[i] = v[i] / base[i]
			for (i = 1; i < n; i++)
				for (j = i; j > 0 && r[j - 1] > r[j]; j--) {t = r[j]; r[j] = r[j - 1]; r[j - 1] = t}
			med = n % 2 ? r[(n - 1) / 2] : (r[n / 2 - 1] + r[n / 2]) / 2
			printf "%+.1f%% (%.3f to %.3f)\n", (med - 1) * 100, r[0], r[n - 1]}' "$1"
}
if part cost; then
: >"$LOG"
modes=(bare fp)
for s in $SIZES; do modes+=("dwarf,$s"); done
for r in $(seq "$ROUNDS"); do
	for m in "${modes[@]}"; do
		say "round $r: $m"
		case $m in
		bare) timed "$m" "${TW[@]}" ;;
		fp) timed "$m" "$PROF" record -q -F 999 -o "$TMP/o.rec" -- "${TW[@]}" ;;
		*) timed "$m" "$PROF" record -q -F 999 --call-graph "$m" -o "$TMP/o.rec" -- "${TW[@]}" ;;
		esac
	done
done
echo "Target cost at 999 Hz (\`bench/cpu-bound -t $THREADS\`, built with frame pointers, so" \
	"fp and dwarf record the same stacks): the workload's own CPU time (user + system," \
	"which includes the kernel's sampling work), $ROUNDS rounds of the modes in turn;" \
	"the slowdown is the median over rounds of each round's ratio to its run without a" \
	"recorder (range in parentheses)."
echo
echo "| mode | target CPU (s), median | slowdown |"
echo "|---|---:|---:|"
for m in "${modes[@]}"; do
	read -r med sd _ < <(stats "$LOG" "$m")
	if [ "$m" = bare ]; then
		echo "| no recorder | $med ± $sd | - |"
	else
		echo "| $m | $med ± $sd | $(ratios "$LOG" bare "$m") |"
	fi
done
echo
fi

# ---- 3. the frameless-leaf fix ----
if part leaf; then
: >"$LOG"
: >"$TMP/rcpu.log"
for r in $(seq "$ROUNDS"); do
	for m in bare leaf-fix no-leaf-fix; do
		say "round $r: attach, $m"
		/usr/bin/time -f "%U %S" -o "$TMP/t.out" "$W" "${WARGS[@]}" -d 1 \
			>/dev/null 2>"$TMP/w.err" &
		wpid=$!
		pid=$(wait_ready "$TMP/w.err")
		if [ "$m" != bare ]; then
			extra=()
			[ "$m" = no-leaf-fix ] && extra=(--no-leaf-fix)
			# The recorder's own CPU (it has no children in attach mode).
			/usr/bin/time -f "%U %S" -o "$TMP/r.out" \
				"$PROF" record -F 999 "${extra[@]}" -p "$pid" -o "$TMP/l.rec" 2>"$TMP/l.err" &
			rpid=$!
		fi
		wait "$wpid"
		echo "$m $(tail -1 "$TMP/t.out" | awk '{printf "%.3f\n", $1 + $2}')" >>"$LOG"
		if [ "$m" != bare ]; then
			wait "$rpid"
			echo "$m $(tail -1 "$TMP/r.out" | awk '{printf "%.3f\n", $1 + $2}')" >>"$TMP/rcpu.log"
		fi
	done
done
echo "The frameless-leaf fix (frame-pointer mode, default on): \`bench/cpu-bound -t $THREADS\`" \
	"(its leaf, burn(), keeps a frame, so the fix rarely has anything to do: this is its" \
	"cost), recorded by attaching at 999 Hz, $ROUNDS rounds of the modes in turn; target" \
	"CPU as above, and the recorder's own CPU time. The fix adds 3 registers and 256" \
	"bytes of stack to every sample in the ring (304 bytes); the recording file does not" \
	"grow."
echo
echo "| mode | target CPU (s), median | slowdown | recorder CPU (s), median |"
echo "|---|---:|---:|---:|"
for m in bare leaf-fix no-leaf-fix; do
	read -r med sd _ < <(stats "$LOG" "$m")
	if [ "$m" = bare ]; then
		echo "| no recorder | $med ± $sd | - | - |"
	else
		read -r cmed csd _ < <(stats "$TMP/rcpu.log" "$m")
		echo "| $m | $med ± $sd | $(ratios "$LOG" bare "$m") | $cmed ± $csd |"
	fi
done
echo
fi
exit 0
