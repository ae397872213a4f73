#!/bin/bash
# bench/svg-browser.sh: how fast a 50,000-frame `prof svg` flamegraph loads,
# renders and zooms in headless chromium, measured in the page with
# performance.now() (tests/browser/measure.mjs, which the browser test
# also runs once, reporting without asserting).
#
#   bench/svg-browser.sh            PROF=path (default build/prof)
#   STACKS_LIST="100000 1000000" bench/svg-browser.sh   and the page's size
#                                   and first render at default pruning
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

# ---- the page's size and first render at default pruning ----
# STACKS_LIST (unset: skipped; say "100000 1000000"): bench/svg-speed.sh's
# generated input (its gen_folded, 10 samples a stack) drawn with the
# defaults, then tests/browser/load-time.mjs: bytes (and the hidden
# frames' table's), parse / DOMContentLoaded / first frame, the renderer
# main thread's CPU, hover, zoom and reset, and a search for SEARCH
# (json::), whose first run reads the hidden frames' table.
[ -n "${STACKS_LIST:-}" ] || exit 0
SEARCH=${SEARCH:-json::}
eval "$(sed -n '/^gen_folded() {/,/^}/p' "$ROOT/bench/svg-speed.sh")"
echo
echo "### Page size and first render at default pruning (bench/svg-speed.sh's input)"
echo
echo "| stacks | drawn frames | bytes | hidden table | parse ms | first frame ms | main-thread CPU ms | hover ms | zoom ms | reset ms | first search ms | again ms | Matched |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for STACKS in $STACKS_LIST; do
	SAMPLES=$((STACKS * 10)) SEED=${SEED:-12345}
	export STACKS SAMPLES SEED
	gen_folded >"$TMP/s.folded"
	"$PROF" svg -i "$TMP/s.folded" -o "$TMP/s.svg"
	drawn=$(grep -c '^<g><title>' "$TMP/s.svg" || true)
	# the hidden frames' table: from its first metadata element to </svg>
	at=$(grep -bo '<metadata id="hidden-names"' "$TMP/s.svg" | cut -d: -f1 || true)
	table=$(( at ? $(stat -c %s "$TMP/s.svg") - at - 7 : 0 ))
	node "$ROOT/tests/browser/load-time.mjs" --runs "$RUNS" --search "$SEARCH" "$TMP/s.svg" |
		awk -v stacks="$STACKS" -v drawn="$drawn" -v table="$table" '{
			n = split("bytes parsed rendered cpu hover zoom reset search again", k, " ")
			for (i = 1; i <= n; i++) { v[k[i]] = ""
				if (match($0, "\"" k[i] "\":[0-9]+")) v[k[i]] = substr($0, RSTART + length(k[i]) + 3, RLENGTH - length(k[i]) - 3) }
			m = ""; if (match($0, /"matched":"[^"]*"/)) m = substr($0, RSTART + 11, RLENGTH - 12)
			printf "| %d | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", stacks, drawn,
				v["bytes"], table, v["parsed"], v["rendered"], v["cpu"], v["hover"], v["zoom"],
				v["reset"], v["search"], v["again"], m }'
done
