# vublk-bench --plot: the results of docs/charts/verity-host.dat, drawn into the chart
# (gnuplot docs/charts/verity-host.gp)
set terminal svg size 1000,760 dynamic noenhanced font "sans,12"
set output "docs/charts/verity-host.svg"
set datafile separator "\t"
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set xrange [-0.6:3.6]
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set xtics nomirror scale 0
set ytics nomirror
set border 3
set grid ytics
set bmargin 3
set key at screen 0.5, screen 0.02 center bottom horizontal maxrows 1 maxcols 8 reverse Left samplen 1.5 width -1
$rate << EOD
label	off	completion	submission
seq, page cache	1589.6	1811.8	1813.0
seq, O_DIRECT	1467.0	1527.3	1493.3
rand 4 KiB	1303.6	1250.1	1190.5
rand 128 KiB	1730.4	1830.9	1823.9
EOD
$tree << EOD
label	off	completion	submission
seq, page cache	517.0	62.0	61.0
seq, O_DIRECT	517.0	62.0	61.0
rand 4 KiB	247.0	264.7	368.4
rand 128 KiB	220.6	256.2	223.1
EOD
set multiplot layout 2,1 title "vublk-bench verity: verified reads by tree readahead mode"
set title "throughput"
set ylabel "MB/s per CPU second"
unset label
set label "1590" at -0.2500,1589.6 center offset 0,0.7 font ",9"
set label "1812" at 0.0000,1811.8 center offset 0,0.7 font ",9"
set label "1813" at 0.2500,1813.0 center offset 0,0.7 font ",9"
set label "1467" at 0.7500,1467.0 center offset 0,0.7 font ",9"
set label "1527" at 1.0000,1527.3 center offset 0,0.7 font ",9"
set label "1493" at 1.2500,1493.3 center offset 0,0.7 font ",9"
set label "1304" at 1.7500,1303.6 center offset 0,0.7 font ",9"
set label "1250" at 2.0000,1250.1 center offset 0,0.7 font ",9"
set label "1190" at 2.2500,1190.5 center offset 0,0.7 font ",9"
set label "1730" at 2.7500,1730.4 center offset 0,0.7 font ",9"
set label "1831" at 3.0000,1830.9 center offset 0,0.7 font ",9"
set label "1824" at 3.2500,1823.9 center offset 0,0.7 font ",9"
plot $rate using 2:xtic(1) title columnheader(2) lc rgb "#d95f02", \
     $rate using 3:xtic(1) title columnheader(3) lc rgb "#1b9e77", \
     $rate using 4:xtic(1) title columnheader(4) lc rgb "#386cb0"
unset key
set bmargin 5
set title "tree reads"
set ylabel "tree reads per GiB read"
unset label
set label "517" at -0.2500,517.0 center offset 0,0.7 font ",9"
set label "62" at 0.0000,62.0 center offset 0,0.7 font ",9"
set label "61" at 0.2500,61.0 center offset 0,0.7 font ",9"
set label "517" at 0.7500,517.0 center offset 0,0.7 font ",9"
set label "62" at 1.0000,62.0 center offset 0,0.7 font ",9"
set label "61" at 1.2500,61.0 center offset 0,0.7 font ",9"
set label "247" at 1.7500,247.0 center offset 0,0.7 font ",9"
set label "265" at 2.0000,264.7 center offset 0,0.7 font ",9"
set label "368" at 2.2500,368.4 center offset 0,0.7 font ",9"
set label "221" at 2.7500,220.6 center offset 0,0.7 font ",9"
set label "256" at 3.0000,256.2 center offset 0,0.7 font ",9"
set label "223" at 3.2500,223.1 center offset 0,0.7 font ",9"
plot $tree using 2:xtic(1) title columnheader(2) lc rgb "#d95f02", \
     $tree using 3:xtic(1) title columnheader(3) lc rgb "#1b9e77", \
     $tree using 4:xtic(1) title columnheader(4) lc rgb "#386cb0"
unset multiplot
