# Written by analysis/report/stats.py: what analysis/report/plots.gp has data for.
swpath_cols = "2 5 8"
swpath_titles = "'paging 5 vs compiled out' 'paging 4 vs compiled out' 'paging 5 vs paging 4'"
tpcost_rows = 5
ptmem_rows = 9
