#!/usr/bin/env python3
"""GPT-3 175B in packet mode (issue 7): events, wall time and peak memory per micro-batch.

The full preset (96 layers, 96 micro-batches, TP 8 PP 8 DP 16 on 1024 GPUs) cannot run in
packet mode on one machine: the step is lowered on the fly (each simulator rank its own GPUs),
but every host keeps the state of every flow it sent or received until the run ends, and its
TP all-reduces alone are ~10^11 NVLink packets. This bench runs smaller variants of the preset (fewer layers, fewer
micro-batches, optionally a smaller DP and 1F1B, since the interleaved schedule needs a multiple
of PP micro-batches), with the packet model of NVLink (`--scale-up packet`, the default) and/or
the message-level one (`--scale-up message`), under /usr/bin/time -v, and prints for each run
the events, simulated wall time, peak RSS, packet-hops and iteration time, then the increments
per micro-batch (the difference between consecutive micro-batch counts), which is what a longer
step adds for each micro-batch.

The difference between the two scale-up models' events is, to a few per cent, the NVLink data
packets (message mode keeps every network packet and three control packets per NVLink message).

  python3 bench/workload_gpt3_175b_packet.py [--collsim build/release/collsim]
      [--micro-batches 1 2] [--layers 8] [--dp 2] [--schedule 1f1b] [--scale-up packet message]
      [--timeout 7200]
"""

import argparse
import json
import os
import re
import tempfile

from timed_run import run_timed

HERE = os.path.dirname(os.path.abspath(__file__))
PRESET = os.path.join(HERE, "..", "workload", "presets", "gpt3_175b.yaml")


def substitute(text, key, value):
    text, n = re.subn(rf"^(\s*){key}: \S+$", rf"\g<1>{key}: {value}", text, flags=re.M)
    assert n == 1, f"the preset's '{key}:' line moved"
    return text


def variant(folder, micro_batches, layers, dp, schedule):
    text = open(PRESET).read()
    text = substitute(text, "global_batch", micro_batches * dp)
    text = substitute(text, "layers", layers)
    text = substitute(text, "dp", dp)
    text = substitute(text, "schedule", schedule)
    if schedule != "interleaved":
        text = re.sub(r"^\s*virtual_stages: \d+\n", "", text, flags=re.M)
    path = os.path.join(folder, f"gpt3_175b_{layers}l_dp{dp}_{schedule}_{micro_batches}mb.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def run(collsim, workload, scale_up, timeout):
    stdout, seconds, rss = run_timed([collsim, "workload", workload, "--run", "--network", "packet",
                                      "--scale-up", scale_up, "--json", "--quiet"], timeout)
    out = json.loads(stdout)
    return {"events": out["events"], "wall": seconds, "sim_wall": out["wall_s"], "rss_gb": rss / 1024 / 1e6,
            "hops": out["packets_forwarded"], "ops": out["ops_total"], "iteration_ms": out["iteration_ps"] / 1e9,
            "exposed_ms": {k: v / 1e9 for k, v in out["exposed_comm_ps"].items()}, "complete": out["complete"]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--collsim", default="build/release/collsim")
    p.add_argument("--micro-batches", type=int, nargs="+", default=[1, 2])
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--dp", type=int, default=2)
    p.add_argument("--schedule", default="1f1b", choices=["1f1b", "interleaved"])
    p.add_argument("--scale-up", nargs="+", default=["packet", "message"], choices=["packet", "message"])
    p.add_argument("--timeout", type=float, default=7200)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for scale_up in a.scale_up:
            rows = []
            for m in sorted(a.micro_batches):
                r = run(a.collsim, variant(folder, m, a.layers, a.dp, a.schedule), scale_up, a.timeout)
                rows.append((m, r))
                exposed = ", ".join(f"{k} {v:.1f}" for k, v in r["exposed_ms"].items())
                print(f"scale-up {scale_up}, {a.layers} layers, DP {a.dp} ({8 * 8 * a.dp} GPUs), {a.schedule}, {m} "
                      f"micro-batch(es): {r['events'] / 1e6:.1f} M events, {r['hops'] / 1e6:.1f} M packet-hops, "
                      f"{r['ops'] / 1e6:.2f} M ops; {r['wall']:.1f} s wall ({r['sim_wall']:.1f} s simulating), "
                      f"peak RSS {r['rss_gb']:.2f} GB; iteration {r['iteration_ms']:.3f} ms (exposed ms: {exposed})"
                      + ("" if r["complete"] else "  INCOMPLETE"), flush=True)
            for (m0, r0), (m1, r1) in zip(rows, rows[1:]):
                k = m1 - m0
                print(f"  per micro-batch ({m0} -> {m1}): {(r1['events'] - r0['events']) / k / 1e6:.1f} M events, "
                      f"{(r1['sim_wall'] - r0['sim_wall']) / k:.1f} s simulating, "
                      f"{(r1['rss_gb'] - r0['rss_gb']) / k * 1000:.0f} MB of peak RSS", flush=True)


if __name__ == "__main__":
    main()
