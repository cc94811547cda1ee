#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# KASLR of the kernel memory map per paging mode, in boots whose layouts are a function
# of their inputs. Each boot runs tests/guest/layout.t, which checks the direct map,
# vmalloc, vmemmap and kernel text against Documentation/x86/x86_64/mm.rst (booted with
# nokaslr: exactly at the documented bases) and prints the bases it read.
#
# Deterministic: the boots run under --icount, where guest time counts guest
# instructions. KASLR's randomness (arch/x86/lib/kaslr.c, kaslr_get_random_long(): a
# hash of the build string and boot_params, RDRAND when the CPU has it, RDTSC) then
# comes from the boot's inputs alone: qemu64 has no RDRAND, and RDTSC reads the
# instruction count. The decompressor draws the text's 2 MiB slot from it
# (arch/x86/boot/compressed/kaslr.c); the kernel seeds the placement of the direct map,
# vmalloc and vmemmap, in 1 GiB steps, with it (arch/x86/mm/kaslr.c). So a boot's layout
# is the same at every run (checked: one boot is repeated), and boots whose command
# lines differ in length (an unused parameter, p4d.kaslr=1 or p4d.kaslr=22) execute a
# different number of instructions before each RDTSC and draw other layouts. Measured
# on 6.1: p4d.kaslr=1 twice and p4d.kaslr=2 gave the same four bases, p4d.kaslr=22
# other ones; the per-run directory in the command line (random letters, a fixed
# length) changes nothing.
#
# That two draws land in the same slot is still chance, fixed per build (the kernel, the
# initramfs and the checkout's path are inputs too). So the checks ask for movement
# where a coincidence cannot fail them in practice, by the kernel's own slot counts
# (1 GiB guests; the direct map's region is RAM rounded up to a TiB plus
# CONFIG_RANDOMIZE_MEMORY_PHYSICAL_PADDING, 10 TiB):
#   - each mode's two KASLR boots differ in one of the four bases at least: all four
#     equal by chance is below 1e-15;
#   - each region moves over the boots of one layout. 5-level: two boots; each base is
#     drawn among millions of 1 GiB slots (48370 TiB of entropy over three regions):
#     equal about 1 in 16 million. 4-level (the modes 4 and no5lvl, the same ranges):
#     four boots; each base among about 25000 slots or more (73.5 TiB over three): all
#     four equal about 1e-13;
#   - the text moves over all six KASLR boots: about 495 slots of 2 MiB in 1 GiB for
#     this 18 MiB kernel, all six equal about 3e-14.
# 10 boots: per mode two KASLR boots and a nokaslr one, and the repeat.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
. tests/lib/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MODES="5 4 no5lvl"
# Two inputs of different lengths: unused kernel parameters (lengths, not values, move
# the instruction count).
INPUT_A=p4d.kaslr=1
INPUT_B=p4d.kaslr=22

# The boots' other inputs: a rebuild between two boots changes their layouts.
inputs() {
	cat "$P4D_KERNELS/patched/arch/x86/boot/bzImage" "$P4D_BUILD/initramfs.cpio" 2>/dev/null |
		sha256sum | cut -c1-16
}
inputs_before=$(inputs)

# boot NAME MODE [KERNEL PARAMETERS]: layout.t in one --icount guest, its output in
# $tmp/NAME, its status in $tmp/NAME.rc.
boot() {
	P4DSCOPE_APPEND=${3:-} scripts/run-guest --icount --paging "$2" --timeout 900 -- \
		tests/guest/layout.t >"$tmp/$1" 2>&1
	echo $? >"$tmp/$1.rc"
}
# Two at a time: an --icount guest runs one vCPU.
for mode in $MODES; do
	boot "$mode.a" "$mode" "$INPUT_A" &
	boot "$mode.b" "$mode" "$INPUT_B" &
	wait
done
for mode in $MODES; do
	boot "$mode.nokaslr" "$mode" nokaslr &
	[ "$mode" != 5 ] || boot 5.again 5 "$INPUT_A" &
	wait
done

