#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The walk model's report (analysis/walkmodel/report.py) on records made up here with
# hand-worked answers: the fifth level priced within the 5-level run, its share of run
# time (from the model's own cycles, data accesses included, up to the instructions
# alone), the fifth level in full against the preset's twin without the PML5E level (the
# bound takes the larger), no share where overlap decides (GUPS), per-fault figures, the cells KVM builds
# priced with the PDC lookup swept, and the 5-level minus 4-level column over every pair
# of a cell's boots, left out where the layouts differ. Pure user space: no guest.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
. tests/lib/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
logs=$tmp/logs

# record NAME WORKLOAD MODE INSNS [KEY=VALUE...]: the plugin's CSV for preset zen4, user
# space (kernel all zero), every other metric 0; and the run's log and runs.csv row. With
# TWIN="KEY=VALUE ...", also zen4-nopml5e, the twin a 5-level boot's plugin adds.
mkdir -p "$logs"
echo "name,workload,paging,mem,thp,args,status,seconds" >"$logs/runs.csv"
record() {
	local name=$1 wl=$2 mode=$3 insns=$4 f
	shift 4
	f=$logs/${name}_$mode.csv
	python3 - "$f" "$insns" "$@" <<'EOF'
import os, sys
path, insns, kv = sys.argv[1], int(sys.argv[2]), dict(a.split("=") for a in sys.argv[3:])
presets = {"zen4": kv}
if os.environ.get("TWIN"):
    presets["zen4-nopml5e"] = dict(a.split("=") for a in os.environ["TWIN"].split())
metrics = ["accesses", "l1_dtlb_misses", "walks", "walks_failed", "stale_refills",
           "walk_cycles_lo", "walk_cycles_hi", "data_cycles_lo", "data_cycles_hi",
           "l2_hit_cycles_lo", "l2_hit_cycles_hi", "faults", "fault_walks", "nested_walks",
           "ntlb_hits", "l2_pde_hits"]
metrics += [f"{k}_{l}" for k in ("psc_hits", "pdc_hits", "npsc_hits", "npdc_hits")
            for l in ("PDE", "PDPTE", "PML4E", "PML5E")]
metrics += [f"{k}_{l}_{w}" for k in ("refs", "nrefs") for l in ("PTE", "PDE", "PDPTE", "PML4E", "PML5E")
            for w in ("L1", "L2", "L3", "mem")]
metrics += [f"accesses_{p}" for p in ("4K", "2M", "1G")]
with open(path, "w") as f:
    f.write("preset,space,metric,value\n-,user,instructions,%d\n-,kernel,instructions,0\n" % insns)
    for p, values in presets.items():
        for w, lo, hi in (("L1", 4, 5), ("L2", 14, 14), ("L3", 50, 52), ("mem", 318, 318)):
            f.write(f"{p},-,latency_{w}_lo,{lo}\n{p},-,latency_{w}_hi,{hi}\n")
        f.write(f"{p},-,latency_pdc_hit_lo,1\n{p},-,latency_pdc_hit_hi,3\n")
        for sp in ("user", "kernel"):
            for m in metrics:
                f.write(f"{p},{sp},{m},{values.get(m, 0) if sp == 'user' else 0}\n")
EOF
	echo "workload=$wl minflt=${FAULTS:-0} count=${COUNT:-0} at_hint_regions=16" >"$logs/${name}_$mode.log"
	echo "$name,$wl,$mode,1G,never,,0,60" >>"$logs/runs.csv"
}

