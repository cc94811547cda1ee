#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The series' P4D events, read from tracefs directly (no tool of ours): the four events'
# formats, then p4d_alloc and p4d_free field by field against the layout a workload
# creates and the addresses mmap gave it. get_unmapped_area is events-window.t's,
# kernel_pgd_sync events-sync.t's.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh

## formats
check_format() {
	local ev=$1 f missing=()
	shift
	for f in "$@"; do
		grep -qE "field:[^;]*[ *]$f;" "$tfs/events/$ev/format" 2>/dev/null || missing+=("$f")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		ok "$ev has fields: $*"
	else
		not_ok "$ev has fields: $*" "missing: ${missing[*]}"
	fi
}
check_format pgtable/p4d_alloc mm address pfn init_mm outcome
check_format pgtable/p4d_free mm address pfn
check_format pgtable/kernel_pgd_sync start end level copied visited
check_format mmap/x86_get_unmapped_area hint len flags path window high_limit outcome result

## P4D tables: K distinct high PGD-entry regions in each of N fresh processes. The
## window event of the same mmaps is recorded by the same instance: it is the control
## that the instance worked where the P4D events must stay silent.
K=3 N=4
trace_start p4d pgtable/p4d_alloc pgtable/p4d_free mmap/x86_get_unmapped_area
"$bin"/highmap $K $N >"$tmp/highmap" &
highmap=$!
wait $highmap
is "highmap: all $N children mapped $K regions" "$?" 0
trace_stop p4d "$tmp/p4d"
is "highmap reported $N children" "$(grep -c '^child=[0-9]* status=0' "$tmp/highmap")" $N

# Child I maps region I << 48 for I in 1..K: the window event must show that hint, the
# address mmap returned, and the window and outcome of the mode (5-level honours the
# hint from the full window; 4-level and no5lvl search the default one).
if [ "$mode" = 5 ]; then want_decision="window=full outcome=hint"
else want_decision="window=default outcome=search"; fi
bad=() windows=0
while read -r child _ addrs; do
	pid=${child#child=} i=0
	want=$(for a in $addrs; do i=$((i + 1)); printf '0x%x %s %s\n' $((i << 48)) "${a#addr=}" "$want_decision"; done | sort)
	got=$(awk -v pid="$pid" '$1 == pid && $2 == "x86_get_unmapped_area" {
		sub(/^hint=/, "", $3); sub(/^result=/, "", $10); print $3, $10, $7, $9 }' "$tmp/p4d" | sort)
	windows=$((windows + $(grep -c . <<<"$got")))
	[ "$got" = "$want" ] || bad+=("child $pid: events [$got]" "  want [$want]")
done <"$tmp/highmap"
if [ ${#bad[@]} -eq 0 ] && [ $windows = $((N * K)) ]; then
	ok "window events: each child's $K mmaps with their hint, the address mmap returned, $want_decision"
else
	not_ok "window events: each child's $K mmaps with their hint, the address mmap returned, $want_decision" \
		"${bad[@]}" "$windows events from the children, want $((N * K))"
fi

if [ "$mode" = 5 ]; then
	# Per child, from the events' own address fields: it allocated one table per
	# region it mapped (the region of the address mmap returned; the table of PGD entry
	# 0 came with fork, in the parent), and its exit freed those and entry 0's.
	alloc_bad=() free_bad=()
	while read -r child _ addrs; do
		pid=${child#child=}
		regions=$(for a in $addrs; do region_of "${a#addr=}"; done | sort -u)
		got=$(values_of "$tmp/p4d" "$pid" p4d_alloc address)
		[ "$got" = "$regions" ] || alloc_bad+=("child $pid: p4d_alloc at [${got//$'\n'/ }], mapped regions [${regions//$'\n'/ }]")
		want=$({ echo 0x0; echo "$regions"; } | sort)
		got=$(values_of "$tmp/p4d" "$pid" p4d_free address)
		[ "$got" = "$want" ] || free_bad+=("child $pid: p4d_free at [${got//$'\n'/ }], want [${want//$'\n'/ }]")
	done <"$tmp/highmap"
	if [ ${#alloc_bad[@]} -eq 0 ]; then
		ok "p4d_alloc address: each child's tables are exactly the 256 TiB regions of what mmap returned"
	else
		not_ok "p4d_alloc address: each child's tables are exactly the 256 TiB regions of what mmap returned" "${alloc_bad[@]}"
	fi
	if [ ${#free_bad[@]} -eq 0 ]; then
		ok "p4d_free address: each child's exit freed entry 0's table and its regions'"
	else
		not_ok "p4d_free address: each child's exit freed entry 0's table and its regions'" "${free_bad[@]}"
	fi
	# highmap itself: its exec built the new stack at the top of the 56-bit space
	# (region 0xff000000000000) and moved it down, and each fork copied entry 0
	# (docs/events.md): N + 1 tables at 0x0 and one at 0xff000000000000. A kernel
	# with the exec RFC ($exec_rfc) builds it below 47 bits: no table up there.
	want="0x0 x $((N + 1)) 0xff000000000000 x 1 "
	[ "$exec_rfc" = 0 ] || want="0x0 x $((N + 1)) "
	is "p4d_alloc address: highmap's exec and its $N forks ($want)" \
		"$(values_of "$tmp/p4d" $highmap p4d_alloc address | uniq -c | awk '{ printf "%s x %s ", $2, $1 }')" \
		"$want"
	is "p4d_alloc init_mm: no table of the run is init_mm's (init_mm=0)" \
		"$(grep ' p4d_alloc ' "$tmp/p4d" | grep -vc ' init_mm=0 ')" 0
	# Pairing by pfn: each free is of a table installed in the run, with its address.
	is "p4d_free pfn: every freed table was installed in the run, and carries its address" "$(awk '
		$2 == "p4d_alloc" && /outcome=installed/ { addr[$5] = $4 }
		$2 == "p4d_free" { if (!($5 in addr)) print "not installed:", $5; else if (addr[$5] != $4) print $5, addr[$5], $4; delete addr[$5] }' \
		"$tmp/p4d")" ""
	is "installed tables = freed tables over the run" \
		"$(grep -c ' p4d_alloc .*outcome=installed' "$tmp/p4d")" "$(grep -c ' p4d_free ' "$tmp/p4d")"
	is "no p4d_alloc of the run raced or failed" \
		"$(grep ' p4d_alloc ' "$tmp/p4d" | grep -vc 'outcome=installed')" 0
else
	# The control above passed only if this instance recorded the children's mmaps.
	is "paging $mode: p4d_alloc never fires (control: $windows window events recorded)" \
		"$windows $(grep -c ' p4d_alloc ' "$tmp/p4d")" "$((N * K)) 0"
	is "paging $mode: p4d_free never fires (control: $windows window events recorded)" \
		"$windows $(grep -c ' p4d_free ' "$tmp/p4d")" "$((N * K)) 0"
	high=$(grep -o 'addr=0x[0-9a-f]*' "$tmp/highmap" | while read -r a; do
		[ $((${a#addr=} >> 47)) -eq 0 ] || echo "$a"; done)
	is "paging $mode: high hints fall back below 47 bits" "$high" ""
fi

tap_done
