#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench QUICK=1 inside make test: the benchmark programs run in their guests and
# their output parses. Never the numbers: timings belong to `make bench`, not to tests.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

out=build/analysis/quick
logs=build/analysis/logs-quick
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. scripts/lib.sh
if [ ! -f "$P4D_KERNELS/patched/arch/x86/boot/bzImage" ]; then
	skip "analysis/run --quick" "no patched kernel: run 'make kernel'"
	tap_done
fi

# From a clean slate: records of earlier quick runs (a wall-time part, say) would count.
rm -rf "$out" "$logs"
analysis/run --quick >"$tmp/run" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
	ok "analysis/run --quick exits 0"
else
	not_ok "analysis/run --quick exits 0" "exit $rc" "$(tail -n 20 "$tmp/run")"
fi

for f in results.md swpath.csv ptmem.csv tpcost.csv calib.csv boots.csv funcs.csv \
	swpath.png swpath.svg tpcost.png tpcost.svg ptmem.png ptmem.svg \
	walkmodel/walkmodel.md walkmodel/walkmodel.csv; do
	check "$out/$f written" test -s "$out/$f"
done
for section in '## Key table' "## Against AMD's lat_pagefault" '## Where the extra of an mmap' \
	'## Where the extra instructions are' '## Page clearing' '## Tracepoint cost'; do
	check "results.md has the section '$section'" grep -q "^$section" "$out/results.md"
done
check "the SVG plots are SVG" bash -c "grep -l '<svg' $out/*.svg | wc -l | grep -qx 3"
# One release and .config hash per kernel the run booted (make test builds no no5level
# kernel: a clean clone boots two, a tree with make kernel-no5level three).
booted=$(awk -F, 'NR > 1 { print $1 }' "$out/swpath.csv" | sort -u)
hashed=$(sed -n 's/^| kernel \([a-z0-9]*\) | .*config sha256 [0-9a-f]\{12\} |$/\1/p' \
	"$out/results.md" | sort)
check "results.md names the config hash of each kernel booted ($(echo $booted))" \
	test -n "$booted" -a "$booted" = "$hashed"

# Every boot of the matrix reached its end: status 0 in boots.csv, none missing.
nboots=$(ls "$logs"/icount_*.log 2>/dev/null | wc -l)
bad=$(awk -F, 'NR > 1 && $5 != 0' "$out/boots.csv")
if [ "$nboots" -gt 0 ] && [ "$(($(wc -l <"$out/boots.csv") - 1))" = "$nboots" ] && [ -z "$bad" ]; then
	ok "all $nboots guest boots ran their benchmark to the end"
else
	not_ok "all guest boots ran their benchmark to the end" "$nboots logs" "$bad"
fi

# All fields of a CSV: the header given, and whole numbers where the header says so.
# parses FILE HEADER NUMERIC-COLUMNS...
parses() {
	local file=$1 header=$2
	shift 2
	[ "$(head -n 1 "$file")" = "$header" ] || { echo "header: $(head -n 1 "$file")"; return 1; }
	awk -F, -v cols="$*" 'BEGIN { n = split(cols, c, " ") }
		NR > 1 { rows++; for (i = 1; i <= n; i++) if ($c[i] !~ /^-?[0-9]+$/) {
			print "line " NR ", column " c[i] ": " $c[i]; bad = 1; exit } }
		END { if (!rows) { print "no rows"; bad = 1 } exit bad }' "$file"
}
check "swpath.csv parses" parses "$out/swpath.csv" \
	"kernel,paging,round,consumer,kind,op,rep,ops,op_ns,empty_ns,intr,aux,ev_p4d_alloc,ev_p4d_free,ev_pgd_sync,ev_gua,alloc_p4d,alloc_pud,alloc_pmd,alloc_pte,free_p4d,free_pud,free_pmd,free_pte,page_clear,on" \
	3 $(seq -s ' ' 7 26)
check "ptmem.csv parses" parses "$out/ptmem.csv" \
	"kernel,paging,round,procs,regions,pt_kb_before,pt_kb_held,pt_kb_after,vmpte_kb_sum,vmpte_kb_first,pte,pmd,pud,p4d,p4d_alloc_held,p4d_free_held,p4d_alloc_all,p4d_free_all" \
	3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18
