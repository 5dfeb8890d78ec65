#!/usr/bin/env python3
"""Faster fidelities beside exact packet mode, on the same inputs (issue 28, point 5).

Each scenario runs in exact packet mode and in each faster fidelity:
  hybrid   --fidelity nvlink=flow   NVLink (scale-up) as flows, the network as packets
  flow     --network flow           every link as flows (max-min shares, no queues)
  message  --scale-up message       the older approximation: NVLink rendezvous data as delays
  reuse, hybrid+reuse, flow+reuse   the same with --fast-forward collectives: a TP or EP
           collective inside a server simulated once alone, its repeats a barrier and each
           member's time alone (workloads only)
  steady, hybrid+steady, hybrid+steady+reuse   --fast-forward steady: flows settled on packet
           links send trains of 15 packets that the fabric moves as one unit
  contended, hybrid+contended+reuse   --fast-forward contended: trains of 60 packets from a
           flow's first packet, that stay trains where flows share queues (waits, ECN marks and
           pauses do not unsettle them)
and reports, side by side, the iteration time and each exposed-communication share (workloads)
or the makespan and FCT p50/p99 (flows, collectives), with each fidelity's error against packet
mode, its events, wall time and peak memory.

Packet mode is itself a sample: the fabric's seed places flows on ECMP paths and draws ECN
marks, and a step whose collectives contend moves by a few per cent from one seed to another.
With --seeds N every model runs with seeds 1..N; the table shows the means (errors between
means) and, for packet mode, the spread over seeds that an error should be read against.

Scenarios (reduced variants of the large presets, as packet mode can run them here):
  gpt3_128:<m>   gpt3_175b with 8 layers, DP 2 (128 GPUs), 1F1B, m micro-batches (1, 2, 8)
  mixtral_32     mixtral_8x7b with 4 layers, one micro-batch per DP rank: EP all-to-alls across
                 two servers, under contention
  llama_64       llama3_70b with 8 layers, 1F1B, DP 2 (64 GPUs), 4 micro-batches
  permutation    fat_tree_k16, a permutation of 1024 x 2 MiB flows (collsim flows)
  nvswitch_a2a_peer, nvswitch_a2a_nccl   the 8 GPUs of a dgx_a100_pod server, each sending
                 2,048,000 B to the other seven at once, in peer order 0..7 or in NCCL's order
                 (me + k): where trains that take turns meet at one receiver (a second each)
  ring_1024      bench/exec_packet.py's 1024-rank ring all-reduce of 256 MiB on fat_tree_k16
                 (about 4 minutes as packets; only with --full)
  gpt3_1024      gpt3_175b with 8 layers, PP 8, DP 16 (1024 GPUs, the preset's fabric), 1F1B, one
                 micro-batch per replica: pipeline sends that meet at rail switches (only with --full)

  python3 bench/fidelity_accuracy.py [--collsim build/release/collsim] [--only NAME ...]
      [--fidelities hybrid flow message reuse hybrid+reuse flow+reuse] [--full] [--timeout 3600]
"""

import argparse
import json
import os
import re
import sys
import tempfile

from timed_run import run_timed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
PRESETS = os.path.join(ROOT, "workload", "presets")
FIDELITIES = {
    "packet": [],
    "hybrid": ["--fidelity", "nvlink=flow"],
    "flow": ["--network", "flow"],
    "message": ["--scale-up", "message"],
    "reuse": ["--fast-forward", "collectives"],
    "hybrid+reuse": ["--fidelity", "nvlink=flow", "--fast-forward", "collectives"],
    "flow+reuse": ["--network", "flow", "--fast-forward", "collectives"],
    "steady": ["--fast-forward", "steady"],
    "hybrid+steady": ["--fidelity", "nvlink=flow", "--fast-forward", "steady"],
    "hybrid+steady+reuse": ["--fidelity", "nvlink=flow", "--fast-forward", "steady,collectives"],
    "contended": ["--fast-forward", "contended"],
    "hybrid+contended+reuse": ["--fidelity", "nvlink=flow", "--fast-forward", "contended,collectives"],
}
# `collsim flows` has no --fast-forward: its trains are fabric parameters (net::steady_trains,
# net::contended_trains).
FLOWS_TRAINS = {
    "steady": ["--set", "train_bytes=60KiB"],
    "contended": ["--set", "train_bytes=240KiB", "--set", "settle_packets=0", "--set", "trains_through_queues=true"],
}


