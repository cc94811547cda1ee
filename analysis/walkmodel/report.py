#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the walk model's records (analysis/walkmodel/run) into tables, plots and
walkmodel.md.

    report.py --logs DIR --out DIR [--quick] [--hw FILE]

Reads DIR/runs.csv and DIR/info.csv, and per run NAME_MODE.csv (walkmodel.so's long form:
preset,space,metric,value), NAME_MODE.json and NAME_MODE.log (guest meta lines and the
workload's result line). Writes walkmodel.csv (one row per run, preset and space),
region-sweep.csv, level-sweep.csv, nested.csv, walkmodel.md and the sweeps' plots (PNG and
SVG). --hw FILE adds the measurements of analysis/hw/run (its hw.csv) beside the model's.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from collections import defaultdict

LEVELS = ["PML5E", "PML4E", "PDPTE", "PDE", "PTE"]
WHERE = ["L1", "L2", "L3", "mem"]
PAGES = ["4K", "2M", "1G"]
MODES = ["4", "no5lvl", "5"]
SPACES = ["user", "kernel"]
# Base CPI band (cycles per instruction without translation stalls and data-access latency)
# that turns cycles into a share of run time: an assumption, stated in the report.
CPI_BAND = (0.5, 1.5)
# The native presets the tables show, in this order; the first is the reference.
PRESETS = ["zen4", "goldencove", "splitpsc", "nopsc", "zen4-noinval", "zen4-16x192"]
# The suffix of a preset's twin without the PML5E level (plugin.c, add_twins()).
TWIN = "-nopml5e"
# The designs that also run virtualised: their presets with a 4- and a 5-level host.
NESTED = {"zen4": ("zen4-npt4", "zen4-npt5"), "goldencove": ("goldencove-ept4", "goldencove-ept5")}
# Workloads whose updates do not depend on each other: a core overlaps their walks with
# other work, so a serial sum of latencies says nothing about their share of run time.
OVERLAPPED = ("gups",)
# The region-count sweep: chase-highK on 5-level paging, K regions 256 TiB apart.
REGION_COUNTS = [1, 2, 4, 8, 16, 32, 64, 255]
SWEEP_SERIES = [("splitpsc-all", "splitpsc, every level"), ("splitpsc-pde", "splitpsc, PDE only"),
                ("splitpsc-pdpte", "splitpsc, PDPTE only"), ("splitpsc-pml4e", "splitpsc, PML4E only"),
                ("splitpsc-pml5e", "splitpsc, PML5E only"), ("zen4-pdc", "zen4, PDC")]
SWEEP_SIZES = [0, 1, 2, 4, 8, 16, 32, 64]
# AMD's published Zen 4 figures for a kernel with CONFIG_X86_5LEVEL compiled in (running
# 5-level) against one without it (LKML <80734605-1926-4ac7-9c63-006fe3ea6b6a@amd.com>):
# the change with 5-level, in percent (positive: slower for lat_pagefault, a latency;
# negative: less throughput for the others).
AMD_ZEN4 = [
    ("GUPS", "gups-1g", -0.10),
    ("XSBench", "bsearch", -2.36),
    ("Redis", None, -1.02),
    ("memcached", None, -0.87),
    ("lmbench lat_pagefault", "pagefault", +5.56),
]


# ---- reading ---------------------------------------------------------------------------

def read_runs(logs):
    with open(os.path.join(logs, "runs.csv")) as f:
        return list(csv.DictReader(f))


def read_info(logs):
    info = {}
    path = os.path.join(logs, "info.csv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition(",")
                if k == "rerun":        # one line per --only run
                    info.setdefault("reruns", []).append(v)
                else:
                    info[k] = v
    return info


def read_model(path):
    """{(preset, space): {metric: value}} and {space: instructions}; space "-" holds a
    preset's own figures (latencies, design)."""
    stats = defaultdict(dict)
    insns = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["preset"] == "-":
                insns[row["space"]] = int(row["value"])
            else:
                stats[(row["preset"], row["space"])][row["metric"]] = float(row["value"])
    return stats, insns


def read_log(path):
    meta, result = {}, {}
    if not os.path.exists(path):
        return meta, result
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("meta,"):
                _, k, v = line.split(",", 2)
                meta[k] = v
            elif line.startswith("workload="):
                result = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    return meta, result


def combined(stats, preset):
    """user + kernel metrics of one preset."""
    out = defaultdict(float)
    for sp in SPACES:
        for k, v in stats.get((preset, sp), {}).items():
            out[k] += v
    return out


def refs(m, level=None, where=None, prefix="refs"):
    return sum(m.get(f"{prefix}_{lv}_{w}", 0) for lv in LEVELS for w in WHERE
               if (level is None or lv == level) and (where is None or w == where))


class Run:
    """One boot: a workload on one paging mode, every preset's numbers."""

    def __init__(self, stats, insns, meta, result, row, plugin):
        self.stats, self.meta, self.result, self.row, self.plugin = stats, meta, result, row, plugin
        self.insns = insns.get("user", 0) + insns.get("kernel", 0)

    def has(self, preset):
        return (preset, "user") in self.stats

    def m(self, preset):
        return combined(self.stats, preset)

    def lat(self, preset):
        return self.stats.get((preset, "-"), {})

    def walks(self, preset):
        return self.m(preset)["walks"]

    def per_walk(self, preset, value):
        w = self.walks(preset)
        return value / w if w else None

    def fifth(self, preset):
        """The fifth level's own cycles (lo, hi): its PML5E reads at the latency of where
        each was served, and its PDC hits (AMD's design looks the PML5E up first)."""
        m, lat = self.m(preset), self.lat(preset)
        return tuple(sum(m.get(f"refs_PML5E_{w}", 0) * lat.get(f"latency_{w}_{e}", 0) for w in WHERE)
                     + m.get("pdc_hits_PML5E", 0) * lat.get(f"latency_pdc_hit_{e}", 0)
                     for e in ("lo", "hi"))

    def cycles(self, preset):
        m = self.m(preset)
        return m["walk_cycles_lo"], m["walk_cycles_hi"]

    def modelled(self, preset, end):
        """Cycles the model adds to the instructions: data accesses, walks, L2-TLB hits."""
        m = self.m(preset)
        return m[f"data_cycles_{end}"] + m[f"walk_cycles_{end}"] + m[f"l2_hit_cycles_{end}"]

    def in_full(self, preset):
        """The fifth level in full (lo, hi): the preset's modelled cycles less those of its
        twin without the PML5E level (the plugin's PRESET-nopml5e, fed the same accesses in
        this boot): its own reads and lookups and what its PML5Es crowd out of the shared
        caches. None where the boot has no twin (a 4-level boot, an older plugin)."""
        twin = preset + TWIN
        if not self.has(twin):
            return None
        return tuple(self.modelled(preset, e) - self.modelled(twin, e) for e in ("lo", "hi"))

    def priced(self, preset):
        """What the bounds take: per end of the band, the larger of the fifth level's own
        cycles and its price in full."""
        own, full = self.fifth(preset), self.in_full(preset)
        return own if full is None else tuple(max(a, b) for a, b in zip(own, full))

    def run_time(self, preset, cpi, end):
        """Cycles of the measured part: instructions at a base CPI, plus the data accesses,
        walks and L2-TLB hits at the preset's latencies, all serial."""
        return self.insns * cpi + self.modelled(preset, end)

    def share(self, preset, extra):
        """extra (lo, hi) cycles as a share of run time, in percent, as a range: from the
        lowest share of the run's full modelled time (run_time(), over the CPI band and the
        latency band) to an upper bound. The bound: the level adds some d <= X cycles (X =
        the larger end of extra: serial, it can add no more) to a run that needs T0 >= I x
        CPI_min without it, so its share d / (T0 + d) is at most X / (I x CPI_min + X),
        whatever the data accesses and walks overlap, on any core that needs at least
        CPI_min cycles per instruction. None where overlap decides it."""
        if self.row["workload"] in OVERLAPPED or not self.insns:
            return None
        full = [100.0 * extra[i] / self.run_time(preset, cpi, e)
                for i, e in enumerate(("lo", "hi")) for cpi in CPI_BAND if self.run_time(preset, cpi, e)]
        bound = 100.0 * max(extra) / (self.insns * min(CPI_BAND) + max(extra))
        return (min(full), bound) if full else None


# ---- formatting ------------------------------------------------------------------------

def fmt(x, nd=2):
    if x is None:
        return "n/a"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{nd}f}"


