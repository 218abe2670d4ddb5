# vublk-bench --plot: the results of docs/charts/nbd-seq.dat, drawn into the chart
# (gnuplot docs/charts/nbd-seq.gp)
set terminal svg size 1000,760 dynamic noenhanced font "sans,12"
set output "docs/charts/nbd-seq.svg"
set datafile separator "\t"
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set xrange [-0.6:2.6]
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set xtics nomirror scale 0
set ytics nomirror
set border 3
set grid ytics
set bmargin 3
set key at screen 0.5, screen 0.02 center bottom horizontal maxrows 1 maxcols 8 reverse Left samplen 1.5 width -1
$rate << EOD
label	unverified	off	completion	submission
0 ms	151.5	150.4	267.6	165.3
1 ms	213.4	117.1	201.0	296.5
5 ms	213.4	78.1	56.4	36.6
EOD
$tree << EOD
label	unverified	off	completion	submission
0 ms	0.0	2064.0	320.0	240.0
1 ms	0.0	2064.0	256.0	240.0
5 ms	0.0	2064.0	304.0	240.0
EOD
set multiplot layout 2,1 title "vublk-bench nbd: reads unverified and verified, by tree readahead mode"
set title "throughput"
set ylabel "MB/s (wall clock)"
unset label
set label "152" at -0.3000,151.5 center offset 0,0.7 font ",9"
set label "150" at -0.1000,150.4 center offset 0,0.7 font ",9"
set label "268" at 0.1000,267.6 center offset 0,0.7 font ",9"
set label "165" at 0.3000,165.3 center offset 0,0.7 font ",9"
set label "213" at 0.7000,213.4 center offset 0,0.7 font ",9"
set label "117" at 0.9000,117.1 center offset 0,0.7 font ",9"
set label "201" at 1.1000,201.0 center offset 0,0.7 font ",9"
set label "296" at 1.3000,296.5 center offset 0,0.7 font ",9"
set label "213" at 1.7000,213.4 center offset 0,0.7 font ",9"
set label "78" at 1.9000,78.1 center offset 0,0.7 font ",9"
set label "56" at 2.1000,56.4 center offset 0,0.7 font ",9"
set label "37" at 2.3000,36.6 center offset 0,0.7 font ",9"
plot $rate using 2:xtic(1) title columnheader(2) lc rgb "#a0a0a0", \
     $rate using 3:xtic(1) title columnheader(3) lc rgb "#d95f02", \
     $rate using 4:xtic(1) title columnheader(4) lc rgb "#1b9e77", \
     $rate using 5:xtic(1) title columnheader(5) lc rgb "#386cb0"
unset key
set bmargin 5
set title "tree reads"
set ylabel "tree reads per GiB read"
unset label
set label "0" at -0.3000,0.0 center offset 0,0.7 font ",9"
set label "2064" at -0.1000,2064.0 center offset 0,0.7 font ",9"
set label "320" at 0.1000,320.0 center offset 0,0.7 font ",9"
set label "240" at 0.3000,240.0 center offset 0,0.7 font ",9"
set label "0" at 0.7000,0.0 center offset 0,0.7 font ",9"
set label "2064" at 0.9000,2064.0 center offset 0,0.7 font ",9"
set label "256" at 1.1000,256.0 center offset 0,0.7 font ",9"
set label "240" at 1.3000,240.0 center offset 0,0.7 font ",9"
set label "0" at 1.7000,0.0 center offset 0,0.7 font ",9"
set label "2064" at 1.9000,2064.0 center offset 0,0.7 font ",9"
set label "304" at 2.1000,304.0 center offset 0,0.7 font ",9"
set label "240" at 2.3000,240.0 center offset 0,0.7 font ",9"
plot $tree using 2:xtic(1) title columnheader(2) lc rgb "#a0a0a0", \
     $tree using 3:xtic(1) title columnheader(3) lc rgb "#d95f02", \
     $tree using 4:xtic(1) title columnheader(4) lc rgb "#1b9e77", \
     $tree using 5:xtic(1) title columnheader(5) lc rgb "#386cb0"
unset multiplot
