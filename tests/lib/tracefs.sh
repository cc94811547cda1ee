# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# tracefs helpers for in-guest tests: each test traces in its own instance, so tests
# and tools never see each other's events. Source it.
tfs=/sys/kernel/tracing

# trace_start NAME EVENT...: a fresh instance NAME with EVENTs (system/event) enabled.
trace_start() {
	local inst=$tfs/instances/$1 ev
	shift
	[ ! -d "$inst" ] || rmdir "$inst"
	mkdir "$inst" || return 1
	echo 16384 >"$inst/buffer_size_kb"
	# The trace merges the CPUs' buffers by stamp: the counter clock (one atomic counter)
	# keeps the records of two CPUs in the order they happened whatever the clocksource
	# (a 6.12 guest on a loaded host once fell back to 4 ms jiffies, and printed a
	# p4d_free before its p4d_alloc).
	echo counter >"$inst/trace_clock" || return 1
	for ev in "$@"; do
		echo 1 >"$inst/events/$ev/enable" || return 1
	done
	echo 1 >"$inst/tracing_on"
}

# trace_stop NAME FILE: stop the instance, save its events as records to FILE, remove it.
# A record is one line: "PID EVENT FIELDS", e.g. "214 p4d_free mm=... address=0x... pfn=0x...".
# P4DSCOPE_PLANT=EVENT:FIELD[:KEY=VALUE] falsifies FIELD in every record of EVENT (that
# also holds KEY=VALUE: one outcome's or one path's records only), for tests/run-plants:
# the tests must then fail.
trace_stop() {
	local inst=$tfs/instances/$1
	echo 0 >"$inst/tracing_on"
	sed -n -E 's/^.*-([0-9]+) +\[[0-9]+\] [^ ]+ +[0-9.]+: ([a-z0-9_]+): (.*)$/\1 \2 \3/p' \
		"$inst/trace" | plant >"$2"
	rmdir "$inst"
}

# plant: records from stdin to stdout, with P4DSCOPE_PLANT's field falsified: a hex
# number gets bit 12 flipped (a page off), a decimal one grows by 1, a word becomes
# "planted". Says on stderr how many records it changed ("# plant: N ..."), which
# tests/run-plants adds up: a plant that changed nothing proves nothing.
plant() {
	local event name scope
	if [ -z "${P4DSCOPE_PLANT:-}" ]; then
		cat
		return
	fi
	IFS=: read -r event name scope <<<"$P4DSCOPE_PLANT"
	awk -v event="$event" -v key="$name=" -v scope="$scope" -v plant="$P4DSCOPE_PLANT" '
	function flip(hex,   digits, i, d) {	# bit 12: bit 0 of the fourth hex digit from the right
		digits = substr(hex, 3)
		while (length(digits) < 4) digits = "0" digits
		i = length(digits) - 3
		d = index("0123456789abcdef", substr(digits, i, 1))
		digits = substr(digits, 1, i - 1) substr("1032547698badcfe", d, 1) substr(digits, i + 1)
		sub(/^0+/, "", digits)
		return "0x" (digits == "" ? "0" : digits)
	}
	function in_scope(   f) {
		if (scope == "") return 1
		for (f = 3; f <= NF; f++) if ($f == scope) return 1
		return 0
	}
	$2 == event && in_scope() { for (f = 3; f <= NF; f++) if (index($f, key) == 1) {
		v = substr($f, length(key) + 1)
		if (v ~ /^0x[0-9a-f]+$/) v = flip(v)
		else if (v ~ /^[0-9]+$/) v = v + 1
		else v = "planted"
		$f = key v; changed++ } }
	{ print }
	END { printf "# plant: %d records changed by %s\n", changed, plant >"/dev/stderr" }'
}

# field NAME RECORD...: the value of NAME=... in a record.
field() {
	local name=$1 kv
	shift
	for kv in "$@"; do
		[ "${kv%%=*}" != "$name" ] || { echo "${kv#*=}"; return 0; }
	done
	return 1
}

# values_of FILE PID EVENT NAME: the NAME=... values of the records of EVENT raised by PID
# in FILE (trace_stop's), sorted.
values_of() {
	awk -v pid="$2" -v ev="$3" -v key="$4=" '$1 == pid && $2 == ev {
		for (i = 3; i <= NF; i++) if (index($i, key) == 1) print substr($i, length(key) + 1) }' \
		"$1" | sort
}

# region_of ADDR: the start of the 256 TiB region (one PGD entry on 5-level paging, one
# P4D table) holding user address ADDR, printed as the P4D events print addresses.
region_of() {
	printf '0x%x\n' $(($1 >> 48 << 48))
}
