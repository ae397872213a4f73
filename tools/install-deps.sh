#!/bin/sh
# install-deps.sh: installs the Debian packages prof needs to build, test and
# benchmark. Idempotent and quiet when everything is present; needs root (or
# sudo) only when something is missing.
set -eu

PACKAGES="gcc make pkg-config clang libclang-rt-14-dev
libelf-dev libdw-dev zlib1g-dev libtraceevent-dev libcapstone-dev libxml2-dev
libcmocka-dev bats perl hyperfine linux-perf elfutils gdb binutils"

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

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
