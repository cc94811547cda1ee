#!/usr/bin/env bash
# Last in every boot of the suite: the kernel log holds no warning, BUG, oops or lockdep
# (or, on the debug flavour, KASAN / DEBUG_VM / atomic-sleep) report from anything the
# suite did. The whole log is read, boot included; it must still start at the boot
# banner, so a report cannot have scrolled out of the ring buffer unseen.
set -uo pipefail
cd "$(dirname "$0")"
. ../lib/tap.sh

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
report "WARNING" 'WARNING:|-{12}\[ cut here \]-{12}'
report "BUG" 'BUG:|kernel BUG at|Bad page (state|map)|bad (pmd|pud|p4d|pgd)'
report "Oops or general protection fault" 'Oops|general protection fault|Kernel panic'
report "lockdep report" 'possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|INFO: lockdep|possible irq lock inversion|lock held when returning|lockdep is turned off'
report "KASAN or UBSAN report" 'KASAN:|UBSAN:'
report "sleeping in atomic context" 'sleeping function called from invalid context|scheduling while atomic'
report "page table check or VM_BUG report" 'page_table_check|VM_BUG_ON|dump_page|dump_vma|dump_mm'
tap_done
