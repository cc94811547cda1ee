#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# pgtable:kernel_pgd_sync, read from tracefs directly: it stays silent under vmalloc
# stress (the vmalloc area's top level is preallocated at boot), and memory hotplug makes
# it fire with start and end predicted from the booted layout: the direct map of the new
# block and its struct pages in vmemmap, from ptdump's bases, the block's address and
# size, and sizeof(struct page) from the kernel's BTF. visited is counted independently:
# a kprobe on pgd_page_get_mm(), which the sync walk calls once per page table it visits
# and nothing else calls on x86-64 (arch/x86/mm/init_64.c; fault.c's call is 32-bit
# only), in the same trace instance; copied is exact: every visited table when the
# synced top-level entry is new, none when the boot memory already populated it. Both
# parts are recorded by one trace instance, split by a marker: the hotplug events are
# the control that the instance worked while it recorded nothing under stress.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh
level=$([ "$mode" = 5 ] && echo pgd || echo p4d)
# The span of one top-level entry: the PGD's on 5-level, the P4D's (folded into the PGD)
# on 4-level.
top_shift=$([ "$mode" = 5 ] && echo 48 || echo 39)
ptdump=/sys/kernel/debug/page_tables/kernel
kprobe=p4dscope_pgd_page_get_mm

## The layout this boot got (KASLR moves the direct map and vmemmap bases)
# The end of the boot memory: the last System RAM range of /proc/iomem.
ram_end=$(sed -n 's/^ *[0-9a-f]*-\([0-9a-f]*\) : System RAM$/\1/p' /proc/iomem | tail -n 1)
if ! kernel_layout "$ptdump" || [ -z "$ram_end" ]; then
	not_ok "hotplug: the layout's inputs" "$layout_error, end of System RAM '$ram_end' (/proc/iomem)"
	tap_done
