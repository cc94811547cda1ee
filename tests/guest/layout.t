#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The paging mode and the kernel memory map, against Documentation/x86/x86_64/mm.rst and
# 5level-paging.rst: what the CPU and the kernel report (/proc/cpuinfo, the ptdump of the
# kernel page tables at /sys/kernel/debug/page_tables/kernel, /proc/vmallocinfo,
# /proc/kallsyms, /proc/self/maps) for the mode this guest was booted in.
#
# With KASLR (CONFIG_RANDOMIZE_MEMORY) the direct map, vmalloc and vmemmap bases move at
# every boot: mm.rst keeps their order and sizes, inside [start of the direct map,
# vaddr_end). Booted with nokaslr, they and the kernel text sit exactly at the documented
# bases. The last diagnostic line, "# kaslr-bases: ...", lists this boot's bases for
# tests/host/kaslr.t, which boots it with different inputs and checks that they move.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh

# Sizes are compared as differences (end - base): with KASLR a base can sit so high that
# base + documented size wraps around 2^64.
# Addresses are handled as 16-digit hex strings: bash arithmetic wraps modulo 2^64, and
# equal-length lowercase hex compares as text the way the numbers compare unsigned.
hex() { printf '%016x' $(($1)); }
le() { local a b; printf -v a %016x $(($1)); printf -v b %016x $(($2)); [[ ! $a > $b ]]; }	# unsigned <=
lt() { local a b; printf -v a %016x $(($1)); printf -v b %016x $(($2)); [[ $a < $b ]]; }	# unsigned <
aligned() { [ $(($1 & ($2 - 1))) -eq 0 ]; }

## The layout mm.rst documents for the mode (no5lvl boots with 4-level page tables).
if [ "$mode" = 5 ]; then
	pgd_shift=48				# one PGD entry maps 256 TiB
	guard_end=0xff10000000000000		# end of the 4 PB guard hole: the kernel half starts
	direct_start=0xff11000000000000	direct_size=$((1 << 55))	# 32 PB
	vmalloc_start=0xffa0000000000000	vmalloc_size=$((12800 << 40))	# 12.5 PB
	vmemmap_start=0xffd4000000000000	vmemmap_size=$((1 << 49))	# 0.5 PB
	kasan_start=0xffdf000000000000
else
	pgd_shift=39				# one PGD entry maps 512 GiB
	guard_end=0xffff880000000000
	direct_start=0xffff888000000000	direct_size=$((64 << 40))
	vmalloc_start=0xffffc90000000000	vmalloc_size=$((32 << 40))
	vmemmap_start=0xffffea0000000000	vmemmap_size=$((1 << 40))
	kasan_start=0xffffec0000000000
fi
# mm.rst marks "vaddr_end for KASLR" at the end of the 2 TB hole below the CPU entry area
# (kaslr.c: vaddr_end = CPU_ENTRY_AREA_BASE): the randomized regions end below it.
vaddr_end=0xfffffe0000000000
cpu_entry_area=0xfffffe0000000000
kasan_end=0xfffffc0000000000
kernel_text_map=0xffffffff80000000	# "kernel text mapping, mapped to physical address 0"
text_start=0xffffffff81000000		# _text without KASLR: CONFIG_PHYSICAL_START is 16 MiB
modules_doc=0xffffffffa0000000		# module mapping space ...
modules_end=0xffffffffff000000		# ... up to -16 MB
vsyscall=0xffffffffff600000
gib=$((1 << 30))

## 1. The mode: what the CPU and the kernel say.
bits=$(sed -n 's/^address sizes.* \([0-9]*\) bits virtual$/\1/p' /proc/cpuinfo | sort -u)
cpus=$(grep -c '^processor' /proc/cpuinfo)
la57=$(grep -c '^flags.* la57' /proc/cpuinfo)
case $mode in
5)	is "5-level: /proc/cpuinfo says 57 bits virtual" "$bits" 57
	is "5-level: every CPU lists la57" "$la57" "$cpus" ;;
4)	is "4-level: /proc/cpuinfo says 48 bits virtual" "$bits" 48
	is "4-level: no CPU lists la57" "$la57" 0 ;;
