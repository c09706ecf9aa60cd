#!/usr/bin/env python3
"""The summary of bench/sampling.sh: reads its runs.tsv, prints per workload
the configurations' medians, the added CPU per 1 000 samples and the ratios.

    bench/sampling_summary.py OUT/runs.tsv

runs.tsv: one line a run, tab-separated: workload, configuration, round, R
(the JVM's CPU over its life, s), W (the CPU of the workload's window, s), N
(its operations), S (samples written), lost (samples the profiler says it
lost). The method is in bench/sampling.sh's head.
"""
import statistics
import sys
from collections import defaultdict

ALL = "none orca-off orca-cpu orca-wall orca-wall-b ap-idle ap-cpu ap-ctimer ap-wall jfr-idle jfr-cpu jfr-exec".split()
# The added CPU per sample of a run with fewer samples is mostly noise (Orca's
# wall samples of CpuBurn, whose threads all run or wait for a CPU: none).
MIN_SAMPLES = 100
PAIRS = [("orca-cpu", "orca-off"), ("orca-cpu", "none"), ("orca-wall", "orca-off"), ("orca-wall", "none"), ("orca-wall-b", "orca-off"),
         ("ap-cpu", "none"), ("ap-cpu", "ap-idle"), ("ap-ctimer", "none"), ("ap-ctimer", "ap-idle"),
         ("ap-wall", "none"), ("ap-wall", "ap-idle"),
         ("jfr-cpu", "none"), ("jfr-cpu", "jfr-idle"), ("jfr-exec", "none"), ("jfr-exec", "jfr-idle")]
# The goal's comparisons: Orca's sampling over its blocking record alone,
# the others over no profiler (and over their idle selves, for the record).
RATIOS = [(("orca-cpu", "orca-off"), ("ap-cpu", "none")), (("orca-cpu", "orca-off"), ("ap-ctimer", "none")),
          (("orca-cpu", "orca-off"), ("jfr-cpu", "none")), (("orca-cpu", "orca-off"), ("jfr-cpu", "jfr-idle")),
          (("orca-cpu", "orca-off"), ("jfr-exec", "none")),
          (("orca-wall", "orca-off"), ("ap-wall", "none")), (("orca-wall-b", "orca-off"), ("ap-wall", "none")),
          (("orca-wall", "orca-off"), ("orca-wall-b", "orca-off"))]


def added(a, b):
    """CPU (s) that run a adds over run b, for a's work."""
    Ra, Wa, Na, _, _ = a
    Rb, Wb, Nb, _, _ = b
    return (Ra - Wa) - (Rb - Wb) + (Wa / Na - Wb / Nb) * Na


def per1000(rnd, arm, base):
    """ms of CPU per 1 000 samples of arm over base in one round, or None."""
    if arm not in rnd or base not in rnd or rnd[arm][3] < MIN_SAMPLES:
        return None
    return added(rnd[arm], rnd[base]) / rnd[arm][3] * 1e6


def spread(xs, fmt):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "—"
    return f"{fmt % statistics.median(xs)}  [{fmt % min(xs)} … {fmt % max(xs)}]  n={len(xs)}"


def main(path):
    runs = defaultdict(dict)  # (workload, round) -> arm -> (R, W, N, S, lost)
    for line in open(path):
        wl, arm, r, R, W, N, S, lost = line.split()
        runs[(wl, int(r))][arm] = (float(R), float(W), float(N), float(S), float(lost))
    for wl in dict.fromkeys(k[0] for k in runs):
        rounds = [runs[k] for k in sorted(runs) if k[0] == wl]
        arms = sorted(dict.fromkeys(a for rnd in rounds for a in rnd), key=lambda a: ALL.index(a) if a in ALL else len(ALL))
        print(f"\n{wl}: per configuration, median over {len(rounds)} rounds")
        print(f"  {'config':10} {'CPU R (s)':>10} {'W (s)':>8} {'ops/CPU-s':>10} {'samples':>9} {'samples/CPU-s':>14} {'lost':>6}")
        for a in arms:
            v = [rnd[a] for rnd in rounds if a in rnd]
            med = lambda f: statistics.median(f(x) for x in v)
            opc = med(lambda x: x[2] / x[1] if x[1] > 0 else 0)
            print(f"  {a:10} {med(lambda x: x[0]):10.2f} {med(lambda x: x[1]):8.2f} {opc:10.1f} {med(lambda x: x[3]):9.0f}"
                  f" {med(lambda x: x[3] / x[0]):14.1f} {med(lambda x: x[4]):6.0f}")
        print(f"\n{wl}: added CPU per 1 000 samples, ms (= µs a sample): paired per round, median [min … max];"
              f" pooled: the rounds' added CPU ÷ their samples (runs of ≥ {MIN_SAMPLES} samples)")
        for a, b in PAIRS:
            xs = [per1000(rnd, a, b) for rnd in rounds]
            if any(x is not None for x in xs):
                ok = [rnd for rnd, x in zip(rounds, xs) if x is not None]
                pooled = sum(added(r[a], r[b]) for r in ok) / sum(r[a][3] for r in ok) * 1e6
                print(f"  {a + ' over ' + b:24} {spread(xs, '%8.1f'):42}  pooled {pooled:8.1f}")
            elif any(a in rnd for rnd in rounds):
                print(f"  {a + ' over ' + b:24} —  (fewer than {MIN_SAMPLES} samples a run)")
        print(f"\n{wl}: ratios of the added CPU per sample: paired per round, median [min … max]; pooled ÷ pooled")
        for (a, b), (c, d) in RATIOS:
            xs, ok = [], []
            for rnd in rounds:
                x, y = per1000(rnd, a, b), per1000(rnd, c, d)
                xs.append(x / y if x is not None and y not in (None, 0) else None)
                if x is not None and y is not None:
                    ok.append(rnd)
            if any(x is not None for x in xs):
                p1 = sum(added(r[a], r[b]) for r in ok) / sum(r[a][3] for r in ok)
                p2 = sum(added(r[c], r[d]) for r in ok) / sum(r[c][3] for r in ok)
                pr = f"{p1 / p2:6.2f}" if p2 else "—"
                print(f"  {a + '/' + b + ' ÷ ' + c + '/' + d:38} {spread(xs, '%6.2f'):36}  pooled {pr}")


if __name__ == "__main__":
    main(sys.argv[1])
