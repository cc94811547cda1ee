#!/usr/bin/env python3
"""Turn the walk model's records (analysis/walkmodel/run) into tables, a plot and
walkmodel.md.

    report.py --logs DIR --out DIR [--quick]

Reads DIR/runs.csv, and per run NAME_MODE.csv (walkmodel.so's long form:
preset,space,metric,value), NAME_MODE.log (guest meta lines and the workload's result
line). Writes walkmodel.csv (one row per run, preset and space), psc-sweep.csv,
walkmodel.md and psc-sweep.png/svg.
"""
import argparse
import csv
import os
import subprocess
import sys
from collections import defaultdict

LEVELS = ["PML5E", "PML4E", "PDPTE", "PDE", "PTE"]
WHERE = ["L1", "L2", "L3", "mem"]
PAGES = ["4K", "2M", "1G"]
MODES = ["4", "no5lvl", "5"]
SPACES = ["user", "kernel"]
# Base CPI band (cycles per instruction without translation stalls) that turns walk
# cycles into a share of run time: an assumption, stated in the report.
CPI_BAND = (0.5, 1.5)
# AMD's published Zen 4 figures for a kernel with CONFIG_X86_5LEVEL compiled in (running
# 5-level) against one without it: the change with 5-level, in percent (positive: slower
# for lat_pagefault, a latency; negative: less throughput for the others).
AMD_ZEN4 = [
    ("GUPS", "gups-1g", -0.10),
    ("XSBench", "bsearch", -2.36),
    ("Redis", None, -1.02),
    ("memcached", None, -0.87),
    ("lmbench lat_pagefault", "pagefault", +5.56),
]


def read_runs(logs):
    with open(os.path.join(logs, "runs.csv")) as f:
        return list(csv.DictReader(f))


def read_model(path):
    """{(preset, space): {metric: value}} and {space: instructions}."""
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


def refs(m, level=None, where=None):
    return sum(m.get(f"refs_{l}_{w}", 0) for l in LEVELS for w in WHERE
               if (level is None or l == level) and (where is None or w == where))


def walk_cycles(m):
    return m.get("walk_cycles_lo", 0), m.get("walk_cycles_hi", 0)


def fmt(x, nd=2):
    if x is None:
        return "n/a"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{nd}f}"


