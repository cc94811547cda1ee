#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# mmap:x86_get_unmapped_area, read from tracefs directly: one event per mmap of
# tests/workloads/mmapcases.c, on the top-down and the legacy bottom-up layout and on the
# top-down layout with an unlimited stack (the bottom-up fallback). Each event's path,
# window and outcome against the documented behaviour of the mode, its result against
# the address mmap returned (or its error) and /proc/PID/maps, and its high_limit exactly,
# from the process's own mmap_base and the window rules of arch/x86/kernel/sys_x86_64.c.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh

## get_unmapped_area: one event per mmap, paired through trace_marker
echo 8 >/proc/sys/vm/nr_hugepages
# A minimum above one page, so the rounding of a low hint shows (the guest's is 4096).
min_addr_was=$(cat /proc/sys/vm/mmap_min_addr)
echo 65536 >/proc/sys/vm/mmap_min_addr
at_exit "echo $min_addr_was >/proc/sys/vm/mmap_min_addr"
trace_start gua mmap/x86_get_unmapped_area
inst=$tfs/instances/gua
for layout in topdown bottomup bigstack; do
	"$bin"/mmapcases $layout "$inst/trace_marker" >"$tmp/cases-$layout"
done
trace_stop gua "$tmp/gua"
echo 0 >/proc/sys/vm/nr_hugepages