def band(lo, hi=None, nd=2, unit=""):
    if lo is None:
        return "n/a"
    if isinstance(lo, tuple):
        lo, hi = lo
    lo, hi = min(lo, hi), max(lo, hi)
    a, b = fmt(lo, nd), fmt(hi, nd)
    return f"{a}{unit}" if a == b else f"{a} to {b}{unit}"


def table(w, header, rows):
    w("| " + " | ".join(header) + " |")
    w("|" + "---|" * len(header))
    for r in rows:
        w("| " + " | ".join(str(c) for c in r) + " |")
    w("")


def gp_str(text):
    """A gnuplot string literal: in single quotes a quote is written twice."""
    return "'" + text.replace("'", "''") + "'"


def plot(out, name, title, xlabel, ylabel, series, xtics, xrange):
    """series: [(label, [(x, y), ...])]; x = 0 drawn at 0.5 on a log axis."""
    dat = os.path.join(out, f"{name}.dat")
    with open(dat, "w") as f:
        for label, pts in series:
            f.write(f"# {label}\n")
            for x, y in pts:
                f.write(f"{x} {y:.5f}\n")
            f.write("\n\n")
    plots = ", ".join(f"{gp_str(dat)} index {i} using ($1 == 0 ? 0.5 : $1):2 with linespoints"
                      f" title {gp_str(label)}" for i, (label, _) in enumerate(series))
    script = f"""
set datafile commentschars '#'
set xlabel {gp_str(xlabel)}
set ylabel {gp_str(ylabel)}
set logscale x 2
set xtics ({xtics})
set xrange [{xrange}]
set yrange [-0.05:*]
set key outside right
set grid
set title {gp_str(title)}
plot {plots}
"""
    for term, ext in (("pngcairo size 1000,540", "png"), ("svg size 1000,540", "svg")):
        subprocess.run(["gnuplot"], input=f"set terminal {term}\nset output {gp_str(f'{out}/{name}.{ext}')}\n"
                       + script, text=True, check=True)


# ---- the report ------------------------------------------------------------------------

def load(logs):
    runs = read_runs(logs)
    data, failed = {}, []
    for r in runs:
        key = (r["name"], r["paging"])
        base = os.path.join(logs, f"{r['name']}_{r['paging']}")
        if r["status"] != "0" or not os.path.exists(base + ".csv"):
            failed.append(key)
            continue
        stats, insns = read_model(base + ".csv")
        meta, result = read_log(base + ".log")
        plugin = {}
        if os.path.exists(base + ".json"):
            with open(base + ".json") as f:
                plugin = json.load(f)
        data[key] = Run(stats, insns, meta, result, r, plugin)
    return runs, data, failed


