#!/usr/bin/env bash
# pgtable:p4d_alloc outcome=raced, forced: tests/workloads/p4drace.c's two threads, one
# per vCPU, fault in the same fresh 256 TiB regions at once, try after try (at most
# MAX_TRIES), until one loses the race to install a region's table. Then, over every try:
# each raced event names a region the workload mapped, its table is never reported freed
# (the kernel frees it at once: docs/events.md), installed and freed tables still balance
# exactly, pfn by pfn. On 4-level and no5lvl the level is folded: one try, no P4D event,
# next to the window events of the same mmaps.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh
MAX_TRIES=200 REGIONS=32

cpus=$(grep -c '^processor' /proc/cpuinfo)
if [ "$cpus" -lt 2 ]; then
	not_ok "p4d_alloc outcome=raced" "the guest has $cpus vCPU: the race needs two (run-guest --smp 2)"
	tap_done
fi

trace_start race pgtable/p4d_alloc pgtable/p4d_free mmap/x86_get_unmapped_area
inst=$tfs/instances/race
: >"$tmp/runs"
tries=0 failed=0
while [ $tries -lt $MAX_TRIES ]; do
	tries=$((tries + 1))
	"$bin"/p4drace $REGIONS >>"$tmp/runs" || failed=$((failed + 1))
	[ "$mode" = 5 ] || break
	grep -q ' outcome=raced' "$inst/trace" && break
done
overruns=$(cat "$inst"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
trace_stop race "$tmp/events"
echo "# $tries tries of $REGIONS regions each"
is "p4drace: every try's child mapped and touched its $REGIONS regions" "$failed" 0
is "the trace kept every event (no overrun)" "$overruns" 0

# The control: the window events of the regions' mmaps (their hints are the only ones
# at or above 1 << 48), one per region and try.
windows=$(awk '$2 == "x86_get_unmapped_area" { sub(/^hint=/, "", $3); print $3 }' "$tmp/events" |
	while read -r hint; do [ $((hint >> 48)) -eq 0 ] || echo "$hint"; done | grep -c .)
if [ "$mode" != 5 ]; then
	is "paging $mode: no p4d_alloc or p4d_free (control: $windows window events of the $REGIONS regions' mmaps)" \
		"$windows $(grep -cE ' p4d_(alloc|free) ' "$tmp/events")" "$REGIONS 0"
	tap_done
fi

raced=$(grep -c ' p4d_alloc .*outcome=raced' "$tmp/events")
if [ "$raced" -gt 0 ]; then
	ok "p4d_alloc outcome=raced seen after $tries tries ($raced raced)"
else
	not_ok "p4d_alloc outcome=raced seen within $MAX_TRIES tries" \
		"$(grep -c ' p4d_alloc ' "$tmp/events") allocations, none raced"
fi
# Each raced event comes from a try's child and names one of its regions.
# (Events name the thread: the records of a try are those of its two touching threads.)
bad=$(while read -r child threads _ addrs; do
	regions=$(for a in $addrs; do region_of "${a#addr=}"; done)
	awk -v threads="${threads#threads=}" 'BEGIN { split(threads, t, ","); mine[t[1]]; mine[t[2]] }
		($1 in mine) && $2 == "p4d_alloc" && / outcome=raced$/ { sub(/^address=/, "", $4); print $4 }' \
		"$tmp/events" | grep -vxF -f <(echo "$regions") | sed "s/^/$child raced outside its regions: /"
done <"$tmp/runs")
is "every raced event's address is a region its process mapped" "$bad" ""
is "no raced event is init_mm's (init_mm=0)" \
	"$(grep ' p4d_alloc .*outcome=raced' "$tmp/events" | grep -vc ' init_mm=0 ')" 0
is "a raced table is never reported by p4d_free" "$(awk '
	$2 == "p4d_alloc" && / outcome=raced$/ { raced[$5] = 1 }
	$2 == "p4d_alloc" && / outcome=installed$/ { delete raced[$5] }
	$2 == "p4d_free" && ($5 in raced) { print "freed after losing its race:", $5 }' "$tmp/events")" ""
# Installed and freed balance exactly: replayed in order, each pfn is installed, then
# freed, before it is installed again, and nothing is left at the end.
is "installed tables = freed tables, pfn by pfn, nothing left" "$(awk '
	$2 == "p4d_alloc" && / outcome=installed$/ { if (live[$5]) print "installed twice:", $5; live[$5] = 1; n++ }
	$2 == "p4d_free" { if (!live[$5]) print "freed, not installed:", $5; delete live[$5]; f++ }
	END { for (p in live) print "never freed:", p; if (n != f) print n, "installed,", f, "freed" }' \
	"$tmp/events")" ""
is "each try installed one table per region, raced or not: $REGIONS x $tries by the touching threads" \
	"$(while read -r _ threads _; do
		awk -v threads="${threads#threads=}" 'BEGIN { split(threads, t, ","); mine[t[1]]; mine[t[2]] }
			($1 in mine) && $2 == "p4d_alloc" && / outcome=installed$/' "$tmp/events"
	done <"$tmp/runs" | grep -c .)" $((REGIONS * tries))
tap_done
