#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# pgtable:p4d_free beyond exit, read from tracefs directly: munmap one region at a time
# (tests/workloads/p4dstat-churn.c), free_pgtables()' floor and ceiling (two mappings in
# one 256 TiB region: unmapping the first frees nothing, the second frees the table),
# mremap across regions, fork copying the tables of high mappings that have pages and no
# others, and exec's stack move (tests/workloads/p4dfree.c, step by step between trace
# markers). Every free is matched to its install by pfn and address. On 4-level and
# no5lvl: no P4D event, next to the window events of the same mmaps.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh

trace_start free pgtable/p4d_alloc pgtable/p4d_free mmap/x86_get_unmapped_area
inst=$tfs/instances/free
"$bin"/p4dfree "$inst/trace_marker" >"$tmp/p4dfree" 2>"$tmp/p4dfree.err"
free_rc=$?
"$bin"/p4dstat-churn 3 <<<go >"$tmp/churn"
churn_rc=$?
trace_stop free "$tmp/events"
is "p4dfree ran every step" "$free_rc" 0
is "p4dstat-churn mapped, touched and unmapped 3 regions" "$churn_rc" 0
pid=$(awk '$2 == "tracing_mark_write" && $3 == "p4dfree" { print $1; exit }' "$tmp/events")
churn=$(sed -n 's/^ready pid=//p' "$tmp/churn")
child=$(sed -n 's/^child=//p' "$tmp/p4dfree")