def substitute(text, key, value):
    text, n = re.subn(rf"^(\s*){key}: \S+$", rf"\g<1>{key}: {value}", text, flags=re.M)
    assert n == 1, f"the preset's '{key}:' line moved"
    return text


def variant(folder, preset, name, **keys):
    text = open(os.path.join(PRESETS, preset + ".yaml")).read()
    for key, value in keys.items():
        text = substitute(text, key, value)
    if keys.get("schedule") == "1f1b":
        text = re.sub(r"^\s*virtual_stages: \d+\n", "", text, flags=re.M)
    path = os.path.join(folder, name + ".yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def workload_scenarios(folder, full):
    out = {}
    for m in (1, 2, 8):
        out[f"gpt3_128:{m}"] = variant(folder, "gpt3_175b", f"gpt3_128_{m}mb", global_batch=2 * m, layers=8, dp=2,
                                       schedule="1f1b")
    out["mixtral_32"] = variant(folder, "mixtral_8x7b", "mixtral_32", layers=4, global_batch=16)
    out["llama_64"] = variant(folder, "llama3_70b", "llama_64", layers=8, dp=2, schedule="1f1b", global_batch=8)
    if full:
        out["gpt3_1024"] = variant(folder, "gpt3_175b", "gpt3_1024", global_batch=16, layers=8, schedule="1f1b")
    return out


def averaged(run, extra, seeds):
    """The mean of `run` over seeds 1..seeds, and the spread (max - min) of its time."""
    rs = [run(extra + ["--seed", str(seed)]) for seed in range(1, seeds + 1)]
    mean = {"time_ms": sum(r["time_ms"] for r in rs) / len(rs),
            "shares": {k: sum(r["shares"][k] for r in rs) / len(rs) for k in rs[0]["shares"]},
            "events": sum(r["events"] for r in rs) / len(rs), "wall": sum(r["wall"] for r in rs) / len(rs),
            "rss_gb": max(r["rss_gb"] for r in rs), "complete": all(r["complete"] for r in rs)}
    times = [r["time_ms"] for r in rs]
    mean["spread_pct"] = 100.0 * (max(times) - min(times)) / mean["time_ms"]
    return mean


def run_workload(collsim, path, extra, timeout):
    network = [] if "--network" in extra else ["--network", "packet"]  # the presets default to loggops
    stdout, wall, rss = run_timed([collsim, "workload", path, "--json", "--quiet"] + network + extra, timeout)
    j = json.loads(stdout)
    return {"time_ms": j["iteration_ps"] / 1e9, "shares": {k: v / 1e9 for k, v in j["exposed_comm_ps"].items()},
            "events": j["events"], "wall": wall, "rss_gb": rss / 1024 / 1e6, "complete": j["complete"]}


def write_nvswitch_alltoall(path, order):
    """The 8 GPUs of one server of dgx_a100_pod, each sending 2,048,000 B to the other seven at
    once: in peer order 0..7 (at each turn every GPU's flow goes to the same peer) or in NCCL's
    (peer me + k at turn k: each turn a permutation)."""
    with open(path, "w") as f:
        f.write("src,dst,bytes,start\n")
        for g in range(8):
            peers = [d for d in range(8) if d != g] if order == "peer" else [(g + k) % 8 for k in range(1, 8)]
            for d in peers:
                f.write(f"{g},{d},2048000,0\n")


def run_flows(collsim, extra, timeout, topology="fat_tree_k16.yaml", flows=None):
    # `collsim flows` has no --network: every link as flows is --fidelity all=flow.
    if extra[:2] == FIDELITIES["flow"]:
        extra = ["--fidelity", "all=flow"] + extra[2:]
    for kind, params in FLOWS_TRAINS.items():
        if extra[:2] == FIDELITIES[kind]:
            extra = params + extra[2:]
    given = ["--flows", flows] if flows else ["--pattern", "permutation", "--bytes", "2MiB"]
    stdout, wall, rss = run_timed([collsim, "flows", "--topology", os.path.join(ROOT, "topologies", topology)]
                                  + given + ["--json", "--quiet"] + extra, timeout)
    j = json.loads(stdout)
    return {"time_ms": j["makespan_ps"] / 1e9, "shares": {"fct_p50": j["fct_p50_ps"] / 1e9, "fct_p99": j["fct_p99_ps"] / 1e9},
            "events": j["events"], "wall": wall, "rss_gb": rss / 1024 / 1e6, "complete": j["flows_completed"] == j["flows"]}


def run_ring(collsim, extra, timeout):
    stdout, wall, rss = run_timed([collsim, "run", "--topology", os.path.join(ROOT, "topologies", "fat_tree_k16.yaml"),
                                   "--coll", "allreduce", "--algo", "ring", "--bytes", "256MiB", "--json", "--quiet"]
                                  + extra, timeout)
    j = json.loads(stdout)
    return {"time_ms": j["makespan_ps"] / 1e9, "shares": {}, "events": j["events"], "wall": wall,
            "rss_gb": rss / 1024 / 1e6, "complete": j["complete"]}


def error(value, reference):
    return 100.0 * (value - reference) / reference if reference else 0.0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--collsim", default=os.path.join(ROOT, "build", "release", "collsim"))
    p.add_argument("--only", nargs="+")
    p.add_argument("--fidelities", nargs="+", default=["hybrid", "flow", "message"], choices=list(FIDELITIES)[1:])
    p.add_argument("--full", action="store_true",
                   help="also the 1024-rank ring and gpt3_1024 (minutes and half an hour as packets)")
    p.add_argument("--seeds", type=int, default=1, help="run every model with seeds 1..N and compare means")
    p.add_argument("--timeout", type=float, default=3600)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        scenarios = {name: (lambda extra, path=path: run_workload(a.collsim, path, extra, a.timeout))
                     for name, path in workload_scenarios(folder, a.full).items()}
        scenarios["permutation"] = lambda extra: run_flows(a.collsim, extra, a.timeout)
        for order in ("peer", "nccl"):
            flows = os.path.join(folder, f"nvswitch_alltoall_{order}.csv")
            write_nvswitch_alltoall(flows, order)
            scenarios[f"nvswitch_a2a_{order}"] = (
                lambda extra, flows=flows: run_flows(a.collsim, extra, a.timeout, "dgx_a100_pod.yaml", flows))
        if a.full:
            scenarios["ring_1024"] = lambda extra: run_ring(a.collsim, extra, a.timeout)
        for name, run in scenarios.items():
            if a.only and name not in a.only:
                continue
            reference = averaged(run, FIDELITIES["packet"], a.seeds)
            rows = [("packet", reference)]
            for fidelity in a.fidelities:
                flows_only = name in ("permutation", "ring_1024") or name.startswith("nvswitch_a2a")
                if flows_only and ("hybrid" in fidelity or fidelity == "message" or "reuse" in fidelity):
                    continue  # no NVLink on fat_tree_k16, no workload to reuse collectives in
                rows.append((fidelity, averaged(run, FIDELITIES[fidelity], a.seeds)))
            print(f"== {name}", flush=True)
            for fidelity, r in rows:
                shares = ", ".join(
                    f"{k} {v:.3f}" + ("" if fidelity == "packet" else f" ({error(v, reference['shares'][k]):+.1f}%)")
                    for k, v in r["shares"].items() if reference["shares"].get(k) or v)
                print(f"  {fidelity:8s} {r['time_ms']:10.3f} ms"
                      + (f" (seeds spread {r['spread_pct']:.2f}%)" if a.seeds > 1 else "")
                      + ("" if fidelity == "packet" else f" ({error(r['time_ms'], reference['time_ms']):+.2f}%)")
                      + f"  [{shares}]  {r['events'] / 1e6:.2f} M events, {r['wall']:.1f} s, {r['rss_gb']:.2f} GB"
                      + f", {reference['wall'] / r['wall']:.1f}x faster" * (fidelity != "packet")
                      + ("" if r["complete"] else "  INCOMPLETE"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