check "calib.csv parses" parses "$out/calib.csv" "kernel,paging,round,instructions,ns" 3 4 5

# Every booted kernel and paging mode measured every operation with the events off.
ops="syscall fault4k fault-file lat-pagefault faultthp mmap mmap-high mmap-newpud fork exec
munmap-sparse-low munmap-sparse-high clear4k"
missing=$(for cell in $(awk -F, 'NR > 1 { print $1 ":" $2 }' "$out/swpath.csv" | sort -u); do
	for op in $ops; do
		grep -q "^${cell%%:*},${cell#*:},[0-9]*,off,single,$op," "$out/swpath.csv" ||
			echo "$cell $op"
	done
done)
is "every kernel and mode measured every operation" "$missing" ""

# The consumers were toggled sample by sample: with tp_btf attached (on=1) its programs
# counted one x86_get_unmapped_area per mmap the sample did, detached (on=0) none.
for mode in 4 5; do
	got=$(awk -F, -v m=$mode '$1 == "patched" && $2 == m && $4 ~ /tp_btf$/ && $6 == "mmap" {
		if ($26 == 1) { on++; ok_on += ($16 == $8) } else { off++; ok_off += ($16 == 0) } }
		END { printf "%d/%d %d/%d", ok_on, on, ok_off, off }' "$out/swpath.csv")
	read -r a b <<<"$got"
	if [ "${a%/*}" = "${a#*/}" ] && [ "${b%/*}" = "${b#*/}" ] && [ "${a#*/}" -gt 0 ] &&
		[ "${b#*/}" -gt 0 ]; then
		ok "paging $mode: tp_btf counted each mmap's event when attached, none when detached"
	else
		not_ok "paging $mode: tp_btf counted each mmap's event when attached, none when detached" \
			"samples right (on) $a, right (off) $b"
	fi
done
for consumer in tracefs raw_tp tp; do
	n=$(awk -F, -v c=$consumer '$4 == c && $26 == 1' "$out/swpath.csv" | wc -l)
	n0=$(awk -F, -v c="off:$consumer" '$4 == c && $26 == 0' "$out/swpath.csv" | wc -l)
	if [ "$n" -gt 0 ] && [ "$n0" -gt 0 ]; then
		ok "$consumer: samples with and without it"
	else
		not_ok "$consumer: samples with and without it" "$n with, $n0 without"
	fi
done

# ---- the tables pass: page-table pages and cleared pages per operation ----
# tables KERNEL PAGING OP: "ops alloc_p4d alloc_pud alloc_pmd alloc_pte free_p4d free_pud
# free_pmd free_pte page_clear aux", summed over the pass's samples.
tables() {
	awk -F, -v k=$1 -v m=$2 -v op=$3 '$1 == k && $2 == m && $4 == "tables" && $6 == op {
		n++; for (i = 17; i <= 25; i++) s[i] += $i; ops += $8; aux += $12 }
		END { if (!n) { print "none"; exit } printf "%d", ops
			for (i = 17; i <= 25; i++) printf " %d", s[i]; printf " %d\n", aux }' \
		"$out/swpath.csv"
}
# What each layout must build: 5-level mmap at 1 << 48 a P4D, PUD, PMD and PTE table
# (each freed again; the P4D free also enters ___pud_free_tlb, see stats.py) and five
# cleared pages (the four tables and the data page); mmap at 1 << 46, an empty 512 GiB
# region, the PUD chain alone on either depth, at the hint every time.
# analysis/run boots the no5level kernel only when it is built (make bench builds it,
# make test does not): without it its checks are skipped by name, never passed.
cells=("patched 4" "patched 5")
if [ -f "$P4D_KERNELS/no5level/arch/x86/boot/bzImage" ]; then
	cells+=("no5level 4")
else
	skip "no5level: the tables pass on the compiled-out kernel" \
		"no no5level kernel: run 'make kernel-no5level'"
fi
# counts NAME KERNEL PAGING OP: read the tables pass of one cell into n a4 ... aux; a
# cell without one is a failure named NAME.
counts() {
	local name=$1 line
	shift
	line=$(tables "$@")
	if [ "$line" = none ]; then
		not_ok "$name" "no tables rows for $* in swpath.csv"
		return 1
	fi
	read -r n a4 au am at f4 fu fm ft clr aux <<<"$line"
}
name="paging 5, mmap-high: P4D/PUD/PMD/PTE allocated, freed, pages cleared, per op"
counts "$name" patched 5 mmap-high &&
	is "$name" "$a4 $au $am $at $f4 $fu $fm $ft $clr" \
		"$n $n $n $n $n $((2 * n)) $n $n $((5 * n))"
