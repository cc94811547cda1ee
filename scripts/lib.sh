# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # the variables are for the scripts that source this
# Shared shell helpers for p4dscope's host scripts. Source it; do not run it.

# Absolute path of the repository and of its git-ignored build directory.
P4D_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
P4D_BUILD=${P4D_BUILD:-$P4D_TOP/build}

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# One progress line for a long step, always shown (make's V=1 only widens commands).
step() {
	local tag=$1
	shift
	printf '  %-8s %s\n' "$tag" "$*" >&2
}

# The kernel tree to work on: Debian's linux-source-$P4D_KVER (make KVER=6.12), each with
# its own series in patches/$P4D_KVER, tree in build/linux-$P4D_KVER and kernels in
# build/kernel-$P4D_KVER/FLAVOUR, tools built against its BTF in build/tools-$P4D_KVER.
P4D_KVER=${P4D_KVER:-6.1}
P4D_SERIES=${P4D_SERIES:-$P4D_TOP/patches/$P4D_KVER}
P4D_TREE=$P4D_BUILD/linux-$P4D_KVER
P4D_KERNELS=$P4D_BUILD/kernel-$P4D_KVER
# What make tools builds against the tree's own BTF (p4dstat, racehold) lives per tree, so
# guests of two trees can run side by side while either tree's tools are rebuilt.
P4D_TOOLS=$P4D_BUILD/tools-$P4D_KVER

# Where a tree's Debian packages (linux-source-KVER, linux-config-KVER) come from: the
# machine's own apt sources (bookworm: 6.1, 6.12), or for a tree newer than its release a
# suite fetched through a private apt configuration under build/apt/ (scripts/
# fetch-packages), pinned to the version the series was tested with. P4D_SRC is the root
# their /usr/src is unpacked under ("" for the machine's own).
case "$P4D_KVER" in
# P4D_PIN may be overridden to try another version (tests/host/fetch-packages.t does).
7.3) P4D_SUITE=trixie-backports P4D_PIN=${P4D_PIN:-7.3.4-1~bpo13+1} ;;
*) P4D_SUITE='' P4D_PIN='' ;;
esac
P4D_SRC=${P4D_SUITE:+$P4D_BUILD/apt/$P4D_SUITE/root}
P4D_TARBALL=$P4D_SRC/usr/src/linux-source-$P4D_KVER.tar.xz
P4D_DEBIAN_CONFIG=$P4D_SRC/usr/src/linux-config-$P4D_KVER/config.amd64_none_cloud-amd64.xz

# Every boot of the in-guest suite (make test, test-plants, test-debug) gets 2 GiB: 6.12's
# virtual_address_range selftest builds about 512 MiB of page tables
# (tests/guest/selftests.t), and KASAN takes an eighth of the debug guest's memory.
P4D_SUITE_MEM=2G

# Stop early on a tree p4dscope has no series for.
check_kver() {
	[ -d "$P4D_SERIES" ] ||
		die "no series for KVER=$P4D_KVER; patches/ has: $(cd "$P4D_TOP/patches" && echo */ | tr -d /)"
}

# The fixes a tree's kernels need that are not the series' own (patches/KVER/fixes/: a
# bug found upstream, posted on its own), in order.
fixes_files() {
	local f=("$P4D_SERIES"/fixes/0*.patch)
	[ -e "${f[0]}" ] || return 0
	printf '%s\n' "${f[@]}"
}
# What prepare-tree applies, in order: the fixes, then the series; and its identity (a
# hash of every patch file). The vanilla kernels have neither.
series_files() {
	local f=("$P4D_SERIES"/0*.patch)
	fixes_files
	[ -e "${f[0]}" ] || return 0
	printf '%s\n' "${f[@]}"
}
# An RFC that is not part of the series (patches/KVER/exec-rfc/, with its own cover
# letter): prepare-tree applies it on top of the series on branch exec-rfc of the tree,
# which kernel flavours *exec-rfc build. Part of the tree's identity.
rfc_files() {
	local f=("$P4D_SERIES"/exec-rfc/0*.patch)
	[ -e "${f[0]}" ] || return 0
	printf '%s\n' "${f[@]}"
}
series_id() {
	{ series_files; rfc_files; } | xargs -r cat | sha256sum | cut -d' ' -f1
}
