#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# No P4D table leaks: 1000 fork/exit cycles, each child mapping and touching one page in
# each of K distinct 256 TiB regions above 47 bits, traced from tracefs (pgtable:p4d_alloc,
# pgtable:p4d_free) for exactly the cycles (tests/validate/forkcycle.c turns tracing on
# and off and limits it to itself and its children). Allocations and frees are paired by
# table pfn (the guest prints the mm pointer hashed).
#
# Expected on 5-level: each cycle installs K + 1 tables (PGD entry 0, copied at fork, and
# one per high region) and its exit frees them: installed == freed == N * (K + 1).
# On 4-level and no5lvl the P4D level is folded: no event at all, and every hint falls
# back below 47 bits. The same instance records the window event of every mmap: its
# N * K events prove it traced the cycles on every mode.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh

N=1000 K=3
trace_start leak pgtable/p4d_alloc pgtable/p4d_free mmap/x86_get_unmapped_area
echo 0 >"$tfs/instances/leak/tracing_on"	# forkcycle traces exactly its cycles
"$bin"/forkcycle $N $K "$tfs/instances/leak" >"$tmp/cycles"
rc=$?
trace_stop leak "$tmp/events"
high=$([ "$mode" = 5 ] && echo $((N * K)) || echo 0)
is "forkcycle: $N cycles, every child mapped its $K pages ($high above 47 bits)" \
	"$rc $(cat "$tmp/cycles")" "0 cycles=$N regions=$K failed=0 high=$high"

# The control: per region hint I << 48, N window events, placed where the mode puts it.
if [ "$mode" = 5 ]; then placed="outcome=hint lands at the hint"; else placed="outcome=search lands below 47 bits"; fi
windows=$(awk '$2 == "x86_get_unmapped_area" { sub(/^hint=/, "", $3); sub(/^result=/, "", $10); print $3, $9, $10 }' \
	"$tmp/events" | while read -r hint outcome result; do
		if [ "$outcome" = outcome=hint ] && [ "$result" = "$hint" ]; then where="lands at the hint"
		elif [ $((result >> 47)) -eq 0 ]; then where="lands below 47 bits"
		else where="lands at $result"; fi
		echo "$hint $outcome $where"
	done | sort | uniq -c | awk '{ $1 = $1; print }')
want=$(for i in $(seq 1 $K); do printf '%s 0x%x %s\n' $N $((i << 48)) "$placed"; done)
is "control: the instance recorded the $((N * K)) window events of the cycles' mmaps, $placed" \
	"$windows" "$want"

installed=$(grep -c ' p4d_alloc .*outcome=installed' "$tmp/events")
freed=$(grep -c ' p4d_free ' "$tmp/events")
if [ "$mode" = 5 ]; then
	is "installed P4D tables: $((N * (K + 1))) (PGD entry 0 and $K regions per cycle)" \
		"$installed" $((N * (K + 1)))
	is "freed P4D tables: as many as installed" "$freed" "$installed"
	# Replay the events in order: a pfn is installed, then freed, before it is installed
	# again; whatever is still installed at the end leaked.
	problems=$(awk '
		$2 == "p4d_alloc" && /outcome=installed/ { if (live[$5]) print "installed twice: " $5; live[$5] = 1 }
		$2 == "p4d_free" { if (!live[$5]) print "freed but not installed in the run: " $5; delete live[$5] }
		END { for (p in live) print "never freed: " p }' "$tmp/events")
	is "every table freed exactly once after its install, none left" "$problems" ""
	is "no allocation raced or failed" "$(grep ' p4d_alloc ' "$tmp/events" | grep -vc 'outcome=installed')" 0
	is "no table belongs to init_mm (init_mm=0)" "$(grep -c ' p4d_alloc .*init_mm=1' "$tmp/events")" 0
	# Per PGD entry (address >> 48): N tables each for entries 0..K.
	per_entry=$(grep ' p4d_alloc ' "$tmp/events" | grep -o 'address=0x[0-9a-f]*' |
		while read -r a; do echo $((${a#address=} >> 48)); done | sort -n | uniq -c |
		awk '{ printf "%s:%s ", $2, $1 }')
	want=$(for i in $(seq 0 $K); do printf '%s:%s ' "$i" "$N"; done)
	is "tables per PGD entry: $N for each of entries 0..$K" "$per_entry" "$want"
	# The same from p4d_free's own address field, not paired through p4d_alloc.
	per_entry=$(grep ' p4d_free ' "$tmp/events" | grep -o 'address=0x[0-9a-f]*' |
		while read -r a; do echo $((${a#address=} >> 48)); done | sort -n | uniq -c |
		awk '{ printf "%s:%s ", $2, $1 }')
	is "frees per PGD entry, by p4d_free's address: $N for each of entries 0..$K" "$per_entry" "$want"
else
	# Each read next to the control: the instance did record the cycles' mmaps.
	recorded=$(grep -c ' x86_get_unmapped_area ' "$tmp/events")
	is "$mode: no p4d_alloc over $N cycles (P4D folded; control: $recorded window events)" \
		"$recorded $installed" "$((N * K)) 0"
	is "$mode: no p4d_free over $N cycles (control: $recorded window events)" \
		"$recorded $freed" "$((N * K)) 0"
fi
tap_done