# The chase, 5-level: 1000 walks, 100 PML5E reads from L1 (4 to 5 cycles each) and 20
# PML5E PDC hits (1 to 3): the fifth level costs 400 + 20 = 420 to 500 + 60 = 560 cycles,
# 0.42 to 0.56 per walk. Run time: 10,000 instructions at CPI 0.5 or 1.5, plus data
# 10,000 to 20,000, walks 5,000 to 6,000, no L2-TLB hits: 20,000 or 30,000 (low end),
# 31,000 or 41,000 (high end). The share's low end, of that full time: low 420/20,000 =
# 2.100%, 420/30,000 = 1.400%; high 560/31,000 = 1.806%, 560/41,000 = 1.366%: 1.366%.
# Its high end, the bound: 560 over itself plus the instructions alone at CPI 0.5,
# 560/5,560 = 10.072%.
chase5="walks=1000 refs_PML5E_L1=100 pdc_hits_PML5E=20 refs_PTE_L1=1000 walk_cycles_lo=5000 walk_cycles_hi=6000 data_cycles_lo=10000 data_cycles_hi=20000"
record chase-4k chase 5 10000 $chase5
# 4-level: the same walks without the fifth level: 4,600 to 5,500 walk cycles.
record chase-4k chase 4 10000 walks=1000 refs_PTE_L1=1000 walk_cycles_lo=4600 walk_cycles_hi=5500 \
	data_cycles_lo=10000 data_cycles_hi=20000
# The same numbers for GUPS: no share (overlap), 42 to 56 fifth-level cycles per kI.
record gups-1g gups 5 10000 $chase5
# 16 regions 512 GiB apart: the like-for-like control. Within the 5-level boot its twin
# has 4,900 to 5,800 walk cycles: the level in full is 100 to 200 cycles, 0.100 to 0.200
# per walk; the 4-level boot (4,600 to 5,500) differs by 0.40 to 0.50.
TWIN="walks=1000 walk_cycles_lo=4900 walk_cycles_hi=5800 data_cycles_lo=10000 data_cycles_hi=20000" \
	record chase-sparse16 chase 5 10000 $chase5
record chase-sparse16 chase 4 10000 walks=1000 walk_cycles_lo=4600 walk_cycles_hi=5500
# Regions 256 TiB apart: no 5 - 4 column.
record chase-high16 chase 5 10000 $chase5
record chase-high16 chase 4 10000 walks=1000 walk_cycles_lo=4600 walk_cycles_hi=5500
# A cell booted twice on 5-level (bsearch, bsearch@2: 5,000 to 6,000 and 5,200 to 6,300
# walk cycles per 1,000 walks) and once on 4-level (4,600 to 5,500): the 5 - 4 column
# spans both pairs, 0.40 to 0.80 cycles per walk.
# The first bsearch boot prices the level in full: its twin without the PML5E level has
# 4,300 to 5,100 walk cycles and the same data cycles, so the level costs 700 to 900
# cycles, 0.700 to 0.900 per walk, more than its own reads (0.420 to 0.560): the bound
# takes it. 70.00 to 90.00 per kI; share: low end 900/41,000 = 2.195% (700/20,000,
# 700/30,000, 900/31,000 are higher), high end 900/5,900 = 15.254%.
TWIN="walks=1000 walk_cycles_lo=4300 walk_cycles_hi=5100 data_cycles_lo=10000 data_cycles_hi=20000" \
	record bsearch bsearch 5 10000 $chase5
record bsearch@2 bsearch 5 10000 ${chase5/walk_cycles_lo=5000 walk_cycles_hi=6000/walk_cycles_lo=5200 walk_cycles_hi=6300}
record bsearch bsearch 4 10000 walks=1000 refs_PTE_L1=1000 walk_cycles_lo=4600 walk_cycles_hi=5500 \
	data_cycles_lo=10000 data_cycles_hi=20000
# Faults: 50 faults; per fault 2 PML5E reads and 8.4 to 11.2 fifth-level cycles.
FAULTS=50 record pagefault pagefault 5 10000 $chase5
# fork+exec with PCID modelled: 50 of them, the same per event; the plugin's JSON counts
# its switches.
COUNT=50 record forkexec-pcid forkexec 5 10000 $chase5
echo '{"pcid": {"on": true, "switches": 200, "noflush": 68}}' >"$logs/forkexec-pcid_5.json"