fi
ram_end=$((16#$ram_end + 1))
# The block to add: on 5-level the first free one from 512 GiB (beyond the guest's RAM,
# inside its 1 TiB of physical address space; free_block skips the blocks earlier tests
# added and what the machine reserves there); on 4-level, where an entry spans 512 GiB,
# the first address whose direct mapping needs a top-level entry the boot memory left
# empty (the direct map's base is random, so a fixed address would share the boot
# memory's entry in about one boot in 256). A later run in the same boot
# (tests/run-plants) takes the next free block: /proc/iomem counts probed blocks as
# System RAM.
phys_limit=$((1 << phys_bits))
# The System RAM ranges before the probe (boot memory, and blocks earlier probes added:
# bpftrace.t's, aa-untraced.t's), widened to whole blocks as vmemmap populates them.
ram_first=() ram_last=()
while read -r first last; do
	ram_first+=($((16#$first / block * block))) ram_last+=($(((16#$last / block + 1) * block - 1)))
done < <(sed -n 's/^ *\([0-9a-f]*\)-\([0-9a-f]*\) : System RAM$/\1 \2/p' /proc/iomem)
# image MAP PHYS: where the direct map (MAP direct) or vmemmap (the struct page) holds PHYS.
image() { [ "$1" = direct ] && echo $((direct + $2)) || echo $((vmemmap + ($2 >> 12) * page_struct)); }
# populated MAP N: the boot or an earlier probe mapped something of MAP in top-level entry N.
populated() {
	local i
	for i in "${!ram_first[@]}"; do
		[ $(($(image "$1" "${ram_first[i]}") >> top_shift)) -le "$2" ] &&
			[ $(($(image "$1" "${ram_last[i]}") >> top_shift)) -ge "$2" ] && return 0
	done
	return 1
}
# new_entries MAP START END: how many top-level entries of [START, END] (virtual) held
# nothing of MAP before the probe.
new_entries() {
	local n=0 e
	for ((e = $2 >> top_shift; e <= $3 >> top_shift; e++)); do populated "$1" $e || n=$((n + 1)); done
	echo $n
}
if [ "$mode" = 5 ]; then
	probe=$(free_block first $((1 << 39)) $phys_limit) || {
		not_ok "hotplug: a free memory block from 512 GiB to the physical limit" \
			"every block is taken (/proc/iomem, /sys/devices/system/memory)"
		tap_done
	}
else
	# The first entry after physical 0's that holds no RAM, if a block fits there below
	# the physical limit; else the first free block anywhere (aa-untraced.t may have
	# taken the top of the last empty entry, ending at the limit).
	probe=''
	entry=$((direct >> top_shift))
	while start=$((((entry + 1) << top_shift) - direct)) &&
		[ $((start + block)) -le $phys_limit ]; do
		entry=$((entry + 1))
		populated direct $entry || { probe=$start; break; }
	done
	[ -n "$probe" ] || probe=$(free_block first 0 $phys_limit) || {
		not_ok "hotplug: a free memory block below the physical limit" \
			"every block is taken (/proc/iomem, /sys/devices/system/memory)"
		tap_done
	}
fi
printf -v probe '0x%x' "$probe"
echo "# direct map $direct, vmemmap $vmemmap, RAM ends at $(printf '0x%x' $ram_end)," \
	"block $block bytes at $probe, struct page $page_struct bytes"

echo "p:$kprobe pgd_page_get_mm" >>"$tfs/kprobe_events" || not_ok "kprobe on pgd_page_get_mm" "kprobe_events refused it"
at_exit "echo '-:$kprobe' >>$tfs/kprobe_events"
trace_start sync pgtable/kernel_pgd_sync kprobes/$kprobe

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
probe_err=$({ echo "$probe" >/sys/devices/system/memory/probe; } 2>&1)
probe_rc=$?
trace_stop sync "$tmp/records"
# The probe's records: each sync as "start end level copied visited calls", calls being
# the pgd_page_get_mm() calls since the sync before it (the walk calls it before the event
# fires; pgd_lock keeps two walks apart).
awk -v kp="$kprobe" '$2 == "tracing_mark_write" { probing = 1; next }
	!probing && $2 == kp { stress_calls++ }
	$2 == "kernel_pgd_sync" { if (!probing) { print >(f "/stress"); next }
		line = $3 " " $4 " " $5 " " $6 " " $7 " calls=" calls + 0; calls = 0
		gsub(/(start|end|level|copied|visited|calls)=/, "", line); print line >(f "/probe") }
	probing && $2 == kp { calls++ }
	END { print stress_calls + 0 >(f "/stress-calls") }' f="$tmp" "$tmp/records"
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

is "vmalloc stress: no pgd_page_get_mm() call either" "$(cat "$tmp/stress-calls")" 0

## The ranges the layout predicts for the probed block.
range() { printf '0x%016x 0x%016x\n' $(($1)) $(($1 + $2 - 1)); }
# vmemmap_populate() syncs the struct pages of each section it adds (arch/x86/mm/init_64.c);
# the direct mapping syncs only when it needs a new top-level entry: on 4-level when an
# empty entry was left below the physical limit (the probe address is then chosen so), on
# 5-level only if the direct map's base lies within 512 GiB of a 256 TiB boundary.
vm_start=$(image vmemmap $((probe)))
vm_len=$(((block >> 12) * page_struct))
direct_new=$(new_entries direct $((direct + probe)) $((direct + probe + block - 1)))
want=$({
	range $vm_start $vm_len
	[ "$direct_new" = 0 ] || range $((direct + probe)) "$block"
} | sort)
got=$(awk '{ print $1, $2 }' "$tmp/probe" | sort)
# start and end are the caller's arguments, passed through; the prediction is not the series'.
is "hotplug: start and end are the block's direct map (when it needs a new entry) and its struct pages" \
	"$got" "$want"
# level is the series' own pgtable_l5_enabled() test; the mode comes from the booted layout.
is "hotplug: every sync at level $level" "$(awk -v l="$level" '$3 != l' "$tmp/probe")" ""
# visited is counted by the series inside the walk; the kprobe counts the same tables.
is "hotplug: visited = the pgd_page_get_mm() calls of the same sync (kprobe), nonzero" \
	"$(awk '$5 != $6 || $5 == 0 { print "visited=" $5, "calls=" $6, "in", $1 "-" $2 }' "$tmp/probe")" ""
# copied is counted by the series too: each visited table gets each new entry once.
bad=$(while read -r start end _ copied visited _; do
	entries=$(((end >> top_shift) - (start >> top_shift) + 1))
	map=direct
	[ $((start)) -lt $((vmemmap)) ] || map=vmemmap	# vmemmap lies above the direct map
	new=$(new_entries $map $((start)) $((end)))
	[ $((copied * entries)) -eq $((visited * new)) ] ||
		echo "$start-$end: copied=$copied visited=$visited, $new of $entries entries new"
done <"$tmp/probe")
is "hotplug: copied = visited tables x new top-level entries (from the layout)" "$bad" ""
copied=$(awk '{ s += $4 } END { print s + 0 }' "$tmp/probe")
if [ "$mode" = 5 ]; then
	echo "# 5-level: $copied entries copied ($direct_new new for the direct map)"
elif [ "$direct_new" -gt 0 ]; then
	check "hotplug on 4-level: the new top-level entry was copied ($copied)" test "$copied" -gt 0
else
	skip "hotplug on 4-level: the new top-level entry was copied" \
		"no top-level entry without RAM left below the physical limit (earlier probes of this boot took them)"
fi

tap_done
