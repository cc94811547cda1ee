#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# analysis/hw/ (the walk model's workloads under perf stat on an LA57 machine) on the
# parts that need no LA57 and no perf: its arguments, its refusals (a 4-level machine, an
# unknown CPU, perf missing or not allowed to count), the parsing of perf stat output
# (tests/host/analysis/fixtures/hw/, hand-written in perf's CSV layout) and one run end to end with
# a stub perf that speaks perf stat's --control protocol. The real perf never runs here:
# every call goes to a stub (PERF=, or a stub first on PATH), and the CPU is a fake
# /proc/cpuinfo (--cpuinfo). Nothing is loaded into the host's kernel.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
. tests/lib/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fix=tests/host/analysis/fixtures/hw
kit=analysis/hw/run

# A /proc/cpuinfo: cpuinfo NAME VENDOR FLAGS...
cpuinfo() {
	local f=$tmp/$1
	shift
	printf 'processor\t: 0\nvendor_id\t: %s\nmodel name\t: Test CPU\nflags\t\t: fpu %s\n' \
		"$1" "${*:2}" >"$f"
	echo "$f"
}
intel57=$(cpuinfo intel57 GenuineIntel la57 pse)
intel48=$(cpuinfo intel48 GenuineIntel pse)
amd48=$(cpuinfo amd48 AuthenticAMD pse)
via57=$(cpuinfo via57 CentaurHauls la57)
echo "BOOT_IMAGE=/vmlinuz ro quiet" >"$tmp/cmdline"
echo "BOOT_IMAGE=/vmlinuz ro no5lvl quiet" >"$tmp/cmdline-no5lvl"

# The stub perf (STUB_PERF picks its behaviour; it never counts anything):
#   deny         perf's answer when perf_event_paranoid forbids counting, exit 255
#   unsupported  succeeds, but the output says a counter is not supported
#   count        runs the command; with --control fd:CTL,ACK answers each command the
#                workload writes ("ack") and logs it to STUB_LOG; writes fixed counts
mkdir -p "$tmp/bin"
cat >"$tmp/bin/perf" <<'EOF'
#!/usr/bin/env bash
[ "${1:-}" = stat ] || exit 1
shift
out='' ctl='' cmd=()
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out=$2; shift 2 ;;
	--control) ctl=${2#fd:}; shift 2 ;;
	-e) shift 2 ;;
	--) shift; cmd=("$@"); break ;;
	*) shift ;;
	esac
done
case "${STUB_PERF:-}" in
deny)
	echo "Error: Access to performance monitoring and observability operations is limited." >&2
	exit 255 ;;
unsupported)
	echo "<not supported>,,dtlb_load_misses.walk_completed,0,100.00,," >"$out"
	exit 0 ;;
esac
if [ -n "$ctl" ]; then
	"${cmd[@]}" &
	for _ in 1 2; do
		read -r -u "${ctl%,*}" line
		echo "$line" >>"$STUB_LOG"
		echo ack >&"${ctl#*,}"
	done
	wait $! || exit $?
else
	"${cmd[@]}" || exit $?
fi
printf '%s\n' "# started" "" "5000,,instructions,1,100.00,," "9000,,cycles,1,100.00,," \
	"0,,page-faults,1,100.00,," "70,,dtlb_load_misses.walk_completed,1,100.00,," \
	"10,,dtlb_store_misses.walk_completed,1,100.00,," "2000,,dtlb_load_misses.walk_pending,1,100.00,," \
	"400,,dtlb_store_misses.walk_pending,1,100.00,," >"$out"
EOF
chmod +x "$tmp/bin/perf"

# refuses NAME WANT-STDERR-PART ARGS...: exit 2, one line on stderr holding WANT.
refuses() {
	local name=$1 want=$2 rc
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "$want" "$tmp/err"; then
		ok "$name: exit 2, one line"
	else
		not_ok "$name: exit 2, one line" "exit $rc" "stderr: $(cat "$tmp/err")"
	fi
}

# ---- arguments ----
refuses "unknown argument" "unknown argument '--bogus'" $kit --bogus
refuses "--runs 0" "--runs must be 1 to 99" $kit --runs 0
refuses "--only with a bad name" "--only takes" $kit --only 'Chase!'
refuses "--cpuinfo of a missing file" "--cpuinfo needs a readable file" $kit --cpuinfo "$tmp/none"

# ---- the machine ----
refuses "4-level paging without no5lvl" "was not booted with no5lvl" \
	$kit --cpuinfo "$intel48" --cmdline "$tmp/cmdline"
refuses "an LA57 CPU of an unknown vendor" "no page-walk counters known for vendor 'CentaurHauls'" \
	$kit --cpuinfo "$via57" --cmdline "$tmp/cmdline"

# ---- perf ----
refuses "no perf" "no $tmp/none/perf" \
	env PERF="$tmp/none/perf" $kit --cpuinfo "$intel57" --cmdline "$tmp/cmdline"
