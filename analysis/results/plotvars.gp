# Written by analysis/stats.py: what analysis/plots.gp has data for.
swpath_cols = "2 3 4"
swpath_titles = "'patched, paging 5' 'patched, no5lvl' 'vanilla, paging 5'"
tpcost_rows = 5
ptmem_rows = 9
walk_names = "random-dense random-sparse sequential"
