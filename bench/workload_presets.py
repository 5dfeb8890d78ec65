#!/usr/bin/env python3
"""The large workload presets, whole, in each network model: events, wall time, peak memory and
the step's report (issue 28, point 6).

Models (each passes --network, so the preset's own default is replaced):
  loggops       --network loggops                       message level, no contention
  loggops+reuse --network loggops --fast-forward collectives   and TP collectives timed once alone
  flow          --network flow                          every link as flows
  flow+reuse    --network flow --fast-forward collectives   and TP collectives timed once alone
  hybrid        --network packet --fidelity nvlink=flow network as packets, NVLink as flows
  hybrid+reuse  the same with --fast-forward collectives
  hybrid+steady+reuse  the same with --fast-forward steady,collectives (trains on the network)
  hybrid+contended+reuse  the same with --fast-forward contended,collectives (trains also
               through shared queues)
  packet+reuse  --network packet --fast-forward collectives
  packet        --network packet                        exact (hours for the large presets)

A run that passes --timeout is reported as such, not waited for. --ranks N runs each under
`mpirun -n N` (the result is the same at every rank count; the memory is then the largest rank's).

  python3 bench/workload_presets.py [--collsim build/release/collsim]
      [--presets gpt3_175b llama3_70b mixtral_8x7b] [--models loggops flow flow+reuse hybrid] [--timeout 3600]
      [--ranks 1]
"""

import argparse
import json
import os
import subprocess
import sys

from timed_run import run_timed

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {
    "loggops": ["--network", "loggops"],
    "loggops+reuse": ["--network", "loggops", "--fast-forward", "collectives"],
    "flow": ["--network", "flow", "--fast-forward", "off"],
    "flow+reuse": ["--network", "flow", "--fast-forward", "collectives"],
    "hybrid": ["--network", "packet", "--fidelity", "nvlink=flow", "--fast-forward", "off"],
    "hybrid+reuse": ["--network", "packet", "--fidelity", "nvlink=flow", "--fast-forward", "collectives"],
    "hybrid+steady+reuse": ["--network", "packet", "--fidelity", "nvlink=flow", "--fast-forward", "steady,collectives"],
    "hybrid+contended+reuse": ["--network", "packet", "--fidelity", "nvlink=flow", "--fast-forward",
                               "contended,collectives"],
    "packet+reuse": ["--network", "packet", "--fast-forward", "collectives"],
    "packet": ["--network", "packet", "--fast-forward", "off"],
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--collsim", default=os.path.join(HERE, "..", "build", "release", "collsim"))
    p.add_argument("--presets", nargs="+", default=["gpt3_175b", "llama3_70b", "mixtral_8x7b"])
    p.add_argument("--models", nargs="+", default=["loggops", "flow", "flow+reuse", "hybrid"], choices=list(MODELS))
    p.add_argument("--timeout", type=float, default=3600)
    p.add_argument("--ranks", type=int, default=1, help="MPI ranks per run (mpirun -n)")
    a = p.parse_args()
    if a.ranks < 1:
        p.error("--ranks must be at least 1")
    launcher = []
    if a.ranks > 1:
        os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        launcher = ["mpirun", "-n", str(a.ranks), "--bind-to", "none"]
    for preset in a.presets:
        for model in a.models:
            try:
                stdout, wall, rss = run_timed(launcher + [a.collsim, "workload", preset, "--json", "--quiet"] +
                                              MODELS[model], a.timeout)
            except subprocess.TimeoutExpired:
                print(f"{preset:14s} {model:13s} not done after {a.timeout:.0f} s", flush=True)
                continue
            j = json.loads(stdout)
            exposed = ", ".join(f"{k} {v / 1e9:.1f}" for k, v in j["exposed_comm_ps"].items() if v)
            reused = f", {j['collectives_reused'] / 1e6:.2f} M parts reused" if "collectives_reused" in j else ""
            print(f"{preset:14s} {model:13s} {wall:8.1f} s  {rss / 2**30:5.2f} GB  {j['events'] / 1e6:9.1f} M events  "
                  f"{j['ops_total'] / 1e6:8.1f} M ops{reused}  iteration {j['iteration_ps'] / 1e9:.3f} ms "
                  f"(MFU {100 * j['mfu']:.1f} %; exposed ms: {exposed})" + ("" if j["complete"] else "  INCOMPLETE"),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
