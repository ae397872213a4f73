#!/bin/sh
# run.sh: the real-browser tests of `prof svg` (flamegraph.test.mjs), as TAP
# for prove. Needs node (>= 20), Debian's chromium and tests/browser/node_modules
# (`make deps` installs them: `npm ci --prefix tests/browser`). PROF and
# EXAMPLES are the binaries under test (tools/run-tests.sh sets them).
# Missing prerequisites fail the run (they are installed by `make deps`), so
# a CI without a browser does not pass by skipping.
# Arguments: other test files to run the same way (tests/speedscope/run.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PROF="${PROF:-$root/build/prof}"
export EXAMPLES="${EXAMPLES:-$root/build/examples}"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
export CHROMIUM

bail() {
	echo "1..0"
	echo "Bail out! $*"
	exit 1
}
command -v node >/dev/null 2>&1 || bail "node not found (make deps)"
[ -x "$CHROMIUM" ] || bail "$CHROMIUM not found (make deps installs Debian's chromium)"
[ -d "$here/node_modules/playwright-core" ] ||
	bail "tests/browser/node_modules missing (make deps runs npm ci --prefix tests/browser)"
# node's TAP reporter (node >= 18.15); no --test-timeout (node 20.11+ only):
# every browser action has playwright's own 30 s timeout.
[ $# -gt 0 ] || set -- "$here/flamegraph.test.mjs" "$here/timeline.test.mjs"
# Node's YAML diagnostics (a failure's message, its stack) become "#" lines:
# prove's YAML reader refuses some of node's (a stack line stopped it once,
# and with it every test after), and comments reach the console filter.
status=$(mktemp)
{
	node --test --test-reporter=tap "$@"
	echo $? >"$status"
} | awk '/^ *---$/ { yaml = 1 } yaml { print "# " $0; if ($0 ~ /^ *\.\.\.$/) yaml = 0; next } { print }'
rc=$(cat "$status")
rm -f "$status"
if [ -z "$rc" ]; then
	# the group was killed before it could write node's status
	echo "Bail out! node's test run ended without an exit status (killed?)"
	exit 1
fi
exit "$rc"
