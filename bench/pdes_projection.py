#!/usr/bin/env python3
"""A projection of `mpirun` on a cluster of 2-64 cores, from counts measured here.

What a conservative parallel run costs is set by counts that do not depend on the cores the
ranks run on: the events each window makes its busiest rank process (`critical_events`, summed
over windows), the number of windows and the events that cross ranks. This script runs each
scenario on 1, 2, 4, ..., 64 ranks (oversubscribed on this machine: fine for counting, never
for timing), checks that every rank count gives the same result, and measures three costs on
this machine:

  c_remote  seconds per cross-rank event beyond a local one (sending and receiving it): PHOLD
            on 2 ranks with every event remote against none remote;
  c_window  seconds per synchronisation window on 2 ranks (PHOLD with almost no events), taken
            to grow as log2(ranks) (a recursive-doubling all-reduce) unless --window-us gives a
            cluster's measured per-window cost per log2 step;
  c_event   seconds per event of the scenario: the busy time of the slower rank of the 2-rank
            run on 2 cores, less its cross-rank events, over its events. A rank holding half
            the model runs faster per event than one holding all of it (caches), so this is
            the cost of a rank of a parallel run; the 1-rank run's is printed beside it.

  projected wall(P) = critical_events(P) * c_event + remote per rank(P) * c_remote
                      + windows(P) * c_window * log2(P)

and prints wall, speed-up and efficiency per rank count. It is a projection, not a measurement:
it leaves out the network's contention between nodes and any cost that grows with the number
of ranks other than the all-reduce.

  python3 bench/pdes_projection.py [--collsim build/release/collsim] [--scenarios permutation gpt3_1.3b]
      [--ranks 1 2 4 8 16 32 64] [--repeat 3] [--window-us US]
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

from pdes_scaling import phold
from workload_gpt3_175b_packet import variant as gpt3_175b_variant

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
# Keys that differ between rank counts by design (with reuse each rank times the collectives
# its own GPUs need alone).
VOLATILE = {"wall_s", "events_per_s", "sim_ranks", "ranks", "windows", "sync_fraction", "pdes", "peak_live_ops",
            "timing_alone_s", "collectives_timed_alone"}


def scenarios(folder):
    """name -> (description, collsim arguments)."""
    return {
        "permutation": ("fat_tree_k16, 1024 hosts, permutation of 2 MiB flows, packets",
                        ["flows", "--topology", os.path.join(ROOT, "topologies", "fat_tree_k16.yaml"),
                         "--pattern", "permutation", "--bytes", "2MiB"]),
        "gpt3_1.3b": ("gpt3_1.3b preset (16 GPUs), packets",
                      ["workload", os.path.join(ROOT, "workload", "presets", "gpt3_1.3b.yaml"), "--network", "packet"]),
        "gpt3_175b_128": ("gpt3_175b, 8 layers, DP 2 (128 GPUs), 1F1B, 1 micro-batch, packets",
                          ["workload", gpt3_175b_variant(folder, micro_batches=1, layers=8, dp=2, schedule="1f1b"),
                           "--network", "packet"]),
        "gpt3_175b_8mb": ("gpt3_175b on 1024 GPUs, 8 of its 96 micro-batches per pipeline, its default "
                          "(flows, TP collectives reused)",
                          ["workload", gpt3_175b_variant(folder, micro_batches=8, layers=96, dp=16,
                                                         schedule="interleaved")]),
    }


def run(collsim, args, ranks, timeout):
    cmd = ([] if ranks == 1 else ["mpirun", "--oversubscribe", "-n", str(ranks)]) + [collsim, *args, "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=timeout)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    # mpirun may print its own notices on stdout before the report.
    start = r.stdout.find("\n{") + 1 if not r.stdout.startswith("{") else 0
    try:
        return json.loads(r.stdout[start:])
    except json.JSONDecodeError:
        sys.exit(f"{' '.join(cmd)} printed no JSON report:\n{r.stdout[:2000]}")


def result_of(report):
    return {k: v for k, v in report.items() if k not in VOLATILE}


def pdes_of(report):
    """The run's parallel statistics and its wall time."""
    return report["pdes"], report["wall_s"]


def window_cost(collsim, repeat):
    """Seconds per window on 2 ranks with almost nothing to do, median of `repeat` runs."""
    return statistics.median(phold(collsim, 2, "--lps", "2", "--events-per-lp", "1", "--end", "10ms")
                             ["sync_us_per_window"] * 1e-6 for _ in range(repeat))


def remote_cost(collsim, repeat):
    """Seconds a cross-rank event costs more than a local one, PHOLD on 2 ranks on 2 cores."""
    def wall(remote):
        out = phold(collsim, 2, "--lps", "1024", "--events-per-lp", "16", "--end", "1ms", "--remote", str(remote))
        return out["wall_s"], out["events"], out["remote_events"]
    costs = []
    for _ in range(repeat):
        (w0, e0, _), (w1, e1, r1) = wall(0.0), wall(1.0)
        costs.append(max(0.0, (w1 / e1 - w0 / e0) * e1 / max(1, r1)))
    return statistics.median(costs)