# Provenance as analysis/walkmodel/run writes it, with two --only reruns.
cat >"$logs/info.csv" <<'EOF'
command,analysis/walkmodel/run
commit,abc1234
started,2026-01-01 00:00:00 UTC
kernel,6.1.0 series 0123456789ab, config sha256 ba9876543210
rerun,chase-4k_5 at 2026-01-02 00:00:00 UTC, commit def5678
rerun,gups-1g_5 chase-high16_4 at 2026-01-03 00:00:00 UTC, commit def5678
EOF
python3 analysis/walkmodel/report.py --logs "$logs" --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/err"
is "report.py exits 0" "$? $(tail -c 600 "$tmp/err")" "0 "
md=$tmp/out/walkmodel.md
row() { grep "^| $1 | zen4 |" "$md" | head -n 1; }
is "chase-4k: fifth level priced, share from the full time to the instructions', 5 - 4 column" "$(row chase-4k)" \
	"| chase-4k | zen4 | 100.00 | 1.000 | 1.100 | 0.1000 | 0.420 to 0.560 | n/a | 42.00 to 56.00 | 1.366 to 10.072% | 0.40 to 0.50 |"
is "bsearch: in full against its twin, the larger priced" "$(row bsearch | cut -d'|' -f8-11)" \
	" 0.420 to 0.560 | 0.700 to 0.900 | 70.00 to 90.00 | 2.195 to 15.254% "
check "the summary's bound is the largest share's high end, with its denominator" \
	grep -qF 'at most 15.254% of run time (bsearch, zen4; the instructions alone at CPI 0.5 plus the level'"'"'s cycles as the denominator)' "$tmp/out/walkmodel.md"
check "like for like: the level in full within the boot, the 4-level boot beside it" \
	grep -qF 'the fifth level in full adds 0.100 to 0.200 cycles per walk in the same boot; the separate 4-level boot differs by 0.40 to 0.50 (its own layout).' "$md"
is "the twin is not a preset of the tables" "$(grep -c '| zen4-nopml5e |' "$md")" 0
is "... but walkmodel.csv has its rows" "$(grep -c '^bsearch,5,zen4-nopml5e,' "$tmp/out/walkmodel.csv")" 2
is "bsearch: the 5 - 4 column over every pair of boots, the repeat not a row of its own" \
	"$(row bsearch | cut -d'|' -f12) $(grep -c '^| bsearch@' "$md")" " 0.40 to 0.80 (2 boot pairs)  0"
is "gups-1g: no share (overlap)" "$(row gups-1g | cut -d'|' -f10,11)" " 42.00 to 56.00 | n/a: overlap "
is "chase-high16: no 5 - 4 column (layouts differ)" "$(row chase-high16 | cut -d'|' -f12)" \
	" n/a: layouts differ "
is "pagefault: per fault 2 PML5E reads, 8.40 to 11.20 cycles" \
	"$(grep '^| pagefault | zen4 | 50 faults |' "$md" | cut -d'|' -f6,7)" " 2.000 | 8.40 to 11.20 "
