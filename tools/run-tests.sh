#!/bin/sh
# run-tests.sh: the whole test suite (what `make test` and CI run):
#   1. build prof, the examples, the unit tests and the fuzz targets;
#   2. run unit tests (cmocka, TAP), bounded fuzzing, the end-to-end CLI
#      tests (bats) that record the example workloads for real, and the
#      real-browser tests of `prof svg` (tests/browser/run.sh: headless
#      chromium through playwright-core, node's TAP reporter; plain build
#      only) and of speedscope loading prof's speedscope files
#      (tests/speedscope/run.sh, the same way);
#   3. do it again with prof built with AddressSanitizer + UBSan.
# Everything goes through `prove`, which ends with a summary line.
set -eu
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}

sh tools/check-includes.sh
make -s -j"$JOBS" all unit fuzz
make -s -j"$JOBS" SANITIZE=address,undefined all unit

export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export FUZZ_RUNS=${FUZZ_RUNS:-200000}

status=0
echo "== plain build =="
PROF=$PWD/build/prof EXAMPLES=$PWD/build/examples \
	prove --timer build/tests/unit/* tests/fuzz/run-fuzzers.sh tests/cli/*.bats \
	tests/browser/run.sh tests/speedscope/run.sh || status=1
echo "== AddressSanitizer + UBSan build =="
PROF=$PWD/build-san/prof EXAMPLES=$PWD/build/examples \
	prove --timer build-san/tests/unit/* tests/cli/*.bats || status=1
exit $status
