#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host test of tests/guest/zz-dmesg.t's report matcher, against a kernel log captured from
# the debug guest (fixtures/dmesg-hugetlb-split.txt: six lockdep reports of the known
# Debian hugetlb_split() bug, two through hugetlb_unshare_pmds()). zz-dmesg.t reads the log
# through a fake dmesg on PATH; nothing touches the host kernel.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

fixture=tests/host/fixtures/dmesg-hugetlb-split.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/out"
printf '#!/bin/sh\ncat "%s"\n' "$tmp/log" >"$tmp/bin/dmesg"
chmod +x "$tmp/bin/dmesg"

# check_log NAME WANT_STATUS GREP_PATTERN: run zz-dmesg.t on $tmp/log; its exit status
# must be WANT_STATUS and its output must hold a line matching GREP_PATTERN.
check_log() {
	local out rc
	rm -f "$tmp/out"/*
	out=$(PATH="$tmp/bin:$PATH" P4DSCOPE_OUT="$tmp/out" P4DSCOPE_PAGING=5 \
		tests/guest/zz-dmesg.t 2>&1)
	rc=$?
	if [ "$rc" = "$2" ] && grep -qE -- "$3" <<<"$out"; then
		ok "$1"
	else
		not_ok "$1" "exit $rc (want $2), want a line matching '$3' in:" "$out"
	fi
}

cp "$fixture" "$tmp/log"
check_log "the six known reports are recognised and nothing else fails" 0 \
	'^# dmesg: 6 known report\(s\)'
check_log "the known reports pass every check" 0 '^1\.\.12$'
is "a passing run saves no log" "$(ls "$tmp/out")" ""

# Reports two and three come through hugetlb_split and hugetlb_unshare_pmds; give each
# another caller: the bug is only known when __vma_adjust() is the caller.
sed '0,/__vma_adjust+/s//vma_merge+/' "$fixture" >"$tmp/log"
check_log "the assertion from another caller than __vma_adjust is a WARNING" 1 \
	'^not ok [0-9]+ dmesg: no WARNING'
check_log "the failing run names where the whole log went" 1 "^# the whole kernel log: $tmp/out/"
saved=$(ls "$tmp/out"/dmesg-*-paging5-*.txt 2>/dev/null | head -n 1)
is "the saved log is the whole log" "$(wc -l <"${saved:-/dev/null}")" "$(wc -l <"$fixture")"

sed '0,/hugetlb_unshare_pmds+/s//hugetlb_vmdelete_list+/' "$fixture" >"$tmp/log"
check_log "an unshare from another path than hugetlb_split is a WARNING" 1 \
	'^not ok [0-9]+ dmesg: no WARNING'

sed '0,/fs.h:509 i_mmap_assert_write_locked+/s//mm\/memory.c:1 zap_pte_range+/' \
	"$fixture" >"$tmp/log"
check_log "another assertion on the same path is a WARNING" 1 '^not ok [0-9]+ dmesg: no WARNING'

# The first report loses its end: the next report begins inside it.
sed '0,/---\[ end trace/{/---\[ end trace/d}' "$fixture" >"$tmp/log"
check_log "a report cut short by the next one stays in the log" 1 '^not ok [0-9]+ dmesg: no WARNING'

sed 1d "$fixture" >"$tmp/log"
check_log "a log without the boot banner fails" 1 '^not ok 1 the kernel log still holds the boot banner'

{ cat "$fixture"; echo "[   80.000000] BUG: KASAN: use-after-free in p4d_free+0x10/0x20"; } >"$tmp/log"
check_log "a KASAN report after the known ones fails" 1 '^not ok [0-9]+ dmesg: no KASAN or UBSAN report'

# after_known NAME CHECK LINE: LINE added after the known reports makes CHECK fail.
# The lines are the kernel's own wording (kernel/rcu/tree_stall.h, kernel/hung_task.c,
# mm/page_alloc.c warn_alloc(), mm/oom_kill.c).
after_known() {
	{ cat "$fixture"; echo "[   90.000000] $3"; } >"$tmp/log"
	check_log "$1" 1 "^not ok [0-9]+ dmesg: no $2\$"
}
after_known "an RCU stall fails" "RCU stall" \
	"rcu: INFO: rcu_sched detected stalls on CPUs/tasks:"
after_known "an RCU self-detected stall fails" "RCU stall" \
	"rcu: INFO: rcu_sched self-detected stall on CPU"
after_known "a starved RCU kthread fails" "RCU stall" \
	"rcu: rcu_sched kthread starved for 60002 jiffies! g2345 f0x0 RCU_GP_WAIT_FQS(5) ->state=0x0 ->cpu=1"
after_known "a hung task fails" "hung task" \
	"INFO: task p4drace:215 blocked for more than 120 seconds."
after_known "a page allocation failure fails" "page allocation failure" \
	"highmap: page allocation failure: order:0, mode:0xcc0(GFP_KERNEL), nodemask=(null)"
after_known "the OOM killer fails" "OOM killer" \
	"mmapfuzz invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0"
after_known "an OOM kill fails" "OOM killer" \
	"Out of memory: Killed process 230 (mmapfuzz) total-vm:2105344kB, anon-rss:1900000kB"
# nomem.t's forced failure logs this once; it is not the OOM killer.
{ cat "$fixture"; echo "[   90.000000] Huh VM_FAULT_OOM leaked out to the #PF handler. Retrying PF"; } >"$tmp/log"
check_log "pagefault_out_of_memory()'s retry notice is no OOM kill" 0 '^ok [0-9]+ dmesg: no OOM killer$'
tap_done
