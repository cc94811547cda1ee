# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# How two la57-check runs compare: sourced by la57check/collect (which runs the brk-only
# run when the high run differs) and scripts/la57-check (the verdict), so both mean the
# same by "the same". A run is DIR/RUN.report (la57-place's key=value lines), RUN.out
# and RUN.err.

# report_value DIR RUN KEY: KEY's value in RUN's report.
report_value() {
	sed -n "s/^$3=//p" "$1/$2.report" | head -n 1
}

# same_run DIR A B: A and B ended the same way: the same exit status or signal, the same
# stdout and stderr byte for byte, and, when both died of a fault, the same signal code
# and, where both faulted in a file's code, the same place in it (a JIT's code moves
# with its mapping, so an address in generated code says nothing).
same_run() {
	local dir=$1 a=$2 b=$3 at_a at_b
	[ "$(report_value "$dir" "$a" exit)" = "$(report_value "$dir" "$b" exit)" ] || return 1
	cmp -s "$dir/$a.out" "$dir/$b.out" && cmp -s "$dir/$a.err" "$dir/$b.err" || return 1
	[[ $(report_value "$dir" "$a" exit) == signal* ]] || return 0
	[ "$(report_value "$dir" "$a" fault_code)" = "$(report_value "$dir" "$b" fault_code)" ] ||
		return 1
	at_a=$(report_value "$dir" "$a" fault_ip_in) at_b=$(report_value "$dir" "$b" fault_ip_in)
	[[ $at_a != /* || $at_b != /* ]] || [ "$at_a" = "$at_b" ]
}
