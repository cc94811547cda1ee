#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The series with tracing off: its code runs on every path whether an event is enabled
# or not, and must then do what it does traced. With the four events disabled everywhere
# (checked at the top level and in every instance, and no BPF program attached), the
# workloads of the event tests run once untraced, then once traced by an instance of this
# test: vmalloc stress (kernel stacks, a BPF map), mmapcases' placements without address
# randomization (as events-window.t runs them) and a memory probe (as events-sync.t
# does). Compared: the addresses mmapcases got, and the kernel page-table state, read by
# ptdump (arch/x86/mm/debug_pagetables.c): "kernel" dumps init_mm, "current_kernel" the
# page table of the process that reads it. A process forked before each phase reads its
# own after the probe, with builtins only (a fork or exec would give it a new page table,
# copied from init_mm then): every top-level entry of the block's direct map and struct
# pages, and of the whole kernel half, must be in it as in init_mm. sync_global_pgds()
# copies them; the probe is only added, not onlined, so a missing entry shows without
# crashing the guest.
# The untraced probe takes a block in a top-level entry of the direct map that init_mm
# lacks, the last one below the physical limit, so that its sync has an entry to copy:
# on 4-level paging (512 GiB entries) there is one until earlier probes took them all,
# which is why this test runs first in a boot of the suite (bpftrace.t, events-sync.t and
# p4dstat.t probe later, below 1 TiB less 1 GiB, each choosing after what is taken); on
# 5-level paging one entry spans 256 TiB and a block below the guest's 1 TiB lies in
# entries the boot memory populated, but for the rare boot whose direct-map base lies
# less than 1 TiB below a 256 TiB boundary. The traced probe takes the next free block
# down, with a process forked after the untraced probe.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh

events="pgtable/p4d_alloc pgtable/p4d_free pgtable/kernel_pgd_sync mmap/x86_get_unmapped_area"
pt=/sys/kernel/debug/page_tables
memory=/sys/devices/system/memory
# A top-level entry spans 256 TiB on 5-level, 512 GiB on 4-level; ptdump prints a missing
# one at level pgd in both modes.
if [ "$mode" = 5 ]; then top_shift=48; else top_shift=39; fi
top_name=pgd

## The layout this boot got (KASLR moves the direct map and vmemmap bases)
cat "$pt/kernel" >"$tmp/kernel-start"
if ! kernel_layout "$tmp/kernel-start"; then
	not_ok "the layout's inputs" "$layout_error"
	tap_done
