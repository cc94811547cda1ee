#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Two ftrace users on one function: the function tracer of a tracefs instance and a
# kprobe on ksys_sync(), then sync(1). Each must see the call, and the kernel must live
# through it. On 7.3 built with GCC 12 and CONFIG_CC_OPTIMIZE_FOR_SIZE, functions may
# start at odd addresses, which x86's ftrace takes for its jmp flag: the call to the ops
# list function became a jmp and the first call oopsed, and with it every bpftrace kfunc
# probe that shares a function with a kprobe (patches/7.3/fixes/0002). On 7.3 without
# that fix, both tracers record the call, then the oops kills sync (status 137) and
# reading enabled_functions warns ("Expected E8, got e9"): checks 3 and 6 fail.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh

func=ksys_sync
inst=$tfs/instances/ftshared
group=p4dscope_ftshared

cleanup() {
	{
		echo 0 >"$inst/events/$group/enable"
		echo nop >"$inst/current_tracer"
		echo "-:$group/sync" >>"$tfs/kprobe_events"
		rmdir "$inst"
	} 2>/dev/null
}
at_exit cleanup
cleanup
dmesg_before=$(dmesg | wc -l)

mkdir "$inst" &&
	echo "$func" >"$inst/set_ftrace_filter" &&
	echo function >"$inst/current_tracer" &&
	echo "p:$group/sync $func" >>"$tfs/kprobe_events" &&
	echo 1 >"$inst/events/$group/enable"
is "the function tracer and a kprobe on $func, in instance ftshared" "$?" 0
# enabled_functions counts the site's ftrace users ("(2)"). Reading it makes ftrace
# decode the call in ftrace_regs_caller, which warned on the broken kernel.
is "enabled_functions: $func has two ftrace users" \
	"$(sed -n "s/^$func (\([0-9]*\)).*/\1/p" "$tfs/enabled_functions")" 2

sync
is "sync(1) ran" "$?" 0

echo 0 >"$inst/tracing_on"
is "the function tracer saw $func" \
	"$(grep -cE "^ *sync-[0-9]+ .*: $func <-" "$inst/trace")" 1
is "the kprobe saw $func" \
	"$(grep -cE "^ *sync-[0-9]+ .*: sync: \($func\+0x0" "$inst/trace")" 1
is "no kernel warning meanwhile" \
	"$(dmesg | tail -n +$((dmesg_before + 1)) | grep -E 'WARNING|Expected E8' | head -3)" ""
tap_done
