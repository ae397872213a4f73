#!/bin/sh
# run.sh: speedscope itself loading `prof report --format speedscope` in
# headless chromium (speedscope.test.mjs), as TAP for prove: through
# tests/browser/run.sh, which checks node, chromium and playwright-core
# first. Needs tests/speedscope/node_modules too (the npm package
# speedscope; `make deps` runs npm ci --prefix tests/speedscope); missing,
# it fails the run, so a CI without it does not pass by skipping.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$here/node_modules/speedscope/dist/release/index.html" ]; then
	echo "1..0"
	echo "Bail out! tests/speedscope/node_modules missing (make deps runs npm ci --prefix tests/speedscope)"
	exit 1
fi
exec sh "$here/../browser/run.sh" "$here/speedscope.test.mjs"
