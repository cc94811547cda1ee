# SPDX-License-Identifier: GPL-2.0
# Written by analysis/report/stats.py: what analysis/report/plots.gp has data for.
swpath_cols = "2 5 8 11 14 17"
swpath_titles = "'icount: paging 5 vs compiled out' 'icount: paging 4 vs compiled out' 'icount: paging 5 vs paging 4' 'debian: paging 5 vs compiled out' 'debian: paging 4 vs compiled out' 'debian: paging 5 vs paging 4'"
tpcost_rows = 5
ptmem_rows = 9
