# SPDX-License-Identifier: GPL-2.0
"""Reading make bench's guest records (analysis/icount/guest.sh) and writing its CSVs.

A record that does not have the shape its type promises stops the report: a program and
this reader that disagree about a column must never drop rows in silence."""
import csv
import os
import re
from collections import defaultdict

# The parts of analysis/run, each with its host-PART.txt.
PARTS = ["icount", "debian", "model", "funcs"]
# Attached for every other sample by swpath -t; p4dstat runs in blocks instead.
TOGGLED = ["tracefs", "tp_btf", "raw_tp", "tp"]
EVENTS = ["ev_p4d_alloc", "ev_p4d_free", "ev_pgd_sync", "ev_gua"]
LEVELS = ["p4d", "pud", "pmd", "pte"]
TABLES = [f"alloc_{l}" for l in LEVELS] + [f"free_{l}" for l in LEVELS] + ["page_clear"]
SWPATH_COLS = (["op", "rep", "ops", "op_ns", "empty_ns", "intr", "aux"] + EVENTS + TABLES
               + ["on"])
PTMEM_COLS = ["procs", "regions", "pt_kb_before", "pt_kb_held", "pt_kb_after", "vmpte_kb_sum",
              "vmpte_kb_first", "pte", "pmd", "pud", "p4d", "p4d_alloc_held", "p4d_free_held",
              "p4d_alloc_all", "p4d_free_all"]
# icount_KERNEL_PAGING_ROUND.log, written by analysis/run.
ICOUNT_LOG = re.compile(r"^icount_([a-z0-9-]+)_(4|5|no5lvl)_(\d+)\.log$")


class RecordError(Exception):
    pass


def per_op(row):
    """A swpath row's instructions per operation: the timed loop less the empty one."""
    return (row["op_ns"] - row["empty_ns"]) / row["ops"]


def _swpath(ctx, fields):
    if len(fields) != 3 + len(SWPATH_COLS):
        raise RecordError(f"{len(fields) - 3} swpath columns, expected {len(SWPATH_COLS)}")
    row = dict(ctx, consumer=fields[1], kind=fields[2])
    for col, v in zip(SWPATH_COLS, fields[3:]):
        row[col] = v if col == "op" else int(v)
    # A consumer toggled sample by sample: its detached samples are the baseline it is
    # compared with, "off:NAME".
    if row["consumer"] in TOGGLED and not row["on"]:
        row["consumer"] = "off:" + row["consumer"]
    return row


def _ptmem(ctx, fields):
    if len(fields) != 1 + len(PTMEM_COLS):
        raise RecordError(f"{len(fields) - 1} ptmem columns, expected {len(PTMEM_COLS)}")
    return dict(ctx, **dict(zip(PTMEM_COLS, map(int, fields[1:]))))


def read_boot(path, ctx, data):
    """One boot's log into data; returns what the boot said about itself."""
    boot = dict(ctx, part="icount", status=None, seconds=None, loadavg=None, meta={})
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            fields = line.rstrip("\n").split(",")
            kind = fields[0]
            try:
                if kind == "host" and len(fields) >= 3:
                    boot[fields[1]] = fields[2]
                elif kind == "meta" and len(fields) >= 3:
                    boot["meta"][fields[1]] = ",".join(fields[2:])
                elif kind == "calib":
                    data["calib"].append(dict(ctx, instructions=int(fields[1]),
                                              ns=int(fields[2])))
                elif kind == "swpath":
                    data["swpath"].append(_swpath(ctx, fields))
                elif kind == "consumer" and len(fields) >= 3:
                    data["consumer"].append(dict(ctx, consumer=fields[1],
                                                 note=",".join(fields[2:])))
                elif kind == "ptmem":
                    data["ptmem"].append(_ptmem(ctx, fields))
            except (RecordError, ValueError, IndexError) as e:
                raise RecordError(f"{path}:{lineno}: a bad {kind} record ({e}): {line.strip()}")
    return boot


def read_host(logdir):
    """What analysis/run noted about the host and the run, per part: {part: {key: value}}."""
    host = {}
    for part in PARTS:
        path = os.path.join(logdir, f"host-{part}.txt")
        if os.path.exists(path):
            with open(path) as f:
                host[part] = dict(line.rstrip("\n").partition(" ")[::2] for line in f)
    return host


def read_logs(logdir):
    data = defaultdict(list)
    boots = []
    for name in sorted(os.listdir(logdir)):
        m = ICOUNT_LOG.match(name)
        if not m:
            continue
        kernel, mode, rnd = m.groups()
        ctx = {"kernel": kernel, "paging": mode, "round": int(rnd)}
        boots.append(read_boot(os.path.join(logdir, name), ctx, data))
    return data, boots, read_host(logdir)


def write_csv(path, rows, cols):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)
