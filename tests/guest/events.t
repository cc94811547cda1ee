#!/usr/bin/env bash
# The series' trace events, read from tracefs directly (no tool of ours): their formats,
# P4D allocations and frees against the layout a workload creates, get_unmapped_area
# decisions case by case, and kernel page-table syncs under vmalloc stress and hotplug.
set -uo pipefail
cd "$(dirname "$0")"
. ../lib/tap.sh
. ../lib/tracefs.sh
bin=../../build/bin
mode=${P4DSCOPE_PAGING:?run me inside the guest (scripts/run-guest)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

## formats
check_format() {
	local ev=$1 f missing=()
	shift
	for f in "$@"; do
		grep -qE "field:[^;]*[ *]$f;" "$tfs/events/$ev/format" 2>/dev/null || missing+=("$f")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		ok "$ev has fields: $*"
	else
		not_ok "$ev has fields: $*" "missing: ${missing[*]}"
	fi
}
check_format pgtable/p4d_alloc mm address pfn kernel outcome
check_format pgtable/p4d_free mm address pfn
check_format pgtable/kernel_pgd_sync start end level copied visited
check_format mmap/x86_get_unmapped_area hint len flags path window high_limit outcome result

## P4D tables: K distinct high PGD-entry regions in each of N fresh processes
K=3 N=4
trace_start p4d pgtable/p4d_alloc pgtable/p4d_free
"$bin"/highmap $K $N >"$tmp/highmap"
is "highmap: all $N children mapped $K regions" "$?" 0
trace_stop p4d "$tmp/p4d"

if [ "$mode" = 5 ]; then
	# Pair each free with the latest installed allocation of the same table (pfn; the
	# text prints mm hashed, "(____ptrval____)" until the guest's crng is ready) and
	# list, per freeing process, the PGD entries (address >> 48) of the tables it freed.
	awk '$2 == "p4d_alloc" && /outcome=installed/ { split($4, a, "="); addr[$5] = a[2] }
	     $2 == "p4d_free" { print $1, ($5 in addr) ? addr[$5] : "unallocated"; delete addr[$5] }' \
		"$tmp/p4d" | while read -r pid addr; do
			[ "$addr" = unallocated ] && echo "$pid $addr" || echo "$pid $((addr >> 48))"
		done | sort -n -k1,1 -k2,2 >"$tmp/freed"
	bad=()
	while read -r child _ addrs; do
		pid=${child#child=}
		# The layout predicts one P4D table per distinct PGD entry the child touched,
		# plus entry 0, which holds its stack and what it shares with its parent.
		expect=$({ echo 0; for a in $addrs; do echo $((${a#addr=} >> 48)); done; } | sort -n -u | tr '\n' ' ')
		got=$(awk -v pid="$pid" '$1 == pid { print $2 }' "$tmp/freed" | tr '\n' ' ')
		[ "$got" = "$expect" ] || bad+=("child $pid: freed tables of PGD entries [$got], layout predicts [$expect]")
	done <"$tmp/highmap"
	if [ ${#bad[@]} -eq 0 ] && [ "$(wc -l <"$tmp/highmap")" = $N ]; then
		ok "each child installed one P4D table per PGD entry it touched, and its exit freed them"
	else
		not_ok "each child installed one P4D table per PGD entry it touched, and its exit freed them" "${bad[@]}"
	fi
	is "every freed table was installed in the run" "$(grep -c unallocated "$tmp/freed")" 0
	# Both events name a table by the start of the 256 TiB region it maps.
	unaligned=$(grep -oE ' p4d_(alloc|free) mm=[^ ]+ address=0x[0-9a-f]+' "$tmp/p4d" |
		while read -r ev _ a; do a=${a#address=}; [ $((a & (1 << 48) - 1)) -eq 0 ] || echo "$ev $a"; done)
	is "every p4d_alloc and p4d_free address is 256 TiB aligned" "$unaligned" ""
	is "every p4d_free carries its allocation's address" "$(awk '
		$2 == "p4d_alloc" && /outcome=installed/ { addr[$5] = $4 }
		$2 == "p4d_free" && ($5 in addr) && addr[$5] != $4 { print $5, addr[$5], $4 }' "$tmp/p4d")" ""
	is "installed tables = freed tables over the run" \
		"$(grep -c ' p4d_alloc .*outcome=installed' "$tmp/p4d")" "$(grep -c ' p4d_free ' "$tmp/p4d")"
	is "no p4d_alloc of the run raced or failed" \
		"$(grep ' p4d_alloc ' "$tmp/p4d" | grep -vc 'outcome=installed')" 0
else
	is "paging $mode: p4d_alloc never fires" "$(grep -c ' p4d_alloc ' "$tmp/p4d")" 0
	is "paging $mode: p4d_free never fires" "$(grep -c ' p4d_free ' "$tmp/p4d")" 0
	high=$(grep -o 'addr=0x[0-9a-f]*' "$tmp/highmap" | while read -r a; do
		[ $((${a#addr=} >> 47)) -eq 0 ] || echo "$a"; done)
	is "paging $mode: high hints fall back below 47 bits" "$high" ""
fi

## get_unmapped_area: one event per mmap, paired through trace_marker
echo 8 >/proc/sys/vm/nr_hugepages
trace_start gua mmap/x86_get_unmapped_area
inst=$tfs/instances/gua
"$bin"/mmapcases topdown "$inst/trace_marker" >"$tmp/cases"
"$bin"/mmapcases bottomup "$inst/trace_marker" >>"$tmp/cases"
trace_stop gua "$tmp/gua"
echo 0 >/proc/sys/vm/nr_hugepages

# The event following each marker, from the marker's process: "case path window outcome result".
awk '$2 == "tracing_mark_write" && $3 == "mmapcases" { pending[$1] = substr($4, 6); next }
     $2 == "x86_get_unmapped_area" && ($1 in pending) {
	line = pending[$1]
	for (i = 3; i <= NF; i++) {
		split($i, kv, "=")
		if (kv[1] ~ /^(path|window|outcome|result)$/) line = line " " kv[1] "=" kv[2]
	}
	print line; delete pending[$1] }' "$tmp/gua" >"$tmp/decisions"

# Expectations from the documented behaviour (Documentation/x86/x86_64/5level-paging.rst):
# case path window-on-5 window-on-4 outcome-on-5 outcome-on-4 where-on-5 where-on-4
# where: hint (the result is the hint), low (below 47 bits), high (above, not the hint),
# 32bit (below 2 GiB), error (the call fails). A bottom-up search of the full window
# still returns its first fit from the legacy base, so bu-occupied lands low.
expectations='
nohint       topdown          default default search   search   low   low
lowhint      topdown          default default hint     hint     hint  hint
highhint     topdown          full    default hint     search   hint  low
occupied     topdown          full    default search   search   high  low
straddle     topdown          default default search   search   low   low
fixed        topdown          full    default fixed    fixed    hint  error
noreplace    topdown          full    default fixed    fixed    hint  error
map32bit     topdown          default default search   search   32bit 32bit
nospace      topdown          default default enomem   enomem   error error
huge         hugetlb_topdown  default default search   search   low   low
hugehigh     hugetlb_topdown  full    default hint     search   hint  low
hugeoccupied hugetlb_topdown  full    default search   search   high  low
bu-nohint    bottomup         default default search   search   low   low
bu-highhint  bottomup         full    default hint     search   hint  low
bu-occupied  bottomup         full    default search   search   low   low
bu-fixed     bottomup         full    default fixed    fixed    hint  error
bu-huge      hugetlb_bottomup default default search   search   low   low
bu-hugehigh  hugetlb_bottomup full    default hint     search   hint  low
'
place() {
	local hint=$1 result=$2
	case "$result" in
	error=*) echo error ;;
	*) result=${result#result=}
		if [ $((result)) -eq $((hint)) ]; then echo hint
		elif [ $((result >> 31)) -eq 0 ]; then echo 32bit
		elif [ $((result >> 47)) -eq 0 ]; then echo low
		else echo high; fi ;;
	esac
}
while read -r name path win5 win4 out5 out4 where5 where4; do
	[ -n "$name" ] || continue
	if [ "$mode" = 5 ]; then win=$win5 out=$out5 where=$where5; else win=$win4 out=$out4 where=$where4; fi
	line=$(grep "^case=$name " "$tmp/cases")
	got_where=$(place "$(field hint $line)" "${line##* }")
	decision=$(grep "^$name " "$tmp/decisions")
	want="$name path=$path window=$win outcome=$out"
	if [ "${decision% result=*}" = "$want" ] && [ "$got_where" = "$where" ]; then
		ok "get_unmapped_area $name: $path, $win window, $out, lands $where"
	else
		not_ok "get_unmapped_area $name: $path, $win window, $out, lands $where" \
			"event: ${decision:-none}" "mmap: ${line:-none} ($got_where)"
	fi
done <<<"$expectations"

## kernel_pgd_sync: vmalloc never syncs after boot (its top level is preallocated) ...
trace_start sync pgtable/kernel_pgd_sync
before=$(grep -c vmalloc /proc/vmallocinfo)
# Each process holds a vmalloc'ed kernel stack until killed (a fixed sleep could end
# before the last fork on a slow debug kernel).
sleepers=()
for i in $(seq 100); do sleep 600 & sleepers+=($!); done
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
trace_stop sync "$tmp/sync"
if [ $map_rc = 0 ]; then
	ok "vmalloc stress: bpftool created a 4 MiB BPF array map"
elif ! command -v bpftool >/dev/null; then
	not_ok "vmalloc stress: bpftool created a 4 MiB BPF array map" \
		"no bpftool in this root: run 'make deps' (scripts/deps installs it)"
else
	not_ok "vmalloc stress: bpftool created a 4 MiB BPF array map" "$map_out"
fi
check "vmalloc stress grew the vmalloc area ($before -> $peak areas)" test "$peak" -gt $((before + 50))
is "vmalloc stress: kernel_pgd_sync never fires" "$(wc -l <"$tmp/sync")" 0

## ... memory hotplug does: sysfs probe adds an (offline) block at 512 GiB.
level=$([ "$mode" = 5 ] && echo pgd || echo p4d)
trace_start sync pgtable/kernel_pgd_sync
echo 0x8000000000 >/sys/devices/system/memory/probe
probe_rc=$?
trace_stop sync "$tmp/sync"
is "memory probe at 512 GiB succeeds" "$probe_rc" 0
check "hotplug: kernel_pgd_sync fires at level $level" grep -q " level=$level " "$tmp/sync"
check "hotplug: every sync visited page tables" awk '/visited=0$/ { exit 1 }' "$tmp/sync"
copied=$(grep -o 'copied=[0-9]*' "$tmp/sync" | awk -F= '{ s += $2 } END { print s + 0 }')
if [ "$mode" = 5 ]; then
	# The direct map of 512 GiB sits in a PGD entry present since boot (one spans 256 TiB).
	is "hotplug on 5-level: no top-level entry to copy" "$copied" 0
else
	# A 4-level top-level entry spans 512 GiB: the direct map needs a new one, copied
	# into every process's page table.
	check "hotplug on 4-level: the new top-level entry was copied ($copied)" test "$copied" -gt 0
fi

tap_done
