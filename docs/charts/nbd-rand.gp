# vublk-bench --plot: the results of docs/charts/nbd-rand.dat, drawn into the chart
# (gnuplot docs/charts/nbd-rand.gp)
set terminal svg size 1000,760 dynamic noenhanced font "sans,12"
set output "docs/charts/nbd-rand.svg"
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
0 ms	75.6	41.7	50.9	68.3
1 ms	28.8	35.2	26.0	25.1
5 ms	9.1	10.6	10.1	9.5
EOD
$tree << EOD
label	unverified	off	completion	submission
0 ms	0.0	1106.2	906.4	676.1
1 ms	0.0	1309.5	1777.9	1835.7
5 ms	0.0	4338.8	4514.9	4869.9
EOD
set multiplot layout 2,1 title "vublk-bench nbd: reads unverified and verified, by tree readahead mode"
set title "throughput"
set ylabel "MB/s (wall clock)"
unset label
set label "76" at -0.3000,75.6 center offset 0,0.7 font ",9"
set label "42" at -0.1000,41.7 center offset 0,0.7 font ",9"
set label "51" at 0.1000,50.9 center offset 0,0.7 font ",9"
set label "68" at 0.3000,68.3 center offset 0,0.7 font ",9"
set label "29" at 0.7000,28.8 center offset 0,0.7 font ",9"
set label "35" at 0.9000,35.2 center offset 0,0.7 font ",9"
set label "26" at 1.1000,26.0 center offset 0,0.7 font ",9"
set label "25" at 1.3000,25.1 center offset 0,0.7 font ",9"
set label "9" at 1.7000,9.1 center offset 0,0.7 font ",9"
set label "11" at 1.9000,10.6 center offset 0,0.7 font ",9"
set label "10" at 2.1000,10.1 center offset 0,0.7 font ",9"
set label "10" at 2.3000,9.5 center offset 0,0.7 font ",9"
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
set label "1106" at -0.1000,1106.2 center offset 0,0.7 font ",9"
set label "906" at 0.1000,906.4 center offset 0,0.7 font ",9"
set label "676" at 0.3000,676.1 center offset 0,0.7 font ",9"
set label "0" at 0.7000,0.0 center offset 0,0.7 font ",9"
set label "1310" at 0.9000,1309.5 center offset 0,0.7 font ",9"
set label "1778" at 1.1000,1777.9 center offset 0,0.7 font ",9"
set label "1836" at 1.3000,1835.7 center offset 0,0.7 font ",9"
set label "0" at 1.7000,0.0 center offset 0,0.7 font ",9"
set label "4339" at 1.9000,4338.8 center offset 0,0.7 font ",9"
set label "4515" at 2.1000,4514.9 center offset 0,0.7 font ",9"
set label "4870" at 2.3000,4869.9 center offset 0,0.7 font ",9"
plot $tree using 2:xtic(1) title columnheader(2) lc rgb "#a0a0a0", \
     $tree using 3:xtic(1) title columnheader(3) lc rgb "#d95f02", \
     $tree using 4:xtic(1) title columnheader(4) lc rgb "#1b9e77", \
     $tree using 5:xtic(1) title columnheader(5) lc rgb "#386cb0"
unset multiplot
