#!/usr/bin/env bash
# mmap:x86_get_unmapped_area, read from tracefs directly: one event per mmap of
# tests/workloads/mmapcases.c, on the top-down and the legacy bottom-up layout. Each
# event's path, window and outcome against the documented behaviour of the mode, and its
# result against the address mmap returned (or its error) and /proc/PID/maps.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh

## get_unmapped_area: one event per mmap, paired through trace_marker
echo 8 >/proc/sys/vm/nr_hugepages
trace_start gua mmap/x86_get_unmapped_area
inst=$tfs/instances/gua
"$bin"/mmapcases topdown "$inst/trace_marker" >"$tmp/cases-topdown"
"$bin"/mmapcases bottomup "$inst/trace_marker" >"$tmp/cases-bottomup"
trace_stop gua "$tmp/gua"
echo 0 >/proc/sys/vm/nr_hugepages

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
# where: hint (the result is the hint), low (below 47 bits), high (above, not the hint),
# 32bit (below 2 GiB), error (the call fails). A bottom-up search of the full window
# still returns its first fit from the legacy base, so bu-occupied lands low.
expectations='
nohint       topdown          default default search   search   low   low
lowhint      topdown          default default hint     hint     hint  hint
highhint     topdown          full    default hint     search   hint  low
occupied     topdown          full    default search   search   high  low
straddle     topdown          default default search   search   low   low
fixed        topdown          full    default fixed    fixed    hint  error
noreplace    topdown          full    default fixed    fixed    hint  error
map32bit     topdown          default default search   search   32bit 32bit
nospace      topdown          default default enomem   enomem   error error
huge         hugetlb_topdown  default default search   search   low   low
hugehigh     hugetlb_topdown  full    default hint     search   hint  low
hugeoccupied hugetlb_topdown  full    default search   search   high  low
bu-nohint    bottomup         default default search   search   low   low
bu-highhint  bottomup         full    default hint     search   hint  low
bu-occupied  bottomup         full    default search   search   low   low
bu-fixed     bottomup         full    default fixed    fixed    hint  error
bu-huge      hugetlb_bottomup default default search   search   low   low
bu-hugehigh  hugetlb_bottomup full    default hint     search   hint  low
'
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
			result_bad+=("$name: $want..+$(field len "${kv[@]}") is in no line of /proc/PID/maps") ;;
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
	fixed | bu-fixed) flags=$((flags | 0x10)) ;;
	noreplace) flags=$((flags | 0x100000 | 0x10)) ;;
	map32bit) flags=$((flags | 0x40)) ;;
	*huge*) flags=$((flags | 0x40000)) ;;
	esac
	printf '0x%x' $flags
}

# check_arguments NAME MMAP-LINE: the event's hint and len are what mmapcases passed, its
# flags the case's; high_limit is 0 when no search ran (hint, fixed), else the search's
# upper bound: above the mapping it found. Failures go to arguments_bad.
arguments_bad=()
check_arguments() {
	local name=$1 kv ev_hint ev_len ev_flags limit outcome result want
	read -ra kv <<<"$2"
	read -r _ ev_hint ev_len ev_flags limit outcome result < <(grep "^$name " "$tmp/arguments")
	# As the event prints them (mmapcases's %#lx prints 0 as "0").
	want=$(printf 'hint=0x%x len=0x%x flags=%s' "$(field hint "${kv[@]}")" "$(field len "${kv[@]}")" \
		"$(flags_of "$name")")
	[ "hint=$ev_hint len=$ev_len flags=$ev_flags" = "$want" ] ||
		arguments_bad+=("$name: event hint=$ev_hint len=$ev_len flags=$ev_flags, want $want")
	case "$outcome" in
	hint | fixed) [ "$limit" = 0x0 ] || arguments_bad+=("$name: $outcome, high_limit=$limit, want 0x0") ;;
	search) [ $((limit)) -ne 0 ] && [ $((result + ev_len)) -le $((limit)) ] ||
		arguments_bad+=("$name: search found $result + $ev_len, above high_limit=$limit") ;;
	*) [ $((limit)) -ne 0 ] || arguments_bad+=("$name: $outcome after a search, high_limit=0x0") ;;
	esac
}

while read -r name path win5 win4 out5 out4 where5 where4; do
	[ -n "$name" ] || continue
	if [ "$mode" = 5 ]; then win=$win5 out=$out5 where=$where5; else win=$win4 out=$out4 where=$where4; fi
	cases=$tmp/cases-$([[ $name == bu-* ]] && echo bottomup || echo topdown)
	line=$(grep "^case=$name " "$cases")
	read -ra kv <<<"$line"
	got_where=$(place "$(field hint "${kv[@]}")" "${line##* }")
	decision=$(grep "^$name " "$tmp/decisions")
	want="$name path=$path window=$win outcome=$out"
	if [ "${decision% result=*}" = "$want" ] && [ "$got_where" = "$where" ]; then
		ok "get_unmapped_area $name: $path, $win window, $out, lands $where"
	else
		not_ok "get_unmapped_area $name: $path, $win window, $out, lands $where" \
			"event: ${decision:-none}" "mmap: ${line:-none} ($got_where)"
	fi
	check_result "$name" "$cases" "$line" "$decision"
	check_arguments "$name" "$line"
done <<<"$expectations"
if [ ${#arguments_bad[@]} -eq 0 ]; then
	ok "hint, len, flags: what mmapcases passed; high_limit: 0 without a search, else above what it found"
else
	not_ok "hint, len, flags: what mmapcases passed; high_limit: 0 without a search, else above what it found" \
		"${arguments_bad[@]}"
fi
if [ ${#result_bad[@]} -eq 0 ]; then
	ok "result: every event's result is what mmap returned, or its error, and /proc/PID/maps holds it"
else
	not_ok "result: every event's result is what mmap returned, or its error, and /proc/PID/maps holds it" \
		"${result_bad[@]}"
fi
tap_done
