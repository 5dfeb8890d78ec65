#!/usr/bin/env python3
"""The LogGOPS mode beside LogGOPSim, on the same file in the same run (issue 29, point 1).

The schedule is LogGOPSim's own kind of ring: RANKS ranks, STEPS steps of SIZE bytes, in each
of which every rank sends to its right neighbour and receives from its left one, every step
its own tag, step i+1 waiting for the receive of step i (bench/exec_packet.py writes it).
collsim converts it to LogGOPSim's binary (.bin) and to .goalb; LogGOPSim reads the .bin,
collsim each of .bin, .goalb and the text. All run with L=2000000 o=0 g=0 G=40 O=0
S=1000000000 (LogGOPSim's units: ns, ns per byte, bytes), alternately, --repeat times each.

Printed per program and input: the median wall time, the least CPU time (user + system,
start-up and reading included: LogGOPSim reports its own time in whole seconds only), the
median and largest of the runs' peak RSS (a run now and then takes a few MB more), events
per second of wall time, and the ratio of LogGOPSim's median wall time to collsim's. The last
rank to end and its end time (to the nanosecond; LogGOPSim prints every rank's only up to 16
ranks) and the event counts must be equal; the script stops otherwise.

  python3 bench/loggops_peer.py [--collsim build/release/collsim] [--peer PATH/LogGOPSim]
      [--ranks 512] [--steps 1022] [--size 1048576] [--repeat 3]

Without --peer, collsim alone. LogGOPSim builds from its public sources outside the project:
  gengetopt -i loggopsim_cmdline.ggo -F loggopsim_cmdline
  g++ -O2 -g loggopsim_cmdline.c LogGOPSim.cpp -I/usr/include/graphviz -lcgraph -o LogGOPSim
(its CMake build type is RelWithDebInfo, i.e. -O2 -g).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

from exec_packet import write_atlahs_ring
from timed_run import timed

HERE = os.path.dirname(os.path.abspath(__file__))
PARAMS = {"L": 2000000, "o": 0, "g": 0, "G": 40, "O": 0, "S": 1000000000}


def run_peer(peer, path):
    args = [peer, "-f", path] + [x for k, v in PARAMS.items() for x in (f"-{k}", str(v))]
    out, wall, cpu, rss = timed(args)
    events = int(re.search(r"Events: (\d+)", out).group(1))
    host, end = re.search(r"Maximum finishing time at host (\d+): (\d+)", out).groups()
    return {"events": events, "last": (int(end), int(host)), "wall": wall, "cpu": cpu, "rss": rss}


def run_collsim(collsim, path):
    args = [collsim, "run", "--network", "loggops", "--schedule", path, "--quiet", "--json", "--loggops-set"]
    args += [f"{k}={v}" for k, v in PARAMS.items()]
    out, wall, cpu, rss = timed(args)
    j = json.loads(out)
    assert j["complete"], f"{path}: the run did not complete"
    finish = j["rank_finish_ps"]
    last = max(finish)
    return {"events": j["events"], "last": (last // 1000, finish.index(last)), "wall": wall, "cpu": cpu, "rss": rss}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--collsim", default=os.path.join(HERE, "..", "build", "release", "collsim"))
    p.add_argument("--peer", help="a LogGOPSim binary")
    p.add_argument("--ranks", type=int, default=512)
    p.add_argument("--steps", type=int, default=1022)
    p.add_argument("--size", type=int, default=1 << 20)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        text = os.path.join(folder, "ring.goal")
        write_atlahs_ring(text, ranks=a.ranks, steps=a.steps, size=a.size)
        files = {"text": text}
        for ext in ("bin", "goalb"):
            files[ext] = os.path.join(folder, "ring." + ext)
            subprocess.run([a.collsim, "goal", "convert", text, files[ext]], check=True, capture_output=True)
        programs = [(f"collsim .{'goal' if k == 'text' else k}", lambda f=f: run_collsim(a.collsim, f))
                    for k, f in (("bin", files["bin"]), ("goalb", files["goalb"]), ("text", text))]
        if a.peer:
            programs.insert(0, ("LogGOPSim .bin", lambda: run_peer(a.peer, files["bin"])))
        runs = {name: [] for name, _ in programs}
        for _ in range(a.repeat):  # alternately, so that a slow minute of the machine hits all alike
            for name, run in programs:
                runs[name].append(run())
        first = next(iter(runs.values()))[0]
        for name, rs in runs.items():
            for r in rs:
                if r["last"] != first["last"] or r["events"] != first["events"]:
                    sys.exit(f"{name} differs: {r['events']} events, last end {r['last']} (ns, rank) against "
                             f"{first['events']}, {first['last']}")
        print(f"ring of {a.ranks} ranks, {a.steps} steps of {a.size} B ({a.ranks * a.steps * 2:,} ops): "
              f"{first['events']:,} events and the same last end in all runs ({first['last'][0]} ns, rank "
              f"{first['last'][1]}); {a.repeat} runs each, alternately")
        peer_wall = statistics.median(r["wall"] for r in runs["LogGOPSim .bin"]) if a.peer else None
        for name, rs in runs.items():
            wall = statistics.median(r["wall"] for r in rs)
            cpu = min(r["cpu"] for r in rs)
            rss = statistics.median(r["rss"] for r in rs)
            rss_max = max(r["rss"] for r in rs)
            ratio = f", {peer_wall / wall:.2f}x LogGOPSim's speed" if peer_wall and not name.startswith("LogGOPSim") else ""
            walls = ", ".join(f"{r['wall']:.3f}" for r in rs)
            print(f"  {name:16s} wall {wall:6.3f} s (median; {walls}), "
                  f"CPU {cpu:6.3f} s, peak RSS {rss / 1e6:6.1f} MB (median; max {rss_max / 1e6:.1f}), "
                  f"{first['events'] / wall / 1e6:5.2f} M events/s{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
