#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The "vanilla" kernel really is the kernel without the series: none of the series' four
# trace events in tracefs, none of their event structs in the kernel's BTF. Without this,
# a vanilla boot that got the patched bzImage would pass every fallback test for the
# wrong reason. Each absence is read next to a control the same source must show.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh
series_events='pgtable:p4d_alloc pgtable:p4d_free pgtable:kernel_pgd_sync mmap:x86_get_unmapped_area'

# Control: the syscall events selftests.t and p4dstat's fallback read are listed.
check "control: tracefs lists syscalls:sys_exit_mmap" grep -qx 'syscalls:sys_exit_mmap' "$tfs/available_events"
present=$(for ev in $series_events; do grep -x "$ev" "$tfs/available_events"; done)
is "tracefs lists none of the series' events" "$present" ""

if ! command -v bpftool >/dev/null; then
	not_ok "the kernel's BTF has none of the series' event structs" \
		"no bpftool in this root: run 'make deps' (scripts/deps installs it)"
	tap_done
fi
bpftool btf dump file /sys/kernel/btf/vmlinux format raw >"$tmp/btf" 2>&1
btf_rc=$?
structs=$(grep -oE "STRUCT 'trace_event_raw_[a-z0-9_]+'" "$tmp/btf" | sort -u)
is "bpftool dumps the kernel's BTF" "$btf_rc" 0
check "control: BTF has the struct of sys_exit (trace_event_raw_sys_exit)" \
	grep -q "'trace_event_raw_sys_exit'" <<<"$structs"
is "BTF has no struct of the series' events" \
	"$(grep -E "'trace_event_raw_(pgtable_alloc|pgtable_free|kernel_pgd_sync|x86_get_unmapped_area)'" <<<"$structs")" ""
tap_done
