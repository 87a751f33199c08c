# Sourced by the bench scripts: median, the median of the numbers on
# stdin, one per line (the mean of the middle two for an even count).
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