def remote_per_rank(p):
    """The most cross-rank events one rank handles: what it sends plus its share of what it receives."""
    ranks = p["per_rank"]
    return max(r["remote_sent"] for r in ranks) + p["remote_events"] / len(ranks) if ranks else 0


def projected(p, one_rank_wall, c_event, c_remote, c_window):
    """The projected wall time of a run with the counts `p` (on 1 rank: the measured one)."""
    if p["ranks"] == 1:
        return one_rank_wall
    return (p["critical_events"] * c_event + remote_per_rank(p) * c_remote
            + p["windows"] * c_window * math.log2(p["ranks"]))


def row(ranks, p, one, one_rank_wall, wall):
    balance = p["critical_events"] / (one["critical_events"] / ranks)
    print(f"  {ranks:>5} {p['windows']:>10} {p['critical_events'] / 1e6:>10.2f} {balance:>8.2f} "
          f"{p['remote_events'] / 1e6:>9.2f} {wall:>8.2f} {one_rank_wall / wall:>8.2f} "
          f"{100 * one_rank_wall / wall / ranks:>6.0f}%", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--collsim", default=os.path.join(ROOT, "build", "release", "collsim"))
    ap.add_argument("--scenarios", nargs="+", default=["permutation", "gpt3_1.3b"])
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32, 64])
    ap.add_argument("--repeat", type=int, default=3, help="timed runs on 1 and 2 ranks (medians)")
    ap.add_argument("--window-us", type=float, help="per-window cost per log2(ranks) step on the target cluster")
    ap.add_argument("--timeout", type=float, default=3600)
    a = ap.parse_args()
    if 1 not in a.ranks or 2 not in a.ranks:
        sys.exit("--ranks must include 1 and 2: the costs are measured there")

    c_window = a.window_us * 1e-6 if a.window_us else window_cost(a.collsim, a.repeat)
    c_remote = remote_cost(a.collsim, a.repeat)
    print(f"c_window {c_window * 1e6:.2f} us per window and log2 step "
          f"({'given' if a.window_us else 'measured: 2 ranks on 2 cores, shared memory'}); "
          f"c_remote {c_remote * 1e9:.0f} ns per cross-rank event")
    with tempfile.TemporaryDirectory() as folder:
        table = scenarios(folder)
        for name in a.scenarios:
            if name not in table:
                sys.exit(f"unknown scenario '{name}'; known: {', '.join(table)}")
            description, args = table[name]
            print(f"\n{name}: {description}", flush=True)
            counts, walls = {}, {}
            reference = None
            for ranks in sorted(a.ranks):
                timed = ranks <= 2
                reports = [run(a.collsim, args, ranks, a.timeout) for _ in range(a.repeat if timed else 1)]
                if reference is None:
                    reference = result_of(reports[0])
                for rep in reports:
                    if result_of(rep) != reference:
                        keys = sorted(k for k in reference.keys() | result_of(rep).keys()
                                      if reference.get(k) != result_of(rep).get(k))
                        sys.exit(f"{name}: the result on {ranks} ranks differs from 1 rank in {', '.join(keys)}")
                counts[ranks] = pdes_of(reports[0])[0]
                if timed:
                    walls[ranks] = statistics.median(pdes_of(rep)[1] for rep in reports)
                if ranks == 2:
                    # The busy time of the slower rank, median over the runs, less its cross-rank events.
                    busy2 = statistics.median(
                        max(r["wall_s"] - r["sync_s"] for r in pdes_of(rep)[0]["per_rank"]) for rep in reports)
                    busiest2 = max(r["events"] for r in counts[2]["per_rank"])
                    c_event = max(0.0, busy2 - remote_per_rank(counts[2]) * c_remote) / busiest2
                    events = counts[1]["critical_events"]
                    two = projected(counts[2], walls[1], c_event, c_remote, c_window)
                    print(f"  1 rank {walls[1]:.2f} s for {events / 1e6:.1f} M events "
                          f"({walls[1] / events * 1e9:.0f} ns each); c_event {c_event * 1e9:.0f} ns; 2 ranks "
                          f"measured {walls[2]:.2f} s, projected {two:.2f} s ({100 * (two / walls[2] - 1):+.0f} %)")
                    print(f"  {'ranks':>5} {'windows':>10} {'critical M':>10} {'balance':>8} {'remote M':>9} "
                          f"{'wall s':>8} {'speed-up':>8} {'effic.':>7}")
                    for done in sorted(counts):
                        row(done, counts[done], counts[1], walls[1], projected(counts[done], walls[1], c_event, c_remote, c_window))
                elif ranks > 2:
                    row(ranks, counts[ranks], counts[1], walls[1], projected(counts[ranks], walls[1], c_event, c_remote, c_window))


if __name__ == "__main__":
    main()
