#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Not part of the project: once the vanilla 7.3 image exists, keep it, apply the fix
# (prepare-tree), rebuild in place (only inode.c and the link), and boot the test on
# vanilla (5, 4, no5lvl) while the fixed kernel builds, then on the fixed one (5, 4, no5lvl).
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1	# the checkout (the runs were made in /work/h4)
k=build/kernel-7.3
cp $k/vanilla/arch/x86/boot/bzImage $k/bzImage.vanilla
P4D_KVER=7.3 scripts/prepare-tree > build/logs/prepare-fix.log 2>&1; echo "prepare-tree rc=$?" >> build/logs/prepare-fix.log
( time build/build73.sh vanilla ) > build/logs/build-fixed.log 2>&1 &
build=$!
boot() {	# IMAGE-NAME MODE
	echo "== 7.3 $1 $2: P4D_KVER=7.3 scripts/run-guest --paging $2 --timeout 900 --kernel $k/bzImage.$1 -- tests/guest/suite . hint-boundary.t"
	P4D_KVER=7.3 scripts/run-guest --paging "$2" --timeout 900 --kernel "$k/bzImage.$1" -- \
		tests/guest/suite . hint-boundary.t
	echo "rc=$?"
}
for m in 5 4 no5lvl; do boot vanilla $m; done > build/logs/7.3-vanilla-guest.log 2>&1
wait $build
echo "build rc=$?" >> build/logs/build-fixed.log
cp $k/vanilla/arch/x86/boot/bzImage $k/bzImage.fixed
for m in 5 4 no5lvl; do boot fixed $m; done > build/logs/7.3-fixed-guest.log 2>&1
echo "done" > build/logs/after.done