if [ "$mode" != 5 ]; then
	windows=$(awk -v pid="$pid" -v churn="$churn" '($1 == pid || $1 == churn) &&
		$2 == "x86_get_unmapped_area"' "$tmp/events" | grep -c .)
	check "paging $mode: the window events of the workloads' mmaps were recorded ($windows)" \
		test "$windows" -ge 10
	is "paging $mode: no p4d_alloc or p4d_free (control: $windows window events)" \
		"$(grep -cE ' p4d_(alloc|free) ' "$tmp/events")" 0
	tap_done
fi

# The P4D events of p4dfree and its child, each as "STEP EVENT ADDRESS PFN BY", where BY
# says whose context raised it (parent, child).
awk -v pid="$pid" -v child="$child" '
	$1 == pid && $2 == "tracing_mark_write" { sub(/^step=/, "", $4); step = $4; next }
	($1 == pid || $1 == child) && ($2 == "p4d_alloc" || $2 == "p4d_free") {
		sub(/^address=/, "", $4); sub(/^pfn=/, "", $5)
		if ($2 == "p4d_alloc" && $7 != "outcome=installed") $2 = "p4d_alloc-" substr($7, 9)
		print (step == "" ? "exec" : step), $2, $4, $5, ($1 == pid ? "parent" : "child") }' \
	"$tmp/events" >"$tmp/steps"
sed 's/^/# /' "$tmp/steps"
# events STEP: the step's events as "EVENT@ADDRESS/BY", sorted, on one line.
events() {
	awk -v step="$1" '$1 == step { print $2 "@" $3 "/" $5 }' "$tmp/steps" | sort | tr '\n' ' '
}
# region_list WORD...: the 256 TiB regions of the addr=0x... words among WORDs.
region_list() { local a; for a; do [[ $a != addr=* ]] || region_of "${a#addr=}"; done | sort -u; }
# addrs STEP: the addr=0x... words p4dfree printed for STEP, one per line.
addrs() { sed -n "s/^$1 //p" "$tmp/p4dfree"; }

# exec: the new stack is built at the top of the 56-bit space and moved down
# (setup_arg_pages()); the new mm's entry 0 comes with the move, the old mm's goes. With
# the exec RFC ($exec_rfc) it is built in entry 0 and never goes up.
if [ "$exec_rfc" = 1 ]; then
	is "exec: stack built below 47 bits: entry 0 swapped, nothing installed above" \
		"$(events exec)" "p4d_alloc@0x0/parent p4d_free@0x0/parent "
else
	is "exec: stack built at 0xff000000000000 and moved down: that table installed and freed, entry 0 swapped" \
		"$(events exec)" \
		"p4d_alloc@0x0/parent p4d_alloc@0xff000000000000/parent p4d_free@0x0/parent p4d_free@0xff000000000000/parent "
fi
mapfile -t words < <(addrs floor)
floor=$(region_list "${words[@]}")
is "floor: two mappings in one 256 TiB region ($floor) install one table" "$(events floor)" \
	"p4d_alloc@$floor/parent "
is "floor: unmapping the first frees nothing (the second is under the ceiling)" "$(events floor-first)" ""
is "floor: unmapping the second frees the region's table" "$(events floor-second)" "p4d_free@$floor/parent "
mapfile -t words < <(addrs mremap)
read -r from to < <(region_list "${words[@]}" | tr '\n' ' ')
is "mremap from $from to $to: both tables installed, the old one freed by the move" "$(events mremap)" \
	"p4d_alloc@$from/parent p4d_alloc@$to/parent p4d_free@$from/parent "
is "mremap: unmapping the moved page frees the new region's table" "$(events mremap-unmap)" \
	"p4d_free@$to/parent "
# fork: the mappings of this step with pages (the first two) and entry 0; the third,
# never touched, has no anon_vma and fork copies nothing of it (vma_needs_copy()).
mapfile -t forked < <(addrs fork)
touched=$(region_list "${forked[0]}" "${forked[1]}")
want_copy=$(for r in 0x0 $touched; do echo "p4d_alloc@$r/parent"; done | sort | tr '\n' ' ')
want_exit=$(for r in 0x0 $touched; do echo "p4d_free@$r/child"; done | sort | tr '\n' ' ')
is "fork: the parent's own tables for the touched regions" "$(events fork)" \
	"$(for r in $touched; do echo "p4d_alloc@$r/parent"; done | sort | tr '\n' ' ')"
is "fork: the child's tables are entry 0 and the touched regions, not $(region_list "${forked[2]}"); its exit frees them" \
	"$(events fork-copy)" "$(sort <<<"${want_copy// /$'\n'}${want_exit// /$'\n'}" | grep . | tr '\n' ' ')"
is "fork: unmapping frees the parent's two tables" "$(events fork-unmap)" \
	"$(for r in $touched; do echo "p4d_free@$r/parent"; done | sort | tr '\n' ' ')"
# Every free of p4dfree and its child is of a table installed in the run, with its address;
# but exec's free of entry 0, the old mm's table, which the forking shell installed.
is "p4dfree: every freed table was installed in the run, at the same address" "$(awk '
	$1 == "exec" && $2 == "p4d_free" && $3 == "0x0" { next }
	$2 == "p4d_alloc" { addr[$4] = $3 }
	$2 == "p4d_free" { if (!($4 in addr)) print "not installed:", $4; else if (addr[$4] != $3) print $4, addr[$4], $3; delete addr[$4] }' \
	"$tmp/steps")" ""
is "p4dfree: no allocation raced or failed" "$(grep -c 'p4d_alloc-' "$tmp/steps")" 0

# munmap, one region at a time: each unmap frees its region's table before the next maps.
is "p4dstat-churn: munmap frees each region's table before the next region's is installed" \
	"$(awk -v pid="$churn" '$1 == pid && ($2 == "p4d_alloc" || $2 == "p4d_free") {
		sub(/^address=/, "", $4); if ($4 != "0x0" && $4 != "0xff000000000000") printf "%s@%s ", $2, $4 }' \
		"$tmp/events")" \
	"p4d_alloc@0x1000000000000 p4d_free@0x1000000000000 p4d_alloc@0x2000000000000 p4d_free@0x2000000000000 p4d_alloc@0x3000000000000 p4d_free@0x3000000000000 "
tap_done
