#!/usr/bin/env bash
# The upstream vm selftests of the 47-bit mmap window, built from the kernel tree by
# tests/validate/build-selftests (make tools) into build/selftests, each result a TAP line.
#
# va_128TBswitch --run-hugetlb: 16 mmap cases and 9 hugetlb ones, each printing
# "CASE: ADDRESS - OK|FAILED". Expected:
#   5-level        every case OK, exit 0.
#   4-level/no5lvl the MAP_FIXED cases at or above 128 TiB FAILED (ENOMEM: beyond the
#                  address space), every other case OK, exit 1. (Upstream's wrapper,
#                  va_128TBswitch.sh, skips the test without la57; run directly, the
#                  failures are exactly these.)
# virtual_address_range: fills the 128 TiB window with 16 GiB no-hint mappings, then maps
# 384 TiB with hints from 2^48 to 2^62; exits 1 at the first mapping on the wrong side of
# 128 TiB. Expected exit 0 on every mode. Its mappings are writable and private, so the
# overcommit heuristic would refuse every 16 GiB one in a 1 GiB guest and the test would
# pass without mapping anything: it runs with vm.overcommit_memory=1, and its successful
# high placements are counted from the syscall tracepoint (sys_exit_mmap) to prove it
# mapped them: 24576 chunks of 16 GiB above 128 TiB on 5-level, none on 4-level.
set -uo pipefail
cd "$(dirname "$0")"
. ../lib/tap.sh
. ../lib/tracefs.sh
st=../../build/selftests
mode=${P4DSCOPE_PAGING:?run me inside the guest (scripts/run-guest)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for prog in va_128TBswitch virtual_address_range; do
	if [ ! -x "$st/$prog" ]; then
		not_ok "$prog is built" "missing $st/$prog: run 'make tools' (tests/validate/build-selftests)"
		tap_done
	fi
done

## va_128TBswitch
hugepages=$(cat /proc/sys/vm/nr_hugepages)
echo 16 >/proc/sys/vm/nr_hugepages
"$st"/va_128TBswitch --run-hugetlb >"$tmp/va" 2>&1
rc=$?
echo "$hugepages" >/proc/sys/vm/nr_hugepages

n=0
while IFS= read -r line; do
	[[ $line =~ ^(.*):\ (0x[0-9a-f]+|\(nil\))\ -\ (OK|FAILED)$ ]] || continue
	n=$((n + 1))
	case_name=${BASH_REMATCH[1]} got=${BASH_REMATCH[3]} want=OK
	# Below 5-level, MAP_FIXED at ADDR_SWITCH_HINT (128 TiB) or HIGH_ADDR (256 TiB) fails.
	if [ "$mode" != 5 ] && [[ $case_name == *MAP_FIXED* ]] &&
	   [[ $case_name == *ADDR_SWITCH_HINT* || $case_name == *HIGH_ADDR* ]]; then
		want=FAILED
	fi
	is "va_128TBswitch case $n, $case_name: $want" "$got" "$want"
done <"$tmp/va"
is "va_128TBswitch ran all 25 cases" "$n" 25
want=$([ "$mode" = 5 ] && echo 0 || echo 1)
is "va_128TBswitch exits $want" "$rc" "$want"

## virtual_address_range, with its successful high placements counted by the kernel.
overcommit=$(cat /proc/sys/vm/overcommit_memory)
echo 1 >/proc/sys/vm/overcommit_memory
trace_start vaddr syscalls/sys_exit_mmap
inst=$tfs/instances/vaddr
echo 'ret >= 0x800000000000' >"$inst/events/syscalls/sys_exit_mmap/filter"
echo 0 >"$inst/tracing_on"
# Trace only the selftest: its pid goes to set_event_pid before it execs.
sh -c 'echo $$ >"$1/set_event_pid"; echo 1 >"$1/tracing_on"; exec "$2"' sh "$inst" \
	"$st"/virtual_address_range >"$tmp/var" 2>&1
rc=$?
echo 0 >"$inst/tracing_on"
# Syscall exit events print as "sys_mmap -> RESULT", outside trace_stop's record format.
high=$(grep -c ': sys_mmap -> 0x' "$inst/trace")
trace_stop vaddr /dev/null
echo "$overcommit" >/proc/sys/vm/overcommit_memory
if [ $rc -eq 0 ]; then
	ok "virtual_address_range exits 0"
else
	not_ok "virtual_address_range exits 0" "exit $rc" "$(head -n 20 "$tmp/var")"
fi
want=$([ "$mode" = 5 ] && echo 24576 || echo 0)
is "virtual_address_range placed $want 16 GiB chunks above 128 TiB" "$high" "$want"
tap_done
