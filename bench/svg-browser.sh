#!/bin/bash
# bench/svg-browser.sh: how fast a 50,000-frame `prof svg` flamegraph loads,
# renders and zooms in headless chromium, measured in the page with
# performance.now() (tests/browser/measure.mjs, which the browser test
# also runs once, reporting without asserting).
#
#   bench/svg-browser.sh            PROF=path (default build/prof)
#
# The SVG is drawn with --minwidth 0 from synthetic folded text with FRAMES
# (50,000) frames (tests/browser/lib.mjs, syntheticFolded: a random tree
# grown with a fixed seed, paths up to 40 deep). RUNS (5) times, in a new
# page from a file:// URL: the end of DOMContentLoaded and of load, and the
# first frame produced after load (a task queued from a requestAnimationFrame
# callback); then a click event on the root's heaviest child, on "all"
# (reset) and on a mid-tree frame, each timed until the next frame has been
# produced. Needs node, Debian's chromium and tests/browser/node_modules
# (make deps). Prints markdown on stdout.
set -eu
BENCH_NAME=svg-browser
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

FRAMES=${FRAMES:-50000}
RUNS=${RUNS:-5}
need_tools node
[ -d "$ROOT/tests/browser/node_modules/playwright-core" ] ||
	die "tests/browser/node_modules is missing
hint: make deps (npm ci --prefix tests/browser)"
ENV_LINE=$(env_line)
chromium_version=$("${CHROMIUM:-/usr/bin/chromium}" --version 2>/dev/null | head -1)

echo "### A ${FRAMES}-frame flamegraph in headless chromium"
echo
echo "$ENV_LINE"
echo
echo "${chromium_version:-chromium ?}, playwright-core" \
	"$(node -p "require('$ROOT/tests/browser/node_modules/playwright-core/package.json').version")," \
	"node $(node --version)."
echo
PROF=$PROF node "$ROOT/tests/browser/measure.mjs" --frames "$FRAMES" --runs "$RUNS" --markdown
