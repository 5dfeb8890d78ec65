#!/usr/bin/env python3
"""The packet engine beside htsim, on the same scenario in the same run (issue 30, point 1).

Scenario: htsim's own 1024-host permutation (bench/data/fat_tree_1024_perm_2MB.flows.csv,
the flows of csg-htsim's connection_matrices/perm_1024n_1024c_0u_2000000b.cm, each host
sending 2,000,000 B to another at t=0) on a 3-tier fat tree of 100 Gb/s links with 1 us each
(htsim's topologies/fat_tree_1024.topo; collsim's topologies/fat_tree_k16.yaml, the same
shape), 4000-byte payloads with 64-byte headers. Two ways of routing, each against the
htsim program that routes that way:

  spray  every packet on its own path: csg-htsim htsim_ndp (-strat ecmp_host -paths 128,
         NDP: trimming and pulls) against collsim --routing spray (lossless, PFC)
  ecmp   one path per flow: csg-htsim htsim_roce (RoCE, PFC, no congestion control)
         against collsim --routing ecmp (lossless, PFC, no congestion control)

The programs run alternately, --repeat times each. Printed per program: the median CPU time
(user + system, start-up and reading included), the median wall time, the peak RSS, and the
flows' completion (min, p50, p99, max in us; htsim's from its "finished at" lines); then the
ratio of the peer's median CPU time to collsim's. The transports differ (htsim's NDP trims
and pulls, collsim's is RoCE-like), so the FCTs are shown side by side, not required equal;
every collsim run must give the same result. htsim_roce seeds its path choice from the wall
clock (see ../shared/data/anchors/README.md), so its FCT tail moves between runs.

  python3 bench/htsim_peer.py [--collsim build/release/collsim] [--repeat 3]
      [--htsim PATH/htsim_ndp] [--htsim-roce PATH/htsim_roce] [--atlahs-htsim PATH/htsim_uec]
      [--scenarios spray ecmp ring]

(ring) ATLAHS's 128-rank ring (bench/exec_packet.py writes it: 254 steps of 1 MiB, each its own
tag) on a leaf-spine of 8 leaves and 16 spines, 200 Gb/s and 500 ns per link: ATLAHS's
htsim_uec reading the GOAL binary (collsim writes it with `goal convert`) on its
topologies/leaf_spine_128_1os.topo, the flags of ATLAHS's own scripts (-strat ecmp_host -paths
128 -mtu 4096 -q 1000000), against `collsim run` on topologies/leaf_spine_128_200g.yaml.
Compared: the last rank's end time.

  python3 bench/htsim_peer.py --scenarios ring --atlahs-htsim PATH/htsim_uec

Without a peer, collsim alone. csg-htsim builds from its public sources outside the project
(`make` in sim/, then `make htsim_ndp htsim_roce` in sim/datacenter); the script finds the
.cm and .topo files beside the binaries, in connection_matrices/ and topologies/.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile

from exec_packet import write_atlahs_ring
from timed_run import timed

HERE = os.path.dirname(os.path.abspath(__file__))
FLOWS = os.path.join(HERE, "data", "fat_tree_1024_perm_2MB.flows.csv")
CM = os.path.join("connection_matrices", "perm_1024n_1024c_0u_2000000b.cm")
TOPO = os.path.join("topologies", "fat_tree_1024.topo")
ATLAHS_END = r"^Maximum finishing time at host \d+: (\d+)"  # ns
# The anchors' flags (../shared/data/anchors/README.md); htsim_roce takes no -cwnd.
ECMP_FLAGS = ["-linkspeed", "100000", "-strat", "ecmp_host", "-paths", "128", "-nodes", "1024", "-conns", "1024",
              "-q", "35", "-mtu", "4000", "-end", "2000", "-seed", "13"]
PEER_FLAGS = {"spray": ECMP_FLAGS + ["-cwnd", "50"], "ecmp": ECMP_FLAGS}


def percentile(sorted_values, q):
    """Nearest rank, as the anchors' summary."""
    k = max(0, min(len(sorted_values) - 1, -(-q * len(sorted_values) // 100) - 1))
    return sorted_values[int(k)]


def fct_summary(fcts_us):
    s = sorted(fcts_us)
    return {"flows": len(s), "min": s[0], "p50": percentile(s, 50), "p99": percentile(s, 99), "max": s[-1]}


def run_collsim(collsim, routing):
    cmd = [collsim, "flows", "--topology", os.path.join(HERE, "..", "topologies", "fat_tree_k16.yaml"),
           "--flows", FLOWS, "--routing", routing, "--set", "mtu_bytes=4000", "--set", "header_bytes=64",
           "--json", "--quiet"]
    out, wall, cpu, rss = timed(cmd)
    r = json.loads(out)
    if r["flows_completed"] != r["flows"]:
        raise SystemExit(f"collsim completed {r['flows_completed']} of {r['flows']} flows")
    fct = {"flows": r["flows"], "p50": r["fct_p50_ps"] / 1e6, "p99": r["fct_p99_ps"] / 1e6, "max": r["fct_max_ps"] / 1e6}
    result = (r["events"], r["makespan_ps"], r["fct_p50_ps"], r["fct_p99_ps"])
    return {"wall": wall, "cpu": cpu, "rss": rss, "fct": fct, "events": r["events"], "result": result}


def run_peer(binary, routing):
    folder = os.path.dirname(os.path.abspath(binary))
    for f in (CM, TOPO):
        if not os.path.exists(os.path.join(folder, f)):
            raise SystemExit(f"{os.path.join(folder, f)} not found: give the binary inside its sim/datacenter folder")
    cmd = [os.path.abspath(binary), "-tm", os.path.join(folder, CM), "-topo", os.path.join(folder, TOPO)]
    with tempfile.TemporaryDirectory() as scratch:  # htsim writes logout.dat where it runs
        out, wall, cpu, rss = timed(cmd + PEER_FLAGS[routing], cwd=scratch)
    finished = [float(t) for t in re.findall(r"^Flow \S+ .*finished at ([\d.e+-]+)", out, re.M)]
    if len(finished) != 1024:
        raise SystemExit(f"{binary}: {len(finished)} of 1024 flows finished")
    return {"wall": wall, "cpu": cpu, "rss": rss, "fct": fct_summary(finished)}


def run_collsim_ring(collsim, goal):
    out, wall, cpu, rss = timed([collsim, "run", "--topology", os.path.join(HERE, "..", "topologies", "leaf_spine_128_200g.yaml"),
                                 "--schedule", goal, "--json", "--quiet"])
    r = json.loads(out)
    return {"wall": wall, "cpu": cpu, "rss": rss, "events": r["events"], "end_ms": r["makespan_ps"] / 1e9,
            "result": (r["events"], r["makespan_ps"])}


def run_atlahs_ring(binary, goal_bin):
    topo = os.path.join(os.path.dirname(os.path.abspath(binary)), "topologies", "leaf_spine_128_1os.topo")
    if not os.path.exists(topo):
        raise SystemExit(f"{topo} not found: give the binary inside its sim/datacenter folder")
    cmd = [os.path.abspath(binary), "-topo", topo, "-goal", goal_bin, "-linkspeed", "200000", "-nodes", "128",
           "-strat", "ecmp_host", "-mtu", "4096", "-paths", "128", "-q", "1000000", "-seed", "13"]
    with tempfile.TemporaryDirectory() as scratch:
        out, wall, cpu, rss = timed(cmd, cwd=scratch)
    ends = [int(t) for t in re.findall(ATLAHS_END, out, re.M)]
    if not ends:
        raise SystemExit(f"{binary} printed no end time:\n{out[-2000:]}")
    return {"wall": wall, "cpu": cpu, "rss": rss, "end_ms": max(ends) / 1e6}


def ring(a):
    print("ATLAHS's ring: 128 ranks, 254 steps of 1 MiB, leaf-spine of 200 Gb/s and 500 ns links, one core")
    with tempfile.TemporaryDirectory() as folder:
        text, binary = os.path.join(folder, "ring.goal"), os.path.join(folder, "ring.bin")
        write_atlahs_ring(text)
        subprocess.run([a.collsim, "goal", "convert", text, binary], check=True, capture_output=True)
        mine, theirs = [], []
        for _ in range(a.repeat):
            if a.atlahs_htsim:
                theirs.append(run_atlahs_ring(a.atlahs_htsim, binary))
            mine.append(run_collsim_ring(a.collsim, text))
    if any(r["result"] != mine[0]["result"] for r in mine):
        raise SystemExit("collsim runs differ")
    ours = describe("collsim", mine)
    print(f"  {'':<12} end {mine[0]['end_ms']:.3f} ms")
    if theirs:
        peer_cpu = describe("htsim_uec", theirs)
        print(f"  {'':<12} end {theirs[0]['end_ms']:.3f} ms")
        print(f"  ratio        {peer_cpu / ours:.1f}x (htsim_uec's median CPU time over collsim's)")


def describe(name, runs):
    cpu = statistics.median(r["cpu"] for r in runs)
    wall = statistics.median(r["wall"] for r in runs)
    f = runs[0].get("fct")
    events = f", {runs[0]['events'] / 1e6:.2f} M events" if "events" in runs[0] else ""
    cpus = ", ".join(f"{r['cpu']:.2f}" for r in runs)
    print(f"  {name:<12} CPU {cpu:6.2f} s (median of {len(runs)}: {cpus}),"
          f" wall {wall:6.2f} s, peak RSS {max(r['rss'] for r in runs) / 2**20:.0f} MiB{events}")
    if f is None:
        return cpu
    lo = f"min {f['min']:.1f}, " if "min" in f else ""
    print(f"  {'':<12} FCT us: {lo}p50 {f['p50']:.1f}, p99 {f['p99']:.1f}, max {f['max']:.1f}")
    return cpu


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--collsim", default="build/release/collsim")
    p.add_argument("--htsim", help="csg-htsim's htsim_ndp (packet spraying)")
    p.add_argument("--htsim-roce", help="csg-htsim's htsim_roce (one path per flow); default: beside --htsim")
    p.add_argument("--atlahs-htsim", help="ATLAHS's htsim_uec (GOAL input)")
    p.add_argument("--scenarios", nargs="+", choices=["spray", "ecmp", "ring"], default=["spray", "ecmp", "ring"],
                   help="the permutation sprayed or routed per flow, and ATLAHS's ring")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    if a.repeat < 1:
        p.error("--repeat must be at least 1")
    roce = a.htsim_roce or (os.path.join(os.path.dirname(a.htsim), "htsim_roce") if a.htsim else None)
    peers = {"spray": ("htsim_ndp", a.htsim), "ecmp": ("htsim_roce", roce)}

    for routing in (s for s in a.scenarios if s != "ring"):
        peer_name, peer = peers[routing]
        if peer and not os.access(peer, os.X_OK):
            p.error(f"{peer} is not an executable")
        print(f"1024-host permutation of 2,000,000 B, fat tree of 100 Gb/s and 1 us links, routing {routing}, one core")
        mine, theirs = [], []
        for _ in range(a.repeat):
            if peer:
                theirs.append(run_peer(peer, routing))
            mine.append(run_collsim(a.collsim, routing))
        if any(r["result"] != mine[0]["result"] for r in mine):
            raise SystemExit("collsim runs differ")
        ours = describe("collsim", mine)
        if theirs:
            peer_cpu = describe(peer_name, theirs)
            print(f"  ratio        {peer_cpu / ours:.1f}x ({peer_name}'s median CPU time over collsim's)")
    if "ring" in a.scenarios:
        ring(a)


if __name__ == "__main__":
    main()
