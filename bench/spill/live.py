#!/usr/bin/env python3
"""live.py TRACE: how much of orca report's spill is live, by writer, from a
trace of its adds and reads (ORCA_SPILL_STATS=FILE ORCA_SPILL_TRACE=TRACE
orca report ...): a block is live from its write to its last read (an
oracle: the program may not know it is the last). Prints the peak, what is
live at it by writer, a timeline, and each writer's readers.
docs/perf/2026-12-02-spill-pages.md."""
import sys, bisect, collections
ws=[]  # (off, n, label, t)
reads=[]
names={}
t=0
for line in open(sys.argv[1]):
    p=line.split(' ',4)
    if p[0]=='L':
        names[int(p[1])]=p[2].strip() if len(p)<4 else ' '.join(p[2:]).strip()
        continue
    off,n,l=int(p[1]),int(p[2]),int(p[3])
    if p[0]=='W': ws.append([off,n,l,t,t])
    else: reads.append((t,off,n,l))
    t+=1
T=t
offs=[w[0] for w in ws]
# last read of each write block; readers of each writer label
readers=collections.defaultdict(collections.Counter)
nreads=[0]*len(ws)
for (tt,off,n,l) in reads:
    i=bisect.bisect_right(offs,off)-1
    while i<len(ws) and ws[i][0]<off+n:
        w=ws[i]
        if w[0]+w[1]>off and w[3]<=tt:
            w[4]=max(w[4],tt); nreads[i]+=1
            readers[w[2]][l]+=min(off+n,w[0]+w[1])-max(off,w[0])
        i+=1
# liveness timeline per label: +n at write time, -n at last read
ev=collections.defaultdict(list)
for w in ws:
    ev[w[3]].append((w[2],w[1]))
    ev[w[4]+0.5].append((w[2],-w[1]))
live=collections.Counter(); tot=0; peak=0; peakat=0; peaksnap=None
written=0
timeline=[]
step=max(1,T//40)
for tt in sorted(ev):
    for (l,d) in ev[tt]:
        live[l]+=d; tot+=d
        if d>0: written+=d
    if tot>peak: peak=tot; peakat=tt; peaksnap=dict(live); pw=written
    if not timeline or tt-timeline[-1][0]>=step: timeline.append((tt,tot,written))
print("events",T,"written",written,"peak live",peak,"at event",peakat,"written by then",pw)
print("live at peak by writer:")
for l,v in sorted(peaksnap.items(),key=lambda x:-x[1]):
    if v: print("  %12d %s"%(v,names[l]))
print("timeline (event, live MB, written MB):")
for (tt,lv,wr) in timeline: print("  %9d %8.1f %8.1f"%(tt,lv/1e6,wr/1e6))
print("by writer: bytes, reads/block, readers (bytes)")
byl=collections.defaultdict(lambda:[0,0,0,0])
for i,w in enumerate(ws):
    b=byl[w[2]]; b[0]+=w[1]; b[1]+=nreads[i]; b[2]+=1
    if nreads[i]==0: b[3]+=w[1]
for l,b in sorted(byl.items(),key=lambda x:-x[1][0]):
    print("  %12d blocks %7d reads/block %.2f neverread %d  %s"%(b[0],b[2],b[1]/b[2],b[3],names[l]))
    for r,v in readers[l].most_common(4): print("        %12d %s"%(v,names[r]))
