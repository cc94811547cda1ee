#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The series with 5-level paging compiled out (CONFIG_X86_5LEVEL=n, the configuration of
# every x86-64 kernel before 6.16 that did not select it), at the cost of a few objects
# instead of a kernel: the x86-64 objects the series touches, built with the no5level
# flavour's configuration (scripts/build-kernel no5level OBJECT...). The whole compiled-out
# kernel, booted, is make test-full's and make bench's (make kernel-no5level).
# Each object must build, and the events must be where the series says: no P4D level, so
# mm/memory.o has no __p4d_alloc() and fires no p4d_alloc; the x86 events stay.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib.sh
out=$P4D_KERNELS/no5level
if [ ! -f "$P4D_TREE/.p4dscope-series" ]; then
	skip "the series' objects with X86_5LEVEL=n" "no kernel tree: run 'make tree'"
	tap_done
fi

# The C files the series changes, but for other architectures'.
objects=()
while read -r c; do
	[[ $c == arch/* && $c != arch/x86/* ]] || objects+=("${c%.c}.o")
done < <(git -C "$P4D_TREE" diff --name-only p4dscope-base patched -- '*.c')
check "the series touches x86-64 objects (${objects[*]})" test ${#objects[@]} -gt 0

start=$SECONDS
if err=$(scripts/build-kernel no5level "${objects[@]}" 2>&1); then
	ok "X86_5LEVEL=n: ${#objects[@]} objects build ($((SECONDS - start)) s)"
else
	not_ok "X86_5LEVEL=n: ${#objects[@]} objects build" "$err" \
		"$(tail -n 20 "$P4D_KERNELS/no5level.log")"
	tap_done
fi
is "X86_5LEVEL=n: 5-level paging compiled out, four levels" \
	"$(grep -E '^(# )?CONFIG_(X86_5LEVEL|PGTABLE_LEVELS)[ =]' "$out/.config" | sort | tr '\n' ' ')" \
	"# CONFIG_X86_5LEVEL is not set CONFIG_PGTABLE_LEVELS=4 "

# symbols OBJECT: the tracepoints and P4D functions OBJECT defines or calls, one per line.
symbols() {
	nm "$out/$1" | awk '{ print $NF }' |
		grep -xE '__tracepoint_(p4d_alloc|p4d_free|kernel_pgd_sync|x86_get_unmapped_area)|__p4d_alloc' |
		sort -u | tr '\n' ' '
}
for o in "${objects[@]}"; do
	case "$o" in
	mm/memory.o) want="" why="the level is folded: no __p4d_alloc(), no P4D event" ;;
	arch/x86/mm/init_64.o) want="__tracepoint_kernel_pgd_sync " why="the P4D level is synced" ;;
	arch/x86/mm/mmap.o | arch/x86/kernel/sys_x86_64.o | arch/x86/mm/hugetlbpage.o)
		want="__tracepoint_x86_get_unmapped_area " why="the placement event is x86 code" ;;
	*) not_ok "$o: a file this test does not know: say what it must hold"; continue ;;
	esac
	is "X86_5LEVEL=n: $o: ${why}" "$(symbols "$o")" "$want"
done
tap_done
