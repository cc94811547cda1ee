#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# analysis/report/stats.py and its modules on records made here, with answers worked by hand:
# the intervals the report prints, boots as the unit of replication, a consumer without
# events, the per-function differences, the parts whose logs are missing, and malformed
# records that must stop the report instead of vanishing.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
. tests/lib/tap.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Statistics against values worked by hand (t(0.975, 3) = 3.182).
got=$(cd analysis/report && python3 -c '
from benchstats import mean_ci, welch, median
m, lo, hi = mean_ci([10, 12, 14, 16])       # sd 2.582, se 1.291
print(f"{m:.3f} {lo:.3f} {hi:.3f}")
d, lo, hi = welch([10, 12, 14, 16], [10, 10, 10, 10])
print(f"{d:.3f} {lo:.3f} {hi:.3f}")
print(median([3, 1, 2, 10]), median([5, 1, 3]))
print(mean_ci([7]))')
is "mean_ci, welch, median by hand" "$got" "13.000 8.892 17.108
3.000 -1.108 7.108
2.5 3
(7.0, None, None)"

# Records: two boots per cell of a made-up matrix. swpath row: op,rep,ops,op_ns,empty_ns,
# intr,aux, 4 events, 9 table counters, on.
row() { # CONSUMER KIND OP OPS NS EVENTS-GUA ON [PAGE_CLEAR]
	echo "swpath,$1,$2,$3,0,$4,$5,0,0,0,0,0,0,$6,0,0,0,0,0,0,0,0,${8:-0},$7"
}
logs=$tmp/logs
mkdir -p "$logs"
for r in 1 2; do
	for cell in no5level_4 patched_4 patched_5 vanilla_5; do
		f=$logs/icount_${cell}_$r.log
		base=$((1000 + r))            # boots differ by one instruction
		[ "$cell" != patched_4 ] || base=$((1002 + r))
		[ "$cell" != patched_5 ] || base=$((1100 + r))
		{
			echo "host,status,0"
			row off single fault-file 1 $base 0 0
			row tables single fault-file 1 0 0 0 1
			# tp_btf: +50 per op with one event each boot; tracefs: no event at all.
			row tp_btf single mmap 1 $((base + 50)) 1 1
			row tp_btf single mmap 1 $base 0 0
			row tracefs single syscall 1 $((base + 7)) 0 1
			row tracefs single syscall 1 $base 0 0
			row tp_btf single syscall 1 $base 0 1
		} >"$f"
	done
done
# funcs.so's records (analysis/funcs/run): fault-file, 2 batches of 4 operations, on the
# compiled-out kernel, paging 4 and 5. Per operation: compiled out a 10, b 5, [user] 2
# (17); paging 4 b 6 and c 1 more (19); paging 5 a 110 (119).
funcs() { # CELL A B C
	{
		echo "meta,fault_around_bytes,65536"
		echo "section,0,fault-file"
		echo "swpath,fault-file,0,4,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
		echo "swpath,fault-file,1,4,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
		echo "host,status,0"
	} >"$logs/funcs_$1.log"
	{
		echo "section,pairs,function,insns,entries"
		echo "0,2,[user],16,0"
		echo "0,2,a,$2,8"
		echo "0,2,b,$3,8"
		[ "$4" = 0 ] || echo "0,2,c,$4,8"
		echo "0,2,[total],$((16 + $2 + $3 + $4)),$((16 + 8 * ($4 > 0)))"
	} >"$logs/funcs_$1.csv"
}
funcs no5level_4 80 40 0
funcs patched_4 80 48 8
funcs patched_5 880 48 8
# analysis/run's provenance: each kernel's .config against its patched kernel's.
{
	echo "date 2026-01-01 00:00:00 UTC"
	echo "configdiff_vanilla none"
	echo "configdiff_no5level PGTABLE_LEVELS 5 -> 4, X86_5LEVEL y -> n"
	echo "commit abc1234"
	echo "series 0123456789ab"
} >"$logs/host-icount.txt"
printf 'date 2026-01-02 00:00:00 UTC\ncommit def5678\n' >"$logs/host-funcs.txt"
python3 analysis/report/stats.py "$logs" "$tmp/out" >"$tmp/stdout" 2>"$tmp/err"
is "stats.py on a well-formed matrix exits 0" "$?" 0
md=$tmp/out/results.md
check "provenance: a kernel whose .config equals its patched kernel's says so" \
	grep -qxF '| .config vanilla vs patched | no difference |' "$md"
check "... and one that differs names every option that does" \
	grep -qxF '| .config no5level vs patched | PGTABLE_LEVELS 5 -> 4, X86_5LEVEL y -> n |' "$md"
check "parts run at different commits: each commit with its parts" \
	grep -qxF '| repository | commit abc1234 (part icount), commit def5678 (part funcs), series 0123456789ab |' "$md"
# fault-file: paging 5 boots 1101, 1102; compiled out 1001, 1002. Welch: d = 100,
# se = sqrt(0.25 + 0.25), df = 2, t = 4.303: [96.96, 103.04], in per cent of 1001.5.
check "key table: 5 vs compiled out, Welch over the boots' medians" \
	grep -q '^| read fault, page-cache file, one fault per page | 1,002 | 1,004 | n/a | 1,102 | +9.99% \[+9.68, +10.29\]' "$md"
# tp_btf on mmap: +50 in each of 2 boots, one event per op -> 50 [50, 50] per event, n=2.
check "consumer cost: per boot, then over boots (n=2), per event" \
	grep -qF '+50 (n=2), 50/event' "$md"
# tracefs on getppid fired no event: never a cost per event.
check "a consumer without events reports n/a, with the difference shown as such" \
	grep -qF 'n/a: no event (difference +7 (n=2))' "$md"
check "pages cleared per op come from the tables rows" \
	grep -q '1,002 / 1,002 (0%)\|- / 0.00 / 0.00 / 0.00; 1.00' "$md"
# tracefs on getppid and tp_btf on mmap differ by the same in both boots: no spread.
is "no interval whose two ends are one number (a value without spread stands alone)" \
	"$(grep -oE '\[([^],]+), \1\]' "$md")" ""
is "... and no range written \"X to X\"" "$(grep -oE '(^|[ (])([-+]?[0-9][0-9.,]*%?) to \2([ ,.;)]|$)' "$md")" ""
check "... for instance a consumer's per-event cost over two equal boots" \
	grep -qF '+50 (n=2), 50/event' "$md"
check "the per-function table: each function's counts and differences (5-out, 4-out, 5-4)" \
	grep -qF '| `a` | 10.00 | 10.00 | 110.00 | +100.00 | 0 | +100.00 |' "$md"
check "... whose rows add up to the total difference of each comparison" \
	grep -qF '| **all functions** | 17.00 | 19.00 | 119.00 | **+102.00** | **+2.00** | **+100.00** |' "$md"
# One plugin boot against one icount boot (boot means): fault-file, compiled out boots
# 1001, 1002, paging 4 1003, 1004, paging 5 1101, 1102. 5-out +102 against [99, 101]: 1
# beyond, a +100, b +1 and c +1 leaning that way; 4-out +2 within [1, 3]; 5-4 +100
# against [97, 99]: 1 beyond, a alone leaning that way.
check "per-function totals against one icount boot's range: outside, inside, outside" \
	grep -qF '| one `--icount` boot'"'"'s difference (boot means), range |  |  |  | [+99.00, +101.00] *outside* | [+1.00, +3.00] | [+97.00, +99.00] *outside* |' "$md"
check "... each outside listed under the checks, how far and the functions leaning that way" \
	grep -qF 'one fault per page, paging 5 − compiled out: the plugin boots'"'"' +102.00 lies +1.00 beyond one `--icount` boot'"'"'s range [+99.00, +101.00]; the functions leaning that way most: `a` +100.00, `b` +1.00, `c` +1.00' "$md"
check "... only those leaning that way (5-4: a, not b or c)" \
	grep -qF 'one fault per page, paging 5 − paging 4: the plugin boots'"'"' +100.00 lies +1.00 beyond one `--icount` boot'"'"'s range [+97.00, +99.00]; the functions leaning that way most: `a` +100.00' "$md"
is "... and the difference within its range is not listed" \
	"$(grep -c 'one fault per page, paging 4 − compiled out: the plugin' "$md")" 0
check "the report names the parts whose logs are missing, and how to make them" \
	grep -q 'Missing from this report.*part debian (make kernels-debian, then analysis/run --parts debian); part model' "$md"
check "funcs.csv: per operation, per function" \
	grep -qx 'small guest kernel (tinyconfig + guest-image/kernel.config),fault-file,patched,5,a,110.0000,1.0000' "$tmp/out/funcs.csv"

# analysis/run's config_changes on two made-up .config files, with the tree's diffconfig.
if [ -f build/linux-6.1/scripts/diffconfig ]; then
	printf 'CONFIG_X86_5LEVEL=y\nCONFIG_PGTABLE_LEVELS=5\nCONFIG_A=y\nCONFIG_B=m\n' >"$tmp/a.config"
	printf '# CONFIG_X86_5LEVEL is not set\nCONFIG_PGTABLE_LEVELS=4\nCONFIG_B=m\nCONFIG_C=y\n' \
		>"$tmp/b.config"
	got=$(P4D_TREE=build/linux-6.1 bash -c "$(sed -n '/^config_changes()/,/^}/p' analysis/run)
		config_changes $tmp/a.config $tmp/b.config; config_changes $tmp/a.config $tmp/a.config")
	is "analysis/run's config_changes: changed, removed and added options; none" "$got" \
		"A y -> unset, PGTABLE_LEVELS 5 -> 4, X86_5LEVEL y -> n, C unset -> y
none"
else
	skip "analysis/run's config_changes" "no kernel tree: make tree"
fi

# funcs.so rows that do not add up to their section's total must stop the report.
cp -r "$logs" "$tmp/logs-funcs"
sed -i 's/^0,2,a,880,8$/0,2,a,879,8/' "$tmp/logs-funcs/funcs_patched_5.csv"
python3 analysis/report/stats.py "$tmp/logs-funcs" "$tmp/out3" >"$tmp/stdout" 2>"$tmp/err"
is "funcs.so rows that do not add up to the section's total: exit 1" "$?" 1
check "... naming the file and the section" grep -q 'funcs_patched_5.csv: section 0' "$tmp/err"

# A run with part icount only (no funcs_*.csv): the report is written, and says where the
# per-function counts would come from.
mkdir -p "$tmp/logs-icount"
cp "$logs"/icount_* "$logs/host-icount.txt" "$tmp/logs-icount/"
python3 analysis/report/stats.py "$tmp/logs-icount" "$tmp/out4" >"$tmp/stdout" 2>"$tmp/err"
is "stats.py on part icount alone exits 0" "$? $(tail -n 1 "$tmp/err")" "0 "
check "... and its report says it has no per-function counts" \
	grep -qF 'No per-function counts in this run' "$tmp/out4/results.md"

# A record one column short must stop the report with its file and line.
sed -i '2s/,0,0$/,0/' "$logs/icount_patched_5_2.log"
python3 analysis/report/stats.py "$logs" "$tmp/out2" >"$tmp/stdout" 2>"$tmp/err"
rc=$?
is "a malformed swpath record: exit 1" "$rc" 1
check "... naming the file and line" grep -q 'icount_patched_5_2.log:2: a bad swpath record' "$tmp/err"
check "... and no report written" test ! -e "$tmp/out2/results.md"
tap_done
