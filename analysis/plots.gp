# Plots of a results directory (gnuplot, PNG and SVG):
#   gnuplot -e "dir='DIR'" analysis/plots.gp
# The data files and plotvars.gp (which says what has data) come from analysis/stats.py.
if (!exists("dir")) dir = "analysis/results"
load dir."/plotvars.gp"

set datafile missing "NaN"
set style fill solid 0.8 border -1
set grid ytics
set key noenhance
set xtics rotate by -30 noenhance

# PNG and SVG of the same plot: eval each, then replot.
png(name) = sprintf("set terminal pngcairo size 1000,560 font ',10'; set output '%s/%s.png'", dir, name)
svg(name) = sprintf("set terminal svg size 1000,560 font 'sans,11' dynamic; set output '%s/%s.svg'", dir, name)

# 1. Instructions per operation relative to paging 4.
if (words(swpath_cols) > 0) {
	set style data histograms
	set style histogram clustered gap 1
	set key top left
	set title "Guest instructions per operation vs paging 4 (median, run-guest --icount)"
	set ylabel "difference to paging 4 (%)"
	f = dir."/swpath.dat"
	do for [t in "png svg"] {
		eval (t eq "png" ? png("swpath") : svg("swpath"))
		plot for [i=1:words(swpath_cols)] f using (column(int(word(swpath_cols, i)))):xtic(1) \
			title word(swpath_titles, i)
	}
}

# 2. Instructions per event, by consumer.
if (tpcost_rows > 0) {
	set style data histograms
	set style histogram clustered gap 2
	set key off
	set title "Extra guest instructions per trace event, by consumer (patched kernel)"
	set ylabel "instructions per event (median of mmap, mmap-high)"
	f = dir."/tpcost.dat"
	do for [t in "png svg"] {
		eval (t eq "png" ? png("tpcost") : svg("tpcost"))
		plot f using 2:xtic(1) lc rgb "#4477aa"
	}
}

# 3. Page walks: the median and its 95% CI, per chase and placement.
if (words(walk_names) > 0) {
	set style data histograms
	set style histogram errorbars gap 2 lw 1.5
	set key top left
	set logscale y
	set title "Pointer chase: ns per step, QEMU TCG software walker, wall time\n(fastest repetition per boot: median over boots, 95% CI)"
	set ylabel "ns per step"
	f = dir."/pagewalk.dat"
	do for [t in "png svg"] {
		eval (t eq "png" ? png("pagewalk") : svg("pagewalk"))
		plot for [i=1:words(walk_names)] f index (i - 1) using 3:4:5:xtic(2) \
			title word(walk_names, i)
	}
	unset logscale y
}

# 4. Page-table pages per process, by level.
if (ptmem_rows > 0) {
	set style data histograms
	set style histogram rowstacked
	set key top left
	set title "Page-table pages per process, by level (patched kernel)"
	set ylabel "4 KiB pages per process"
	f = dir."/ptmem.dat"
	do for [t in "png svg"] {
		eval (t eq "png" ? png("ptmem") : svg("ptmem"))
		plot f using 2:xtic(1) title "PGD", '' using 3 title "P4D", '' using 4 title "PUD", \
			'' using 5 title "PMD", '' using 6 title "PTE"
	}
}
