#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# p4dstat's cause classification (bpf/p4dstat.h p4dstat_cause()) on the host, as plain C:
# the PTI LDT remap table, a kernel address in a process's mm, which the guest kernel
# (no PTI, no modify_ldt) cannot produce; see tests/host/p4dstat-cause.c.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/ctest.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ctest_run cause tests/host/p4dstat-cause.c
tap_done
