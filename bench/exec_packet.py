#!/usr/bin/env python3
"""Executor benchmarks in packet mode (issue 6).

(a) ring: a 1024-rank ring allreduce of 256 MiB on fat_tree_k16 (1024 hosts, 100 Gb/s, 1 us
    links), lowered on the fly, on 1 and on 2 MPI ranks.
(b) atlahs: the 128-rank ring ATLAHS simulates with htsim on leaf_spine_128_200g: 254 steps,
    in each of which every rank sends 1 MiB to its right neighbour and receives 1 MiB from its
    left one, with its own tag per step; a rank's step i+1 (send and receive) waits for its
    receive of step i. ATLAHS's htsim_uec ends it at 11.97 ms (the LogGOPS lower bound is
    11.16 ms); bench/htsim_peer.py --scenarios ring runs it beside collsim.

Reports wall time (median of --repeat runs) and CPU time (the shortest: on a shared machine
the least disturbed run), events, events per second, the simulated completion and peak memory.

  python3 bench/exec_packet.py [--collsim build/release/collsim] [--repeat 3] [--only ring|atlahs] [--bytes 256MiB]
"""

import argparse
import json
import os
import statistics
import tempfile

from timed_run import timed

ATLAHS_COMPLETION_MS = 11.97
LOGGOPS_BOUND_MS = 11.16


def write_atlahs_ring(path, ranks=128, steps=254, size=1 << 20):
    """The ring as GOAL: step i is send s<i> to the right and recv r<i> from the left, tag i."""
    with open(path, "w") as f:
        f.write(f"num_ranks {ranks}\n")
        for r in range(ranks):
            right, left = (r + 1) % ranks, (r - 1) % ranks
            f.write(f"rank {r} {{\n")
            for i in range(steps):
                f.write(f"s{i}: send {size}b to {right} tag {i}\n")
                f.write(f"r{i}: recv {size}b from {left} tag {i}\n")
                if i > 0:
                    f.write(f"s{i} requires r{i - 1}\nr{i} requires r{i - 1}\n")
            f.write("}\n")


def run(cmd, mpi_ranks):
    """(JSON output, CPU seconds of all processes, peak RSS of the largest process in bytes)."""
    if mpi_ranks > 1:
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        cmd = ["mpirun", "-n", str(mpi_ranks), "--bind-to", "none"] + cmd
    out, _, cpu, rss = timed(cmd)
    return json.loads(out), cpu, rss


def measure(title, cmd, mpi_ranks, repeat):
    runs = [run(cmd, mpi_ranks) for _ in range(repeat)]
    first = runs[0][0]
    for out, _, _ in runs:
        assert out["makespan_ps"] == first["makespan_ps"] and out["events"] == first["events"], "runs differ"
    walls = [out["wall_s"] for out, _, _ in runs]
    wall = statistics.median(walls)
    cpu = min(c for _, c, _ in runs)
    rss = max(r for _, _, r in runs)
    print(title)
    print(f"  wall time        median {wall:.2f} s over {repeat} run(s) ({', '.join(f'{w:.2f}' for w in walls)});"
          f" CPU time {cpu:.2f} s (least of the runs, all processes, start-up included)")
    print(f"  events           {first['events']:,} ({first['events'] / wall / 1e6:.2f} M/s of wall time)")
    print(f"  packets          {first['packets_forwarded']:,} forwarded by switches")
    print(f"  completion       {first['makespan_ps'] / 1e9:.3f} ms simulated")
    stored = max(r["stored_events"] for r in first["pdes"]["per_rank"])
    print(f"  memory           peak RSS {rss / 2**20:.0f} MiB (largest process); at most {stored:,} events held at"
          f" once on a rank, {first['pdes']['stored_event_bytes']} B each")
    return first, wall, cpu


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--collsim", default="build/release/collsim")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--only", choices=["ring", "atlahs"])
    p.add_argument("--bytes", default="256MiB", help="the 1024-rank ring's allreduce size")
    a = p.parse_args()

    if a.only in (None, "atlahs"):
        with tempfile.TemporaryDirectory() as tmp:
            goal = os.path.join(tmp, "atlahs_ring_128.goal")
            write_atlahs_ring(goal)
            cmd = [a.collsim, "run", "--topology", "topologies/leaf_spine_128_200g.yaml", "--schedule", goal, "--json"]
            # The default transport coalesces ACKs (one per 16 packets, as RC NICs may); per-packet
            # ACKs double the events and take 64/4160 of the reverse bandwidth.
            for title, extra in (("", []), (", per-packet ACKs", ["--set", "ack_every=1"])):
                out, _, _ = measure(f"(b) ATLAHS ring: 128 ranks, 254 steps of 1 MiB, leaf_spine_128_200g, one rank{title}",
                                         cmd + extra, 1, a.repeat)
                ms = out["makespan_ps"] / 1e9
                print(f"  vs ATLAHS/htsim  completion {100 * (ms / ATLAHS_COMPLETION_MS - 1):+.1f}% vs its {ATLAHS_COMPLETION_MS} ms,"
                      f" {100 * (ms / LOGGOPS_BOUND_MS - 1):+.1f}% vs the LogGOPS bound {LOGGOPS_BOUND_MS} ms")

    if a.only in (None, "ring"):
        cmd = [a.collsim, "run", "--topology", "topologies/fat_tree_k16.yaml", "--coll", "allreduce", "--algo", "ring",
               "--bytes", a.bytes, "--json"]
        one, wall1, _ = measure(f"(a) ring allreduce: 1024 ranks, {a.bytes}, fat_tree_k16, one rank", cmd, 1, a.repeat)
        two, wall2, _ = measure("(a) the same on two MPI ranks", cmd, 2, a.repeat)
        assert one["makespan_ps"] == two["makespan_ps"], "1 and 2 ranks differ"
        print(f"  speed-up         {wall1 / wall2:.2f}x from 1 to 2 ranks")


if __name__ == "__main__":
    main()