def band(lo, hi, nd=2):
    lo, hi = min(lo, hi), max(lo, hi)
    return f"{fmt(lo, nd)} to {fmt(hi, nd)}" if fmt(lo, nd) != fmt(hi, nd) else fmt(lo, nd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--logs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    runs = read_runs(a.logs)
    data = {}          # (name, mode) -> (stats, insns, meta, result)
    failed = []
    for r in runs:
        key = (r["name"], r["paging"])
        path = os.path.join(a.logs, f"{r['name']}_{r['paging']}.csv")
        if r["status"] != "0" or not os.path.exists(path):
            failed.append(key)
            continue
        stats, insns = read_model(path)
        meta, result = read_log(os.path.join(a.logs, f"{r['name']}_{r['paging']}.log"))
        data[key] = (stats, insns, meta, result, r)
    if not data:
        sys.exit("report.py: no run produced a result; see " + a.logs)

    # The presets in the plugin's order (presets.c): the first is the reference below.
    presets = []
    for (stats, *_rest) in data.values():
        for (p, _) in stats:
            if "-psc" not in p and p not in presets:
                presets.append(p)
    names = []
    for r in runs:
        if r["name"] not in names:
            names.append(r["name"])

    # ---- walkmodel.csv: every run, preset and space ----
    cols = ["workload", "paging", "preset", "space", "instructions", "accesses", "walks",
            "walk_refs", "walk_cycles_lo", "walk_cycles_hi", "stale_refills", "walks_failed"]
    cols += [f"accesses_{p}" for p in PAGES] + [f"refs_{l}" for l in LEVELS]
    cols += [f"refs_at_{w}" for w in WHERE] + [f"psc_hits_{l}" for l in LEVELS[:-1]]
    with open(os.path.join(a.out, "walkmodel.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for (name, mode), (stats, insns, _, _, _) in sorted(data.items()):
            for (preset, sp), m in sorted(stats.items()):
                if sp not in SPACES:
                    continue
                w.writerow([name, mode, preset, sp, insns.get(sp, 0), int(m["accesses"]),
                            int(m["walks"]), int(refs(m)), int(m["walk_cycles_lo"]),
                            int(m["walk_cycles_hi"]), int(m["stale_refills"]),
                            int(m["walks_failed"])]
                           + [int(m.get(f"accesses_{p}", 0)) for p in PAGES]
                           + [int(refs(m, level=l)) for l in LEVELS]
                           + [int(refs(m, where=x)) for x in WHERE]
                           + [int(m.get(f"psc_hits_{l}", 0)) for l in LEVELS[:-1]])

    lines = []
    w = lines.append
    w("# What a page walk costs at five levels: the walk model\n")
    w("Written by `analysis/walkmodel/run` (`make bench`) from `walkmodel.so` runs: a QEMU"
      " TCG plugin that feeds every guest load and store of the measured part of a workload"
      " to a model of the TLBs, paging-structure caches and caches of each preset, walking the"
      " guest's own page tables. Every number is in `walkmodel.csv` next to this file. All"
      " counts are of the marked part only (between `WALKMARK_START()` and `WALKMARK_STOP()`),"
      " user and kernel together unless a column says otherwise.\n")
    if failed:
        w("**Runs without a result:** " + ", ".join(f"{n} paging {m}" for n, m in failed)
          + ".\n")

    # ---- key table ----
    w("## Key table: what the fifth level adds to page walks\n")
    w("refs/walk: paging-structure entries a walk reads after its paging-structure-cache"
      " hit. The fifth level's own cost is its PML5E reads: for the same access stream, a"
      " 5-level walk reads exactly those references more than a 4-level walk (the model's"
      " tests prove it), so they are priced within the 5-level run, at the preset's latency"
      " for where each was served (L1, L2, L3, memory; low to high end of the preset's band)."
      " Extra cycles/kI scale that by the run's walks per 1000 instructions. Share of run"
      f" time: over 1000 instructions at a base CPI of {CPI_BAND[0]} to {CPI_BAND[1]} (an"
      " assumption: the model knows no core's CPI) plus the run's walk cycles. The last"
      " column compares the separate 4-level boot: its difference also holds where the page"
      " tables happened to sit in physical memory (cache sets), which moves from boot to"
      " boot.\n")
    w("| workload | preset | walks/kI | refs/walk, 4-level boot | refs/walk, 5-level boot |"
      " PML5E reads/walk | 5-level extra cycles/walk | extra cycles/kI |"
      " extra, % of run time | cycles/walk, 5-level boot − 4-level boot |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    key_rows = {}
    for name in names:
        if (name, "4") not in data or (name, "5") not in data:
            continue
        for preset in presets:
            m4 = combined(data[(name, "4")][0], preset)
            m5 = combined(data[(name, "5")][0], preset)
            stats5, insns5, *_ = data[(name, "5")]
            ki = (insns5.get("user", 0) + insns5.get("kernel", 0)) / 1000.0
            if not ki or not m4["walks"] or not m5["walks"]:
                continue
            lat = stats5.get((preset, "-"), {})
            wpk = m5["walks"] / ki
            x = [sum(m5.get(f"refs_PML5E_{w_}", 0) * lat.get(f"latency_{w_}_{end}", 0)
                     for w_ in WHERE) / m5["walks"] for end in ("lo", "hi")]
            c5 = [c / m5["walks"] for c in walk_cycles(m5)]
            c4 = [c / m4["walks"] for c in walk_cycles(m4)]
            shares = [100.0 * x[e] * wpk / (1000 * cpi + c5[e] * wpk)
                      for e in (0, 1) for cpi in CPI_BAND]
            key_rows[(name, preset)] = (min(shares), max(shares))
            w(f"| {name} | {preset} | {fmt(wpk)} | {fmt(refs(m4) / m4['walks'], 3)} |"
              f" {fmt(refs(m5) / m5['walks'], 3)} | {fmt(refs(m5, level='PML5E') / m5['walks'], 4)} |"
              f" {band(x[0], x[1], 3)} | {band(x[0] * wpk, x[1] * wpk, 2)} |"
              f" {band(min(shares), max(shares), 3)} |"
              f" {band(c5[0] - c4[0], c5[1] - c4[1], 2)} |")
    w("")

    # ---- no5lvl as a control ----
    w("## Control: no5lvl against a CPU without LA57\n")
    w("A 5-level kernel booted with `no5lvl` runs 4-level tables: its walks must read as many"
      " entries as on a CPU without LA57. refs/walk, preset "
      f"{presets[0]}, user and kernel:\n")
    w("| workload | paging 4 | no5lvl | 5 |")
    w("|---|---|---|---|")
    for name in names:
        cells = []
        for mode in MODES:
            if (name, mode) in data:
                m = combined(data[(name, mode)][0], presets[0])
                cells.append(fmt(refs(m) / m["walks"]) if m["walks"] else "n/a")
            else:
                cells.append("n/a")
        w(f"| {name} | " + " | ".join(cells) + " |")
    w("")

    # ---- where the extra references are ----
    w("## Where the 5-level references go\n")
    w(f"Entries read per 1000 walks by level (preset {presets[0]}, 5-level run), and the"
      " extra references per 1000 walks against the 4-level run. A PML5E read is the fifth"
      " level's own; the other levels change only through the caches' reach.\n")
    w("| workload | " + " | ".join(LEVELS) + " | extra refs per 1000 walks (5 − 4) |")
    w("|---|" + "---|" * (len(LEVELS) + 1))
    for name in names:
        if (name, "5") not in data or (name, "4") not in data:
            continue
        m5 = combined(data[(name, "5")][0], presets[0])
        m4 = combined(data[(name, "4")][0], presets[0])
        if not m5["walks"] or not m4["walks"]:
            continue
        per = [1000 * refs(m5, level=l) / m5["walks"] for l in LEVELS]
        extra = 1000 * (refs(m5) / m5["walks"] - refs(m4) / m4["walks"])
        w(f"| {name} | " + " | ".join(fmt(x, 0) for x in per) + f" | {fmt(extra, 0)} |")
    w("")

    # ---- page sizes ----
    w("## Page sizes, from the guest's own tables\n")
    w("Every walk reads the guest's page tables from its RAM, so the size of each page is"
      " the guest's (leaf at PTE, PDE or PDPTE). Share of accesses per page size, 5-level"
      " run; the workloads run with transparent huge pages `never` (guest.sh), so user"
      " memory is 4K by choice; the kernel's direct map is 2M and 1G where its layout"
      " allows.\n")
    w("| workload | THP | user 4K / 2M / 1G | kernel 4K / 2M / 1G |")
    w("|---|---|---|---|")
    for name in names:
        if (name, "5") not in data:
            continue
        stats, _, meta, _, _ = data[(name, "5")]
        cells = []
        for sp in SPACES:
            m = stats.get((presets[0], sp), {})
            tot = sum(m.get(f"accesses_{p}", 0) for p in PAGES)
            cells.append(" / ".join(f"{100 * m.get(f'accesses_{p}', 0) / tot:.1f}%" if tot else "n/a"
                                    for p in PAGES))
        thp = meta.get("thp", "?")
        thp = thp[thp.find("[") + 1:thp.find("]")] if "[" in thp else thp
        w(f"| {name} | {thp} | {cells[0]} | {cells[1]} |")
    w("")

    # ---- PSC sweep ----
    sweep = []
    for (name, mode), (stats, *_rest) in data.items():
        for (preset, sp) in stats:
            if "-psc" in preset and sp == "user":
                n = int(preset.rsplit("-psc", 1)[1])
                m = stats[(preset, "user")]
                sweep.append((name, mode, n, refs(m), m["walks"], refs(m, level="PML5E")))
    if sweep:
        by = defaultdict(dict)
        for name, mode, n, r, wk, r5 in sweep:
            by[(name, n)][mode] = (r, wk, r5)
        with open(os.path.join(a.out, "psc-sweep.csv"), "w", newline="") as f:
            cw = csv.writer(f)
            cw.writerow(["workload", "psc_entries", "refs_per_walk_4", "refs_per_walk_5",
                         "extra_refs_per_walk", "pml5e_refs_per_walk"])
            rows = []
            for (name, n), v in sorted(by.items(), key=lambda x: (x[0][0], x[0][1])):
                if "4" in v and "5" in v and v["4"][1] and v["5"][1]:
                    r4 = v["4"][0] / v["4"][1]
                    r5 = v["5"][0] / v["5"][1]
                    rows.append((name, n, r4, r5, r5 - r4, v["5"][2] / v["5"][1]))
                    cw.writerow([name, n, f"{r4:.4f}", f"{r5:.4f}", f"{r5 - r4:.4f}",
                                 f"{v['5'][2] / v['5'][1]:.4f}"])
        w("## The fifth level against paging-structure-cache size\n")
        w("User-space walks of the chase over 16 regions of 256 TiB, with every paging-structure"
          " cache given N entries (preset " + presets[0] + " otherwise): the extra entries a"
          " 5-level walk reads against the same chase on 4-level paging, and the PML5E reads"
          " among them. ![extra references against PSC size](psc-sweep.svg)\n")
        w("| PSC entries | refs/walk, 4-level | refs/walk, 5-level | extra | PML5E reads/walk |")
        w("|---|---|---|---|---|")
        for name, n, r4, r5, d, p5 in rows:
            w(f"| {n} | {r4:.3f} | {r5:.3f} | {d:.3f} | {p5:.3f} |")
        w("")
        plot_sweep(a.out, rows)

    # ---- nested ----
    w("## The same walks virtualised (nested paging), computed\n")
    w("A guest walk that reads g entries needs a host walk of h levels for each of them and"
      " for the final guest-physical address: g + (g + 1) · h references with no host-side"
      " caching (24 for 4-on-4 and 35 for 5-on-5 when g = h). With g from the model (preset "
      f"{presets[0]}, after its paging-structure caches), host side uncached:\n")
    w("| workload | g, 4-level | nested refs/walk, 4 on 4 | g, 5-level | nested refs/walk, 5 on 5 |")
    w("|---|---|---|---|---|")
    for name in names:
        if (name, "4") not in data or (name, "5") not in data:
            continue
        g = {}
        for mode in ("4", "5"):
            m = combined(data[(name, mode)][0], presets[0])
            g[mode] = refs(m) / m["walks"] if m["walks"] else 0
        w(f"| {name} | {g['4']:.2f} | {g['4'] + (g['4'] + 1) * 4:.2f} | {g['5']:.2f} |"
          f" {g['5'] + (g['5'] + 1) * 5:.2f} |")
    w("")

    # ---- AMD ----
    w("## Against AMD's Zen 4 figures\n")
    w("AMD measured kernels with `CONFIG_X86_5LEVEL` compiled in (running 5-level) and"
      " compiled out on Zen 4. The model prices only the hardware walk of 5-level paging:"
      " the extra walk cycles as a share of run time (preset zen4, band above). The kernel's"
      " software paths (the `pgtable_l5_enabled()` branches, the extra level's allocation) are"
      " the instruction counts of `results.md`, not this model.\n")
    w("| benchmark | AMD, 5-level vs compiled out | workload here | model: 5-level extra walk cycles, % of run time |")
    w("|---|---|---|---|")
    for bench, wl, pct in AMD_ZEN4:
        row = key_rows.get((wl, "zen4")) if wl else None
        model = band(row[0], row[1], 3) + "%" if row else "n/a (no such workload here)"
        w(f"| {bench} | {pct:+.2f}% | {wl or '—'} | {model} |")
    w("")
    w("All five published figures are slowdowns (a latency up, throughputs down). A"
      " model figure of the same size explains a published one as page-walk cost; one far"
      " smaller says the published slowdown comes from elsewhere: the kernel's software"
      " paths (the instruction counts of results.md, compiled-out kernel included), page"
      " sizes (AMD's runs presumably had THP; these run 4K pages), or working sets and"
      " address-space layouts this model was not given. Redis and memcached, dominated by"
      " the network stack, have no workload here.\n")

    # ---- cost of the model ----
    plain_secs = None
    if os.path.exists(os.path.join(a.logs, "plain.csv")):
        with open(os.path.join(a.logs, "plain.csv")) as f:
            plain_secs = int(f.read().strip().split(",")[3])
    with_secs = [int(r["seconds"]) for r in runs
                 if r["name"] == "chase-4k" and r["paging"] == "5" and r["status"] == "0"]
    w("## Cost of the model\n")
    if plain_secs and with_secs:
        w(f"The chase-4k boot on paging 5 (boot, set-up and the measured chase) took"
          f" {with_secs[0]} s of host time with the plugin modelling {len(presets)} presets and"
          f" {plain_secs} s without it (plain TCG, also --icount): {with_secs[0] / plain_secs:.1f}x."
          " Both boots include boot and set-up, where the plugin only returns early; the"
          " plugin boot ran beside another one (two at a time), the plain one alone: an upper"
          " bound for the whole boot, not the slowdown of the measured part alone.\n")
    else:
        w("Not measured in this run (quick mode, or the plain run failed).\n")
    secs = [int(r["seconds"]) for r in runs if r["status"] == "0"]
    if secs:
        w(f"Plugin boots: {len(secs)}, {sum(secs)} s of host time in all, two at a time"
          f" (longest {max(secs)} s).\n")

    w("## Assumptions and limits\n")
    for item in [
        "One vCPU. The guest CPU (qemu64, with la57 on 5-level boots) has no PCID: every CR3"
        " write flushes the non-global TLB entries and all paging-structure caches.",
        "The INVLPG operand is not visible to a version-1 plugin: an INVLPG drops all"
        " paging-structure caches (as the instruction does) but not the one TLB entry; an"
        " access whose physical page changed since its TLB fill is re-walked (stale refill).",
        "INVPCID and MOV to CR4 are modelled as flushing everything (the kernel writes CR4 to"
        " toggle PGE); neither is used for anything else in the measured parts.",
        "Instruction fetches are not modelled (no ITLB); walks for data only.",
        "Walks that fault are not seen: QEMU reports an access only once it succeeds, so a"
        " faulting access's walk and its retry count as one walk.",
        "Paging-structure caches follow Intel's split design (SDM 4.10.3) for every preset;"
        " AMD's page-walk cache differs in organisation; sizes not published are named as"
        " assumptions in presets.c.",
        "Latencies are load-to-use latencies of the cache levels; a walk's references are"
        " serial, so walk cycles add them up; no overlap with other work is modelled.",
        "The guest runs without KASLR (nokaslr), so the plugin finds the running page-table"
        " root through the kernel's symbols.",
    ]:
        w(f"- {item}")
    w("")
    with open(os.path.join(a.out, "walkmodel.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def plot_sweep(out, rows):
    dat = os.path.join(out, "psc-sweep.dat")
    with open(dat, "w") as f:
        f.write("# psc_entries extra_refs_per_walk pml5e_refs_per_walk\n")
        for _, n, _, _, d, p5 in rows:
            f.write(f"{n} {d:.5f} {p5:.5f}\n")
    # log2 x axis: the sizes double; x = 0 is drawn at 0.5 and labelled 0.
    script = f"""
set datafile commentschars '#'
set xlabel 'entries in each paging-structure cache'
set ylabel 'references per walk (mean over all walks)'
set logscale x 2
set xtics ('0' 0.5, 1, 2, 4, 8, 16, 32, 64)
set xrange [0.4:100]
# from just below zero: the difference of two boots can dip under it by a hair
set yrange [-0.2:*]
set key top right
set grid
set title 'Chase over 16 regions of 256 TiB: 5-level walks read more (mean per walk)'
plot '{dat}' using ($1 == 0 ? 0.5 : $1):2 with linespoints title 'extra references, 5-level - 4-level', \\
     '' using ($1 == 0 ? 0.5 : $1):3 with linespoints title 'PML5E reads, 5-level'
"""
    for term, ext in (("pngcairo size 900,540", "png"), ("svg size 900,540", "svg")):
        subprocess.run(["gnuplot"], input=f"set terminal {term}\nset output '{out}/psc-sweep.{ext}'\n"
                       + script, text=True, check=True)


if __name__ == "__main__":
    main()