for cell in "${cells[@]}"; do
	name="$cell, mmap-newpud: a new PUD chain and no P4D table per op, at the hint"
	counts "$name" $cell mmap-newpud &&
		is "$name" "$a4 $au $am $at $f4 $fu $fm $ft $clr $aux" \
			"0 $n $n $n 0 $n $n $n $((4 * n)) $n"
	# 512 first touches from a 2M boundary: 512 cleared pages and one PTE table per batch.
	name="$cell, fault4k: one PTE table and 513 cleared pages per 512 faults"
	counts "$name" $cell fault4k &&
		is "$name" "$at $clr" "$((n / 512)) $((n / 512 * 513))"
	# The sparse file: one read fault per page, a PTE table per 32 pages (2 MiB of mapping),
	# nothing else cleared.
	name="$cell, fault-file: one fault per page, a cleared PTE table per 32 pages"
	counts "$name" $cell fault-file &&
		is "$name" "$aux $at $clr" "$n $((n / 32)) $((n / 32))"
done
if [[ " ${cells[*]} " == *" no5level 4 "* ]]; then
	is "no5level: the folded P4D level counts nothing" \
		"$(awk -F, '$1 == "no5level" && $4 == "tables" && ($17 || $21)' "$out/swpath.csv")" ""
fi
missing=$(awk -F, '$4 == "off" && $6 == "clear4k" && $12 != $8 { print $1, $2, $7 }' "$out/swpath.csv")
is "clear4k: every page it cleared reads back zero" "$missing" ""
# lat-pagefault reads every page of its file; fault-around maps 16 pages per fault, one
# fault more where the mapping does not start on a 64 KiB boundary.
wrong=$(awk -F, '$4 == "off" && $6 == "lat-pagefault" && ($12 < $8 / 16 || $12 > $8 / 16 + 1) {
	print $1, $2, $7 ": " $12 " faults for " $8 " pages" }' "$out/swpath.csv")
is "lat-pagefault: one fault per 16 pages read (fault-around)" "$wrong" ""

# ---- the per-function counts (analysis/funcs/run --quick): patched, paging 4 and 5 ----
# per_op CELL OP FUNCTION COLUMN: a function's instructions (4) or entries (5) per
# operation, from the plugin's sections and the guest's batches.
per_op() {
	local log=$logs/funcs_$1.log
	awk -F, -v op="$2" -v f="$3" -v col="$4" 'BEGIN { cur = -1 }
		FNR == NR { if ($1 == "section") cur = $3 == op ? $2 : -1
			else if ($1 == "swpath" && cur >= 0) { sec = cur; ops += $4 }
			next }
		$1 == sec { n = split($3, names, "|"); for (i = 1; i <= n; i++) if (names[i] == f) v += $col }
		END { if (ops) printf "%.4f\n", v / ops; else print "none" }' "$log" "$logs/funcs_$1.csv"
}
for cell in patched_4 patched_5; do
	if [ ! -s "$logs/funcs_$cell.csv" ]; then
		not_ok "funcs $cell: funcs.so wrote its sections" "$(tail -n 3 "$logs/funcs_$cell.err" 2>/dev/null)"
		continue
	fi
	ok "funcs $cell: funcs.so wrote its sections"
	is "funcs $cell: getppid() entered once per call" "$(per_op $cell syscall __x64_sys_getppid 5)" 1.0000
	# One read fault per page (fault-around defeated): one page-fault entry each.
	is "funcs $cell: fault-file enters the page-fault handler once per fault" \
		"$(per_op $cell fault-file asm_exc_page_fault 5)" 1.0000
done

