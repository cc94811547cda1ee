#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# p4d_alloc init_mm=1 does not occur after boot on x86-64. __p4d_alloc() sees init_mm
# only in mm_init() (6.1) / mm_core_init() (6.12): preallocate_vmalloc_pages() from
# mem_init() and init_espfix_bsp(), both before trace_init() enables the boot-time events
# of trace_event= (init/main.c of build/linux-6.1 and -6.12), and in EFI's
# efi_alloc_page_tables(), which this guest (BIOS firmware, no EFI) never runs. tests/run-all
# boots the suite with trace_event=pgtable:p4d_alloc, so the global trace buffer has
# recorded every p4d_alloc since trace_init(); tests/guest/suite then filtered it to
# init_mm == 1. Read here, near the end of the boot: no such record, no record lost,
# and, as the control that the boot-time event worked, the unfiltered records from
# before the suite began (the first processes' tables, init_mm=0).
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh
ev=$tfs/events/pgtable/p4d_alloc

if [ ! -e "$ev/enable" ]; then
	not_ok "pgtable:p4d_alloc exists" "no $ev: a kernel without the series?"
	tap_done
fi
if [ "$(cat "$ev/enable")" != 1 ]; then
	skip "init_mm=1 never recorded since boot" \
		"booted without trace_event=pgtable:p4d_alloc (tests/run-all adds it)"
	tap_done
fi
sed -n -E 's/^.*-([0-9]+) +\[[0-9]+\] [^ ]+ +[0-9.]+: (p4d_alloc): (.*)$/\1 \2 \3/p' "$tfs/trace" >"$tmp/records"
overruns=$(cat "$tfs"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
is "the global buffer lost no record since boot (overrun)" "$overruns" 0
is "the suite filtered the boot-time event to init_mm == 1" "$(cat "$ev/filter")" "init_mm == 1"
is "no p4d_alloc with init_mm=1 since trace_init()" "$(grep -c ' init_mm=1 ' "$tmp/records")" 0
before=$(grep -c ' init_mm=0 ' "$tmp/records")
if [ "$mode" = 5 ]; then
	check "control: the boot-time event recorded the first processes' tables ($before, init_mm=0)" \
		test "$before" -gt 0
else
	is "paging $mode: the level is folded, no p4d_alloc at all since boot" "$before" 0
fi
tap_done
