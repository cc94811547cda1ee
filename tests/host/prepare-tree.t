#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of scripts/prepare-tree and build-kernel's refusal, on a small fake kernel
# tarball and series in a scratch build directory: a series that applies, then with a fix
# (patches/KVER/fixes) under it, then with an RFC (patches/KVER/exec-rfc) on a branch above
# it, one whose second patch no longer does (named with its file and hunk, the tree left
# at its base, build-kernel refusing it), a tree whose Debian package is missing, a tree
# without a series; build-kernel's refusal of a compiled-out kernel where 5-level paging
# cannot be compiled out.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export P4D_BUILD=$tmp/build P4D_KVER=9.9 P4D_SERIES=$tmp/series LINUX_TARBALL=$tmp/linux.tar.xz

# A "kernel" of two files, and a series of two patches made against it with git.
mkdir -p "$tmp/src/linux-9.9/mm" "$tmp/series"
printf 'all:\n' >"$tmp/src/linux-9.9/Makefile"
seq 1 30 | sed 's/^/line /' >"$tmp/src/linux-9.9/mm/memory.c"
tar -cJf "$LINUX_TARBALL" -C "$tmp/src" linux-9.9
git init -q "$tmp/git" && cp -r "$tmp/src/linux-9.9/." "$tmp/git"
g() { git -C "$tmp/git" -c user.name=t -c user.email=t@localhost "$@"; }
g add -A && g commit -q -m base
sed -i 's/^line 5$/line five/' "$tmp/git/mm/memory.c" && g commit -q -am "first"
sed -i 's/^line 20$/line twenty/' "$tmp/git/mm/memory.c" && g commit -q -am "second"
g format-patch -q -o "$tmp/series" HEAD~2
second=$(g rev-parse HEAD)
# add_patch DIR BASE N TEXT SUBJECT: on a branch off BASE, line N becomes TEXT, committed
# as SUBJECT; its patch goes into DIR.
add_patch() {
	g checkout -q -b "$5" "$2"
	sed -i "s/^line $3\$/$4/" "$tmp/git/mm/memory.c" && g commit -q -am "$5"
	mkdir -p "$1"
	g format-patch -q -o "$1" HEAD~1
}

scripts/prepare-tree >"$tmp/out" 2>&1
is "a series that applies: exit 0" "$?" 0
tree=$P4D_BUILD/linux-9.9
is "the tree holds both patches" "$(grep -c -e '^line five$' -e '^line twenty$' "$tree/mm/memory.c")" 2
check "the series stamp is written" test -s "$tree/.p4dscope-series"

# A fix of the base (patches/KVER/fixes): applied first and tagged, the series on top.
add_patch "$tmp/series/fixes" HEAD~2 10 "line ten" fix
scripts/prepare-tree >"$tmp/out" 2>&1
is "with a fix: exit 0" "$?" 0
is "the tree holds the fix and both patches" \
	"$(grep -c -e '^line ten$' -e '^line five$' -e '^line twenty$' "$tree/mm/memory.c")" 3
is "p4dscope-fixes is the fix, on the base" \
	"$(git -C "$tree" log --format=%s p4dscope-base..p4dscope-fixes)" fix
is "the series lies above p4dscope-fixes" \
	"$(git -C "$tree" log --reverse --format=%s p4dscope-fixes..patched | tr '\n' ' ')" "first second "
is "the stamp covers the fix" "$(cat "$tree/.p4dscope-series")" \
	"$(cat "$tmp/series/fixes/"*.patch "$tmp/series/"0*.patch | sha256sum | cut -d' ' -f1)"

# An RFC outside the series: on branch exec-rfc above it; the tree stays on the series.
no_rfc_stamp=$(cat "$tree/.p4dscope-series")
add_patch "$tmp/series/exec-rfc" "$second" 25 "line twenty-five" rfc
scripts/prepare-tree >"$tmp/out" 2>&1
is "with an RFC: exit 0" "$?" 0
is "branch exec-rfc is the RFC on the series" \
	"$(git -C "$tree" log --reverse --format=%s p4dscope-fixes..exec-rfc | tr '\n' ' ')" "first second rfc "
is "the tree stays on branch patched, without the RFC" \
	"$(git -C "$tree" symbolic-ref --short HEAD) $(grep -c '^line twenty-five$' "$tree/mm/memory.c")" \
	"patched 0"
check "the stamp covers the RFC" test "$(cat "$tree/.p4dscope-series")" != "$no_rfc_stamp"
scripts/build-kernel no5level >"$tmp/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q 'cannot compile 5-level paging out' "$tmp/out"; then
	ok "build-kernel refuses a no5level kernel of a tree without CONFIG_X86_5LEVEL"
else
	not_ok "build-kernel refuses a no5level kernel of a tree without CONFIG_X86_5LEVEL" \
		"exit $rc" "$(cat "$tmp/out")"
fi
rm -r "$tmp/series/exec-rfc"
scripts/prepare-tree >"$tmp/out" 2>&1
check "without the RFC, no branch exec-rfc is left" \
	test -z "$(git -C "$tree" branch --list exec-rfc)"
scripts/build-kernel exec-rfc >"$tmp/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q 'no exec RFC for 9.9' "$tmp/out"; then
	ok "build-kernel refuses an exec-rfc kernel of a tree without the RFC"
else
	not_ok "build-kernel refuses an exec-rfc kernel of a tree without the RFC" "exit $rc" \
		"$(cat "$tmp/out")"
fi

# Debian moved line 20: the second patch's hunk no longer finds its context.
sed -i 's/^line 20$/line 20 (moved)/' "$tmp/src/linux-9.9/mm/memory.c"
tar -cJf "$LINUX_TARBALL" -C "$tmp/src" linux-9.9
touch -d '+1 minute' "$LINUX_TARBALL"
scripts/prepare-tree >"$tmp/out" 2>&1
rc=$?
is "a patch that no longer applies: exit 1" "$rc" 1
check "the error names the patch" grep -q '0002-second.patch does not apply to linux-source-9.9' "$tmp/out"
check "the error names the file and the hunk" \
	grep -q '^  failed hunk in mm/memory.c: @@ -17,7 +17,7 @@' "$tmp/out"
is "the tree is left at its base" "$(git -C "$tree" rev-parse HEAD)" \
	"$(git -C "$tree" rev-parse p4dscope-base)"
check "no series stamp is left" test ! -e "$tree/.p4dscope-series"
scripts/build-kernel patched >"$tmp/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q 'does not hold the whole series' "$tmp/out"; then
	ok "build-kernel refuses the half-applied tree"
else
	not_ok "build-kernel refuses the half-applied tree" "exit $rc" "$(cat "$tmp/out")"
fi

LINUX_TARBALL=$tmp/missing.tar.xz scripts/prepare-tree >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q 'install the Debian package linux-source-9.9' "$tmp/out"; then
	ok "a tree that is not installed names its package"
else
	not_ok "a tree that is not installed names its package" "exit $rc" "$(cat "$tmp/out")"
fi

P4D_SERIES=$tmp/none scripts/prepare-tree >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q 'no series for KVER=9.9' "$tmp/out"; then
	ok "a tree without a series says so"
else
	not_ok "a tree without a series says so" "exit $rc" "$(cat "$tmp/out")"
fi
tap_done
