# The table of docs/rebalance.md from the output of heat_geo_live.sh:
# medians per (ranks, interval, weights, method).
# Usage: python3 heat_geo_table.py OUTPUT
import json, sys, statistics as st
rows = {}
loads = []
for line in open(sys.argv[1]):
    if line.startswith('#'):
        loads.append(line.strip()); continue
    if not line.startswith('{'): continue
    d = json.loads(line)
    k = (d['ranks'], d.get('interval', 0), d['weights'] if d['method'] != 'none' else 'given', d['method'])
    rows.setdefault(k, []).append(d)
order = ['none','hilbert','morton','rcb','tensor','staggered']
print("| ranks | interval | weights | method | efficiency (median) | runs | halo values/step | cells moved | rebalances | step cost, no move (% of an iteration) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for P in sorted({k[0] for k in rows}):
  for iv in sorted({k[1] for k in rows}):
    for w in ['given','measured']:
        for m in order:
            k = (P, iv, w, m)
            if k not in rows: continue
            r = rows[k]
            eff = st.median(x['efficiency'] for x in r)
            effs = ', '.join('%.3f' % x['efficiency'] for x in r)
            print("| %d | %s | %s | %s | **%.3f** (%s) | %d | %.0f | %.0f | %.0f | %s |" % (P, 'auto' if iv == 0 else str(iv), w if m!='none' else '—', m, eff, effs, len(r),
                st.median(x['halo_per_step'] for x in r), st.median(x['moved'] for x in r),
                st.median(x['rebalances'] for x in r),
                '—' if m=='none' else '%.2f' % (100*st.median(x['quiet_step_fraction'] for x in r))))
for l in loads: print(l)
