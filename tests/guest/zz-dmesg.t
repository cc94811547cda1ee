#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Last in every boot of the suite: the kernel log holds no warning, BUG, oops or lockdep
# (or, on the debug flavour, KASAN / DEBUG_VM / atomic-sleep) report, no RCU stall, hung
# task, page allocation failure or OOM kill from anything the suite did. The whole log is read, boot included; it must still start at the boot
# banner, so a report cannot have scrolled out of the ring buffer unseen.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh

mapfile -t log < <(dmesg 2>&1)
banner=0
for line in "${log[@]}"; do [[ $line != *"Linux version"* ]] || banner=1; done
is "the kernel log still holds the boot banner (nothing scrolled out)" "$banner" 1

# report NAME REGEX: no log line matches (matched in bash: no process per category).
report() {
	local line hits=()
	for line in "${log[@]}"; do
		[[ ! $line =~ $2 ]] || hits+=("$line")
	done
	if [ ${#hits[@]} -eq 0 ]; then ok "dmesg: no $1"; else not_ok "dmesg: no $1" "${hits[@]:0:20}"; fi
}
# One report is known and not ours: Debian's 6.1.192 backports "mm/hugetlb: unshare page
# tables during VMA split, not before" with hugetlb_split() called in __vma_adjust()
# before the i_mmap lock is taken, so lockdep's i_mmap_assert_write_locked() warns at
# every split of a hugetlb VMA (a partial munmap is enough; docs/validation.md).
# Exactly those reports, whole (cut here .. end trace), leave the log before the checks:
# the assertion, reached from __vma_adjust() through hugetlb_split() only: for a shared
# VMA spanning a whole PUD, hugetlb_split() tail-calls hugetlb_unshare_pmds(), whose
# frames (and huge_pmd_unshare_flush()'s) then stand in for its own.
unshare_frames='(hugetlb_split|hugetlb_unshare_pmds|huge_pmd_unshare_flush)'
known_report() {	# LINES...: one report, cut here .. end trace
	local line warning=0 frames=()
	for line; do
		[[ $line != *"WARNING:"*" i_mmap_assert_write_locked+"* ]] || warning=1
		# Reliable call-trace frames only: "[ time]  func+0xoff/0xsize" ("? func" is a guess).
		[[ ! $line =~ \]\ +([A-Za-z0-9_.]+)\+0x[0-9a-f]+/0x[0-9a-f]+ ]] ||
			frames+=("${BASH_REMATCH[1]}")
	done
	[ $warning = 1 ] && [[ "${frames[*]} " =~ ^($unshare_frames\ )+__vma_adjust\  ]]
}
known=0 in_report=0 report_lines=()
kept=()
for line in "${log[@]}"; do
	if [[ $line == *"[ cut here ]"* ]]; then
		# A report that never reached its end (another began) stays in the log.
		[ $in_report = 0 ] || kept+=("${report_lines[@]}")
		in_report=1 report_lines=("$line")
		continue
	fi
	if [ $in_report = 1 ]; then
		report_lines+=("$line")
		[[ $line == *"---[ end trace"* ]] || continue
		in_report=0
		if known_report "${report_lines[@]}"; then
			known=$((known + 1))
		else
			kept+=("${report_lines[@]}")
		fi
		continue
	fi
	kept+=("$line")
done
[ $in_report = 0 ] || kept+=("${report_lines[@]}")	# a report cut short stays
[ $known -eq 0 ] || echo "# dmesg: $known known report(s) of hugetlb_split() without the i_mmap lock (Debian 6.1.192)"
full_log=("${log[@]}")
log=("${kept[@]}")

report "WARNING" 'WARNING:|-{12}\[ cut here \]-{12}'
report "BUG" 'BUG:|kernel BUG at|Bad page (state|map)|bad (pmd|pud|p4d|pgd)'
report "Oops or general protection fault" 'Oops|general protection fault|Kernel panic'
report "lockdep report" 'possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|INFO: lockdep|possible irq lock inversion|lock held when returning|lockdep is turned off'
report "KASAN or UBSAN report" 'KASAN:|UBSAN:'
report "sleeping in atomic context" 'sleeping function called from invalid context|scheduling while atomic'
report "page table check or VM_BUG report" 'page_table_check|VM_BUG_ON|dump_page|dump_vma|dump_mm'
# Hangs and memory exhaustion (guest-image/kernel.config: a soft lockup or a hung task
# panics the guest, so these are the reports that leave a boot running).
report "RCU stall" 'rcu: INFO: .*detected stall|rcu: .*self-detected stall|rcu_[a-z]+ kthread (starved|timer wakeup)'
report "hung task" 'blocked for more than [0-9]+ seconds'
report "page allocation failure" 'page allocation failure'
report "OOM killer" 'invoked oom-killer|Out of memory: Kill|oom-kill:'

# A failure shows 20 lines; the whole log goes where the host can read it afterwards.
if [ $tap_failed -ne 0 ] && [ -d "${P4DSCOPE_OUT:-}" ]; then
	saved=$P4DSCOPE_OUT/dmesg-$(uname -r)-paging${P4DSCOPE_PAGING:-x}-$(date +%s).txt
	printf '%s\n' "${full_log[@]}" >"$saved" && echo "# the whole kernel log: $saved"
fi
tap_done
