#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In-guest smoke test: the guest environment run-guest promises, and the first visible
# difference of the paging mode (where a high mmap hint lands, the p4d level in ptdump).
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh

la57=$(grep -c '^flags.* la57' /proc/cpuinfo)
if [ "$mode" = 5 ]; then
	check "paging 5: every CPU has la57" test "$la57" -eq "$(grep -c ^processor /proc/cpuinfo)"
else
	is "paging $mode: no CPU has la57" "$la57" 0
fi

# A name of its own: other runs may write to the same directory at the same time.
check "results directory is writable" \
	sh -c 'f=$(mktemp "$P4DSCOPE_OUT/smoke.XXXXXX") && echo x >"$f" && rm "$f"'
check "tracefs is mounted" test -f /sys/kernel/tracing/trace_pipe
check "ptdump is available" test -r /sys/kernel/debug/page_tables/kernel

got=$("$bin"/mmaphint $((1 << 50)))
want=$([ "$mode" = 5 ] && echo yes || echo no)
is "mmap hint 1<<50 lands above 47 bits: $want" "${got##*above47=}" "$want"

p4d_lines=$(grep -c ' p4d$' /sys/kernel/debug/page_tables/kernel)
if [ "$mode" = 5 ]; then
	check "ptdump shows the p4d level" test "$p4d_lines" -gt 0
else
	is "ptdump shows no p4d level" "$p4d_lines" 0
fi

tap_done
