# shellcheck shell=bash
# bench/lib.sh: what the bench scripts share, sourced by each of them.
# Sets ROOT, BUILD, PROF and TMP (removed on exit), builds the workloads, and
# has the helpers that parse what prof and perf print. Nothing here prints on
# stdout: the scripts' stdout is a markdown fragment for docs/BENCHMARKS-log.md (and the current figure for docs/BENCHMARKS.md);
# progress and tool chatter go to stderr.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
PROF=${PROF:-$ROOT/build/prof}
case $PROF in /*) ;; *) PROF=$PWD/$PROF ;; esac
PERF=${PERF:-perf}

# Recordings and logs go to TMP, removed at exit unless KEEP=1.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/prof-bench.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
	echo "keeping $TMP" >&2
else
	trap 'rm -rf "$TMP"' EXIT
fi

die() {
	echo "$BENCH_NAME: $*" >&2
	exit 1
}

say() {
	echo "$BENCH_NAME: $*" >&2
}

need_tools() {
	[ -x "$PROF" ] || die "cannot run '$PROF'
hint: build it with 'make', or point PROF=path at a prof binary"
	command -v "$PERF" >/dev/null || die "cannot find '$PERF'
hint: install linux-perf (make deps)"
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || die "cannot find '$t'
hint: install it (make deps)"
	done
}

# Builds bench/cpu-bound.c with the examples' flags into $BUILD/bench; sets W.
build_workload() {
	W=$BUILD/bench/cpu-bound
	if [ ! -x "$W" ] || [ "$ROOT/bench/cpu-bound.c" -nt "$W" ]; then
		mkdir -p "$BUILD/bench"
		${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -fno-inline \
			-Wall -Wextra -Werror -pthread -o "$W" "$ROOT/bench/cpu-bound.c" >&2 ||
			die "cannot build bench/cpu-bound.c"
	fi
}

# build_example NAME: makes $BUILD/examples/NAME and prints its path.
build_example() {
	make -s -C "$ROOT" BUILD="$BUILD" "$BUILD/examples/$1" >&2 ||
		die "cannot build examples/$1.c"
	echo "$BUILD/examples/$1"
}

# wait_ready FILE: waits (up to 10 s) until a workload has written its
# "ready PID" line to FILE, then prints PID.
wait_ready() {
	local _
	for _ in $(seq 100); do
		if grep -q '^ready ' "$1" 2>/dev/null; then
			awk '/^ready /{print $2; exit}' "$1"
			return 0
		fi
		sleep 0.1
	done
	die "the workload never said 'ready' (see $1)"
}

# stop_within PID SECONDS: waits for a background job to end by itself; after
# SECONDS sends it SIGINT (how one stops a recorder), then waits for it.
# Returns the job's exit status.
stop_within() {
	local rc=0
	for _ in $(seq $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$1" 2>/dev/null && { say "pid $1 still running after $2 s: SIGINT"; kill -INT "$1"; }
	wait "$1" || rc=$?
	return "$rc"
}

# Parsing prof's one-line summary, loosely, e.g.
#   prof record: 3.0 s, 12345 samples, 5 threads, 0 lost, 250 KB written to prof.data
# summary_field FILE WORD: the number before WORD ("samples", "lost", ...), or "?".
summary_field() {
	local v
	v=$(grep 'prof record' "$1" 2>/dev/null | tail -1 | tr -d , |
		grep -oE "[0-9]+(\.[0-9]+)? $2" | head -1 | cut -d' ' -f1)
	echo "${v:-?}"
}

# perf_samples FILE: the sample count of perf record's stderr, e.g.
#   [ perf record: Captured and wrote 0.714 MB x.data (8077 samples) ]
perf_samples() {
	local v
	v=$(grep -oE '\(([0-9]+) samples\)' "$1" | tail -1 | tr -dc 0-9)
	echo "${v:-?}"
}

# perf_lost DATA: lost samples in a perf.data: the "# Total Lost Samples: N"
# header line of perf report (the lost counts of its LOST records). Not the
# "LOST events" lines of `perf report --stats`: those count records, not
# samples (one LOST record can stand for thousands of samples).
perf_lost() {
	"$PERF" report -i "$1" --stdio --sort pid -g none 2>/dev/null |
		awk '/^# Total Lost Samples:/ {print $NF; found = 1; exit}
			END {if (!found) print "?"}'
}

# file_bytes FILE: size in bytes (a recording that is a directory: its total).
file_bytes() {
	du -sb "$1" 2>/dev/null | cut -f1
}

# ratio A B [FMT]: A/B, or "?" when either is not a number or B is 0.
ratio() {
	awk -v a="$1" -v b="$2" -v f="${3:-%.1f}" 'BEGIN {
		if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b == 0) print "?"; else printf f "\n", a / b }'
}

# stats LOG LABEL: "median sd n" of the values logged under LABEL. Medians,
# because on a shared VM a few runs are much slower than the rest.
stats() {
	awk -v l="$2" '$1 == l {x[n++] = $2; s += $2; ss += $2 * $2}
		END {if (!n) {print "? ? 0"; exit}
			for (i = 1; i < n; i++)
				for (j = i; j > 0 && x[j - 1] > x[j]; j--) {t = x[j]; x[j] = x[j - 1]; x[j - 1] = t}
			med = n % 2 ? x[(n - 1) / 2] : (x[n / 2 - 1] + x[n / 2]) / 2
			m = s / n; v = n > 1 ? (ss - n * m * m) / (n - 1) : 0
			printf "%.3f %.3f %d\n", med, (v > 0 ? sqrt(v) : 0), n}' "$1"
}

# slowdown TIME BASE: "+12.3%".
slowdown() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b == 0) print "?"
		else printf "%+.1f%%\n", (a / b - 1) * 100 }'
}

# children_cpu FILE: writes to FILE the CPU seconds (user + system) of this
# shell's reaped children so far, from `times`. Diff two readings around a
# `wait` to get one job's CPU, its descendants included. Not $(...): the
# command substitution's subshell has no children of its own.
children_cpu() {
	times >"$1.times"
	tail -1 "$1.times" | awk '{
		t = 0
		for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
		printf "%.3f\n", t }' >"$1"
}

# The CPU seconds (user + system) a live process has used so far.
proc_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{
		sub(/.*\) /, ""); printf "%.3f\n", ($12 + $13) / hz }' "/proc/$1/stat" 2>/dev/null || echo "?"
}

# A markdown line saying where and with what the numbers were taken.
env_line() {
	local pv
	pv=$("$PROF" --version 2>/dev/null | head -1)
	echo "_$(date -u +%Y-%m-%d), $(uname -sr), $(nproc) CPUs, ${pv:-prof ?}," \
		"$("$PERF" --version 2>/dev/null), perf_event_max_sample_rate" \
		"$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null), load average" \
		"$(cut -d' ' -f1-3 /proc/loadavg) before the runs._"
}

# build_java_examples: examples/java into $BUILD/examples/java (sets CP).
build_java_examples() {
	make -s -C "$ROOT" BUILD="$BUILD" "$BUILD/examples/java/Service.class" >&2 ||
		die "cannot build examples/java"
	CP=$BUILD/examples/java
}

# jvm_ready FILE: the pid of a whole "ready PID" line a JVM example wrote
# to FILE, waiting 60 s at most (a loaded machine starts a JVM slowly);
# nothing when it did not come.
jvm_ready() {
	local _
	for _ in $(seq 600); do
		grep -q '^ready [0-9]*$' "$1" 2>/dev/null &&
			{ awk '/^ready /{print $2; exit}' "$1"; return 0; }
		sleep 0.1
	done
	return 0
}

# AWK_MEDIAN: an awk function med(x, m), the median of x[0 .. m) (sorts x),
# for the result tables: awk "$AWK_MEDIAN"' ...program...'.
AWK_MEDIAN='
	function med(x, m,   i, j, t) {
		for (i = 1; i < m; i++)
			for (j = i; j > 0 && x[j - 1] > x[j]; j--) {t = x[j]; x[j] = x[j - 1]; x[j - 1] = t}
		return m % 2 ? x[(m - 1) / 2] : (x[m / 2 - 1] + x[m / 2]) / 2 }
'
