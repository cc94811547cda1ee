#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Kernels are built only when their inputs change (scripts/build-kernel): the key of an
# image follows the tree's commit, the configuration's fragments and the build script,
# and nothing else; a tree with uncommitted changes has none; an image whose key matches
# is neither built nor touched; and a fresh build directory (a new clone's) takes the
# image of the same inputs from the kernel cache without running make. Everything here
# runs on copies (a scratch project, build directory and cache) over the real tree, which
# it leaves as it found it; nothing is compiled.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
image=$P4D_KERNELS/patched/arch/x86/boot/bzImage
if [ ! -f "$P4D_TREE/.p4dscope-series" ] || [ ! -f "$image" ]; then
	skip "kernel keys" "no patched kernel: run 'make kernel'"
	tap_done
fi

# The build lock for the whole test, so no build changes the tree under it (a vanilla
# build checks out the base, a mutant patches it); the calls below are told they hold it.
exec 9>"$P4D_KERNELS/.lock"
flock 9
export P4D_TREE_LOCKED=1
# A scratch project (the scripts and fragments, editable) over the real tree.
mkdir -p "$tmp/top" "$tmp/build"
cp -r scripts guest-image patches "$tmp/top/"
ln -s "$P4D_TREE" "$tmp/build/linux-$P4D_KVER"
key() {	# FLAVOUR: its key, as the scratch project computes it
	P4D_BUILD=$tmp/build P4D_KERNEL_CACHE='' "$tmp/top/scripts/build-kernel" --key "$1" 2>/dev/null
}
patched=$(key patched)
check "a key is a sha256 ($patched)" grep -qxE '[0-9a-f]{64}' <<<"$patched"
is "the same inputs give the same key" "$(key patched)" "$patched"
is "the scratch project's key is the real one's (no path enters it)" \
	"$(scripts/build-kernel --key patched 2>/dev/null)" "$patched"
check "vanilla (the tree's base) has another key" test "$(key vanilla)" != "$patched"
check "no5level (another fragment) has another key" test "$(key no5level)" != "$patched"
echo "CONFIG_PRINTK=y" >>"$tmp/top/guest-image/kernel.config"
check "a changed fragment changes the key" test "$(key patched)" != "$patched"
cp guest-image/kernel.config "$tmp/top/guest-image/kernel.config"
echo "# a comment" >>"$tmp/top/scripts/build-kernel"
check "a changed build script changes the key" test "$(key patched)" != "$patched"
cp scripts/build-kernel "$tmp/top/scripts/build-kernel"
is "restored inputs give the first key again" "$(key patched)" "$patched"

# A dirty tree has no key (made dirty and restored under the lock: no build sees it).
doc=$(git -C "$P4D_TREE" ls-files | grep -m1 '^Documentation/.*\.rst$')
echo >>"$P4D_TREE/$doc"
P4D_BUILD=$tmp/build P4D_KERNEL_CACHE='' "$tmp/top/scripts/build-kernel" --key patched \
	>"$tmp/dirty" 2>&1
git -C "$P4D_TREE" checkout -q -- "$doc"
check "a tree with uncommitted changes has no key" grep -q '^none: ' "$tmp/dirty"
is "the tree is left clean" "$(git -C "$P4D_TREE" status --porcelain)" ""

# Up to date: the real image, untouched, and no make.
if [ "$(cat "$P4D_KERNELS/patched/.p4dscope-key" 2>/dev/null)" = "$patched" ]; then
	before=$(stat -c %Y "$image")
	out=$(scripts/build-kernel patched 2>&1)
	is "a matching key: no build, the image untouched" \
		"$(grep -c 'up to date' <<<"$out") $(stat -c %Y "$image")" "1 $before"
else
	not_ok "the patched kernel carries its key" "run 'make kernel' (it writes the key)"
fi

# A fresh build directory takes the image from the cache: exactly the cached files, no
# make (build-kernel's log stays empty), the key and the configuration's id written.
entry=$tmp/cache/$patched
mkdir -p "$entry"
for f in arch/x86/boot/bzImage vmlinux System.map .config; do
	cp "$P4D_KERNELS/patched/$f" "$entry/${f//\//%}"
done
: >"$entry/complete"
out=$(P4D_BUILD=$tmp/build P4D_KERNEL_CACHE=$tmp/cache "$tmp/top/scripts/build-kernel" patched 2>&1)
k=$tmp/build/kernel-$P4D_KVER/patched
check "from the cache: said so" grep -q 'the image of the same inputs, from' <<<"$out"
same_files() {
	local f
	for f in "$@"; do cmp -s "$k/$f" "$P4D_KERNELS/patched/$f" || return 1; done
}
check "from the cache: the same bzImage, vmlinux, System.map and .config" \
	same_files arch/x86/boot/bzImage vmlinux System.map .config
is "from the cache: its key, and no make run" \
	"$(cat "$k/.p4dscope-key") $(cat "$tmp/build/kernel-$P4D_KVER/patched.log" 2>/dev/null | wc -l)" "$patched 0"
is "from the cache: the next call finds it up to date" \
	"$(P4D_BUILD=$tmp/build P4D_KERNEL_CACHE=$tmp/cache "$tmp/top/scripts/build-kernel" patched 2>&1 |
		grep -c 'up to date')" 1
tap_done
