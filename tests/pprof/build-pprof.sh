#!/bin/sh
# build-pprof.sh: builds Google's pprof from Debian's packages, offline, into
# build/pprof (once: the tests reuse it). golang-go gives the compiler,
# golang-github-google-pprof-dev the source and its dependencies under
# /usr/share/gocode/src, built in GOPATH mode (no modules, no network).
# Usage: tests/pprof/build-pprof.sh [BUILD_DIR]; prints the binary's path.
set -eu
cd "$(dirname "$0")/../.."
out=${1:-build}
bin=$out/pprof
if [ -x "$bin" ]; then
	echo "$PWD/$bin"
	exit 0
fi
src=/usr/share/gocode
if ! command -v go >/dev/null 2>&1 || [ ! -d "$src/src/github.com/google/pprof" ]; then
	echo "build-pprof: needs golang-go and golang-github-google-pprof-dev (make deps)" >&2
	exit 1
fi
mkdir -p "$out/go-cache"
# GOPATH mode: GO111MODULE=off reads the Debian source tree as is;
# GOFLAGS and GOPROXY are cleared so no setting of the caller goes online.
GOPATH=$src GO111MODULE=off GOFLAGS= GOPROXY=off GOCACHE="$PWD/$out/go-cache" \
	go build -o "$bin.tmp" github.com/google/pprof
mv "$bin.tmp" "$bin"
echo "$PWD/$bin"
