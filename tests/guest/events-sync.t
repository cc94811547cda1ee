#!/usr/bin/env bash
# pgtable:kernel_pgd_sync, read from tracefs directly: it stays silent under vmalloc
# stress (the vmalloc area's top level is preallocated at boot), and memory hotplug makes
# it fire with start and end predicted from the documented layout: the direct map of the
# new block and its struct pages in vmemmap, from ptdump's bases, the block's address and
# size, and sizeof(struct page) from the kernel's BTF. Both parts are recorded by one
# trace instance, split by a marker: the hotplug events are the control that the instance
# worked while it recorded nothing under stress.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh
probe=0x8000000000	# the block added at 512 GiB: beyond the guest's RAM, inside its 1 TiB
level=$([ "$mode" = 5 ] && echo pgd || echo p4d)
ptdump=/sys/kernel/debug/page_tables/kernel

trace_start sync pgtable/kernel_pgd_sync

## vmalloc stress
before=$(grep -c vmalloc /proc/vmallocinfo)
# Each process holds a vmalloc'ed kernel stack until killed (a fixed sleep could end
# before the last fork on a slow debug kernel).
sleepers=()
for _ in $(seq 100); do sleep 600 & sleepers+=($!); done
# The map lives while pinned, in a BPF filesystem of this test's own (init mounts none).
mkdir "$tmp/bpffs" && mount -t bpf bpf "$tmp/bpffs"
map_out=$(bpftool map create "$tmp/bpffs/p4dscope-big" type array key 4 value 65536 \
	entries 64 name p4dscope_big 2>&1)
map_rc=$?
peak=$(grep -c vmalloc /proc/vmallocinfo)
rm -f "$tmp/bpffs/p4dscope-big"
umount "$tmp/bpffs"
kill "${sleepers[@]}"
wait "${sleepers[@]}" 2>/dev/null

## memory hotplug: the sysfs probe adds an offline block
echo "events-sync: probe" >"$tfs/instances/sync/trace_marker"
probe_err=$({ echo $probe >/sys/devices/system/memory/probe; } 2>&1)
probe_rc=$?
trace_stop sync "$tmp/records"
awk '$2 == "tracing_mark_write" { probing = 1; next }
	$2 == "kernel_pgd_sync" { print >(probing ? f "/probe" : f "/stress") }' f="$tmp" "$tmp/records"
touch "$tmp/stress" "$tmp/probe"

if [ $map_rc = 0 ]; then
	ok "vmalloc stress: bpftool created a 4 MiB BPF array map"
elif ! command -v bpftool >/dev/null; then
	not_ok "vmalloc stress: bpftool created a 4 MiB BPF array map" \
		"no bpftool in this root: run 'make deps' (scripts/deps installs it)"
else
	not_ok "vmalloc stress: bpftool created a 4 MiB BPF array map" "$map_out"
fi
check "vmalloc stress grew the vmalloc area ($before -> $peak areas)" test "$peak" -gt $((before + 50))
is "memory probe at $probe succeeds" "$probe_rc $probe_err" "0 "
probes=$(grep -c . "$tmp/probe")
is "vmalloc stress: kernel_pgd_sync never fires (control: $probes events of the probe after it)" \
	"$(grep -c . "$tmp/stress") $([ "$probes" -gt 0 ] && echo recorded)" "0 recorded"

## The ranges the layout predicts for the probed block.
# section_base NAME: the first address of ptdump's NAME section; its first line must be
# mapped (physical 0 has a direct mapping and struct pages), so it starts at the base.
section_base() {
	awk -v name="---[ $1 ]---" '$0 == name { getline; if ($0 ~ / (RW|ro) /) { split($1, r, "-"); print r[1] }; exit }' "$ptdump"
}
direct=$(section_base "Low Kernel Mapping")
vmemmap=$(section_base "Vmemmap")
block=$((16#$(cat /sys/devices/system/memory/block_size_bytes)))
page_struct=$(bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null |
	sed -n "s/^\[[0-9]*\] STRUCT 'page' size=\([0-9]*\) .*/\1/p" | head -n 1)
if [ -z "$direct" ] || [ -z "$vmemmap" ] || [ -z "$page_struct" ]; then
	not_ok "hotplug: the layout's inputs" "direct map base '$direct', vmemmap base '$vmemmap'" \
		"(ptdump: $ptdump), sizeof(struct page) '$page_struct' (bpftool, kernel BTF)"
	tap_done
fi
echo "# direct map $direct, vmemmap $vmemmap, block $block bytes, struct page $page_struct bytes"
range() { printf '0x%016x 0x%016x\n' $(($1)) $(($1 + $2 - 1)); }
# vmemmap_populate() syncs the struct pages of each section it adds (arch/x86/mm/init_64.c);
# the direct mapping syncs only when it needs a new top-level entry: never on 5-level
# (one entry spans 256 TiB, and the boot memory's holds 512 GiB), always on 4-level (an
# entry spans 512 GiB, and the randomized base leaves 512 GiB past it unmapped).
want=$({
	range $((vmemmap + (probe >> 12) * page_struct)) $(((block >> 12) * page_struct))
	[ "$mode" = 5 ] || range $((direct + probe)) "$block"
} | sort)
got=$(awk '{ sub(/^start=/, "", $3); sub(/^end=/, "", $4); print $3, $4 }' "$tmp/probe" | sort)
is "hotplug: start and end are the block's direct map (4-level) and its struct pages" "$got" "$want"
is "hotplug: every sync at level $level" "$(grep -vc " level=$level " "$tmp/probe")" 0
is "hotplug: every sync visited page tables" "$(grep -c ' visited=0$' "$tmp/probe")" 0
copied=$(grep -o 'copied=[0-9]*' "$tmp/probe" | awk -F= '{ s += $2 } END { print s + 0 }')
if [ "$mode" = 5 ]; then
	is "hotplug on 5-level: no top-level entry to copy" "$copied" 0
else
	# The new top-level entry of the direct map, copied into every process's page table.
	check "hotplug on 4-level: the new top-level entry was copied ($copied)" test "$copied" -gt 0
fi

tap_done