# Series v4 (7.3) prints the high limit as hi= and an error as result=0x0 err=-ERRNO (as
# mmap:vm_unmapped_area does), a success with err=0; v3 prints high_limit= and the errno
# in result. v4's lines are checked for that and rewritten in v3's terms for the checks
# below. 7.3 has no x86 hugetlb placement: a misaligned hugetlb MAP_FIXED is refused by
# the generic hugetlb_get_unmapped_area() before any placement, so it has no event.
v4=$(uname -r | awk -F. '{ print ($1 >= 7) ? 1 : 0 }')
if [ "$v4" = 1 ]; then
	format_bad=() converted=0
	# trace_stop's records: "PID EVENT FIELD=VALUE...".
	while IFS= read -r line; do
		if [[ $line =~ ^[0-9]+\ x86_get_unmapped_area\  ]]; then
			converted=$((converted + 1))
			if [[ $line =~ \ hi=(0x[0-9a-f]+)\ outcome=([a-z]+)\ result=(0x[0-9a-f]+)\ err=(-?[0-9]+)$ ]]; then
				err=${BASH_REMATCH[4]} result=${BASH_REMATCH[3]}
				if [ "$err" != 0 ] && [ "$result" != 0x0 ]; then
					format_bad+=("an error with result=$result: $line")
				fi
				[ "$err" = 0 ] || result=$(printf '0x%x' "$err")
				line="${line%% hi=*} high_limit=${BASH_REMATCH[1]} outcome=${BASH_REMATCH[2]} result=$result"
			else
				format_bad+=("not hi= outcome= result= err=: $line")
			fi
		fi
		echo "$line"
	done <"$tmp/gua" >"$tmp/gua-v3"
	mv "$tmp/gua-v3" "$tmp/gua"
	[ "$converted" -gt 0 ] || format_bad+=("no x86_get_unmapped_area record in the trace")
	if [ ${#format_bad[@]} -eq 0 ]; then
		ok "7.3 format: every event ends hi= outcome= result= err=, an error with result=0x0 ($converted)"
	else
		not_ok "7.3 format: every event ends hi= outcome= result= err=, an error with result=0x0 ($converted)" \
			"${format_bad[@]}"
	fi
fi

# The event following each marker, from the marker's process: "case path window outcome result".
awk '$2 == "tracing_mark_write" && $3 == "mmapcases" { pending[$1] = substr($4, 6); next }
     $2 == "x86_get_unmapped_area" && ($1 in pending) {
	line = pending[$1]
	for (i = 3; i <= NF; i++) {
		split($i, kv, "=")
		if (kv[1] ~ /^(path|window|outcome|result)$/) line = line " " kv[1] "=" kv[2]
	}
	print line; delete pending[$1] }' "$tmp/gua" >"$tmp/decisions"
# The same events' other fields: "case hint len flags high_limit outcome result".
awk '$2 == "tracing_mark_write" && $3 == "mmapcases" { pending[$1] = substr($4, 6); next }
     $2 == "x86_get_unmapped_area" && ($1 in pending) {
	for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	print pending[$1], v["hint"], v["len"], v["flags"], v["high_limit"], v["outcome"], v["result"]
	delete pending[$1] }' "$tmp/gua" >"$tmp/arguments"

# Expectations from the documented behaviour (Documentation/x86/x86_64/5level-paging.rst):
# case path window-on-5 window-on-4 outcome-on-5 outcome-on-4 where-on-5 where-on-4
# limit-on-5 limit-on-4
# where: hint (the result is the hint, as mmap() rounded it), low (below 47 bits), high
# (above, not the hint), 32bit (below 2 GiB), error (the call fails). A bottom-up search
# of the full window still returns its first fit from the legacy base, so bu-occupied
# lands low. limit: the high_limit the event must carry (limit_of below).
expectations='
nohint       topdown          default default search   search   low   low   base     base
lowhint      topdown          default default hint     hint     hint  hint  0        0
highhint     topdown          full    default hint     search   hint  low   0        base
occupied     topdown          full    default search   search   high  low   basefull base
straddle     topdown          default default search   search   low   low   base     base
fixed        topdown          full    default fixed    fixed    hint  error 0        0
noreplace    topdown          full    default fixed    fixed    hint  error 0        0
map32bit     topdown          default default search   search   32bit 32bit 2g       2g
nospace      topdown          default default enomem   enomem   error error window   window
huge         hugetlb_topdown  default default search   search   low   low   base     base
hugehigh     hugetlb_topdown  full    default hint     search   hint  low   0        base
hugeoccupied hugetlb_topdown  full    default search   search   high  low   basefull base
minhint      topdown          default default hint     hint     hint  hint  0        0
fixedwindow  topdown          default default fixed    fixed    hint  error 0        0
fixed47      topdown          full    default fixed    fixed    hint  error 0        0
fixedtop     topdown          full    default fixed    fixed    hint  error 0        0
hugefixed    hugetlb_topdown  full    default fixed    fixed    hint  error 0        0
hugefixedbad hugetlb_topdown  default default einval   einval   error error 0        0
padded       topdown          default default search   search   low   low   base     base
bu-nohint    bottomup         default default search   search   low   low   window   window
bu-highhint  bottomup         full    default hint     search   hint  low   0        window
bu-occupied  bottomup         full    default search   search   low   low   top      window
bu-fixed     bottomup         full    default fixed    fixed    hint  error 0        0
bu-huge      hugetlb_bottomup default default search   search   low   low   window   window
bu-hugehigh  hugetlb_bottomup full    default hint     search   hint  low   0        window
bs-fallback  topdown          default default fallback fallback low   low   window   window
bs-hugefallback hugetlb_topdown default default fallback fallback low low   window   window
'
# The window rules, from the process's own layout. window is DEFAULT_MAP_WINDOW, the top
# of the 47-bit window (1 << 47 less a page, both modes); top is TASK_SIZE_MAX (1 << 56
# less a page on 5-level, the window on 4-level). A top-down search ends at mmap_base
# (base), or mmap_base + top - window when the hint is above the window (basefull); a
# bottom-up one, and the top-down layout's fallback to it, at the window or, for a hint
# above it, at top; MAP_32BIT searches below 2 GiB (2g); no search: 0.
window=$(((1 << 47) - 4096))
if [ "$mode" = 5 ]; then task_top=$(((1 << 56) - 4096)); else task_top=$window; fi
# mmap_base LAYOUT-FILE: arch/x86/mm/mmap.c mmap_base() for a process without
# randomization (mmapcases runs with ADDR_NO_RANDOMIZE): the stack's gap below the 47-bit
# window is its rlimit plus the stack guard gap (256 pages unless stack_guard_gap= says
# otherwise), at least 128 MiB and at most 5/6 of the window; an unlimited stack gets 5/6.
mmap_base() {
	local rlim guard=$((256 * 4096)) gap
	rlim=$(sed -n 's/^layout=[a-z]* rlimit_stack=\([0-9a-z]*\) .*/\1/p' "$1")
	[[ " $(cat /proc/cmdline) " != *" stack_guard_gap="* ]] ||
		guard=$(($(sed 's/.* stack_guard_gap=\([0-9]*\).*/\1/' /proc/cmdline) * 4096))
	if [ "$rlim" = infinity ]; then gap=$((window / 6 * 5))
	else
		gap=$((rlim + guard))
		[ $gap -ge $((128 << 20)) ] || gap=$((128 << 20))
		[ $gap -le $((window / 6 * 5)) ] || gap=$((window / 6 * 5))
	fi
	echo $(((window - gap + 4095) & ~4095))
}
# Each layout's mmap_base, computed once (a fork costs a lot in a loaded TCG guest).
declare -A base_of
for layout in topdown bottomup bigstack; do base_of[$layout]=$(mmap_base "$tmp/cases-$layout"); done
# limit_of CODE LAYOUT: the high_limit CODE stands for, as the event prints it.
limit_of() {
	local base=${base_of[$2]}
	case $1 in
	0) echo 0x0 ;;
	base) printf '0x%x\n' "$base" ;;
	basefull) printf '0x%x\n' $((base + task_top - window)) ;;
	window) printf '0x%x\n' $window ;;
	top) printf '0x%x\n' $task_top ;;
	2g) echo 0x80000000 ;;
	esac
}
# 6.12 pads a no-hint anonymous mapping whose length is a multiple of 2 MiB by 2 MiB and
# aligns the result for THP (mm/mmap.c __get_unmapped_area(), mm/huge_memory.c
# __thp_get_unmapped_area() in build/linux-6.12); 6.1 does not.
pads_anon=$(uname -r | awk -F. '{ print ($1 > 6 || ($1 == 6 && $2 >= 12)) ? 1 : 0 }')
padded_case() {	# NAME HINT LEN FLAGS: this mmap is searched with the padded length
	[ "$pads_anon" = 1 ] && [ $(($2)) -eq 0 ] && [ $(($3 % (2 << 20))) -eq 0 ] &&
		[ $(($4 & 0x40000)) -eq 0 ]
}
# The address mmap returns for a padded search that found RESULT (__thp_get_unmapped_area():
# the next 2 MiB boundary, or 2 MiB up on the top-down layout when RESULT is one).
padded_result() {
	local r=$(($1)) sub=$(((-$1) & ((2 << 20) - 1)))
	[ $sub -ne 0 ] || [ "$2" = bottomup ] || sub=$((2 << 20))
	printf '0x%x\n' $((r + sub))
}
# rounded_hint HINT: the hint as mmap() hands it on (round_hint_to_min(): page aligned,
# raised to mmap_min_addr).
min_addr=$(cat /proc/sys/vm/mmap_min_addr)
rounded_hint() {
	local h=$(($1 & ~4095))
	[ $h -eq 0 ] || [ $h -ge "$min_addr" ] || h=$(((min_addr + 4095) & ~4095))
	printf '0x%x\n' $h
}

