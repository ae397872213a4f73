#!/bin/sh
# install-deps.sh: installs the Debian packages prof needs to build, test and
# benchmark, then the browser tests' npm packages (tests/browser: playwright-
# core, pinned by its package-lock.json; no browser download, the tests drive
# Debian's chromium). Idempotent and quiet when everything is present; needs
# root (or sudo) only when a Debian package is missing.
set -eu
cd "$(dirname "$0")/.."

PACKAGES="gcc g++ make pkg-config clang libclang-rt-14-dev
libelf-dev libdw-dev libiberty-dev zlib1g-dev libdeflate-dev libtraceevent-dev libcapstone-dev libxml2-dev liblzma-dev xz-utils
libcmocka-dev bats perl hyperfine linux-perf elfutils gdb binutils libxml2-utils
chromium time llvm libc6-dbg golang-go golang-github-google-pprof-dev jq
systemtap-sdt-dev openjdk-17-jdk-headless rustc redis-server redis-tools
libjemalloc2 libgoogle-perftools4
libncurses-dev tmux"

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
# Node.js and npm by command, not by package: a machine may have them from
# elsewhere (NodeSource's nodejs bundles npm and conflicts with Debian's).
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"

# The node_modules of the browser tests and of the speedscope schema check,
# unless installed from this very package-lock.json (a copy is kept next to
# it as the stamp).
npm_deps() {
	for dir in tests/browser tests/speedscope; do
		lock=$dir/package-lock.json
		stamp=$dir/node_modules/.prof-installed-lock.json
		cmp -s "$lock" "$stamp" 2>/dev/null && continue
		echo "npm ci --prefix $dir"
		npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null
		cp "$lock" "$stamp"
	done
}

if [ -z "$missing" ]; then
	npm_deps
	exit 0
fi

echo "installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO="sudo"
	else
		echo "install-deps: need root to install:$missing" >&2
		exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
npm_deps
