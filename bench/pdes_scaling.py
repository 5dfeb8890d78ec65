#!/usr/bin/env python3
"""PDES kernel scaling on this machine, with its noise in mind: runs are interleaved and
medians reported.

  1. PHOLD events/s on one rank (no MPI);
  2. speedup of the same run on 2 ranks (lookahead = 10 x the mean delay increment);
  3. the cost of one synchronisation window: 2 ranks, almost no events, many windows.

  python3 bench/pdes_scaling.py [--collsim build/release/collsim] [--repeat 5]
"""

import argparse
import json
import os
import statistics
import subprocess

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def phold(collsim, ranks, *args):
    cmd = ([] if ranks == 1 else ["mpirun", "--oversubscribe", "-n", str(ranks), "--bind-to", "core"]) + [
        collsim, "bench", "phold", "--json", *args]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=ENV).stdout)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--collsim", default="build/release/collsim")
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()

    configs = {
        "tiny (16 LPs x 1 event)": ("--lps", "16", "--events-per-lp", "1", "--end", "100ms"),
        "small (64 LPs x 4 events)": ("--lps", "64", "--events-per-lp", "4", "--end", "20ms"),
        "medium (1024 LPs x 16 events)": ("--lps", "1024", "--events-per-lp", "16", "--end", "1ms"),
    }
    print("1. PHOLD on one rank, lookahead 1us + exp(100ns), remote 0.5")
    for name, args in configs.items():
        rates = [phold(a.collsim, 1, *args)["events_per_s"] / 1e6 for _ in range(a.repeat)]
        print(f"   {name:32s} median {statistics.median(rates):6.2f} M events/s  (runs: {', '.join(f'{r:.2f}' for r in rates)})")

    print("2. speedup on 2 ranks (block partition), same events, lookahead 10x the mean increment")
    args = configs["medium (1024 LPs x 16 events)"]
    one, two, sync = [], [], []
    for _ in range(a.repeat):
        r1 = phold(a.collsim, 1, *args)
        r2 = phold(a.collsim, 2, *args)
        assert r1["checksum"] == r2["checksum"], "results differ between 1 and 2 ranks"
        one.append(r1["wall_s"])
        two.append(r2["wall_s"])
        sync.append(r2["sync_fraction"])
    print(f"   1 rank {statistics.median(one):.3f} s, 2 ranks {statistics.median(two):.3f} s: "
          f"speedup {statistics.median(one) / statistics.median(two):.2f}x (median wall times; "
          f"sync {100 * statistics.median(sync):.1f}% of wall time on 2 ranks)")

    print("3. one synchronisation window on 2 ranks (2 LPs, 1 event each, ~9500 windows)")
    costs = [phold(a.collsim, 2, "--lps", "2", "--events-per-lp", "1", "--end", "10ms")["sync_us_per_window"]
             for _ in range(a.repeat)]
    print(f"   median {statistics.median(costs):.2f} us per window  (runs: {', '.join(f'{c:.2f}' for c in costs)})")


if __name__ == "__main__":
    main()