place() {
	local hint=$1 result=$2
	case "$result" in
	error=*) echo error ;;
	*) result=${result#result=}
		if [ $((result)) -eq $((hint)) ]; then echo hint
		elif [ $((result >> 31)) -eq 0 ]; then echo 32bit
		elif [ $((result >> 47)) -eq 0 ]; then echo low
		else echo high; fi ;;
	esac
}
# mapped FILE ADDR LEN: a line of the maps FILE holds (a "map START-END ..." line of
# mmapcases) covers [ADDR, ADDR + LEN). Lines above the sign bit (vsyscall) never do.
mapped() {
	local range start end
	while read -r _ range _; do
		start=$((16#${range%-*})) end=$((16#${range#*-}))
		[ "$start" -ge 0 ] && [ "$start" -le $(($2)) ] && [ $(($2 + $3)) -le "$end" ] && return 0
	done < <(grep '^map ' "$1")
	return 1
}

# check_result NAME CASES-FILE MMAP-LINE DECISION: the event's result is the address mmap
# returned, and the process's maps hold it; when mmap failed, it is the hint for a
# MAP_FIXED request (the arch code returns it unchecked, and the generic code refuses
# it: beyond TASK_SIZE) and the error for any other. Failures go to result_bad.
result_bad=()
check_result() {
	local name=$1 cases=$2 line=$3 got=${4##*result=} want err kv
	read -ra kv <<<"$line"
	case "$line" in
	*error=*) err=${line##*error=}
		case "$4" in
		*outcome=fixed*) want=$(field hint "${kv[@]}") ;;
		*) case "$err" in ENOMEM) want=$(printf '0x%x' -12) ;; EINVAL) want=$(printf '0x%x' -22) ;;
			*) want="no error $err for this test" ;; esac ;;
		esac ;;
	*result=*) want=$(field result "${kv[@]}")
		mapped "$cases" "$want" "$(field len "${kv[@]}")" ||
			result_bad+=("$name: $want..+$(field len "${kv[@]}") is in no line of /proc/PID/maps")
		if padded_case "$name" "$(field hint "${kv[@]}")" "$(field len "${kv[@]}")" "$(flags_of "$name")"; then
			# mmap's address is the padded area's aligned start, not the event's result.
			[ "$(padded_result "$got" "$(sed -n 's/^layout=\([a-z]*\) .*/\1/p' "$cases")")" = "$want" ] ||
				result_bad+=("$name: padded search found $got, mmap returned $want, want $(padded_result "$got" topdown)")
			return
		fi ;;
	*) want="a result from mmapcases" ;;
	esac
	[ "$got" = "$want" ] || result_bad+=("$name: event result=$got, want $want (mmap: $line)")
}

