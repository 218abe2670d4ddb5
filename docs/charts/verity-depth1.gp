# vublk-bench --plot: the results of docs/charts/verity-depth1.dat, drawn into the chart
# (gnuplot docs/charts/verity-depth1.gp)
set terminal svg size 1000,460 dynamic noenhanced font "sans,12"
set output "docs/charts/verity-depth1.svg"
set datafile separator "\t"
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set xrange [-0.6:0.6]
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set xtics nomirror scale 0
set ytics nomirror
set border 3
set grid ytics
set bmargin 5
set key at screen 0.5, screen 0.02 center bottom horizontal maxrows 1 maxcols 8 reverse Left samplen 1.5 width -1
$rate << EOD
label	off	completion	submission
O_DIRECT, depth 1	223.5	293.3	265.2
EOD
$tree << EOD
label	off	completion	submission
O_DIRECT, depth 1	2068.0	248.0	244.0
EOD
set multiplot layout 1,2 title "vublk-bench verity: verified reads by tree readahead mode"
set title "throughput"
set ylabel "MB/s (wall clock)"
unset label
set label "224" at -0.2500,223.5 center offset 0,0.7 font ",9"
set label "293" at 0.0000,293.3 center offset 0,0.7 font ",9"
set label "265" at 0.2500,265.2 center offset 0,0.7 font ",9"
plot $rate using 2:xtic(1) title columnheader(2) lc rgb "#d95f02", \
     $rate using 3:xtic(1) title columnheader(3) lc rgb "#1b9e77", \
     $rate using 4:xtic(1) title columnheader(4) lc rgb "#386cb0"
unset key
set bmargin 5
set title "tree reads"
set ylabel "tree reads per GiB read"
unset label
set label "2068" at -0.2500,2068.0 center offset 0,0.7 font ",9"
set label "248" at 0.0000,248.0 center offset 0,0.7 font ",9"
set label "244" at 0.2500,244.0 center offset 0,0.7 font ",9"
plot $tree using 2:xtic(1) title columnheader(2) lc rgb "#d95f02", \
     $tree using 3:xtic(1) title columnheader(3) lc rgb "#1b9e77", \
     $tree using 4:xtic(1) title columnheader(4) lc rgb "#386cb0"
unset multiplot
