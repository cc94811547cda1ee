#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# pgtable:p4d_alloc outcome=raced, forced in one try: tests/validate/racehold.c's BPF side
# holds one thread at the entry of __p4d_alloc() until the other thread, on the other
# vCPU, has installed the same region's P4D table; the held thread then allocates its
# own table, finds the PGD entry populated and frees the page. A region whose hold
# reaches racehold's deadline (RACEHOLD_DEADLINE_S) fails, named; nothing is retried. Checked from tracefs alone
# (the BPF program only orders the threads): per region, installed by the winner before
# raced by the held thread, two different tables, the raced one never reported by
# p4d_free and its page returned to the page allocator (kmem:mm_page_free) by the held
# thread after the raced event; the installed one freed at exit with its address. On
# 4-level and no5lvl the level is folded: p4drace's two threads, no P4D event, next to
# the window events of the same mmaps.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh
REGIONS=4

cpus=$(grep -c '^processor' /proc/cpuinfo)
if [ "$cpus" -lt 2 ]; then
	not_ok "p4d_alloc outcome=raced" "the guest has $cpus vCPU: the race needs two (run-guest --smp 2)"
	tap_done
fi

if [ "$mode" != 5 ]; then
	trace_start race pgtable/p4d_alloc pgtable/p4d_free mmap/x86_get_unmapped_area
	"$bin"/p4drace $REGIONS >"$tmp/runs"
	is "p4drace: the child mapped and touched its $REGIONS regions" "$?" 0
	trace_stop race "$tmp/events"
	# The control: the window events of the regions' mmaps (the only hints at or above
	# 1 << 48), one per region.
	windows=$(awk '$2 == "x86_get_unmapped_area" { sub(/^hint=/, "", $3); print $3 }' "$tmp/events" |
		while read -r hint; do [ $((hint >> 48)) -eq 0 ] || echo "$hint"; done | grep -c .)
	is "paging $mode: no p4d_alloc or p4d_free (control: $windows window events of the $REGIONS regions' mmaps)" \
		"$windows $(grep -cE ' p4d_(alloc|free) ' "$tmp/events")" "$REGIONS 0"
	tap_done
fi

trace_start race pgtable/p4d_alloc pgtable/p4d_free kmem/mm_page_free
inst=$tfs/instances/race
"$tools"/racehold $REGIONS >"$tmp/runs" 2>"$tmp/err"
rc=$?
overruns=$(cat "$inst"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
trace_stop race "$tmp/events"
sed 's/^/# /' "$tmp/runs" "$tmp/err"
if [ $rc -eq 0 ]; then
	ok "racehold: every region's hold was released by the install and the held thread raced (its own view)"
else
	# racehold names a region whose hold reached its deadline.
	not_ok "racehold: every region's hold was released by the install and the held thread raced (its own view)" \
		"exit $rc" "$(cat "$tmp/err")"
fi
is "the trace kept every event (no overrun)" "$overruns" 0
read -r _ pid held winner < <(grep '^racehold ' "$tmp/runs")
pid=${pid#pid=} held=${held#held=} winner=${winner#winner=}

# Per region, from tracefs: "installed-by raced-by installed-pfn raced-pfn order-ok
# raced-pfn-freed-by-p4d_free loser-page-returned".
regions=$(for r in $(seq $REGIONS); do printf '0x%x ' $((r << 48)); done)
summary=$(awk -v held="$held" -v winner="$winner" -v regions="$regions" '
	$2 == "p4d_alloc" { split($4, a, "="); split($5, p, "="); split($7, o, "=")
		if (o[2] == "installed") delete lost[p[2]]	# the page, reused for a table that stays
		if (o[2] == "installed" && !(a[2] in inst)) { inst[a[2]] = $1; ipfn[a[2]] = p[2]; iseq[a[2]] = NR }
		else if (o[2] == "raced") { rac[a[2]] = $1; rpfn[a[2]] = p[2]; rseq[a[2]] = NR; pending[p[2]] = a[2]; lost[p[2]] = a[2] }
		next }
	$2 == "p4d_free" { split($5, p, "="); if (p[2] in lost) freed[lost[p[2]]] = 1; next }
	# The page allocator hands a freed page out again first: one region'"'"'s loser may get
	# the page the last one returned, so each free answers the latest raced event.
	$2 == "mm_page_free" { split($4, p, "=")
		if ((p[2] in pending) && $1 == held) { returned[pending[p[2]]] = 1; delete pending[p[2]] }
		next }
	END { n = split(regions, list, " "); for (r = 1; r <= n; r++) {
		g = list[r]
		print g, (g in inst) ? (inst[g] == winner ? "winner" : inst[g]) : "none",
			(g in rac) ? (rac[g] == held ? "held" : rac[g]) : "none",
			(ipfn[g] != "" && ipfn[g] != rpfn[g]) ? "two-tables" : "same-table",
			(iseq[g] && rseq[g] && iseq[g] < rseq[g]) ? "installed-first" : "out-of-order",
			(g in freed) ? "raced-freed-by-p4d_free" : "raced-never-p4d_free",
			(g in returned) ? "page-returned" : "page-not-returned" } }' "$tmp/events")
echo "$summary" | sed 's/^/# /'
want=$(for r in $(seq $REGIONS); do
	printf '0x%x winner held two-tables installed-first raced-never-p4d_free page-returned\n' $((r << 48))
done)
is "per region: the winner installed, then the held thread raced with a table of its own" \
	"$(cut -d' ' -f1-5 <<<"$summary")" "$(cut -d' ' -f1-5 <<<"$want")"
is "per region: the raced table never reaches p4d_free; the held thread returned its page after the raced event" \
	"$(cut -d' ' -f1,6,7 <<<"$summary")" "$(cut -d' ' -f1,6,7 <<<"$want")"
is "raced events: exactly one per region, none init_mm's (init_mm=0)" \
	"$(grep -c ' p4d_alloc .* init_mm=0 outcome=raced$' "$tmp/events") $(grep -c ' outcome=raced$' "$tmp/events")" \
	"$REGIONS $REGIONS"
# The process's exit frees each installed table once, with the address it was installed for.
is "installed tables = freed tables, pfn by pfn, each with its address, nothing left" "$(awk '
	$2 == "p4d_alloc" && / outcome=installed$/ { if ($5 in live) print "installed twice:", $5; live[$5] = $4; n++ }
	$2 == "p4d_free" { if (!($5 in live)) print "freed, not installed:", $5
		else if (live[$5] != $4) print "freed at", $4, "installed at", live[$5]; delete live[$5]; f++ }
	END { for (p in live) print "never freed:", p; if (n != f) print n, "installed,", f, "freed" }' \
	"$tmp/events")" ""
tap_done