def write_csv(out, data):
    cols = ["workload", "paging", "preset", "space", "instructions", "accesses", "walks",
            "walk_refs", "walk_cycles_lo", "walk_cycles_hi", "data_cycles_lo", "data_cycles_hi",
            "l2_hit_cycles_lo", "l2_hit_cycles_hi", "stale_refills", "walks_failed", "faults",
            "fault_walks", "nested_walks", "ntlb_hits", "host_walk_refs", "l2_pde_hits"]
    cols += [f"accesses_{p}" for p in PAGES] + [f"refs_{lv}" for lv in LEVELS]
    cols += [f"refs_at_{w}" for w in WHERE] + [f"psc_hits_{lv}" for lv in LEVELS[:-1]]
    cols += [f"pdc_hits_{lv}" for lv in LEVELS[:-2]]
    with open(os.path.join(out, "walkmodel.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for (name, mode), run in sorted(data.items()):
            for (preset, sp), m in sorted(run.stats.items()):
                if sp not in SPACES:
                    continue
                insns = run.insns if sp == "user" else 0
                w.writerow([name, mode, preset, sp, int(insns), int(m["accesses"]), int(m["walks"]),
                            int(refs(m)), int(m["walk_cycles_lo"]), int(m["walk_cycles_hi"]),
                            int(m["data_cycles_lo"]), int(m["data_cycles_hi"]),
                            int(m["l2_hit_cycles_lo"]), int(m["l2_hit_cycles_hi"]),
                            int(m["stale_refills"]), int(m["walks_failed"]), int(m["faults"]),
                            int(m["fault_walks"]), int(m["nested_walks"]), int(m["ntlb_hits"]),
                            int(refs(m, prefix="nrefs")), int(m.get("l2_pde_hits", 0))]
                           + [int(m.get(f"accesses_{p}", 0)) for p in PAGES]
                           + [int(refs(m, level=lv)) for lv in LEVELS]
                           + [int(refs(m, where=x)) for x in WHERE]
                           + [int(m.get(f"psc_hits_{lv}", 0)) for lv in LEVELS[:-1]]
                           + [int(m.get(f"pdc_hits_{lv}", 0)) for lv in LEVELS[:-2]])


def events(run):
    """What one event of the workload is, and how many the measured part had."""
    wl = run.row["workload"]
    if wl == "pagefault":
        return "fault", int(run.result.get("minflt", 0))
    if wl == "forkexec":
        return "fork+exec", int(run.result.get("count", 0))
    return None, 0


def header(rep):
    """The title, and where the figures come from."""
    w, info, secs, failed = rep.w, rep.info, rep.secs, rep.failed
    w("# What a page walk costs at five levels: the walk model\n")
    w(f"Written by `{info.get('command', 'analysis/walkmodel/run')}` (`make bench`) at commit"
      f" {info.get('commit', 'unknown')}, started {info.get('started', '?')}, in"
      f" {fmt(int(info['seconds']) / 60, 0) + ' min' if 'seconds' in info else 'an unknown time'}"
      f" ({len(secs)} plugin boots, two at a time; host: {info.get('host', '?')})"
      f"{', guest kernel ' + info['kernel'] if 'kernel' in info else ''}."
      + "".join(f" Cells rerun with `--only`: {r}." for r in info.get("reruns", [])) +
      " `walkmodel.so`, a QEMU TCG plugin, feeds every guest load and store of the measured"
      " part of a workload to a model of the TLBs, upper-level caches and caches of each"
      " preset, walking the guest's own page tables; a warm-up before the measured part"
      " fills them first. Every number is in `walkmodel.csv` next to this file; counts are"
      " of the measured part only, user and kernel together unless a column says otherwise."
      " The presets and their sources: `analysis/walkmodel/presets.c`.\n")
    if failed:
        w("**Runs without a result:** " + ", ".join(f"{n} paging {m}" for n, m in failed) + ".\n")


def key_table(rep):
    """The key table: the fifth level's reads and cycles per walk, per workload and preset."""
    w, data, names, presets = rep.w, rep.data, rep.names, rep.presets
    w("## Key table: what the fifth level adds to page walks\n")
    w("refs/walk: entries a walk reads (faulting walks included). The fifth level's own cost"
      " is its PML5E reads, and on AMD's design (zen4) its PDC lookups, priced within the"
      " 5-level run at the preset's latency for where each was served (low to high end of the"
      " preset's band). In full, it is also what its PML5Es crowd out: PML4Es and PDPTEs"
      " pushed out of a cache they share (zen4's PDC), walk and data lines out of the data"
      " caches. The plugin prices that within the same boot: every preset runs twice, as"
      f" itself and without the PML5E level (`PRESET{TWIN}`: walks start at the PML4E, nothing"
      " else changes), fed the same accesses; the difference of their modelled cycles (data,"
      " walks, L2-TLB hits) is the level in full, on one layout and one access stream. The"
      " cycles/kI and the share take the larger of the two."
      f" Share of run time, a range: the low end is those cycles over the run's own cycles,"
      f" the instructions at a base CPI of {CPI_BAND[0]} to {CPI_BAND[1]} (an assumption) plus"
      " the data accesses, walks and L2-TLB hits at the preset's latencies, everything serial;"
      f" the high end is an upper bound: the same cycles X over X plus the instructions alone"
      f" at CPI {CPI_BAND[0]} (the level can add at most X to a run that needs at least that"
      " without it), for any core that needs that many cycles per instruction, however much"
      " of its loads and walks it overlaps. GUPS has no share: its updates are independent, a core overlaps their"
      " walks, and the model does not model overlap. The last column compares the separate"
      " 4-level boot where both run the same layout (it also holds where the tables happened"
      " to sit, which moves from boot to boot: where the matrix boots a cell more than once,"
      " the range over every pair of boots); the chase over regions 256 TiB apart has"
      " none (4-level paging puts them in one region: the sparse control below compares"
      " like with like).\n")
    rows, key = [], rep.key
    for name in names:
        r5, r4 = data.get((name, "5")), data.get((name, "4"))
        if not r5:
            continue
        for p in presets:
            if not r5.has(p) or not r5.walks(p):
                continue
            ki = r5.insns / 1000.0
            own, full, x = r5.fifth(p), r5.in_full(p), r5.priced(p)
            ow = [c / r5.walks(p) for c in own]
            sh = r5.share(p, x)
            key[(name, p)] = {"share": sh, "fifth_walk": [c / r5.walks(p) for c in x],
                              "pml5e": refs(r5.m(p), level="PML5E") / r5.walks(p),
                              "fifth_ki": [c / ki for c in x]}
            diff = "n/a: layouts differ" if name.startswith("chase-high") else "n/a"
            pairs = [(a, b) for a in boots(data, name, "5") for b in boots(data, name, "4")
                     if a.has(p) and a.walks(p) and b.has(p) and b.walks(p)]
            if pairs and not name.startswith("chase-high"):
                # Over every pair of a 5-level and a 4-level boot: the range they span.
                d = [a.cycles(p)[i] / a.walks(p) - b.cycles(p)[i] / b.walks(p)
                     for a, b in pairs for i in (0, 1)]
                diff = band(min(d), max(d)) + (f" ({len(pairs)} boot pairs)" if len(pairs) > 1 else "")
            rows.append([name, p, fmt(r5.walks(p) / ki), fmt(refs(r4.m(p)) / r4.walks(p), 3)
                         if r4 and r4.has(p) and r4.walks(p) else "n/a",
                         fmt(refs(r5.m(p)) / r5.walks(p), 3), fmt(key[(name, p)]["pml5e"], 4),
                         band(ow[0], ow[1], 3),
                         band(full[0] / r5.walks(p), full[1] / r5.walks(p), 3) if full else "n/a",
                         band(x[0] / ki, x[1] / ki, 2),
                         band(sh, nd=3, unit="%") if sh else "n/a: overlap", diff])
    table(w, ["workload", "preset", "walks/kI", "refs/walk, 4-level boot", "refs/walk, 5-level boot",
              "PML5E reads/walk", "fifth level's own cycles/walk", "fifth level in full, cycles/walk",
              "fifth-level cycles/kI", "fifth level, % of run time",
              "walk cycles/walk, 5-level − 4-level boot"], rows)


def per_event(rep):
    """Per fault and per fork+exec, from the workloads that count their events."""
    w, data, names, presets, summary = rep.w, rep.data, rep.names, rep.presets, rep.summary
    w("## Per fault and per fork+exec\n")
    w("The pagefault workload (lmbench lat_pagefault's method, one read fault per page of a"
      " page-cache file) and fork+exec of a static no-op, per event, 5-level boot. A page fault"
      " invalidates what the retried access would use (SDM Vol. 3A §4.10.4.1): the retry"
      " walks from the root and reads the PML5E; zen4-noinval is AMD's design without that"
      " (AMD documents neither). Each fault also charges the walk that faulted, before the"
      " handler's own accesses reach the caches, read down to the first entry on its path"
      " that the handler then wrote (the one that was not present). fork+exec: the"
      " guest CPU has no PCID (QEMU 7.2's TCG offers none), so every context switch's CR3"
      " write empties the caches and the walks after it read the PML5E again."
      " forkexec-pcid is the same workload with PCID modelled: the plugin applies each"
      " switch as 6.1's switch_mm_irqs_off() would on a CPU with PCID (choose_new_asid():"
      " an mm keeps the ASID whose context still names it, flushed only if its tlb_gen"
      " moved on; a new one takes the next of 6 ASIDs, flushed), the mm's ctx_id and"
      " tlb_gen read from guest RAM. Share: the run's own cycles as in the key table.\n")
    rows = []
    for name in names:
        r5, r4 = data.get((name, "5")), data.get((name, "4"))
        if not r5:
            continue
        what, n = events(r5)
        if not what or not n:
            continue
        for p in presets:
            if not r5.has(p):
                continue
            own, full, x = r5.fifth(p), r5.in_full(p), r5.priced(p)
            sh = r5.share(p, x)
            d = "n/a"
            if r4 and r4.has(p):
                n4 = events(r4)[1]
                if n4:
                    d = band(r5.cycles(p)[0] / n - r4.cycles(p)[0] / n4,
                             r5.cycles(p)[1] / n - r4.cycles(p)[1] / n4, 1)
            summary[(name, p)] = {"pml5e": refs(r5.m(p), level="PML5E") / n, "cycles": [c / n for c in x],
                                  "share": sh, "insns": r5.insns / n, "what": what, "n": n}
            rows.append([name, p, f"{n:,} {what}s", fmt(r5.insns / n, 0),
                         fmt(refs(r5.m(p), level="PML5E") / n, 3), band(own[0] / n, own[1] / n, 2),
                         band(full[0] / n, full[1] / n, 2) if full else "n/a",
                         band(sh, nd=3, unit="%") if sh else "n/a", d])
        pcid = r5.plugin.get("pcid", {})
        if pcid.get("on"):
            w(f"- {name}: PCID modelled, {pcid.get('switches', 0):,} address-space switches in the"
              f" measured part, {pcid.get('noflush', 0):,} of them without a flush.")
        faults = r5.plugin.get("faults", {})
        if faults:
            late = faults.get("late")
            w(f"- {name}: the plugin saw {faults.get('seen', 0):,} page-fault entries in the"
              f" measured part, applied {faults.get('applied', 0):,} at their retried access and"
              f" dropped {faults.get('dropped', 0):,} (a context switch came first)"
              + (f"; the workload counted {int(r5.result['minflt']):,} minor faults."
                 if "minflt" in r5.result else ".")
              + (f" {faults['fetch']:,} of them were instruction fetches, applied at the code"
                 " address." if faults.get("fetch") else "")
              + (" Every applied fault was charged before its handler's accesses" if late == 0 else
                 f" {late:,} applied faults were charged after their handler (more than the plugin"
                 " holds back)" if late else " (a plugin that charged every fault after its"
                 " handler)")
              + (f"; one handler held back at most {faults['held_max']:,} events." if "held_max" in faults
                 else "."))
    w("")
    table(w, ["workload", "preset", "events", "instructions/event", "PML5E reads/event",
              "fifth level's own cycles/event", "fifth level in full, cycles/event",
              "fifth level, % of run time",
              "walk cycles/event, 5-level − 4-level boot"], rows)


def sparse_layouts(rep):
    """The chase over one region, 16 regions 512 GiB apart and 16 256 TiB apart."""
    w, data, presets, summary = rep.w, rep.data, rep.presets, rep.summary
    w("## Sparse layouts: the like-for-like control\n")
    w("The chase over 65536 pages in one mapping, over 16 mappings 512 GiB apart (below 47"
      " bits: each its own PML4E, a layout both paging modes hold) and over 16 mappings"
      " 256 TiB apart (each its own PML5E; 4-level paging ignores those hints and maps them"
      " in one region). Walk cycles per walk (user and kernel), low to high end of the band."
      " The fifth level's cost for a sparse layout is the 512 GiB row: within the 5-level"
      " boot, against the preset's twin without the PML5E level (the key table's in-full"
      " figure: same layout, same accesses), and against the separate 4-level boot (which"
      " also holds where that boot's tables sat). What spreading the same pages 256 TiB"
      " apart instead of 512 GiB costs on 5-level paging is the difference of the two"
      " 5-level columns.\n")
    layouts = [("chase-4k", "one region"), ("chase-sparse16", "16 regions 512 GiB apart"),
               ("chase-high16", "16 regions 256 TiB apart")]
    rows = []
    for p in presets:
        if p == "zen4-noinval":
            continue
        cells, full = {}, {}
        for name, _ in layouts:
            for mode in ("4", "5"):
                r = data.get((name, mode))
                if r and r.has(p) and r.walks(p):
                    cells[(name, mode)] = [c / r.walks(p) for c in r.cycles(p)]
                    if mode == "5" and r.in_full(p):
                        full[name] = [c / r.walks(p) for c in r.in_full(p)]
        for name, label in layouts:
            c4, c5 = cells.get((name, "4")), cells.get((name, "5"))
            at = data.get((name, "5"))
            where = at.result.get("at_hint_regions", "") if at else ""
            rows.append([p, label + (f" ({where} at their hint on 5-level)" if where and name != "chase-4k" else ""),
                         band(*c4) if c4 else "n/a", band(*c5) if c5 else "n/a",
                         band(*full[name], nd=3) if name in full else "n/a",
                         band(c5[0] - c4[0], c5[1] - c4[1]) if c4 and c5 and name != "chase-high16"
                         else "n/a: layouts differ" if c4 and c5 else "n/a"])
        s5, h5 = cells.get(("chase-sparse16", "5")), cells.get(("chase-high16", "5"))
        s4 = cells.get(("chase-sparse16", "4"))
        summary[("sparse", p)] = {"level": [s5[i] - s4[i] for i in (0, 1)] if s5 and s4 else None,
                                  "in_full": full.get("chase-sparse16"),
                                  "spread": [h5[i] - s5[i] for i in (0, 1)] if h5 and s5 else None}
    table(w, ["preset", "layout", "cycles/walk, 4-level", "cycles/walk, 5-level",
              "fifth level in full, same boot", "5-level − 4-level boot"], rows)
    for p in presets:
        s = summary.get(("sparse", p))
        if s and s["spread"]:
            w(f"- {p}: 256 TiB apart instead of 512 GiB, both on 5-level paging:"
              f" {band(*s['spread'])} cycles per walk; the fifth level itself with the 512 GiB"
              f" layout: {band(*s['in_full'], nd=3) + ' in the same boot, ' if s['in_full'] else ''}"
              f"{band(*s['level']) if s['level'] else 'n/a'} against the 4-level boot.")
    w("")


def region_sweep(rep):
    """The chase over K regions 256 TiB apart: where the fifth level starts to be read."""
    w, data, presets, summary = rep.w, rep.data, rep.presets, rep.summary
    sweep_rows, series = [], defaultdict(list)
    for k in REGION_COUNTS:
        r = data.get((f"chase-high{k}", "5"))
        if not r:
            continue
        for p in presets:
            if p == "zen4-noinval" or not r.has(p) or not r.walks(p):
                continue
            own, full, x = r.fifth(p), r.in_full(p), r.priced(p)
            p5 = refs(r.m(p), level="PML5E") / r.walks(p)
            sh = r.share(p, x)
            sweep_rows.append([k, r.result.get("at_hint_regions", "?"), p, fmt(p5, 3),
                               fmt(r.m(p).get("pdc_hits_PML5E", 0) / r.walks(p), 3),
                               band(own[0] / r.walks(p), own[1] / r.walks(p), 3),
                               band(full[0] / r.walks(p), full[1] / r.walks(p), 3) if full else "n/a",
                               fmt(refs(r.m(p)) / r.walks(p), 3), band(sh, nd=3, unit="%") if sh else "n/a"])
            series[p].append((k, p5))
            summary[("regions", k, p)] = {"pml5e": p5, "share": sh,
                                          "own": [c / r.walks(p) for c in own],
                                          "full": [c / r.walks(p) for c in full] if full else None}
    if sweep_rows:
        w("## Where the answer flips: the number of 256 TiB regions\n")
        w("The chase over 65536 pages shared out between K mappings 256 TiB apart (hints"
          " k << 48), 5-level paging: each region has its own PML5E, PML4 table and below."
          " Once a walk's upper levels no longer fit the preset's caches, the fifth level is"
          " read on most walks. The sizes the step depends on are assumptions (splitpsc:"
          " ChampSim's PML5E 2, PML4E 4, PDPTE 8, PDE 32; zen4: a 64-entry PDC holding PML5Es,"
          " PML4Es and PDPTEs, 3 entries per region): the per-level sweep below shows which one."
          " zen4-16x192 is zen4 with the same 3,072 L2 DTLB entries as 16 sets of 192 ways"
          " instead of 128 of 24: regions k << 48 apart put their PDEs for one offset in one"
          " set, so where the two rows differ the step comes from the assumed set indexing,"
          " not from the capacity.\n")
        table(w, ["K", "at their hint", "preset", "PML5E reads/walk", "PML5E PDC hits/walk",
                  "fifth level's own cycles/walk", "fifth level in full, cycles/walk", "refs/walk",
                  "fifth level, % of run time"], sweep_rows)
        w("![PML5E reads per walk against the number of regions](region-sweep.svg)\n")
        with open(os.path.join(rep.out, "region-sweep.csv"), "w", newline="") as f:
            cw = csv.writer(f, lineterminator="\n")
            cw.writerow(["regions", "at_hint", "preset", "pml5e_per_walk", "pml5e_pdc_hits_per_walk",
                         "fifth_cycles_per_walk_lo", "fifth_cycles_per_walk_hi",
                         "full_cycles_per_walk_lo", "full_cycles_per_walk_hi", "refs_per_walk",
                         "share_pct_lo", "share_pct_hi"])
            for k in REGION_COUNTS:
                r = data.get((f"chase-high{k}", "5"))
                for p in presets:
                    if not r or p == "zen4-noinval" or not r.has(p) or not r.walks(p):
                        continue
                    x, full, wk = r.fifth(p), r.in_full(p), r.walks(p)
                    sh = r.share(p, r.priced(p)) or (None, None)
                    cw.writerow([k, r.result.get("at_hint_regions", ""), p,
                                 f"{refs(r.m(p), level='PML5E') / wk:.5f}",
                                 f"{r.m(p).get('pdc_hits_PML5E', 0) / wk:.5f}", f"{x[0] / wk:.4f}",
                                 f"{x[1] / wk:.4f}", "" if not full else f"{full[0] / wk:.4f}",
                                 "" if not full else f"{full[1] / wk:.4f}", f"{refs(r.m(p)) / wk:.4f}",
                                 "" if sh[0] is None else f"{sh[0]:.4f}", "" if sh[1] is None else f"{sh[1]:.4f}"])
        plot(rep.out, "region-sweep", "Chase over K regions 256 TiB apart, 5-level: PML5E reads per walk",
             "regions (K)", "PML5E reads per walk", [(p, pts) for p, pts in series.items()],
             "1, 2, 4, 8, 16, 32, 64, 255", "0.8:320")


# The region counts the per-level sweep runs at (the matrix's sweep=on): 16, where
# zen4's L2 DTLB still holds every region's PDE and its PDC is seldom consulted, and 64,
# where the PDEs no longer fit and every walk goes through the PDC.
SWEEP_REGIONS = [16, 64]


def level_sweep(rep):
    """One upper-level cache's size at a time, over K regions 256 TiB apart."""
    w, data = rep.w, rep.data
    runs = [(k, data.get((f"chase-high{k}", "4")), data.get((f"chase-high{k}", "5")))
            for k in SWEEP_REGIONS]
    runs = [(k, sw4, sw5) for k, sw4, sw5 in runs if sw5 and sw5.has("splitpsc-all0")]
    if not runs:
        return
    w("## Which cache the step belongs to: one size at a time\n")
    w("The chase over K regions 256 TiB apart, 5-level boot, with one level's cache of"
      " splitpsc given N entries while the others keep their preset sizes (PDE 32, PDPTE 8,"
      " PML4E 4, PML5E 2), every level at once, and zen4's PDC at N entries. PML5E reads per"
      " walk, and refs/walk in parentheses; the 4-level boot's refs/walk for every level at"
      " once (its regions fall back into one) in the last column. zen4 consults its PDC only"
      " on walks whose PDE its L2 DTLB lacks: the share of such walks is given with each K,"
      " so that a flat PDC row is read as what it is.\n")
    rows_csv = []
    for k, sw4, sw5 in runs:
        rows, pl = [], defaultdict(list)
        for n in SWEEP_SIZES:
            cells = []
            for s, _ in SWEEP_SERIES:
                p = f"{s}{n}"
                if not sw5.has(p) or not sw5.walks(p):
                    cells.append("n/a")
                    continue
                p5 = refs(sw5.m(p), level="PML5E") / sw5.walks(p)
                rp = refs(sw5.m(p)) / sw5.walks(p)
                cells.append(f"{p5:.3f} ({rp:.2f})")
                pl[s].append((n, p5))
                r4 = refs(sw4.m(p)) / sw4.walks(p) if sw4 and sw4.has(p) and sw4.walks(p) else None
                c5 = [c / sw5.walks(p) for c in sw5.cycles(p)]
                rows_csv.append([k, s, n, "" if r4 is None else f"{r4:.4f}", f"{rp:.4f}", f"{p5:.5f}",
                                 f"{c5[0]:.3f}", f"{c5[1]:.3f}"])
            p = f"splitpsc-all{n}"
            r4 = refs(sw4.m(p)) / sw4.walks(p) if sw4 and sw4.has(p) and sw4.walks(p) else None
            rows.append([n] + cells + [fmt(r4, 2)])
        past = None
        if sw5.has("zen4") and sw5.walks("zen4") and "l2_pde_hits" in sw5.m("zen4"):
            past = 100.0 * (1 - sw5.m("zen4")["l2_pde_hits"] / sw5.walks("zen4"))
        w(f"**{k} regions**: zen4's walks past its L2 DTLB's PDEs, to the PDC:"
          f" {'n/a (a run before the counter)' if past is None else f'{past:.1f}%'}.\n")
        table(w, ["N"] + [lbl for _, lbl in SWEEP_SERIES] + ["4-level boot, every level"], rows)
        name = "level-sweep" if k == SWEEP_REGIONS[0] else f"level-sweep-{k}"
        w(f"![PML5E reads per walk against one cache's size, {k} regions]({name}.svg)\n")
        plot(rep.out, name, f"Chase over {k} regions 256 TiB apart, 5-level: one cache's size at a time",
             "entries", "PML5E reads per walk", [(lbl, pl[s]) for s, lbl in SWEEP_SERIES if pl[s]],
             "'0' 0.5, 1, 2, 4, 8, 16, 32, 64", "0.4:80")
    with open(os.path.join(rep.out, "level-sweep.csv"), "w", newline="") as f:
        cw = csv.writer(f, lineterminator="\n")
        cw.writerow(["regions", "series", "entries", "refs_per_walk_4", "refs_per_walk_5",
                     "pml5e_per_walk_5", "walk_cycles_per_walk_5_lo", "walk_cycles_per_walk_5_hi"])
        cw.writerows(rows_csv)


def control(rep):
    """no5lvl against paging 4: the same entries read per walk."""
    w, data, names, presets = rep.w, rep.data, rep.names, rep.presets
    w("## Control: no5lvl against a CPU without LA57\n")
    w("A 5-level kernel booted with `no5lvl` runs 4-level tables: its walks must read as many"
      f" entries as on a CPU without LA57. refs/walk, preset {presets[0]}, user and kernel:\n")
    rows = []
    for name in names:
        cells = []
        for mode in MODES:
            r = data.get((name, mode))
            cells.append(fmt(refs(r.m(presets[0])) / r.walks(presets[0]))
                         if r and r.has(presets[0]) and r.walks(presets[0]) else "n/a")
        if any(c != "n/a" for c in cells[:2]):
            rows.append([name] + cells)
    table(w, ["workload", "paging 4", "no5lvl", "5"], rows)


def where_refs(rep):
    """The 5-level run's entries read per level, and the PDC hits."""
    w, data, names, presets = rep.w, rep.data, rep.names, rep.presets
    w("## Where the 5-level references go\n")
    w(f"Entries read per 1000 walks by level (preset {presets[0]}, 5-level run), and the PDC"
      " hits per 1000 walks at the levels AMD's design looks up (PDPTE, PML4E, PML5E).\n")
    rows = []
    for name in names:
        r = data.get((name, "5"))
        if not r or not r.has(presets[0]) or not r.walks(presets[0]):
            continue
        m, wk = r.m(presets[0]), r.walks(presets[0])
        rows.append([name] + [fmt(1000 * refs(m, level=lv) / wk, 0) for lv in LEVELS]
                    + [fmt(1000 * m.get(f"pdc_hits_{lv}", 0) / wk, 0) for lv in LEVELS[:3]])
    table(w, ["workload"] + LEVELS + [f"PDC hits {lv}" for lv in LEVELS[:3]], rows)


def page_sizes(rep):
    """The share of accesses per page size, from the guest's own tables."""
    w, data, names, presets = rep.w, rep.data, rep.names, rep.presets
    w("## Page sizes, from the guest's own tables\n")
    w("Every walk reads the guest's page tables from its RAM, so the size of each page is the"
      " guest's. Share of accesses per page size, 5-level run; the workloads run with"
      " transparent huge pages `never` (guest.sh), so user memory is 4K by choice; the kernel's"
      " direct map is 2M and 1G where its layout allows.\n")
    rows = []
    for name in names:
        r = data.get((name, "5"))
        if not r:
            continue
        cells = []
        for sp in SPACES:
            m = r.stats.get((presets[0], sp), {})
            tot = sum(m.get(f"accesses_{p}", 0) for p in PAGES)
            cells.append(" / ".join(f"{100 * m.get(f'accesses_{p}', 0) / tot:.1f}%" if tot else "n/a"
                                    for p in PAGES))
        thp = r.meta.get("thp", "?")
        thp = thp[thp.find("[") + 1:thp.find("]")] if "[" in thp else thp
        rows.append([name, thp] + cells)
    table(w, ["workload", "THP", "user 4K / 2M / 1G", "kernel 4K / 2M / 1G"], rows)


def nested(rep):
    """Two-dimensional walks, guest and host 4 or 5 levels, and the uncached bound."""
    w, data, names, presets, summary = rep.w, rep.data, rep.names, rep.presets, rep.summary
    nested_rows, nested_csv = [], []
    for name in names:
        r4, r5 = data.get((name, "4")), data.get((name, "5"))
        if not r5:
            continue
        for design, (h4, h5) in NESTED.items():
            cells = {}
            for g, r in (("4", r4), ("5", r5)):
                for h, p in (("4", h4), ("5", h5)):
                    if r and r.has(p) and r.walks(p):
                        ki = r.insns / 1000.0
                        cells[(g, h)] = ((refs(r.m(p)) + refs(r.m(p), prefix="nrefs")) / r.walks(p),
                                         [c / r.walks(p) for c in r.cycles(p)], [c / ki for c in r.cycles(p)])
            if ("5", "4") not in cells or ("5", "5") not in cells:
                continue
            rep.nested[(name, design)] = {gh: (data[(name, gh[0])], p) for gh, p in
                                          ((("4", "4"), h4), (("4", "5"), h5), (("5", "4"), h4),
                                           (("5", "5"), h5)) if gh in cells}
            row = [name, design]
            for gh in (("4", "4"), ("4", "5"), ("5", "4"), ("5", "5")):
                c = cells.get(gh)
                row.append(f"{c[0]:.2f} / {band(*c[1], nd=1)}" if c else "n/a")
                if c:
                    nested_csv.append([name, design, gh[0], gh[1], f"{c[0]:.4f}", f"{c[1][0]:.3f}",
                                       f"{c[1][1]:.3f}", f"{c[2][0]:.3f}", f"{c[2][1]:.3f}"])
            # The host's fifth level: the same boot, the same accesses, a 5- and a 4-level
            # host: exact. The guest's: its PML5E reads in the 5/5 run, priced.
            host = {g: [cells[(g, "5")][2][i] - cells[(g, "4")][2][i] for i in (0, 1)]
                    for g in ("4", "5") if (g, "4") in cells and (g, "5") in cells}
            ki = r5.insns / 1000.0
            guest = [c / ki for c in r5.fifth(h5)]
            both = [host["5"][i] + guest[i] for i in (0, 1)]
            sh = r5.share(h5, [b * ki for b in both])
            row += [band(*host["4"], nd=1) if "4" in host else "n/a", band(*host["5"], nd=1),
                    band(*guest, nd=1), band(*both, nd=1), band(sh, nd=2, unit="%") if sh else "n/a: overlap"]
            summary[("nested", name, design)] = {"host4": host.get("4"), "both": both, "share": sh}
            nested_rows.append(row)
    w("## Virtualised: two-dimensional walks, guest/host 4/4 to 5/5\n")
    w("A guest walks its own tables through the host's nested tables (EPT/NPT): each guest"
      " entry's guest-physical address and the data's need a host walk. The model builds the"
      " host's tables for the guest's physical memory (4K pages: the most they can cost), with"
      " a 16-entry nested TLB and host-side caches (Intel: EPT paging-structure caches at"
      " ChampSim's sizes, combined guest mappings; AMD: host entries in the same PDC): sizes"
      " marked ASSUMPTION in presets.c. Guest levels are the boot's, host levels the preset's"
      " (zen4-npt4/5, goldencove-ept4/5). Each cell: refs/walk (guest and host) / walk"
      " cycles per walk. The host's fifth level is exact: the same boot runs a 4- and a"
      " 5-level host on the same accesses (cycles per 1000 instructions, 5-level host − 4-level"
      " host); the guest's is its PML5E reads in the 5/5 run, priced as in the key table;"
      " both together as a share of the 5/5 run's time (dependent workloads).\n")
    if nested_rows:
        table(w, ["workload", "design", "4/4", "4/5", "5/4", "5/5",
                  "host's 5th level, 4-level guest (cycles/kI)", "host's 5th level, 5-level guest",
                  "guest's 5th level, 5/5", "both, 5/5", "both, % of run time"], nested_rows)
        with open(os.path.join(rep.out, "nested.csv"), "w", newline="") as f:
            cw = csv.writer(f, lineterminator="\n")
            cw.writerow(["workload", "design", "guest_levels", "host_levels", "refs_per_walk",
                         "walk_cycles_per_walk_lo", "walk_cycles_per_walk_hi", "walk_cycles_per_ki_lo",
                         "walk_cycles_per_ki_hi"])
            cw.writerows(nested_csv)
    else:
        w("No nested presets in these runs.\n")
    w("The uncached upper bound, computed (not modelled): a guest walk of g entries after its"
      " own caches needs a host walk of h levels for each of them and for the data, g + (g + 1)"
      f" h references with nothing cached on the host side. g from the model (preset"
      f" {presets[0]}):\n")
    rows = []
    for name in names:
        r4, r5 = data.get((name, "4")), data.get((name, "5"))
        if not r4 or not r5 or not r4.walks(presets[0]) or not r5.walks(presets[0]):
            continue
        g4 = refs(r4.m(presets[0])) / r4.walks(presets[0])
        g5 = refs(r5.m(presets[0])) / r5.walks(presets[0])
        rows.append([name, f"{g4:.2f}", f"{g4 + (g4 + 1) * 4:.2f}", f"{g5:.2f}", f"{g5 + (g5 + 1) * 5:.2f}"])
    table(w, ["workload", "g, 4-level", "uncached bound, 4 on 4", "g, 5-level", "uncached bound, 5 on 5"],
          rows)


# What KVM builds (7.3): on AMD the nested tables have the host's own paging depth
# (arch/x86/kvm/svm/svm.c:204 get_npt_level(), the forced root level at :5678; upstream
# 43e540cc9f2c); on Intel 5-level EPT only for a guest whose MAXPHYADDR exceeds 48 bits,
# whatever the host's paging (arch/x86/kvm/mmu/mmu.c:5977, vmx.c:8774 forces no level;
# upstream 855feb673640). (design, label, the cell a 4-level guest gets, a 5-level guest's)
KVM_CONFIGS = [
    ("zen4", "KVM on AMD, 4-level host", ("4", "4"), ("5", "4")),
    ("zen4", "KVM on AMD, 5-level host", ("4", "5"), ("5", "5")),
    ("goldencove", "KVM on Intel, guest MAXPHYADDR at most 48 (either host)", ("4", "4"), ("5", "4")),
    ("goldencove", "KVM on Intel, guest MAXPHYADDR above 48", ("4", "5"), ("5", "5")),
]
# Latencies a PDC lookup is priced at besides the preset's own band: none, and an L2-TLB
# hit's (ChampSim's 7 cycles): the band (1 to 3) has no source.
LOOKUP_SWEEP = [0, 7]


def priced(run, preset, lookup=None):
    """Walk cycles per 1000 instructions (lo, hi), the PDC lookups that hit (guest and host
    entries) at the preset's band, or every one at `lookup` cycles."""
    m, lat, ki = run.m(preset), run.lat(preset), run.insns / 1000.0
    if lookup is None:
        return [c / ki for c in run.cycles(preset)]
    hits = sum(m.get(f"pdc_hits_{lv}", 0) + m.get(f"npdc_hits_{lv}", 0) for lv in LEVELS)
    return [(run.cycles(preset)[i] - hits * lat.get(f"latency_pdc_hit_{e}", 0) + hits * lookup) / ki
            for i, e in enumerate(("lo", "hi"))]


def kvm_configs(rep):
    """The cells KVM really builds, and what the fifth level costs each guest against a
    4/4 VM, with the PDC lookup's latency swept."""
    w = rep.w
    rows = []
    for (name, design), cells in rep.nested.items():
        for d, label, c4, c5 in KVM_CONFIGS:
            if d != design or ("4", "4") not in cells:
                continue
            row = [name, label]
            for gh in (c4, c5):
                if gh not in cells:
                    row.append("n/a")
                    continue
                extra = []
                for lookup in [None] + LOOKUP_SWEEP:
                    a, b = priced(*cells[gh], lookup), priced(*cells[("4", "4")], lookup)
                    extra.append(band(a[0] - b[0], a[1] - b[1], nd=0))
                row.append(f"{gh[0]}/{gh[1]}: " + " / ".join(extra))
            rows.append(row)
    if not rows:
        return
    w("## What KVM builds: the cells a VM gets\n")
    w("KVM chooses the nested tables' depth, not the guest: on AMD they have the host's own"
      " depth, so a 5-level host gives even a 4-level guest 5-level tables (7.3's"
      " arch/x86/kvm/svm/svm.c:204 and :5678, upstream 43e540cc9f2c); on Intel KVM builds"
      " 5-level EPT only for a guest whose MAXPHYADDR is above 48 bits, whatever the host's"
      " own paging (arch/x86/kvm/mmu/mmu.c:5977, upstream 855feb673640). Each cell: the"
      " guest/host levels the guest gets, then its walk cycles per 1000 instructions more"
      " than a 4-level guest on 4-level nested tables (two boots: the 4-level guest's and the"
      " 5-level guest's layouts differ), with the PDC lookups that hit priced at the preset's"
      f" band / at {' / at '.join(str(x) for x in LOOKUP_SWEEP)} cycles each: on AMD's"
      " design much of the price is that assumed latency. The split design's lookups, beside"
      " the TLB lookup, are priced at none.\n")
    table(w, ["workload", "hypervisor and host", "4-level guest", "5-level guest"], rows)


def against_amd(rep):
    """The model's figures beside AMD's published Zen 4 ones."""
    w, key = rep.w, rep.key
    w("## Against AMD's Zen 4 figures\n")
    w("AMD measured kernels with `CONFIG_X86_5LEVEL` compiled in (running 5-level) and"
      " compiled out on Zen 4 (LKML `<80734605-1926-4ac7-9c63-006fe3ea6b6a@amd.com>`). The"
      " model prices only the hardware walk's fifth level (preset zen4, share as in the key"
      " table); the kernel's software paths are the instruction counts of `results.md`.\n")
    rows = []
    for bench, wl, pct in AMD_ZEN4:
        k = key.get((wl, "zen4")) if wl else None
        if not wl:
            model = "n/a (no such workload here)"
        elif not k:
            model = "n/a (not run)"
        elif k["share"]:
            model = band(k["share"], nd=3, unit="%")
        else:
            model = f"no share (overlap); {band(*k['fifth_ki'], nd=2)} fifth-level cycles per 1000 instructions"
        rows.append([bench, f"{pct:+.2f}%", wl or "—", model])
    table(w, ["benchmark", "AMD, 5-level vs compiled out", "workload here", "model: the fifth level's walk cycles"],
          rows)
    w("A model figure of the same size would explain a published one as page-walk cost; one far"
      " smaller says the published slowdown comes from elsewhere: the kernel's software paths,"
      " page sizes (AMD's runs presumably had THP; these run 4K pages), or working sets and"
      " layouts this model was not given. Redis and memcached have no workload here.\n")


def hardware(rep):
    """analysis/hw/run's measurements beside the model, where given."""
    w, data = rep.w, rep.data
    w("## Measured on hardware\n")
    if rep.hw and os.path.exists(rep.hw):
        hw_section(w, rep.hw, data)
    else:
        w("No measurement here: none of the machines this ran on has LA57. `analysis/hw/run`"
          " runs the same workloads natively under `perf stat` on a 5-level boot and a `no5lvl`"
          " boot of an LA57 machine and writes `hw.csv` in this report's columns; `report.py"
          " --hw hw.csv` then sets it beside the model.\n")


def model_cost(rep):
    """What the plugin costs: host time with and without it."""
    w, data, runs, secs = rep.w, rep.data, rep.runs, rep.secs
    plain_secs = None
    if os.path.exists(os.path.join(rep.logs, "plain.csv")):
        with open(os.path.join(rep.logs, "plain.csv")) as f:
            plain_secs = int(f.read().strip().split(",")[3])
    with_secs = [int(r["seconds"]) for r in runs
                 if r["name"] == "chase-4k" and r["paging"] == "5" and r["status"] == "0"]
    w("## Cost of the model\n")
    if plain_secs and with_secs:
        boot = data.get(("chase-4k", "5")) or next(iter(data.values()))
        n = len(boot.plugin.get("presets", []))
        twins = sum(p["name"].endswith(TWIN) for p in boot.plugin.get("presets", []))
        w(f"The chase-4k boot on paging 5 took {with_secs[0]} s of host time with the plugin"
          f" modelling {n - twins} presets" + (f" and their {twins} twins" if twins else "")
          + f" and {plain_secs} s without it (plain TCG, also --icount):"
          f" {with_secs[0] / plain_secs:.1f}x, boot and set-up included; the plugin boot ran"
          " beside another one, the plain one alone.\n")
    else:
        w("Not measured in this run (quick mode, or the plain run failed).\n")
    if secs:
        w(f"Plugin boots: {len(secs)}, {sum(secs)} s of host time in all, two at a time"
          f" (longest {max(secs)} s).\n")


def assumptions(rep):
    """What the model leaves out or assumes."""
    w = rep.w
    w("## Assumptions and limits\n")
    for item in [
        "One vCPU. The guest CPU (qemu64, with la57 on 5-level boots) has no PCID (QEMU"
        " 7.2's TCG offers none): every CR3 write flushes the non-global TLB entries and all"
        " upper-level caches, except in the cells with PCID modelled (pcid=on), where the"
        " plugin follows 6.1's ASID choice and the guest kernel's own flushes outside a"
        " switch flush the current PCID.",
        "The INVLPG operand is not visible to a version-1 plugin: an INVLPG drops all"
        " upper-level caches (as the instruction does) but not the one TLB entry; an access"
        " whose physical page changed since its TLB fill is re-walked (stale refill).",
        "INVPCID and MOV to CR4 are modelled as flushing everything (the kernel writes CR4 to"
        " toggle PGE); neither is used for anything else in the measured parts.",
        "Page faults: the plugin sees the entry of the guest's #PF handler, not the faulting"
        " address; it learns the address from the next access to the user half, the retry (the"
        " workloads fault only on user addresses), and holds the handler's accesses back until"
        " then. The walk that faulted is charged first, on the caches as they were, down to the"
        " first entry on its path that the handler wrote; then the handler's accesses, then"
        " the retry.",
        "The fifth level in full is priced against a twin of each preset without the PML5E"
        " level, fed the same accesses: a core that walks the same tables from the PML4E, not"
        " a 4-level boot (whose layout and tables differ, the key table's last column).",
        "Instruction fetches are not modelled (no ITLB); walks for data only. A fault on a"
        " fetch is applied at the code address (recognised by the handler having written an"
        " entry on its path) and its walk priced like a data walk.",
        "Upper-level caches: Intel documents its split paging-structure caches, not their"
        " sizes (ChampSim's are used: ASSUMPTION, swept); AMD documents PDEs in the L2 DTLB and"
        " a 64-entry PDC for Family 17h (assumed for Zen 4, PML5Es included, tagged by physical"
        " address after Barr, Cox and Rixner, ISCA 2010).",
        "Latencies are load-to-use latencies of the cache levels; a walk's references are"
        " serial, so walk cycles add them up; no overlap with other work is modelled. Shares"
        f" take the instructions at a base CPI of {CPI_BAND[0]} to {CPI_BAND[1]}; their upper"
        f" end takes the instructions alone at {CPI_BAND[0]} plus the level's own cycles, so it"
        " holds for cores no faster.",
        "Nested paging: host tables of 4K pages built by the model, nested TLB and host-side"
        " cache sizes assumed; the guest's physical layout is the TCG guest's.",
        "The guest runs without KASLR (nokaslr), so the plugin finds the running page-table"
        " root and the fault entry through the kernel's symbols.",
    ]:
        w(f"- {item}")
    w("")


def boots(data, name, mode):
    """Every boot of cell (name, mode): NAME's and its repeats NAME@2, NAME@3, ..."""
    return [r for (n, m), r in sorted(data.items()) if m == mode and (n == name or n.startswith(name + "@"))]


class Report:
    """What the sections share: the runs, the presets shown, the lines of walkmodel.md,
    and the figures the summary at its top is made of (summary, key)."""

    def __init__(self, args, runs, data, failed):
        self.out, self.hw, self.logs = args.out, args.hw, args.logs
        self.runs, self.data, self.failed = runs, data, failed
        self.info = read_info(args.logs)
        self.presets = [p for p in PRESETS if any(r.has(p) for r in data.values())]
        # A cell booted more than once has its further boots named NAME@2, NAME@3 (the
        # matrix): the tables show NAME; boots() gives them all where boots can differ.
        self.names = []
        for r in runs:
            if "@" not in r["name"] and r["name"] not in self.names:
                self.names.append(r["name"])
        self.secs = [int(r["seconds"]) for r in runs if r["status"] == "0"]
        self.lines = []
        self.w = self.lines.append
        self.summary, self.key = {}, {}
        self.nested = {}    # (workload, design) -> {(guest, host levels): (run, preset)}


SECTIONS = [key_table, per_event, sparse_layouts, region_sweep, level_sweep, control, where_refs,
            page_sizes, nested, kvm_configs, against_amd, hardware, model_cost, assumptions]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--logs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--hw", help="analysis/hw/run's hw.csv, to set beside the model")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    runs, data, failed = load(a.logs)
    if not data:
        sys.exit("report.py: no run produced a result; see " + a.logs)
    write_csv(a.out, data)
    rep = Report(a, runs, data, failed)
    header(rep)
    bounds_at = len(rep.lines)      # the summary goes here once the tables are known
    for section in SECTIONS:
        section(rep)
    rep.lines[bounds_at:bounds_at] = bounds(rep.summary, rep.key, rep.presets)
    with open(os.path.join(a.out, "walkmodel.md"), "w") as f:
        f.write("\n".join(rep.lines) + "\n")


def bounds(summary, key, presets):
    """The answer as bounds, each with the conditions it holds under."""
    out = ["## What the fifth level costs: bounds and their conditions\n"]
    real = [p for p in ("zen4", "goldencove") if p in presets]
    one_region = ["chase-4k", "bsearch"]
    shares = [(k[0], k[1], v["share"]) for k, v in key.items()
              if k[0] in one_region and k[1] in real and v["share"]]
    if shares:
        wl, p, hi = max(shares, key=lambda s: s[2][1])
        out.append(f"- **Inside one 256 TiB region** (chase over 256 MiB of 4K pages, binary"
                   f" search over 1 GiB), with the caches of {' and '.join(real)} as sized in"
                   f" presets.c: at most {hi[1]:.3f}% of run time ({wl}, {p}; the instructions alone at"
                   f" CPI {CPI_BAND[0]} plus the level's cycles as the denominator); GUPS, whose walks a"
                   " core overlaps, at most"
                   f" {max((v['fifth_ki'][1] for k, v in key.items() if k[0].startswith('gups') and k[1] in real), default=0):.2f}"
                   " fifth-level cycles per 1000 instructions. With no upper-level cache at all"
                   " (nopsc, a bound no real core has): "
                   + ", ".join(f"{k[0]} {band(v['share'], nd=2, unit='%')}" for k, v in key.items()
                               if k[1] == "nopsc" and k[0] in one_region and v["share"]) + ".")
    for wl in ("pagefault", "forkexec", "forkexec-pcid"):
        for p in real + ["zen4-noinval"]:
            s = summary.get((wl, p))
            if not s:
                continue
            out.append(f"- **Per {s['what']}**{' with PCID modelled' if wl == 'forkexec-pcid' else ''} ({p}"
                       + (", no invalidation on a fault: AMD's other possible behaviour" if p == "zen4-noinval" else "")
                       + f"): {s['pml5e']:.3f} PML5E reads, {band(*s['cycles'])} cycles"
                       + (f", {band(s['share'], nd=3, unit='%')} of its time" if s["share"] else "")
                       + (" (no PCID: every context switch empties the caches)"
                          if wl == "forkexec" else "") + ".")
    def flip(p):
        ks = [k for k in REGION_COUNTS if summary.get(("regions", k, p), {}).get("pml5e", 0) > 0.05]
        return ks[0] if ks else "more than 255"

    for p in real:
        top = summary.get(("regions", 255, p))
        step = summary.get(("regions", flip(p), p))
        if step or top:
            out.append(f"- **Sparse layouts** ({p}): a PML5E read on more than 5% of walks from"
                       f" {flip(p)} regions 256 TiB apart on"
                       + (f"; with 255 regions {top['pml5e']:.2f} per walk" if top else "")
                       + (f", {band(top['share'], nd=2, unit='%')} of the chase's run time" if top and top["share"] else "")
                       + ". The step sits where the regions' upper-level entries outgrow the caches"
                         " (assumed sizes: see the sweeps)"
                       + (f". At {flip(p)} regions the level's own reads cost {band(*step['own'])}"
                          f" cycles per walk, in full {band(*step['full'])} (what its PML5Es push out"
                          " of the caches they share included)" if step and step["full"] else "")
                       + (f"; with the same L2 DTLB entries as 16 x 192 (zen4-16x192, the assumed"
                          f" set indexing changed) the step moves to {flip('zen4-16x192')} regions"
                          if p == "zen4" and ("regions", 255, "zen4-16x192") in summary else "")
                       + ".")
        s = summary.get(("sparse", p))
        if s and s["in_full"]:
            out.append(f"  Like for like (16 regions 512 GiB apart, a layout both modes hold): the"
                       f" fifth level in full adds {band(*s['in_full'], nd=3)} cycles per walk in the"
                       " same boot" + (f"; the separate 4-level boot differs by {band(*s['level'])}"
                                       " (its own layout)" if s["level"] else "") + ".")
        elif s and s["level"]:
            out.append(f"  Like for like (16 regions 512 GiB apart, both paging modes): the fifth"
                       f" level adds {band(*s['level'])} cycles per walk.")
    for design in ("zen4", "goldencove"):
        s = summary.get(("nested", "chase-4k", design))
        if s:
            out.append(f"- **In a VM** ({design}, chase in one region, the host mapping guest memory"
                       f" with 4K pages): the guest's and the host's fifth levels together add"
                       f" {band(*s['both'], nd=1)} walk cycles per 1000 instructions"
                       + (f" ({band(s['share'], nd=2, unit='%')} of run time)" if s["share"] else "")
                       + (f"; a 5-level host under a 4-level guest {band(*s['host4'], nd=1)}" if s["host4"] else "")
                       + ".")
    out.append("")
    out.append("Each bound holds for the cache design and sizes named (presets.c; sizes no"
               " vendor publishes are assumptions, swept below), a core without PCID unless a"
               " line says PCID modelled, 4K pages,"
               " and serial walks. Its cycles are the fifth level in full where the boot priced"
               " it (its own reads and what its PML5Es crowd out: the same preset without the"
               " PML5E level, fed the same accesses) and its own reads where that is larger or"
               " the boot did not; the tables below give every figure it comes from.\n")
    return out


def hw_section(w, path, data):
    """Measured (analysis/hw/run) beside modelled: walks per 1000 instructions and, where
    the core counts them, walk cycles per walk."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    out = []
    for r in rows:
        run = data.get((r["workload"], r["paging"]))
        p = "zen4" if "AMD" in r["cpu"] else "goldencove"
        model = model_cycles = "n/a"
        if run and run.has(p) and run.walks(p):
            model = fmt(run.walks(p) / (run.insns / 1000.0))
            model_cycles = band(*[c / run.walks(p) for c in run.cycles(p)], nd=1)
        ins = float(r["instructions"] or 0)
        walks = float(r["walks"] or 0)
        wc = r.get("walk_cycles", "")
        out.append([r["workload"], r["paging"], r["cpu"], r["space"], r["runs"],
                    fmt(1000 * walks / ins) if ins else "n/a", model,
                    fmt(float(wc) / walks, 1) if wc and walks else "n/a (not counted)",
                    model_cycles])
    w("From " + os.path.basename(path) + " (`analysis/hw/run`), medians over its runs, beside"
      " the model's preset for that vendor (zen4 for AMD, goldencove for Intel). A measured"
      " walk's cycles include what overlaps it; the model's add its reads up serially.\n")
    table(w, ["workload", "paging", "cpu", "space", "runs", "walks/kI, measured", "walks/kI, model",
              "walk cycles/walk, measured", "walk cycles/walk, model"], out)


if __name__ == "__main__":
    main()
