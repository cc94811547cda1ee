#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# funcs.so in a guest, on a workload whose path is known (analysis/funcs/syscalls.c):
# getppid() N times per round between the marks, then an empty loop of N turns, each its
# own section, under --icount. The plugin must see the system call's entry functions
# run exactly N times in each call section and never in an empty one, and count for the
# N calls (less the empty loop) what the --icount clock measured around them. Also its
# refusals: one QEMU start each, no boot.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kernel=$P4D_KERNELS/patched
if [ ! -f "$kernel/arch/x86/boot/bzImage" ]; then
	skip "funcs.so in a guest" "no patched kernel: run 'make kernel'"
	tap_done
fi
if ! make -s -C analysis/funcs plugin guest >"$tmp/make" 2>&1; then
	not_ok "funcs.so and its guest programs build" "$(tail -n 5 "$tmp/make")"
	tap_done
fi
so=build/funcs/funcs.so
nm -n -S "$kernel/vmlinux" >"$tmp/syms"

# refuses NAME WANT PLUGIN-ARGS: QEMU does not start, the reason reaches stderr, exit 125.
refuses() {
	local rc
	scripts/run-guest --timeout 60 --plugin "$so$3" -- true >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 125 ] && grep -q "^funcs: .*$2" "$tmp/err"; then
		ok "refuses $1: exit 125, '$2'"
	else
		not_ok "refuses $1: exit 125, '$2'" "exit $rc" "$(head -c 400 "$tmp/err")"
	fi
}
refuses "an unknown argument" "bad argument 'colour=blue'" ",colour=blue,syms=$tmp/syms,out=$tmp/r"
refuses "a missing symbol file" "cannot read $tmp/none" ",syms=$tmp/none,out=$tmp/r"
refuses "no output prefix" "needs syms=FILE .* and out=PREFIX" ",syms=$tmp/syms"

n=1000 rounds=4
scripts/run-guest --icount --paging 5 --timeout 900 \
	--plugin "$so,syms=$tmp/syms,out=$tmp/res" -- build/funcs/syscalls -n $n -r $rounds \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
is "syscalls under funcs.so: exit 0" "$rc" 0
if [ ! -s "$tmp/res.csv" ]; then
	not_ok "funcs.so wrote its sections" "$(tail -n 5 "$tmp/err")"
	tap_done
fi
is "one section per round's calls and one per its empty loop" \
	"$(awk -F, 'NR > 1 { print $1 }' "$tmp/res.csv" | sort -nu | wc -l)" $((2 * rounds))
# entries SECTION FUNCTION: how often FUNCTION (one of its names) was entered.
entries() {
	awk -F, -v s="$1" -v f="$2" 'NR > 1 && $1 == s { n = split($3, names, "|")
		for (i = 1; i <= n; i++) if (names[i] == f) e += $5 } END { print e + 0 }' "$tmp/res.csv"
}
# insns SECTION: the section's total.
insns() {
	awk -F, -v s="$1" '$1 == s && $3 == "[total]" { print $4 }' "$tmp/res.csv"
}
bad_entries='' bad_empty='' bad_sum='' diffs=''
for r in $(seq 0 $((rounds - 1))); do
	calls=$((2 * r)) empty=$((2 * r + 1))
	for f in entry_SYSCALL_64 __x64_sys_getppid; do
		[ "$(entries $calls $f)" = $n ] || bad_entries+=" round $r $f: $(entries $calls $f)"
		[ "$(entries $empty $f)" = 0 ] || bad_empty+=" round $r $f: $(entries $empty $f)"
	done
	sum=$(awk -F, -v s=$calls '$1 == s && $3 != "[total]" { n += $4 } END { print n }' "$tmp/res.csv")
	[ "$sum" = "$(insns $calls)" ] || bad_sum+=" section $calls: $sum vs $(insns $calls)"
	# What the clock saw, less the empty loop, against the plugin's count, less the same.
	read -r clock_calls clock_empty < <(awk -F, -v r="$r" '$1 == "syscalls" && $2 == r {
		print $4, $5 }' "$tmp/out")
	diffs+=" $(( (clock_calls - clock_empty) - ($(insns $calls) - $(insns $empty)) ))"
done
is "entry_SYSCALL_64 and __x64_sys_getppid run N=$n times per round's calls" "$bad_entries" ""
is "... and never in an empty loop" "$bad_empty" ""
is "the functions of a section add up to its total" "$bad_sum" ""
# The clock reads whole guest ns; each of the two differences may round by one.
far=$(for d in $diffs; do [ "${d#-}" -le 2 ] || echo "$d"; done)
is "N calls less N empty turns: the plugin's count equals --icount's, +-2 (clock rounding):$diffs" \
	"$far" ""
tap_done
