#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The upstream selftests of the 47-bit mmap window, built from the guest kernel's own tree
# by tests/validate/build-selftests (make tools) into build/selftests-KVER, each result a
# TAP line. The tree is read from uname -r: 6.1, 6.12 or 7.3.
#
# va_128TBswitch (6.1; va_high_addr_switch on 6.12 and 7.3, the same cases with lower-case
# names) with hugetlb: 16 mmap cases and 9 hugetlb ones, each printing
# "CASE: ADDRESS - OK|FAILED" (7.3: a KTAP line "ok|not ok N CASE"; it reserves its own
# huge pages, and its hugetlb case below the switch hint asks for
# addr_switch_hint - hugepagesize where 6.12's asked for addr_switch_hint - pagesize,
# which 7.3 would place at 128 TiB: tests/guest/hint-boundary.t). Expected:
#   5-level        every case OK, exit 0.
#   4-level/no5lvl the MAP_FIXED cases at or above 128 TiB FAILED (ENOMEM: beyond the
#                  address space), every other case OK, exit 1. (Upstream's wrapper,
#                  va_128TBswitch.sh, skips the test without la57; run directly, the
#                  failures are exactly these.)
# virtual_address_range: fills the 128 TiB window with no-hint mappings, then maps 384 TiB
# with hints from 2^48 to 2^62; exits 1 at the first mapping on the wrong side of 128 TiB.
# Expected exit 0 on every mode. Its mappings are writable and private, so the overcommit
# heuristic would refuse every chunk in a 1 GiB guest and the test would pass without
# mapping anything: it runs with vm.overcommit_memory=1, and its successful high
# placements are counted from the syscall tracepoint (sys_exit_mmap) to prove it mapped
# them: on 5-level 24576 chunks of 16 GiB above 128 TiB (6.1); none on 4-level.
# 6.12's version maps 1 GiB chunks and then reads a byte of each through write() to a
# file in its working directory (a page table per chunk: about 512 MiB, so the suite's
# guests have 2 GiB). Its validate_addr() rejects every address above 128 TiB, the
# hinted ones it asks for included, so on 5-level this tree's test fails by its own bug
# at the first high chunk: exit 1, "Bad address" naming an address above 128 TiB, one
# chunk placed there. On 4-level no hint can go high and it passes. 7.3's tree has no
# virtual_address_range.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh
kver=$(uname -r | cut -d. -f1,2)
st=$PWD/../../build/selftests-$kver
case $kver in
6.1) switch=va_128TBswitch vaddr=virtual_address_range high_chunks=24576 ;;
6.12) switch=va_high_addr_switch vaddr=virtual_address_range high_chunks=1 ;;
7.3) switch=va_high_addr_switch vaddr='' ;;
*) not_ok "selftests for kernel $kver" "p4dscope builds them for 6.1, 6.12 and 7.3 only"; tap_done ;;
esac

for prog in $switch $vaddr; do
	if [ ! -x "$st/$prog" ]; then
		not_ok "$prog is built" "missing $st/$prog: run 'make tools KVER=$kver'"
		tap_done
	fi
done

## va_128TBswitch / va_high_addr_switch
hugepages=$(cat /proc/sys/vm/nr_hugepages)
echo 16 >/proc/sys/vm/nr_hugepages
"$st/$switch" --run-hugetlb >"$tmp/va" 2>&1
rc=$?
echo "$hugepages" >/proc/sys/vm/nr_hugepages

n=0
while IFS= read -r line; do
	if [[ $line =~ ^(.*):\ (0x[0-9a-f]+|\(nil\))\ -\ (OK|FAILED)$ ]]; then
		case_name=${BASH_REMATCH[1]} got=${BASH_REMATCH[3]}
	elif [[ $line =~ ^(not )?ok\ [0-9]+\ (.*)$ ]]; then
		case_name=${BASH_REMATCH[2]} got=$([ -z "${BASH_REMATCH[1]}" ] && echo OK || echo FAILED)
	else
		continue
	fi
	n=$((n + 1))
	want=OK
	# Below 5-level, MAP_FIXED at ADDR_SWITCH_HINT (128 TiB) or HIGH_ADDR (256 TiB) fails.
	if [ "$mode" != 5 ] && [[ $case_name == *MAP_FIXED* ]] &&
	   [[ ${case_name,,} == *addr_switch_hint* || ${case_name,,} == *high_addr* ]]; then
		want=FAILED
	fi
	is "$switch case $n, $case_name: $want" "$got" "$want"
done <"$tmp/va"
is "$switch ran all 25 cases" "$n" 25
want=$([ "$mode" = 5 ] && echo 0 || echo 1)
is "$switch exits $want" "$rc" "$want"

[ -n "$vaddr" ] || tap_done

## virtual_address_range, with its successful high placements counted by the kernel.
overcommit=$(cat /proc/sys/vm/overcommit_memory)
echo 1 >/proc/sys/vm/overcommit_memory
trace_start vaddr syscalls/sys_exit_mmap
inst=$tfs/instances/vaddr
echo 32768 >"$inst/buffer_size_kb"
echo 'ret >= 0x800000000000' >"$inst/events/syscalls/sys_exit_mmap/filter"
echo 0 >"$inst/tracing_on"
# Trace only the selftest: its pid goes to set_event_pid before it execs.
(cd "$tmp" && sh -c 'echo $$ >"$1/set_event_pid"; echo 1 >"$1/tracing_on"; exec "$2"' sh \
	"$inst" "$st"/virtual_address_range >"$tmp/var" 2>&1)
rc=$?
echo 0 >"$inst/tracing_on"
# Syscall exit events print as "sys_mmap -> RESULT", outside trace_stop's record format.
high=$(grep -c ': sys_mmap -> 0x' "$inst/trace")
lost=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' "$inst"/per_cpu/cpu*/stats)
trace_stop vaddr /dev/null
echo "$overcommit" >/proc/sys/vm/overcommit_memory
if [ "$kver" = 6.12 ] && [ "$mode" = 5 ]; then
	bad=$(sed -n 's/^Bail out! Bad address \([0-9a-f]*\)$/\1/p' "$tmp/var")
	if [ $rc -eq 1 ] && [ -n "$bad" ] && [ $((0x$bad >> 47)) -ne 0 ]; then
		ok "virtual_address_range fails by its own validate_addr() bug at $bad, above 128 TiB"
	else
		not_ok "virtual_address_range fails by its own validate_addr() bug above 128 TiB" \
			"exit $rc" "$(head -n 20 "$tmp/var")"
	fi
elif [ $rc -eq 0 ]; then
	ok "virtual_address_range exits 0"
else
	not_ok "virtual_address_range exits 0" "exit $rc" "$(head -n 20 "$tmp/var")"
fi
want=$([ "$mode" = 5 ] && echo $high_chunks || echo 0)
is "virtual_address_range placed $want chunks above 128 TiB" "$high" "$want"
is "no sys_exit_mmap event of it was lost" "$lost" 0
tap_done