# flags_of NAME: the mmap flags mmapcases.c gives case NAME, as get_unmapped_area sees
# them: MAP_PRIVATE | MAP_ANONYMOUS and the case's own; do_mmap() adds MAP_FIXED to
# MAP_FIXED_NOREPLACE.
flags_of() {
	local flags=$((0x02 | 0x20))
	case $1 in
	*fixed* | noreplace) flags=$((flags | 0x10)) ;;&
	noreplace) flags=$((flags | 0x100000)) ;;
	map32bit) flags=$((flags | 0x40)) ;;
	bs-*) flags=$((flags | 0x4000)) ;;&
	*huge*) flags=$((flags | 0x40000)) ;;
	esac
	printf '0x%x' $flags
}

# check_arguments NAME MMAP-LINE LIMIT: the event's hint is what mmapcases passed as
# mmap() rounds it, its len what it passed (plus the 2 MiB pad where 6.12 pads), its flags
# the case's; its high_limit is LIMIT exactly. Failures go to arguments_bad, limit_bad.
arguments_bad=() limit_bad=()
check_arguments() {
	local name=$1 kv ev_hint ev_len ev_flags limit outcome result want len
	read -ra kv <<<"$2"
	read -r _ ev_hint ev_len ev_flags limit outcome result < <(grep "^$name " "$tmp/arguments")
	len=$(field len "${kv[@]}")
	! padded_case "$name" "$(field hint "${kv[@]}")" "$len" "$(flags_of "$name")" ||
		len=$((len + (2 << 20)))
	# As the event prints them (mmapcases's %#lx prints 0 as "0").
	want=$(printf 'hint=%s len=0x%x flags=%s' "$(rounded_hint "$(field hint "${kv[@]}")")" "$len" \
		"$(flags_of "$name")")
	[ "hint=$ev_hint len=$ev_len flags=$ev_flags" = "$want" ] ||
		arguments_bad+=("$name: event hint=$ev_hint len=$ev_len flags=$ev_flags, want $want")
	[ "$limit" = "$3" ] || limit_bad+=("$name: $outcome, high_limit=$limit, want $3")
}

while read -r name path win5 win4 out5 out4 where5 where4 lim5 lim4; do
	[ -n "$name" ] || continue
	if [ "$mode" = 5 ]; then win=$win5 out=$out5 where=$where5 lim=$lim5
	else win=$win4 out=$out4 where=$where4 lim=$lim4; fi
	case $name in bu-*) layout=bottomup ;; bs-*) layout=bigstack ;; *) layout=topdown ;; esac
	cases=$tmp/cases-$layout
	line=$(grep "^case=$name " "$cases")
	read -ra kv <<<"$line"
	if [ "$v4" = 1 ] && [ "$name" = hugefixedbad ]; then
		decision=$(grep "^$name " "$tmp/decisions")
		check "get_unmapped_area $name: no event on 7.3, mmap fails with EINVAL" \
			test -z "$decision" -a "${line##*error=}" = EINVAL
		continue
	fi
	got_where=$(place "$(rounded_hint "$(field hint "${kv[@]}")")" "${line##* }")
	decision=$(grep "^$name " "$tmp/decisions")
	want="$name path=$path window=$win outcome=$out"
	if [ "${decision% result=*}" = "$want" ] && [ "$got_where" = "$where" ]; then
		ok "get_unmapped_area $name: $path, $win window, $out, lands $where"
	else
		not_ok "get_unmapped_area $name: $path, $win window, $out, lands $where" \
			"event: ${decision:-none}" "mmap: ${line:-none} ($got_where)"
	fi
	check_result "$name" "$cases" "$line" "$decision"
	check_arguments "$name" "$line" "$(limit_of "$lim" $layout)"
done <<<"$expectations"
echo "# mmap_base: top-down $(limit_of base topdown), unlimited stack $(limit_of base bigstack)"
if [ ${#arguments_bad[@]} -eq 0 ]; then
	ok "hint, len, flags: what mmapcases passed (hint as mmap() rounds it, len as 6.12 pads it)"
else
	not_ok "hint, len, flags: what mmapcases passed (hint as mmap() rounds it, len as 6.12 pads it)" \
		"${arguments_bad[@]}"
fi
# Independent of the event: mmap_base from the process's rlimit and personality, the
# window bounds from the mode. The event's high_limit is the series' copy of
# info.high_limit or find_start_end()'s end.
if [ ${#limit_bad[@]} -eq 0 ]; then
	ok "high_limit: exact on every path, from mmap_base and the window rules"
else
	not_ok "high_limit: exact on every path, from mmap_base and the window rules" "${limit_bad[@]}"
fi
if [ ${#result_bad[@]} -eq 0 ]; then
	ok "result: every event's result is what mmap returned, or its error, and /proc/PID/maps holds it"
else
	not_ok "result: every event's result is what mmap returned, or its error, and /proc/PID/maps holds it" \
		"${result_bad[@]}"
fi
tap_done