# ---- the walk model (analysis/walkmodel/run --quick): one chase on paging 4 and 5 ----
check "results.md carries the walk model's key table" grep -q '^### Key table' "$out/results.md"
wlogs=build/walkmodel/logs-quick
# metric RUN PRESET SPACE METRIC: one number of walkmodel.so's CSV.
metric() {
	awk -F, -v p="$2" -v s="$3" -v m="$4" '$1 == p && $2 == s && $3 == m { print $4 }' \
		"$wlogs/$1.csv"
}
# refs RUN PRESET SPACE [LEVEL]: walk references, all levels or one.
refs() {
	awk -F, -v p="$2" -v s="$3" -v l="refs_${4:-}" '$1 == p && $2 == s && index($3, l) == 1 {
		n += $4 } END { print n + 0 }' "$wlogs/$1.csv"
}
for mode in 4 5; do
	run=chase-4k_$mode
	# What the workload itself says it did: its result line in the guest's output.
	line=$(grep '^workload=chase ' "$wlogs/$run.log" 2>/dev/null)
	pages=$(sed -n 's/.* pages=\([0-9]*\).*/\1/p' <<<"$line")
	steps=$(sed -n 's/.* steps=\([0-9]*\).*/\1/p' <<<"$line")
	check "paging $mode: the chase ran and checked its cycle" grep -q 'cycle_ok=1' <<<"$line"
	if [ ! -s "$wlogs/$run.csv" ] || [ ! -s "$wlogs/$run.json" ]; then
		not_ok "paging $mode: walkmodel.so wrote $run.csv and .json"
		continue
	fi
	ok "paging $mode: walkmodel.so wrote $run.csv and .json"
	check "paging $mode: the plugin walked $mode-level tables" grep -q "\"levels\": $mode," "$wlogs/$run.json"
	check "paging $mode: one measured part after one warm-up" \
		grep -q '"marks": {"start": 1, "stop": 1, "warmup": 1}' "$wlogs/$run.json"
	# The workload did one load per step: user accesses at least the steps, all on 4K
	# pages (THP never), every page of the chase walked at least once, never more walks
	# than accesses, and no walk that found the guest's tables wrong.
	acc=$(metric $run zen4 user accesses)
	walks=$(metric $run zen4 user walks)
	is "paging $mode: user accesses all on 4K pages" "$(metric $run zen4 user accesses_4K)" "$acc"
	check "paging $mode: $steps chase steps, at least as many user accesses ($acc)" test "$acc" -ge "$steps"
	check "paging $mode: $pages pages <= user walks ($walks) <= accesses" \
		test "$walks" -ge "$pages" -a "$walks" -le "$acc"
	is "paging $mode: no failed walk" "$(metric $run zen4 user walks_failed)" 0
	is "paging $mode: no stale TLB entry (the guest's tables read right)" \
		"$(metric $run zen4 user stale_refills)" 0
	# Without paging-structure caches every walk of a 4K page reads one entry per level.
	nopsc_walks=$(metric $run nopsc user walks)
	is "paging $mode: nopsc: references = $mode x walks" "$(refs $run nopsc user)" \
		"$((mode * nopsc_walks))"
	if [ $mode = 4 ]; then
		is "paging 4: no PML5E read" "$(refs $run zen4 user PML5E)$(refs $run zen4 kernel PML5E)" 00
	else
		is "paging 5: nopsc reads one PML5E per walk" "$(refs $run nopsc user PML5E)" "$nopsc_walks"
		# The chase lives in one 256 TiB region: zen4's PML5E cache answers nearly all.
		p5=$(refs $run zen4 user PML5E)
		check "paging 5: zen4 reads a PML5E in under 1% of walks ($p5 of $walks)" \
			test $((p5 * 100)) -lt "$walks"
	fi
done
# The records name the kernel they were made on, and --only will not mix in a cell of
# another kernel.
kernel=$(sed -n 's/^kernel,//p' "$wlogs/info.csv")
check "walk model: info.csv names the guest kernel's series and config hash" \
	grep -q "series $(series_id | cut -c1-12), config sha256 $(sha256sum <"$P4D_KERNELS/patched/.config" | cut -c1-12)\$" <<<"$kernel"
cp "$wlogs/info.csv" "$tmp/info.csv"
sed -i 's/^kernel,.*/kernel,another kernel/' "$wlogs/info.csv"
analysis/walkmodel/run --quick --only chase-4k_5 >"$tmp/only.out" 2>&1
is "walk model: --only on records of another kernel exits 1" "$?" 1
check "... saying whose they are" grep -q 'made on another kernel (another kernel): run the whole matrix' "$tmp/only.out"
cp "$tmp/info.csv" "$wlogs/info.csv"
tap_done