no5lvl)
	# The kernel prints the width CPUID reports: the CPU still implements 57 bits; no5lvl
	# only keeps the kernel on 4-level tables and clears the la57 flag.
	is "no5lvl: /proc/cpuinfo still says 57 bits virtual (CPUID)" "$bits" 57
	is "no5lvl: no CPU lists la57" "$la57" 0 ;;
esac

ptdump=/sys/kernel/debug/page_tables/kernel
if ! cp "$ptdump" "$tmp/ptdump" 2>/dev/null || [ ! -s "$tmp/ptdump" ]; then
	not_ok "the kernel page-table dump is readable" "$ptdump missing or empty"
	tap_done
fi
p4d=$(grep -c ' p4d$' "$tmp/ptdump")
if [ "$mode" = 5 ]; then
	check "5-level: ptdump has p4d entries ($p4d lines)" test "$p4d" -gt 0
else
	is "$mode: ptdump has no p4d level (folded)" "$p4d" 0
fi

# Every PGD-level range starts and ends on a PGD entry boundary of the mode; on 4-level
# some are 512 GiB entries that a 5-level PGD (256 TiB) could not have.
pgd_bad=0 pgd_small=0
while read -r range; do
	for a in ${range/-/ }; do
		aligned "$a" $((1 << pgd_shift)) || pgd_bad=$((pgd_bad + 1))
		[ "$a" = 0x0000000000000000 ] || aligned "$a" $((1 << 48)) || pgd_small=$((pgd_small + 1))
	done
done < <(awk '$NF == "pgd" { print $1 }' "$tmp/ptdump")
is "PGD-level ranges are multiples of 2^$pgd_shift bytes (one PGD entry)" "$pgd_bad" 0
if [ "$mode" = 5 ]; then
	is "5-level: no PGD-level range ends inside a 256 TiB entry" "$pgd_small" 0
else
	check "$mode: PGD-level ranges in 512 GiB steps ($pgd_small not 256 TiB aligned)" \
		test "$pgd_small" -gt 0
fi

## 2. The kernel memory map, from ptdump's markers.
# Per marker section: its first address, the first and last mapped address, mapped KiB.
declare -A first mfirst mlast kib
order=""	# the sections' first addresses, in the order of the dump
while read -r name f mf ml kb; do
	first[$name]=$f mfirst[$name]=$mf mlast[$name]=$ml kib[$name]=$kb
	order+="$f"$'\n'
