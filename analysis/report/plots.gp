# SPDX-License-Identifier: GPL-2.0
# Plots of a results directory (gnuplot, PNG and SVG):
#   gnuplot -e "dir='DIR'" analysis/report/plots.gp
# The data files and plotvars.gp (which says what has data) come from analysis/report/stats.py.
# Every bar with an interval in results.md carries it as an error bar; linear y axes
# include zero.
if (!exists("dir")) dir = "analysis/results"
load dir."/plotvars.gp"

set datafile missing "NaN"
set style fill solid 0.8 border -1
set grid ytics
set key noenhance
set xtics rotate by -30 noenhance
# Room under the axis for the rotated operation names, so none is cut off.
set bmargin 8
set rmargin 6

# PNG and SVG of the same plot: eval each, then replot.
png(name) = sprintf("set terminal pngcairo size 1100,600 font ',10'; set output '%s/%s.png'", dir, name)
svg(name) = sprintf("set terminal svg size 1100,600 font 'sans,11' dynamic; set output '%s/%s.svg'", dir, name)

# 1. Instructions per operation: the key table's three comparisons, with 95% intervals.
if (words(swpath_cols) > 0) {
	set style data histograms
	set style histogram errorbars gap 1 lw 1
	set key top left
	set title "Guest instructions per operation (run-guest --icount): difference of the mean of the boots' medians,\nwith its 95% interval (Welch), in per cent"
	set ylabel "difference (%)"
	set yrange [*:*]
	set xzeroaxis lt -1
	f = dir."/swpath.dat"
	do for [t in "png svg"] {
		eval (t eq "png" ? png("swpath") : svg("swpath"))
		plot for [i=1:words(swpath_cols)] f \
			using (column(int(word(swpath_cols, i)))):(column(int(word(swpath_cols, i)) + 1)):(column(int(word(swpath_cols, i)) + 2)):xtic(1) \
			title word(swpath_titles, i)
	}
	unset xzeroaxis
}

# 2. Instructions per event, by consumer: the median of the resolved cells and the span
# of their 95% intervals.
if (tpcost_rows > 0) {
	set style data histograms
	set style histogram errorbars gap 2 lw 1
	set key off
	set title "Extra guest instructions per trace event, by consumer (patched kernel): median of the\nmmap and mmap-high cells, bars span their 95% intervals (boots as replicates)"
	set ylabel "instructions per event"
	set yrange [0:*]
	f = dir."/tpcost.dat"
	do for [t in "png svg"] {
		eval (t eq "png" ? png("tpcost") : svg("tpcost"))
		plot f using 2:3:4:xtic(1) lc rgb "#4477aa"
	}
}

# 3. Page-table pages per process, by level: counts, no interval.
if (ptmem_rows > 0) {
	set style data histograms
	set style histogram rowstacked
	set key top left
	set title "Page-table pages per process, by level (patched kernel; counts, the same in every run)"
	set ylabel "4 KiB pages per process"
	set yrange [0:*]
	f = dir."/ptmem.dat"
	do for [t in "png svg"] {
		eval (t eq "png" ? png("ptmem") : svg("ptmem"))
		plot f using 2:xtic(1) title "PGD", '' using 3 title "P4D", '' using 4 title "PUD", \
			'' using 5 title "PMD", '' using 6 title "PTE"
	}
}
