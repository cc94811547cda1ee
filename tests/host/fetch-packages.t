#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/fetch-packages: a tree newer than this machine's Debian release (7.3, from
# trixie-backports) comes through a private apt configuration under the build directory.
# Fetched here into a scratch build directory, from the network: the pinned packages are
# what was unpacked (package, version, the tarball's top directory), a version the archive
# no longer has stops it with one line that says what to do, and the machine's own apt
# setup (sources, pins, configuration, keyrings, lists, package cache, dpkg's status) is
# exactly as before.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export P4D_KVER=7.3 P4D_BUILD=$tmp/build
. scripts/lib.sh

# The machine's apt state: every file of /etc/apt, dpkg's status, the lists and the cache.
apt_state() {
	find /etc/apt /var/lib/dpkg/status /var/lib/apt/lists /var/cache/apt/archives \
		-type f -printf '%p %s %T@\n' 2>/dev/null | sort
}
apt_state >"$tmp/before"

P4D_PIN=0.0-0~p4dscope-never scripts/fetch-packages >"$tmp/out" 2>&1
rc=$?
is "a version the archive does not have: exit 1, one line naming it and what to do" \
	"$rc $(grep -c "has moved on: linux-source-7.3 0.0-0~p4dscope-never is gone" "$tmp/out")" "1 1"
check "... which tells to set P4D_PIN and refresh the series" grep -q 'Set P4D_PIN in scripts/lib.sh' "$tmp/out"

scripts/fetch-packages >"$tmp/out" 2>&1
rc=$?
is "the pinned version ($P4D_PIN): fetched and unpacked" "$rc" 0
[ $rc = 0 ] || echo "$(cat "$tmp/out")" | sed 's/^/#   /'
versions=$(for d in "$tmp/build/apt/$P4D_SUITE/debs"/*.deb; do
	dpkg-deb -f "$d" Package Version | tr '\n' ' '; echo; done | sed 's/Package: //; s/ Version: / /' | sort)
is "the packages are the ones pinned" "$versions" "linux-config-7.3 $P4D_PIN 
linux-source-7.3 $P4D_PIN "
is "the tarball holds linux-source-7.3/" \
	"$(tar -tJf "$P4D_TARBALL" 2>/dev/null | head -n 1 | cut -d/ -f1)" linux-source-7.3
check "Debian's cloud configuration is there" test -s "$P4D_DEBIAN_CONFIG"
check "apt's lists stayed in the build directory" \
	compgen -G "$tmp/build/apt/$P4D_SUITE/lists/*_dists_trixie-backports_*"
before=$(stat -c %Y "$P4D_TARBALL")
scripts/fetch-packages >/dev/null 2>&1
is "fetched once: a second run changes nothing" "$? $(stat -c %Y "$P4D_TARBALL")" "0 $before"

apt_state >"$tmp/after"
is "the machine's apt sources, pins, lists, cache and dpkg status are untouched" \
	"$(diff "$tmp/before" "$tmp/after")" ""
tap_done
