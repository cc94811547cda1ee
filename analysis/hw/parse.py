#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn analysis/hw/run's raw perf stat output into the walk model's columns.

    parse.py --out DIR RAW...

Each RAW file is `perf stat -x, -o` output with one first line that analysis/hw/run adds:
"# workload=NAME paging=4|5 run=N cpu=MODEL". Writes DIR/hw-runs.csv (one row per file)
and DIR/hw.csv (medians over the runs of each workload, paging mode and CPU). A counter
perf could not count ("<not counted>", "<not supported>") or a file without its header
stops with one line on stderr and exit 1: a row with a hole would read as a measurement.
"""
import argparse
import csv
import os
import statistics
import sys
from collections import defaultdict

# perf's event name (lower case, without PMU prefix or modifiers) -> the column it adds to.
EVENTS = {
    "instructions": "instructions",
    "cycles": "cycles",
    "page-faults": "page_faults",
    "dtlb_load_misses.walk_completed": "walks",
    "dtlb_store_misses.walk_completed": "walks",
    "dtlb_load_misses.walk_pending": "walk_cycles",
    "dtlb_store_misses.walk_pending": "walk_cycles",
    "ls_l1_d_tlb_miss.all": "l1_dtlb_misses",
    "ls_l1_d_tlb_miss.all_l2_miss": "walks",
    "ls_tlb_flush.all": "tlb_flushes",
}
COLUMNS = ["instructions", "cycles", "walks", "walk_cycles", "l1_dtlb_misses", "page_faults",
           "tlb_flushes"]
KEYS = ["workload", "paging", "cpu"]


class ParseError(Exception):
    pass


def event_name(field):
    """"cpu_core/dtlb_load_misses.walk_completed/u" or "instructions:u" -> the bare name."""
    name = field.strip().lower()
    if "/" in name:
        parts = [p for p in name.split("/") if p]
        name = parts[1] if len(parts) > 1 else parts[0]
    return name.split(":")[0]


def parse(path):
    """One raw file -> {key: value} with KEYS, "run" and the COLUMNS perf counted."""
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or not lines[0].startswith("# workload="):
        raise ParseError(f"{path}: no '# workload=... paging=... run=... cpu=...' header")
    head = lines[0][2:]
    cpu = head.split(" cpu=", 1)[1] if " cpu=" in head else ""
    meta = dict(kv.split("=", 1) for kv in head.split(" cpu=", 1)[0].split())
    row = {"workload": meta.get("workload"), "paging": meta.get("paging"), "run": meta.get("run"),
           "cpu": cpu}
    if row["paging"] not in ("4", "5") or not row["workload"] or not cpu:
        raise ParseError(f"{path}: bad header '{lines[0]}'")
    seen = set()
    for line in lines[1:]:
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split(",")
        if len(fields) < 3:
            raise ParseError(f"{path}: not perf stat -x, output: '{line}'")
        value, name = fields[0].strip(), event_name(fields[2])
        if name not in EVENTS:
            continue
        if value.startswith("<"):
            raise ParseError(f"{path}: perf could not count {name} ({value})")
        try:
            v = float(value)
        except ValueError:
            raise ParseError(f"{path}: {name} has no number: '{value}'")
        col = EVENTS[name]
        row[col] = row.get(col, 0.0) + v
        seen.add(name)
    if "instructions" not in row or "walks" not in row:
        raise ParseError(f"{path}: no instructions or page-walk count in it")
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("raw", nargs="+")
    a = ap.parse_args()
    try:
        rows = [parse(p) for p in sorted(a.raw)]
    except (ParseError, OSError) as e:
        print(f"parse.py: {e}", file=sys.stderr)
        sys.exit(1)
    os.makedirs(a.out, exist_ok=True)

    def cell(v):
        return "" if v is None else f"{v:.0f}"

    with open(os.path.join(a.out, "hw-runs.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(KEYS + ["run"] + COLUMNS)
        for r in rows:
            w.writerow([r[k] for k in KEYS] + [r["run"]] + [cell(r.get(c)) for c in COLUMNS])
    groups = defaultdict(list)
    for r in rows:
        groups[tuple(r[k] for k in KEYS)].append(r)
    with open(os.path.join(a.out, "hw.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        # space "all": perf counted user and kernel together, as the model's two rows summed.
        w.writerow(KEYS + ["space", "runs"] + COLUMNS)
        for key in sorted(groups):
            g = groups[key]
            med = [statistics.median(r[c] for r in g) if all(c in r for r in g) else None
                   for c in COLUMNS]
            w.writerow(list(key) + ["all", len(g)] + [cell(v) for v in med])


if __name__ == "__main__":
    main()