done < <(awk '
function kib(s,  u, n) {
	u = substr(s, length(s)); n = s + 0
	if (u == "M") n *= 1024; else if (u == "G") n *= 1048576
	else if (u == "T") n *= 1073741824; else if (u == "P") n *= 1099511627776
	return n
}
function flush() {
	if (name != "") print name, first, (mfirst == "" ? "-" : mfirst), (mlast == "" ? "-" : mlast), kb
}
/^---\[ / { flush(); name = $0; sub(/^---\[ /, "", name); sub(/ \]---$/, "", name)
	gsub(/[^A-Za-z]+/, "_", name); first = mfirst = mlast = ""; kb = 0; next }
/^0x/ { split($1, r, "-"); if (first == "") first = r[1]
	if ($0 ~ / (RW|ro) /) { if (mfirst == "") mfirst = r[1]; mlast = r[2]; kb += kib($2) } }
END { flush() }' "$tmp/ptdump")

missing=()
for m in Kernel_Space Low_Kernel_Mapping vmalloc_Area Vmemmap CPU_entry_Area High_Kernel_Mapping \
	Modules End_Modules Fixmap_Area; do
	[ -n "${first[$m]:-}" ] || missing+=("${m//_/ }")
done
if [ ${#missing[@]} -gt 0 ]; then
	not_ok "ptdump has the kernel's address markers" "missing: ${missing[*]}"
	tap_done
fi
order=${order%$'\n'}
is "ptdump markers come in address order" "$order" "$(sort <<<"$order")"

is "the kernel half starts where the guard hole ends ($(hex $guard_end))" \
	"${first[Kernel_Space]:-}" "0x$(hex $guard_end)"

# Direct map: page_offset_base maps physical 0, so the section's first line is mapped and
# starts at the base.
direct=${first[Low_Kernel_Mapping]:-}
direct_end=${mlast[Low_Kernel_Mapping]:-}
ram_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
if [ "${mfirst[Low_Kernel_Mapping]:-}" = "$direct" ] && le $direct_start "$direct" &&
   lt "$direct" $vaddr_end && aligned "$direct" $gib && le $((direct_end - direct)) $direct_size; then
	ok "direct map at $direct: in [$(hex $direct_start), vaddr_end), 1 GiB aligned, within its $((direct_size >> 40)) TiB"
else
	not_ok "direct map in its documented range" "base $direct, mapped up to $direct_end" \
		"documented: from $(hex $direct_start), $((direct_size >> 40)) TiB, below $(hex $vaddr_end)"
fi
mapped_kib=${kib[Low_Kernel_Mapping]:-}
check "direct map covers all RAM (${mapped_kib%.*} KiB mapped, MemTotal $ram_kib KiB)" \
	awk -v m="$mapped_kib" -v r="$ram_kib" 'BEGIN { exit !(m >= r) }'

vmalloc=${first[vmalloc_Area]:-}
vmemmap=${first[Vmemmap]:-}
if lt "$direct_end" "$vmalloc" && aligned "$vmalloc" $gib && le $((vmalloc + vmalloc_size)) "$vmemmap"; then
	ok "vmalloc at $vmalloc: above the direct map, 1 GiB aligned, its $((vmalloc_size >> 40)) TiB end before vmemmap"
else
	not_ok "vmalloc in its documented range" "vmalloc $vmalloc, direct map ends $direct_end, vmemmap $vmemmap" \
		"documented size $((vmalloc_size >> 40)) TiB"
fi
# /proc/vmallocinfo, the kernel's own list of vmalloc areas: each in the vmalloc region, or
# in the module space (module_alloc(), which also holds BPF JIT images). It prints %pK:
# hashed with kptr_restrict 0 ("(____ptrval____)" before the crng is ready), the real
# address for a privileged reader with kptr_restrict 1.
restrict=$(cat /proc/sys/kernel/kptr_restrict)
echo 1 >/proc/sys/kernel/kptr_restrict
awk '{ print $1 }' /proc/vmallocinfo >"$tmp/vmallocinfo"
echo "$restrict" >/proc/sys/kernel/kptr_restrict
modules=${first[Modules]:-}
n=0 in_modules=0 outside=()
while IFS=- read -r s e; do
	n=$((n + 1))
	if [[ ! $s$e =~ ^0x[0-9a-f]{16}0x[0-9a-f]{16}$ ]]; then
		outside+=("$s-$e")
	elif le "$modules" "$s" && le "$e" $modules_end; then
		in_modules=$((in_modules + 1))
	elif ! le "$vmalloc" "$s" || ! le "$e" $((vmalloc + vmalloc_size)); then
		outside+=("$s-$e")
	fi
done <"$tmp/vmallocinfo"
if [ $n -gt 0 ] && [ ${#outside[@]} -eq 0 ]; then
	ok "all $n /proc/vmallocinfo areas lie in the vmalloc region ($in_modules in the module space)"
else
	not_ok "all /proc/vmallocinfo areas lie in the vmalloc region or the module space" \
		"$n areas; outside: ${outside[*]:0:5}"
fi

vmemmap_end=${mlast[Vmemmap]:-}
kasan=${first[KASAN_shadow]:-}
if [ -n "$kasan" ]; then
	# kasan_init() maps the shadow from its PGD-aligned start (mm.rst's figure), which
	# lies before ptdump's "KASAN shadow" marker: that head shows in the Vmemmap
	# section. vmemmap proper ends at the last mapping below the documented start.
	vmemmap_end=$(awk -v stop="$(hex $kasan_start)" '
		/^---\[ / { on = ($0 ~ /Vmemmap/); next }
		on && /^0x/ && / (RW|ro) / { split($1, r, "-"); if (substr(r[1], 3) < stop) last = r[2] }
		END { print last }' "$tmp/ptdump")
fi
if [ "${mfirst[Vmemmap]:-}" = "$vmemmap" ] && aligned "$vmemmap" $gib &&
   le $((vmemmap_end - vmemmap)) $vmemmap_size && le "$vmemmap_end" $vaddr_end; then
	# KASLR sizes the region by RAM, in TiB: only what is mapped must stay below vaddr_end.
	ok "vmemmap at $vmemmap: 1 GiB aligned, mapped within its $((vmemmap_size >> 40)) TiB, below vaddr_end"
else
	not_ok "vmemmap in its documented range" "base $vmemmap, mapped up to $vmemmap_end"
fi

if [ -n "$kasan" ]; then	# the debug flavour: KASAN turns memory KASLR off
	# ptdump's marker is KASAN_SHADOW_START (asm/kasan.h): KASAN_SHADOW_OFFSET plus the
	# kernel half's start scaled by 1/8. On 5-level that is 0xffdffc0000000000, inside
	# the PGD entry mm.rst gives as the shadow's start; on 4-level they are equal.
	half=$(((-1 << (pgd_shift + 8)) >> 3 & ((1 << 61) - 1)))
	is "KASAN shadow (KASAN_SHADOW_START) at $(hex $((0xdffffc0000000000 + half)))" \
		"$kasan" "0x$(hex $((0xdffffc0000000000 + half)))"
	shadow_map=$(awk -v from="$(hex $kasan_start)" '/^0x/ && / (RW|ro) / {
		split($1, r, "-"); if (substr(r[1], 3) >= from) { print r[1]; exit } }' "$tmp/ptdump")
	is "KASAN shadow mapped from the documented $(hex $kasan_start)" "$shadow_map" "0x$(hex $kasan_start)"
	is "KASAN shadow ends at the documented $(hex $kasan_end)" "${first[KASAN_shadow_end]:-}" "0x$(hex $kasan_end)"
fi

# The fixed part, identical in both layouts.
is "CPU entry area at $(hex $cpu_entry_area)" "${first[CPU_entry_Area]:-}" "0x$(hex $cpu_entry_area)"
is "high kernel mapping at $(hex $kernel_text_map)" "${first[High_Kernel_Mapping]:-}" "0x$(hex $kernel_text_map)"
if le $modules_doc "$modules" && lt "$modules" $modules_end &&
   [ "${first[End_Modules]:-}" = "0x$(hex $modules_end)" ]; then
	# KASLR (RANDOMIZE_BASE) gives the kernel image 1 GiB: modules start at -1 GiB,
	# inside the documented module space, which ends at -16 MB.
	ok "modules at $modules, in the module space [$(hex $modules_doc), $(hex $modules_end))"
else
	not_ok "modules in the documented module space" "Modules $modules, End Modules ${first[End_Modules]:-}"
fi
fixmap=${first[Fixmap_Area]:-}
check "fixmap at $fixmap, between the modules' end and the vsyscall page" \
	eval "le $modules_end $fixmap && lt $fixmap $vsyscall"
# mm.rst documents 512 MB of kernel text at -2 GB; RANDOMIZE_BASE makes it up to 1 GiB.
text=0x$(awk '$3 == "_text" { print $1 }' /proc/kallsyms)
x_lines=$(awk '/^---\[ High Kernel Mapping/ { on = 1; next } /^---\[/ { on = 0 }
	on && / x / { split($1, r, "-"); print r[1]; print r[2] }' "$tmp/ptdump")
bad_x=$(for a in $text $x_lines; do le $kernel_text_map "$a" && le "$a" "$modules" || echo "$a"; done)
check "kernel text ($text) and its executable mappings lie in [$(hex $kernel_text_map), modules)" \
	test -z "$bad_x"
vsys=$(awk '$NF == "[vsyscall]" { print $1 }' /proc/self/maps)
is "the legacy vsyscall page is at $(hex $vsyscall)" "$vsys" "$(hex $vsyscall)-$(hex $((vsyscall + 4096)))"

if grep -qw nokaslr /proc/cmdline; then
	is "nokaslr: the direct map at the documented base" "$direct" "0x$(hex $direct_start)"
	is "nokaslr: vmalloc at the documented base" "$vmalloc" "0x$(hex $vmalloc_start)"
	is "nokaslr: vmemmap at the documented base" "$vmemmap" "0x$(hex $vmemmap_start)"
	is "nokaslr: kernel text at the documented base" "$text" "0x$(hex $text_start)"
fi
echo "# kaslr-bases: direct=$direct vmalloc=$vmalloc vmemmap=$vmemmap text=$text"
tap_done
