#!/usr/bin/env bash
# The mmap/mremap/munmap fuzzer (tests/validate/mmapfuzz.c): 100000 random calls on this
# paging mode, 70000 on the top-down layout and 30000 on the legacy bottom-up one, hints
# over the whole 64-bit range, every call checked against the documented behaviour.
# P4DSCOPE_FUZZ_CALLS overrides the total (tests/run-debug --ci runs fewer on the slow
# debug kernel). A new seed every run (printed in the result); to replay a failure:
#   scripts/run-guest --paging MODE -- build/bin/mmapfuzz -m MODE -l LAYOUT -s SEED -n CALLS
# (mmapfuzz prints that line, with the call that failed).
set -uo pipefail
cd "$(dirname "$0")"
. ../lib/tap.sh
bin=../../build/bin
mode=${P4DSCOPE_PAGING:?run me inside the guest (scripts/run-guest)}

# Not /dev/urandom: reading it before the crng is ready would make it ready, and change
# what %p prints for the tests after this one.
seed=${P4DSCOPE_FUZZ_SEED:-$(date +%s%N)}
hugepages=$(cat /proc/sys/vm/nr_hugepages)
echo 16 >/proc/sys/vm/nr_hugepages
total=${P4DSCOPE_FUZZ_CALLS:-100000}
for run in topdown:$((total * 7 / 10)) legacy:$((total - total * 7 / 10)); do
	layout=${run%:*} calls=${run#*:}
	out=$("$bin"/mmapfuzz -m "$mode" -l "$layout" -n "$calls" -s "$seed" 2>&1)
	rc=$?
	name="mmapfuzz $layout, $calls calls, seed $seed"
	if [ $rc -eq 0 ] && grep -q "^mmapfuzz: PASS calls=$calls " <<<"$out"; then
		ok "$name"
		grep -v '^mmapfuzz: seed=' <<<"$out" | sed 's/^/# /'
	else
		not_ok "$name" "exit $rc" "$out"
	fi
done
echo "$hugepages" >/proc/sys/vm/nr_hugepages
tap_done
