#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# pgtable:p4d_alloc outcome=nomem, forced: bt/nomem.bt makes the page allocation of the
# first P4D table in each of tests/workloads/p4dnomem.c's two fresh regions fail
# (bpf_override_return on should_fail_alloc_page). The workload meets one failure in a
# plain write fault, which the kernel retries, and one in mlock(), which fails with
# EAGAIN. Then: the events name exactly those regions, the retry and a later write
# install them, nothing installed leaks, the kernel logged the retry, and p4dstat,
# counting the whole system over the run, counts both failures. On 4-level and no5lvl
# the level is folded: nothing to fail, everything succeeds, no P4D event, next to the
# window events of the same mmaps.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh
p4dstat=$tools/p4dstat

if ! command -v bpftrace >/dev/null; then
	not_ok "outcome=nomem" "no bpftrace in this root: run 'make deps' (scripts/deps installs it)"
	tap_done
fi

regions="0x5000000000000 0x6000000000000"	# p4dnomem's hints: 5 << 48, 6 << 48
dmesg_retries() { dmesg | grep -c 'VM_FAULT_OOM leaked out to the #PF handler. Retrying PF'; }
retries_before=$(dmesg_retries)

trace_start nomem pgtable/p4d_alloc pgtable/p4d_free mmap/x86_get_unmapped_area
# The output files exist before the jobs start, so the waits never read a missing one.
: >"$tmp/p4dstat.err"
: >"$tmp/bt"
"$p4dstat" -j >"$tmp/p4dstat" 2>"$tmp/p4dstat.err" &
bg+=($!)
wait_for "$tmp/p4dstat.err" Tracing "${bg[0]}" 120 || echo "# p4dstat never said Tracing"

# The workload waits for "go" on a FIFO that only this shell holds open for writing.
gate go
timeout 300 bpftrace --unsafe "$PWD/bt/nomem.bt" 5 6 -c "$bin/p4dnomem" <"$tmp/gate-go" \
	>"$tmp/bt" 2>&1 &
bt=$!
bg+=("$bt")
wait_for "$tmp/bt" "ready " "$bt" 240 || { echo "# p4dnomem never said ready:"; sed 's/^/# /' "$tmp/bt"; }
open_gate go
wait $bt
bt_rc=$?
kill -INT "${bg[0]}"
wait "${bg[0]}"
trace_stop nomem "$tmp/events"
retries=$(($(dmesg_retries) - retries_before))

read -r _ wpid addr1 addr2 < <(grep '^ready ' "$tmp/bt")
result=$(grep '^touch=' "$tmp/bt")
is "bpftrace ran nomem.bt over p4dnomem, exit 0" "$bt_rc" 0
check "p4dnomem reported its pid ($wpid)" test -n "$wpid"

# The control: the window events of p4dnomem's two hinted mmaps, on every mode.
hints=$(awk -v pid="$wpid" '$1 == pid && $2 == "x86_get_unmapped_area" && ($3 == "hint=0x5000000000000" || $3 == "hint=0x6000000000000")' \
	"$tmp/events" | grep -c .)
is "control: the instance recorded the window events of p4dnomem's 2 hinted mmaps" "$hints" 2

summary=$(grep '"type":"summary"' "$tmp/p4dstat")
nomem_count=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["p4d_nomem"])' "$summary" 2>&1)

if [ "$mode" = 5 ]; then
	is "p4dnomem's pages landed in regions 5 and 6 (above 47 bits)" \
		"$(region_of "$addr1") $(region_of "$addr2")" "$regions"
	is "nomem.bt failed one allocation in each region" \
		"$(grep '^failed ' "$tmp/bt" | sort | tr '\n' ' ')" "failed 5 failed 6 "
	is "the write fault was retried and landed; mlock() failed with EAGAIN; a later write landed" \
		"$result" "touch=ok mlock=EAGAIN retouch=ok"
	is "the kernel logged the retried fault (pagefault_out_of_memory)" "$retries" 1
	is "p4d_alloc outcome=nomem: exactly p4dnomem's two regions" \
		"$(awk -v pid="$wpid" '$1 == pid && $2 == "p4d_alloc" && /outcome=nomem/ { print $4 }' "$tmp/events" | sort | tr '\n' ' ')" \
		"address=0x5000000000000 address=0x6000000000000 "
	is "the nomem events: not init_mm (init_mm=0), no table (pfn=0x0)" \
		"$(awk -v pid="$wpid" '$1 == pid && $2 == "p4d_alloc" && /outcome=nomem/ { print $5, $6 }' "$tmp/events" | sort -u)" \
		"pfn=0x0 init_mm=0"
	# After its failure each region's table is installed once, by the retry or the write.
	is "each region installed after its failure, once" \
		"$(awk -v pid="$wpid" '$1 == pid && $2 == "p4d_alloc" &&
			($4 == "address=0x5000000000000" || $4 == "address=0x6000000000000") {
			r = $4; sub(/^address=/, "", r)
			if (/outcome=nomem/) failed[r] = 1
			else if (/outcome=installed/) print r, (r in failed) ? "after" : "before" }' \
			"$tmp/events" | sort | tr '\n' ' ')" \
		"0x5000000000000 after 0x6000000000000 after "
	# Replay p4dnomem's tables: every one installed is freed once, by the end.
	is "p4dnomem: every table installed is freed once, none left" \
		"$(awk -v pid="$wpid" '$1 == pid && $2 == "p4d_alloc" && /outcome=installed/ { live[$5] = seen[$5] = 1 }
			$2 == "p4d_free" && ($5 in live) { delete live[$5]; next }
			$2 == "p4d_free" && ($5 in seen) { print "freed again:", $5 }
			END { for (p in live) print "left:", p }' "$tmp/events")" ""
	is "p4dstat, whole system over the run: p4d_nomem = 2" "$nomem_count" 2
else
	is "paging $mode: the hints fell back below 47 bits" \
		"$(region_of "$addr1") $(region_of "$addr2")" "0x0 0x0"
	is "paging $mode: nothing to fail (P4D folded): nomem.bt never fired" \
		"$(grep -c '^failed ' "$tmp/bt")" 0
	is "paging $mode: the write, mlock() and the later write succeed" \
		"$result" "touch=ok mlock=0 retouch=ok"
	is "paging $mode: no P4D event (control: the 2 window events above)" \
		"$(grep -c ' p4d_' "$tmp/events")" 0
	is "paging $mode: no retried fault logged" "$retries" 0
	is "paging $mode: p4dstat: p4d_nomem = 0" "$nomem_count" 0
fi
tap_done