# passed NAME: layout.t's checks passed in that boot, or why not (indented: no TAP line
# of its own).
passed() {
	[ "$(cat "$tmp/$1.rc")" = 0 ] && grep -q '^1\.\.[0-9]' "$tmp/$1" && ! grep -q '^not ok' "$tmp/$1" &&
		return 0
	echo "$1: exit $(cat "$tmp/$1.rc")"
	grep -A3 '^not ok' "$tmp/$1" | head -n 8 | sed 's/^/  /'
	tail -n 3 "$tmp/$1" | sed 's/^/  /'
}
# base NAME REGION: the base layout.t printed for REGION in that boot.
base() { sed -n 's/^# kaslr-bases: //p' "$tmp/$1" | grep -o "$2=0x[0-9a-f]*" | cut -d= -f2; }
# moved NAME... -- REGION: the bases of REGION in those boots, and whether they are not
# all equal (all present).
moved() {
	local r=${*: -1} b seen=() n
	for b in "${@:1:$#-2}"; do seen+=("$(base "$b" "$r")"); done
	n=$(printf '%s\n' "${seen[@]}" | grep -c '^0x')
	echo "${seen[*]}"
	[ "$n" -eq $(($# - 2)) ] && [ "$(printf '%s\n' "${seen[@]}" | sort -u | wc -l)" -gt 1 ]
}

for mode in $MODES; do
	bad=$(passed "$mode.a"; passed "$mode.b")
	if [ -z "$bad" ]; then
		ok "paging $mode: two KASLR boots ($INPUT_A, $INPUT_B), each with its layout inside the documented ranges"
	else
		not_ok "paging $mode: two KASLR boots, each with its layout inside the documented ranges" "$bad"
	fi
	a=$(sed -n 's/^# kaslr-bases: //p' "$tmp/$mode.a") b=$(sed -n 's/^# kaslr-bases: //p' "$tmp/$mode.b")
	if [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]; then
		ok "paging $mode: the two KASLR boots placed the kernel differently"
	else
		not_ok "paging $mode: the two KASLR boots placed the kernel differently" "$INPUT_A: $a" "$INPUT_B: $b"
	fi
	if [ -z "$(passed "$mode.nokaslr")" ] &&
		[ "$(grep -c '^ok .* nokaslr: ' "$tmp/$mode.nokaslr")" -eq 4 ]; then
		ok "paging $mode, nokaslr: direct map, vmalloc, vmemmap and text at the documented bases"
	else
		not_ok "paging $mode, nokaslr: direct map, vmalloc, vmemmap and text at the documented bases" \
			"$(passed "$mode.nokaslr")" "$(grep -c '^ok .* nokaslr: ' "$tmp/$mode.nokaslr") of 4 nokaslr checks"
	fi
done

for region in direct vmalloc vmemmap; do
	if values=$(moved 5.a 5.b -- $region); then
		ok "5-level layout: the $region base moved over 2 boots ($values)"
	else
		not_ok "5-level layout: the $region base moved over 2 boots" "bases: $values"
	fi
	if values=$(moved 4.a 4.b no5lvl.a no5lvl.b -- $region); then
		ok "4-level layout (4, no5lvl): the $region base moved over 4 boots ($values)"
	else
		not_ok "4-level layout (4, no5lvl): the $region base moved over 4 boots" "bases: $values"
	fi
done
if values=$(moved 5.a 5.b 4.a 4.b no5lvl.a no5lvl.b -- text); then
	ok "kernel text moved over the 6 KASLR boots ($values)"
else
	not_ok "kernel text moved over the 6 KASLR boots" "bases: $values"
fi

again=$(sed -n 's/^# kaslr-bases: //p' "$tmp/5.again")
if [ -z "$(passed 5.again)" ] && [ -n "$again" ] && [ "$again" = "$(sed -n 's/^# kaslr-bases: //p' "$tmp/5.a")" ]; then
	ok "paging 5, $INPUT_A booted again: the same layout (KASLR under --icount follows the boot's inputs)"
else
	changed=
	[ "$(inputs)" = "$inputs_before" ] || changed="the kernel or the initramfs changed during the test"
	not_ok "paging 5, $INPUT_A booted again: the same layout (KASLR under --icount follows the boot's inputs)" \
		"first: $(sed -n 's/^# kaslr-bases: //p' "$tmp/5.a")" "again: $again" "$(passed 5.again)" \
		${changed:+"$changed"}
fi
tap_done