# results.md (analysis/report/stats.py) quotes the same per-fault figures as the model's
# report, from the same records.
got=$(cd analysis/report && python3 -c 'import sys, stats
wf = stats.walk_per_fault(sys.argv[1])
print(f"{wf['"'"'pml5e'"'"']:.3f} {wf['"'"'cycles'"'"'][0]:.2f} to {wf['"'"'cycles'"'"'][1]:.2f} {wf['"'"'faults'"'"']}")' "$logs" 2>&1)
is "stats.py prices a fault as the model's report does" "$got" "2.000 8.40 to 11.20 50"
check "PCID modelled: the bound's line says so" grep -qF -e \
	'- **Per fork+exec** with PCID modelled (zen4): 2.000 PML5E reads, 8.40 to 11.20 cycles' "$md"
check "... and the switches it modelled" grep -qF -e \
	'- forkexec-pcid: PCID modelled, 200 address-space switches in the measured part, 68 of them without a flush.' "$md"
check "the summary comes first" grep -q '^## What the fifth level costs: bounds and their conditions' "$md"
check "the header names the guest kernel" \
	grep -qF 'guest kernel 6.1.0 series 0123456789ab, config sha256 ba9876543210.' "$md"
check "... and every --only rerun, in order" grep -qF 'Cells rerun with `--only`: chase-4k_5 at 2026-01-02 00:00:00 UTC, commit def5678. Cells rerun with `--only`: gups-1g_5 chase-high16_4 at 2026-01-03' "$md"
# Plot titles are gnuplot strings: a quote in one (the level sweep's "one cache's size")
# must not end it.
if command -v gnuplot >/dev/null; then
	mkdir -p "$tmp/plot"
	(cd analysis/walkmodel && python3 -c 'import sys, report
report.plot(sys.argv[1], "q", "one cache'"'"'s size", "entries", "refs", [("it'"'"'s", [(0, 1.0), (2, 2.0)])], "\"0\" 0.5, \"2\" 2", "0.4:4")' "$tmp/plot") >"$tmp/plot.out" 2>&1
	is "a plot whose title and labels hold quotes is drawn" "$? $(ls "$tmp/plot" | tr '\n' ' ')" "0 q.dat q.png q.svg "
else
	skip "a plot whose title and labels hold quotes is drawn" "gnuplot missing: make deps"
fi
# What KVM builds, on two made-up boots (10,000 instructions each; PDC hits priced 1 to 3
# cycles). 4-level boot: zen4-npt4 1,000 to 1,200 walk cycles with 100 PDC hits (100 to
# 120 per kI; 90 with lookups at 0, 160 at 7), zen4-npt5 1,300 to 1,500 with 100 (130 to
# 150; 120; 190). 5-level boot: zen4-npt5 2,000 to 2,600 with 200 guest and 100 host
# entries in the PDC (200 to 260; 170; 380). On a 5-level AMD host the 4-level guest gets
# 4/5: +30 whatever the lookup costs; the 5-level guest 5/5: +100 to +140, +80 at 0, +220
# at 7.
got=$(cd analysis/walkmodel && python3 -c '
import report
def run(insns, cells):
    stats = {}
    for preset, (lo, hi, pdc, npdc) in cells.items():
        stats[(preset, "user")] = {"walks": 100, "walk_cycles_lo": lo, "walk_cycles_hi": hi,
                                   "pdc_hits_PML4E": pdc, "npdc_hits_PDPTE": npdc}
        stats[(preset, "kernel")] = {}
        stats[(preset, "-")] = {"latency_pdc_hit_lo": 1, "latency_pdc_hit_hi": 3}
    return report.Run(stats, {"user": insns}, {}, {}, {"workload": "chase"}, {})
r4 = run(10000, {"zen4-npt4": (1000, 1200, 100, 0), "zen4-npt5": (1300, 1500, 100, 0)})
r5 = run(10000, {"zen4-npt5": (2000, 2600, 200, 100)})
class Rep:
    lines = []
    w = lines.append
    nested = {("chase-4k", "zen4"): {("4", "4"): (r4, "zen4-npt4"), ("4", "5"): (r4, "zen4-npt5"),
                                     ("5", "5"): (r5, "zen4-npt5")}}
report.kvm_configs(Rep)
print("\n".join(l for l in Rep.lines if l.startswith("| chase-4k")))' 2>&1)
is "KVM's cells: the extra against 4/4, the PDC lookup at its band, at 0 and at 7" "$got" \
	"| chase-4k | KVM on AMD, 4-level host | 4/4: 0 / 0 / 0 | n/a |
| chase-4k | KVM on AMD, 5-level host | 4/5: 30 / 30 / 30 | 5/5: 100 to 140 / 80 / 220 |"
check "walkmodel.csv written" test -s "$tmp/out/walkmodel.csv"
tap_done