fi
phys_limit=$((1 << phys_bits))
hex() { printf '%016x' $(($1)); }
# top_hole DUMP ADDR: ptdump's DUMP has no top-level entry for kernel address ADDR (it
# prints the range at the top level, without attributes). Addresses are 16 hex digits,
# so they compare as strings.
top_hole() {
	awk -v a="$(hex "$2")" -v t="$top_name" '$1 ~ /^0x[0-9a-f]+-0x/ {
		split($1, r, "-"); from = substr(r[1], 3); to = substr(r[2], 3)
		if (from <= a && (a < to || to == "0000000000000000")) { found = ($NF == t); exit } }
		END { exit !found }' "$1"
}
# slice DUMP START LEN: DUMP's lines over [START, START + LEN), clipped to it, as
# "FROM-TO ATTRIBUTES LEVEL" with FROM and TO relative to START, so that two blocks'
# slices compare.
slice() {
	local start=$(($2)) end=$(($2 + $3)) from to rest
	while read -r from to rest; do
		from=$((16#$from)) to=$((16#$to))
		[ $from -ge $start ] || from=$start
		[ $to -ne 0 ] && [ $to -le $end ] || to=$end	# 0: the line ends at the top
		printf '%#x-%#x %s\n' $((from - start)) $((to - start)) "$rest"
	done < <(awk -v s="$(hex "$2")" -v e="$(hex $(($2 + $3)))" '$1 ~ /^0x[0-9a-f]+-0x/ {
		split($1, r, "-"); from = substr(r[1], 3); to = substr(r[2], 3)
		if (from < e && (to > s || to == "0000000000000000")) {
			$1 = ""; $2 = ""; sub(/^ +/, ""); print from, to, $0 } }' "$1")
}
# block_slices DUMP ADDR: the slices of the block at physical ADDR: its direct map, then
# its struct pages in vmemmap.
block_slices() {
	slice "$1" $((direct + $2)) $block
	slice "$1" $((vmemmap + ($2 >> 12) * page_struct)) $(((block >> 12) * page_struct))
}
# top_level DUMP: the top-level entries the kernel half lacks, from the direct map on (the
# LDT remap before it is per process), as ptdump prints their ranges.
top_level() {
	awk -v t="$top_name" '$0 == "---[ Low Kernel Mapping ]---" { on = 1 }
		on && $1 ~ /^0x/ && $NF == t { print $1 }' "$1"
}

## The blocks to probe
untraced_probe='' new_entry=0
for ((e = (direct + phys_limit - 1) >> top_shift; e >= direct >> top_shift; e--)); do
	first=$(((e << top_shift) - direct)) last=$((((e + 1) << top_shift) - direct))
	[ $last -le $phys_limit ] || last=$phys_limit
	a=$(free_block last "$first" $last) || continue
	top_hole "$tmp/kernel-start" $((direct + a)) || continue
	untraced_probe=$a new_entry=1
	break
done
[ -n "$untraced_probe" ] || untraced_probe=$(free_block last 0 $phys_limit)
traced_probe=$(free_block last 0 "${untraced_probe:-0}")
if [ -z "$untraced_probe" ] || [ -z "$traced_probe" ]; then
	not_ok "two free memory blocks below the physical limit" \
		"untraced '$untraced_probe', traced '$traced_probe' ($block bytes each, 4 GiB to $phys_limit)"
	tap_done
fi
printf '# direct map %#x, vmemmap %#x, struct page %d bytes, blocks of %#x: untraced probe at %#x%s, traced at %#x\n' \
	$((direct)) $((vmemmap)) "$page_struct" $block "$untraced_probe" \
	"$([ $new_entry = 1 ] && echo ' (a top-level entry init_mm lacks)')" "$traced_probe"

## The same settings for both runs of mmapcases (as events-window.t)
for setting in /proc/sys/vm/nr_hugepages:8 /proc/sys/vm/mmap_min_addr:65536; do
	file=${setting%:*}
	at_exit "echo $(cat "$file") >$file"
	echo "${setting##*:}" >"$file"
done

## Tracing off
# enables: "FILE VALUE" for the four events' enable files, the top level's first, then
# every instance's.
enables() {
	local dir ev v
	for dir in "$tfs" "$tfs"/instances/*; do
		[ -d "$dir/events" ] || continue
		for ev in $events; do
			read -r v <"$dir/events/$ev/enable" || v=unreadable
			echo "${dir#"$tfs"}/events/$ev/enable $v"
		done
	done
}
# The suite boots with trace_event=pgtable:p4d_alloc (zy-init-mm.t): enabled again at
# exit, its filter left as it was.
while read -r file v; do
	[ "$v" != 0 ] || continue
	echo 0 >"$tfs$file"
	[ "${v:0:1}" != 1 ] || at_exit "echo 1 >'$tfs$file'"
done < <(enables)
enables >"$tmp/enables-before"
at_exit "umount $tmp/bpffs-* 2>/dev/null"

# phase NAME PROBE: the workloads, then ptdump; a witness forked at the start reads its
# own page table after the probe into $tmp/witness-NAME.
phase() {
	local name=$1 probe=$2 sleepers=() map_out start=$SECONDS
	gate "$name"
	( read -r _ <&"${gate_fd[$name]}"
	  mapfile -t lines <"$pt/current_kernel"
	  printf '%s\n' "${lines[@]}" >"$tmp/witness-$name" ) &
	local witness=$!

	# vmalloc: each sleeper holds a vmalloc'ed kernel stack until killed (the kernel keeps
	# two stacks per CPU for reuse: at least 30 new areas); the map lives
	# while pinned, in a BPF filesystem of this test's own.
	grep -c vmalloc /proc/vmallocinfo >"$tmp/vmalloc-$name"
	for _ in $(seq 40); do sleep 600 & sleepers+=($!); done
	mkdir -p "$tmp/bpffs-$name" && mount -t bpf bpf "$tmp/bpffs-$name"
	map_out=$(bpftool map create "$tmp/bpffs-$name/p4dscope-untraced" type array key 4 \
		value 65536 entries 64 name p4dscope_untr 2>&1) || echo "$map_out" >"$tmp/map-failed-$name"
	grep -c vmalloc /proc/vmallocinfo >>"$tmp/vmalloc-$name"
	rm -f "$tmp/bpffs-$name/p4dscope-untraced"
	umount "$tmp/bpffs-$name"
	kill "${sleepers[@]}"
	wait "${sleepers[@]}" 2>/dev/null

	# Placements, each layout in a process without address randomization.
	: >"$tmp/cases-$name"
	for layout in topdown bottomup bigstack; do
		"$bin"/mmapcases $layout >"$tmp/cases-$name-$layout" &
		wait $! || echo "mmapcases $layout: exit $?" >>"$tmp/cases-failed-$name"
		echo "$! $layout $(grep -c '^case=' "$tmp/cases-$name-$layout")" >>"$tmp/cases-$name"
	done

	# Memory hotplug.
	cat "$pt/kernel" >"$tmp/kernel-before-$name"
	{ printf '%#x' "$probe" >"$memory/probe"; } 2>"$tmp/probe-err-$name"
	echo "$?" >"$tmp/probe-rc-$name"
	cat "$pt/kernel" >"$tmp/kernel-$name"
	open_gate "$name"
	wait $witness
	echo "# $name: workloads, probe and ptdump in $((SECONDS - start)) s"
}

# Checks of one phase: the workloads ran, and init_mm maps the block (every line of its
# slices present, RW). The block's slices of init_mm and of the witness are left in
# $tmp/slices-{kernel,witness}-NAME for the checks that compare them.
phase_checks() {
	local name=$1 probe=$2 before peak n
	read -r before peak < <(tr '\n' ' ' <"$tmp/vmalloc-$name")
	check "$name vmalloc stress grew the vmalloc area ($before -> $peak areas)" test "$peak" -gt $((before + 30))
	is "$name vmalloc stress: bpftool created a 4 MiB BPF array map" "$(cat "$tmp/map-failed-$name" 2>/dev/null)" ""
	is "$name mmapcases ran its three layouts" "$(cat "$tmp/cases-failed-$name" 2>/dev/null)" ""
	is "$name memory probe at $(printf '%#x' "$probe") succeeds" \
		"$(cat "$tmp/probe-rc-$name") $(cat "$tmp/probe-err-$name")" "0 "
	block_slices "$tmp/kernel-$name" "$probe" >"$tmp/slices-kernel-$name"
	block_slices "$tmp/witness-$name" "$probe" >"$tmp/slices-witness-$name"
	n=$(grep -c . "$tmp/slices-kernel-$name")
	is "$name hotplug: init_mm maps the block's direct map and struct pages (ptdump kernel)" \
		"$(awk '$2 != "RW"' "$tmp/slices-kernel-$name")$([ "$n" -ge 2 ] || echo "$n lines")" ""
}

## Untraced
is "tracing off: the four events read enable=0 at the top level and in $(($(grep -c . "$tmp/enables-before") / 4 - 1)) instances" \
	"$(awk '$2 != "0"' "$tmp/enables-before")" ""
if command -v bpftool >/dev/null; then
	is "tracing off: no BPF program attached (bpftool link show, bpftool perf list)" \
		"$( { bpftool link show; bpftool perf list; } 2>&1)" ""
else
	not_ok "tracing off: no BPF program attached" "no bpftool in this root: run 'make deps' (scripts/deps installs it)"
fi
phase untraced "$untraced_probe"
enables >"$tmp/enables-after"
is "tracing off held through the untraced workloads (the same files read 0)" \
	"$(awk '$2 != "0"' "$tmp/enables-after")" ""
phase_checks untraced "$untraced_probe"
is "untraced hotplug: a process older than the probe has init_mm's entries over the block's direct map and struct pages" \
	"$(cat "$tmp/slices-witness-untraced")" "$(cat "$tmp/slices-kernel-untraced")"
is "untraced: a process older than the workloads has init_mm's top-level kernel entries" \
	"$(diff <(top_level "$tmp/kernel-untraced") <(top_level "$tmp/witness-untraced"))" ""
holes=$(block_slices "$tmp/kernel-before-untraced" "$untraced_probe" | awk -v t="$top_name" '$NF == t' | grep -c .)
if [ $new_entry = 1 ]; then
	check "untraced hotplug: the probe needed $holes new top-level entries (init_mm lacked them)" test "$holes" -gt 0
elif [ "$mode" != 5 ]; then
	skip "untraced hotplug: the probe needed a new top-level entry" \
		"no top-level entry of the direct map without memory left below the physical limit (earlier probes of this boot took them)"
else
	echo "# 5-level: the block lies in top-level entries init_mm had (one spans 256 TiB): the sync had nothing to copy"
fi

## Traced, by an instance of this test
at_exit "[ ! -d $tfs/instances/untraced ] || rmdir $tfs/instances/untraced"
# shellcheck disable=SC2086 # the events, one word each
trace_start untraced $events
is "traced: this test's instance enabled the four events" \
	"$(enables | awk '$1 ~ /^\/instances\/untraced\// && $2 != "1"')" ""
phase traced "$traced_probe"
trace_stop untraced "$tmp/records"
phase_checks traced "$traced_probe"
is "traced hotplug: a process older than the probe has init_mm's entries over the block's direct map and struct pages" \
	"$(cat "$tmp/slices-witness-traced")" "$(cat "$tmp/slices-kernel-traced")"
is "traced: a process older than the workloads has init_mm's top-level kernel entries" \
	"$(diff <(top_level "$tmp/kernel-traced") <(top_level "$tmp/witness-traced"))" ""
# The control that the instance traced the same workloads: the probe's syncs, one
# placement event per case of mmapcases (and the loader's), and on 5-level the P4D tables
# of the sleepers.
bad=()
[ "$(awk '$2 == "kernel_pgd_sync"' "$tmp/records" | grep -c .)" -gt 0 ] || bad+=("no kernel_pgd_sync")
while read -r pid layout cases; do
	n=$(awk -v p="$pid" '$1 == p && $2 == "x86_get_unmapped_area"' "$tmp/records" | grep -c .)
	[ "$n" -ge "$cases" ] || bad+=("mmapcases $layout: $n x86_get_unmapped_area for $cases cases")
done <"$tmp/cases-traced"
if [ "$mode" = 5 ]; then
	for ev in p4d_alloc p4d_free; do
		grep -q " $ev " "$tmp/records" || bad+=("no $ev")
	done
fi
is "traced: the instance recorded the workloads' events (control)" "${bad[*]}" ""

## Untraced against traced
# maps_without_inodes CASES: mmapcases' output with the device and inode of each mapping
# left out (every hugetlb mapping is a new file).
maps_without_inodes() {
	awk '$1 == "map" { $5 = ""; $6 = "" } { print }' "$1"
}
is "untraced and traced: mmapcases placed every case alike ($(grep -c '^case=' "$tmp"/cases-traced-* | awk -F: '{ s += $2 } END { print s }') cases, 3 layouts) with the same maps" \
	"$(for layout in topdown bottomup bigstack; do
		diff <(maps_without_inodes "$tmp/cases-untraced-$layout") \
			<(maps_without_inodes "$tmp/cases-traced-$layout") | sed "s/^/$layout: /"
	done)" ""
is "untraced and traced: a process older than the probe sees the block alike (direct map, struct pages)" \
	"$(cat "$tmp/slices-witness-untraced")" "$(cat "$tmp/slices-witness-traced")"
tap_done
