#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# An mmap hint in the last 2 MiB below 1 << 47, page aligned or not, never yields a
# mapping at or above 1 << 47 (Documentation/arch/x86/x86_64/5level-paging.rst): ordinary
# anonymous mappings and hugetlb ones of every huge page size the guest has, on the
# top-down and the bottom-up layout (tests/validate/hintboundary.c). The rule is the same
# on every paging mode; on 5-level it is the one that can break: 7.3's
# hugetlb_get_unmapped_area() rounds a hint up to 1 << 47 (patches/7.3/fixes).
# A few seconds under TCG: the suite's default budget (300 s) covers it.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh

# Huge pages for the hugetlb cases, every pool back to its size at exit. Each mapping is
# unmapped before the next: one free page per pool is enough, two leave room.
reserve() {	# POOL-DIR COUNT
	local was
	[ -d "$1" ] || return 0
	was=$(cat "$1/nr_hugepages")
	at_exit "echo $was >$1/nr_hugepages"
	echo "$2" >"$1/nr_hugepages" 2>/dev/null || true
	echo "# $(basename "$1"): $(cat "$1/free_hugepages") free"
}
reserve /sys/kernel/mm/hugepages/hugepages-2048kB 2
# A 1 GiB page needs 1 GiB of contiguous guest RAM: one, if the guest can spare it.
reserve /sys/kernel/mm/hugepages/hugepages-1048576kB 1

tap_merge top-down "$bin"/hintboundary
tap_merge bottom-up "$bin"/hintboundary legacy
tap_done
