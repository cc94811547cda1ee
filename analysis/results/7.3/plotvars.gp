# SPDX-License-Identifier: GPL-2.0
# Written by analysis/report/stats.py: what analysis/report/plots.gp has data for.
swpath_cols = "2 5 8 11 14 17"
swpath_titles = "'icount: 5 vs no5lvl' 'icount: RFC 5 vs no5lvl' 'icount: RFC 5 vs 5' 'debian: 5 vs no5lvl' 'debian: RFC 5 vs no5lvl' 'debian: RFC 5 vs 5'"
tpcost_rows = 5
ptmem_rows = 9
