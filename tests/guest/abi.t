#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The user-space ABI of the 47-bit mmap window (tests/validate/abicheck.c), on both
# get_unmapped_area paths: the top-down layout and the legacy bottom-up one. Each case
# states what this paging mode must show; see abicheck.c for the documented behaviour
# behind each. Hugetlb cases get their pages through /proc/sys/vm/nr_hugepages.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh

hugepages=$(cat /proc/sys/vm/nr_hugepages)
echo 8 >/proc/sys/vm/nr_hugepages
tap_merge top-down "$bin"/abicheck "$mode"
tap_merge bottom-up "$bin"/abicheck "$mode" legacy
echo "$hugepages" >/proc/sys/vm/nr_hugepages
tap_done