refuses "perf not allowed to count (LA57 boot)" "perf stat cannot count instructions,cycles,page-faults,dtlb_load_misses.walk_completed" \
	env PATH="$tmp/bin:$PATH" STUB_PERF=deny $kit --cpuinfo "$intel57" --cmdline "$tmp/cmdline"
# A no5lvl boot is accepted (it gets as far as perf), with AMD's counters.
refuses "perf not allowed to count (no5lvl boot, AMD)" "cannot count instructions,cycles,page-faults,ls_l1_d_tlb_miss.all" \
	env PATH="$tmp/bin:$PATH" STUB_PERF=deny $kit --cpuinfo "$amd48" --cmdline "$tmp/cmdline-no5lvl"
refuses "a counter perf does not support" "perf stat cannot count" \
	env PATH="$tmp/bin:$PATH" STUB_PERF=unsupported $kit --cpuinfo "$intel57" --cmdline "$tmp/cmdline"
refuses "--only naming no run of the matrix" "no run of analysis/walkmodel/matrix matches 'bogus'" \
	env PATH="$tmp/bin:$PATH" STUB_PERF=count $kit --only bogus --cpuinfo "$intel57" --cmdline "$tmp/cmdline"

# ---- parsing perf stat output ----
# Three Intel runs (the third with a hybrid CPU's cpu_core/ names) and one AMD run.
# Medians of the Intel runs: instructions 1,100,000; cycles 2,000,000; walks (loads +
# stores) 31,000, 35,000, 30,500: 31,000; walk cycles (pending, loads + stores) 930,000,
# 1,050,000, 840,000: 930,000; page faults 3.
python3 analysis/hw/parse.py --out "$tmp/p" $fix/intel_*.txt $fix/amd_*.txt 2>"$tmp/err"
is "parse.py: exit 0" "$? $(cat "$tmp/err")" "0 "
is "hw.csv header" "$(head -n 1 "$tmp/p/hw.csv")" \
	"workload,paging,cpu,space,runs,instructions,cycles,walks,walk_cycles,l1_dtlb_misses,page_faults,tlb_flushes"
is "hw.csv: Intel medians over 3 runs" "$(grep '^chase-4k,5,' "$tmp/p/hw.csv")" \
	"chase-4k,5,Intel(R) Xeon(R) Gold 6438Y+,all,3,1100000,2000000,31000,930000,,3,"
is "hw.csv: AMD, walks from L2 DTLB misses, no walk cycles" "$(grep '^gups-1g,4,' "$tmp/p/hw.csv")" \
	"gups-1g,4,AMD EPYC 9654 96-Core Processor,all,1,51000000,90000000,2400000,,2500000,0,2"
is "hw-runs.csv: one row per run" "$(($(wc -l <"$tmp/p/hw-runs.csv") - 1))" 4
python3 analysis/hw/parse.py --out "$tmp/q" $fix/notcounted.txt 2>"$tmp/err"
is "parse.py: a counter perf could not count stops it (exit 1, one line)" \
	"$? $(wc -l <"$tmp/err") $(grep -c 'could not count ls_l1_d_tlb_miss.all_l2_miss' "$tmp/err")" "1 1 1"
python3 analysis/hw/parse.py --out "$tmp/q" $fix/README 2>"$tmp/err"
is "parse.py: a file without its header stops it (exit 1)" "$? $(grep -c 'no .# workload=' "$tmp/err")" "1 1"

# ---- end to end, stub perf ----
# The quick run (chase-4k) twice, natively: the workload must enable the counters before
# its measured part and disable them after (the stub logs each command it acknowledged),
# and hw.csv gets the stub's counts.
: >"$tmp/ctl.log"
env PATH="$tmp/bin:$PATH" STUB_PERF=count STUB_LOG="$tmp/ctl.log" \
	$kit --quick --runs 2 --out "$tmp/hw" --cpuinfo "$intel57" --cmdline "$tmp/cmdline" \
	>"$tmp/out" 2>"$tmp/err"
# Its own messages and make's build lines (a tree where make tools has not run) aside.
is "end to end: exit 0" "$? $(grep -v -e '^analysis/hw/run: ' -e '^  [A-Z]\+ ' "$tmp/err" |
	head -c 300)" "0 "
is "end to end: enable and disable per run, acknowledged" "$(tr '\n' ' ' <"$tmp/ctl.log")" \
	"enable disable enable disable "
is "end to end: hw.csv row" "$(grep '^chase-4k,5,' "$tmp/hw/hw.csv")" \
	"chase-4k,5,Test CPU,all,2,5000,9000,80,2400,,0,"
check "end to end: each run's workload verified itself" \
	grep -c 'workload=chase .*cycle_ok=1 end_ok=1' "$tmp/hw/raw/chase-4k_5_1.txt.out"
tap_done
