#!/usr/bin/env python3
"""Fabric benchmark (issue 4): fat_tree_k16 (1024 hosts, 100 Gb/s, 1 us links), a permutation
of 2 MiB flows, on one core. Reports the median wall time of several runs, packet-hops per
second, and memory: peak RSS, per host (from the difference between k=8 and k=16, which
removes the program's fixed cost), and per in-flight packet (the data structures' sizes).

bench/htsim_peer.py runs htsim beside it on the same flows.

  python3 bench/fabric_fat_tree.py [--collsim build/release/collsim] [--repeat 5]
"""

import argparse
import json
import statistics

from timed_run import run_timed


def run(collsim, topology, size, pattern="permutation"):
    stdout, _, rss = run_timed([collsim, "flows", "--topology", topology, "--pattern", pattern,
                                "--bytes", size, "--json"])
    return json.loads(stdout), rss


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--collsim", default="build/release/collsim")
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()

    runs = [run(a.collsim, "topologies/fat_tree_k16.yaml", "2MiB") for _ in range(a.repeat)]
    walls = [r["wall_s"] for r, _ in runs]
    out, rss16 = runs[0]
    for r, _ in runs:
        assert r["makespan_ps"] == out["makespan_ps"], "runs differ"
    wall = statistics.median(walls)
    print("fat_tree_k16, permutation of 1024 x 2 MiB flows, one rank")
    print(f"  wall time        median {wall:.2f} s over {a.repeat} runs ({', '.join(f'{w:.2f}' for w in walls)})")
    print(f"  events           {out['events']:,} ({out['events'] / wall / 1e6:.2f} M/s)")
    print(f"  packet-hops      {out['packet_hops']:,} ({out['packet_hops'] / wall / 1e6:.2f} M/s)")
    print(f"  FCT              p50 {out['fct_p50_ps'] / 1e6:.1f} us, p99 {out['fct_p99_ps'] / 1e6:.1f} us,"
          f" max {out['fct_max_ps'] / 1e6:.1f} us (ideal {2 * 2**20 * 4160 / 4096 * 8 / 100e3:.1f} us)")
    _, rss8 = run(a.collsim, "topologies/fat_tree_k8.yaml", "2MiB")
    per_device = (rss16 - rss8) / ((1024 + 320) - (128 + 80))
    print(f"  memory           peak RSS {rss16 / 2**20:.1f} MiB; {per_device / 1024:.1f} KiB per device"
          f" (hosts and switches, k=16 minus k=8)")
    # Every flow live at once: an all-to-all of one-packet flows against a permutation of them.
    a2a, rss_a2a = run(a.collsim, "topologies/fat_tree_k8.yaml", "4KiB", "alltoall")
    perm, rss_perm = run(a.collsim, "topologies/fat_tree_k8.yaml", "4KiB")
    per_flow = (rss_a2a - rss_perm) / (a2a["flows"] - perm["flows"])
    print(f"  per flow         {per_flow:.0f} B (sender and receiver state, result and first packet: fat_tree_k8,"
          f" {a2a['flows']} one-packet flows at once minus {perm['flows']})")
    pdes = out["pdes"]
    stored = pdes["per_rank"][0]["stored_events"]
    print(f"  per packet       {out['queued_packet_bytes']} B queued at a switch port; {pdes['stored_event_bytes']} B"
          f" in flight on a link (event body with the packet, full key, link to the next); +{pdes['queue_entry_bytes']} B"
          f" for the one that is the link's pending event (queue entry). At most {stored:,} events held at once:"
          f" {stored * pdes['stored_event_bytes'] / 2**20:.1f} MiB of the peak")


if __name__ == "__main__":
    main()
