#!/bin/sh
# run-tests.sh: the whole test suite (what `make test` and CI run):
#   1. build prof, the examples, the unit tests and the fuzz targets, and
#      check the code's shape (tools/check-includes.sh, tools/check-cycles.sh);
#   2. run unit tests (cmocka, TAP), fuzzing bounded in time and runs
#      (FUZZ_SECONDS a target, FUZZ_RUNS inputs at most), the end-to-end CLI
#      tests (bats) that record the example workloads for real, and the
#      real-browser tests of `prof svg` (tests/browser/run.sh: headless
#      chromium through playwright-core, node's TAP reporter; plain build
#      only) and of speedscope loading prof's speedscope files
#      (tests/speedscope/run.sh, the same way);
#   3. do it again with prof built with AddressSanitizer + UBSan.
# Everything goes through `prove`, which ends with a summary line. prove
# runs verbose into build/test-logs/*.tap; the console shows it through
# tools/tap-filter.awk (a line per file, failed tests with their diagnostics),
# and the failures are printed once more at the very end, so that the tail
# of a CI log says which test failed and why.
set -eu
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}

sh tools/check-includes.sh
make -s -j"$JOBS" all unit fuzz
sh tools/check-cycles.sh build
# the sanitized prof and unit tests only: the CLI tests run build/'s
# examples under either prof
make -s -j"$JOBS" SANITIZE=address,undefined build-san/prof unit

export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export FUZZ_RUNS=${FUZZ_RUNS:-200000} FUZZ_SECONDS=${FUZZ_SECONDS:-8}
# the browser test's load-time figures (printed, never asserted) from one
# run of the big graph, not three: 10 s less
export MEASURE_RUNS=${MEASURE_RUNS:-1}

LOGS=$PWD/build/test-logs
rm -rf "$LOGS"
mkdir -p "$LOGS"

# run_prove NAME PROVE-ARGS...: prove -v into $LOGS/NAME.tap, filtered to
# the console; fails when prove fails.
run_prove() {
	name=$1
	shift
	rc=0
	{ prove -v --timer "$@" 2>&1 || echo $? >"$LOGS/$name.rc"; } |
		tee "$LOGS/$name.tap" | awk -f tools/tap-filter.awk
	[ ! -e "$LOGS/$name.rc" ] || rc=1
	return $rc
}

status=0
echo "== plain build =="
export PROF=$PWD/build/prof EXAMPLES=$PWD/build/examples
run_prove plain build/tests/unit/* tests/fuzz/run-fuzzers.sh tests/cli/*.bats \
	tests/browser/run.sh tests/speedscope/run.sh || status=1
echo "== AddressSanitizer + UBSan build =="
export PROF=$PWD/build-san/prof
run_prove san build-san/tests/unit/* tests/cli/*.bats || status=1
if [ $status -ne 0 ]; then
	echo "== failed tests (full TAP in $LOGS) =="
	for name in plain san; do
		echo "-- $name build:"
		awk -v summary=1 -f tools/tap-filter.awk "$LOGS/$name.tap"
	done
fi
exit $status
