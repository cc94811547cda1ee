# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# How two la57-check runs compare: sourced by la57check/collect (which decides from it
# whether to run the program again and with brk alone refused) and scripts/la57-check
# (the verdict), so both mean the same by "the same". A run is DIR/RUN.report
# (la57-place's key=value lines), RUN.out and RUN.err.
#
# A program may end differently on its own from one run to the next: print an address
# (ASLR), a time, a pid, or start its children in another order. When the usual run and
# the high run differ, the usual run is made a second time ("again"); what differs
# between those two is the program's own doing and is not held against placement:
# a stream whose two usual runs differ only in their numbers is compared with every
# number masked, any other aspect that differs between them is left out, by name.

# report_value DIR RUN KEY: KEY's value in RUN's report.
report_value() {
	sed -n "s/^$3=//p" "$1/$2.report" | head -n 1
}

# The aspects of a run that are compared, in the order they are shown.
readonly ASPECTS="exit out err children"

# aspect_text DIR RUN ASPECT [masked]: what ASPECT of RUN is, to compare; "masked"
# replaces every number by one placeholder: decimal, 0x-prefixed hex, and runs of 8 or
# more hex digits (an address printed without its 0x, as /proc/PID/maps does).
aspect_text() {
	local dir=$1 run=$2 aspect=$3
	case "$aspect" in
	exit) report_value "$dir" "$run" exit ;;
	children) report_value "$dir" "$run" child_ends ;;
	out | err) cat -- "$dir/$run.$aspect" ;;
	esac | if [ "${4:-}" = masked ]; then
		sed -E 's/0[xX][0-9a-fA-F]+|[0-9a-fA-F]{8,}|[0-9]+/#/g'
	else
		cat
	fi
}

# variation DIR ASPECT: how the two usual runs (normal and again) differ in ASPECT, one
# word: none (the same, or again was not made), numbers (the same with numbers masked;
# never said of exit or children, whose numbers mean something) or beyond.
variation() {
	local dir=$1 aspect=$2
	if [ ! -f "$dir/again.report" ] ||
		cmp -s <(aspect_text "$dir" normal "$aspect") <(aspect_text "$dir" again "$aspect"); then
		echo none
	elif [ "$aspect" = exit ] || [ "$aspect" = children ] ||
		! cmp -s <(aspect_text "$dir" normal "$aspect" masked) \
			<(aspect_text "$dir" again "$aspect" masked); then
		echo beyond
	else
		echo numbers
	fi
}

# compare_aspect DIR A B ASPECT: how ASPECT of runs A and B compares, one word:
#   same      the same
#   differs   different, and the two usual runs agree on it (or were not both made)
#   masked    the usual runs differ in numbers only; A and B agree with numbers masked
#   masked-differs  ... and A and B differ even so
#   varies    the usual runs differ beyond numbers: not compared
compare_aspect() {
	local dir=$1 a=$2 b=$3 aspect=$4
	if cmp -s <(aspect_text "$dir" "$a" "$aspect") <(aspect_text "$dir" "$b" "$aspect"); then
		echo same
		return
	fi
	case $(variation "$dir" "$aspect") in
	none) echo differs ;;
	beyond) echo varies ;;
	*)
		if cmp -s <(aspect_text "$dir" "$a" "$aspect" masked) \
			<(aspect_text "$dir" "$b" "$aspect" masked); then
			echo masked
		else
			echo masked-differs
		fi ;;
	esac
}

# faulted DIR RUN: RUN's main process, or another of its processes, died of a fault
# signal (which signals are faults: la57-place's is_fault_signal()).
faulted() {
	[ "$(report_value "$1" "$2" main_faulted)" = yes ] ||
		[ "$(report_value "$1" "$2" child_faults)" != 0 ]
}

# same_run DIR A B: A and B ended the same way: each aspect the same (as compare_aspect
# allows); no fault in B unless a usual run had one too; and, when both died of a fault,
# the same signal code and, where both faulted in a file's code, the same place in it
# (a JIT's code moves with its mapping, so an address in generated code says nothing).
same_run() {
	local dir=$1 a=$2 b=$3 aspect at_a at_b
	for aspect in $ASPECTS; do
		case $(compare_aspect "$dir" "$a" "$b" "$aspect") in
		differs | masked-differs) return 1 ;;
		esac
	done
	if faulted "$dir" "$b" && ! faulted "$dir" "$a" &&
		{ [ ! -f "$dir/again.report" ] || ! faulted "$dir" again; }; then
		return 1
	fi
	[[ $(report_value "$dir" "$a" exit) == signal* ]] || return 0
	[ "$(report_value "$dir" "$a" exit)" = "$(report_value "$dir" "$b" exit)" ] || return 0
	[ "$(report_value "$dir" "$a" fault_code)" = "$(report_value "$dir" "$b" fault_code)" ] ||
		return 1
	at_a=$(report_value "$dir" "$a" fault_ip_in) at_b=$(report_value "$dir" "$b" fault_ip_in)
	[[ $at_a != /* || $at_b != /* ]] || [ "$at_a" = "$at_b" ]
}
