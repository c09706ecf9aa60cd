#!/usr/bin/env python3
"""Compares orca report --json of orca's recording and of the import of the JFR file made beside it
(bench/jfr-servers.sh), over the load window (window.txt): threads (names, states), locks (top
by blocked time: class, contentions, blocked seconds, owners), waits. Threads of JFR itself are
left out (JFR records none of their events).

    bench/report-cmp.py RUN_DIR        (rec.*, imp.*, window.txt; writes rep-orca.json, rep-jfr.json)
"""
import datetime, json, os, re, subprocess, sys

d = sys.argv[1]
orca = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'bin', 'orca')
a, b = open(os.path.join(d, 'window.txt')).read().split()
iso = lambda s: datetime.datetime.fromtimestamp(float(s), datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%fZ')
reps = {}
for side, p in (('orca', 'rec'), ('jfr', 'imp')):
    out = os.path.join(d, 'rep-%s.json' % side)
    subprocess.run([orca, 'report', '--json', '--top', '0', '--from', iso(a), '--to', iso(b), '-o', out, os.path.join(d, p)], check=True)
    reps[side] = json.load(open(out))
o, f = reps['orca'], reps['jfr']
jfr = lambda n: n.startswith('JFR ')
grp = lambda n: re.sub(r'[0-9]+', '#', n)
print('duration_s orca %.3f JFR %.3f; threads orca %d JFR %d' % (o['duration_s'], f['duration_s'], len(o['threads']), len(f['threads'])))
on = {t['name'] for t in o['threads'] if not jfr(t['name'])}
fn = {t['name'] for t in f['threads'] if not jfr(t['name'])}
print('thread names only orca has:', sorted(on - fn)[:20], len(on - fn))
print('thread names only JFR has:', sorted(fn - on)[:20], len(fn - on))
states = ['blocked', 'waiting', 'sleeping', 'joining', 'parked', 'idle', 'runnable']
def st(r):
    s = {}
    for t in r['threads']:
        if jfr(t['name']):
            continue
        for k in states:
            s[k] = s.get(k, 0) + t['states_s'].get(k, 0)
    return s
so, sf = st(o), st(f)
print('states, s (all threads but JFR\'s):', ' '.join('%s %.2f/%.2f' % (k, so[k], sf[k]) for k in states), '(orca/JFR)')
print('locks: orca %d (%.3f s blocked), JFR %d (%.3f s)' % (o['locks_total'], o['blocked_s'], f['locks_total'], f['blocked_s']))
def locks(r):
    return sorted(((l['class'], l['contentions'], l['blocked_s'], l['owners'][0]['name'] if l['owners'] else '-') for l in r['locks'] if l['kind'] == 'monitor'), key=lambda x: -x[2])
lo, lf = locks(o), locks(f)
print('top monitors by blocked time: orca | JFR (class, contentions, s, first owner)')
for i in range(min(6, max(len(lo), len(lf)))):
    x = lo[i] if i < len(lo) else ('', 0, 0, '')
    y = lf[i] if i < len(lf) else ('', 0, 0, '')
    print('  %-45s %6d %8.3f %-30s | %-45s %6d %8.3f %s' % (x[0][:45], x[1], x[2], x[3][:30], y[0][:45], y[1], y[2], y[3][:30]))
def bycls(r, kind):
    m = {}
    for l in r['locks']:
        if l['kind'] == kind:
            m[l['class']] = m.get(l['class'], 0) + l['contentions']
    return m
co, cf = bycls(o, 'monitor'), bycls(f, 'monitor')
diff = {c: (co.get(c, 0), cf.get(c, 0)) for c in set(co) | set(cf) if co.get(c, 0) != cf.get(c, 0)}
print('monitor contentions by class that differ (orca, JFR):', diff if diff else 'none')
print('waits: orca %d objects, JFR %d' % (o['waits_total'], f['waits_total']))
