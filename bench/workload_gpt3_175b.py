#!/usr/bin/env python3
"""One GPT-3 175B training step in LogGOPS mode (issue 7): wall time and peak memory.

The preset (TP 8, PP 8 interleaved, DP 16 on 1024 A100 GPUs, 96 micro-batches) is about
1.45 G GOAL ops. `collsim workload` lowers it on the fly and simulates it as a stream (each
rank holds only its ops in flight); `--whole-step` lowers the whole step first, as before,
which needs about 124 bytes per op and so fits this 24 GB machine only up to ~8 micro-batches.

For each number of micro-batches asked for (the preset's global batch scaled down), runs the
streamed step (and with --whole-step up to --whole-max micro-batches, the whole-step path too,
checking that both give the same report), under /usr/bin/time -v, and prints wall time, peak
RSS, ops, and the step's iteration time, exposed communication and MFU. With --reuse it also
runs the step with `--fast-forward collectives` (each server's TP collectives timed once alone,
then reused) and prints its error against the exact run (--reuse-only: that run alone, for
the whole step, whose exact run takes most of an hour).

  python3 bench/workload_gpt3_175b.py [--collsim build/release/collsim] [--micro-batches 8 96]
                                      [--whole-step] [--whole-max 8] [--reuse | --reuse-only]
                                      [--timeout 3000]
"""

import argparse
import json
import os
import re
import tempfile

from timed_run import run_timed

HERE = os.path.dirname(os.path.abspath(__file__))
PRESET = os.path.join(HERE, "..", "workload", "presets", "gpt3_175b.yaml")
DP = 16
SAME_KEYS = ["iteration_ps", "critical_rank", "compute_ps", "exposed_comm_ps", "idle_ps", "mfu", "bytes_per_rank",
             "ops_total", "ops_completed", "messages", "bytes", "events", "rank_finish_ps"]


def preset_with(micro_batches, folder):
    text = open(PRESET).read()
    text, n = re.subn(r"global_batch: \d+", f"global_batch: {micro_batches * DP}", text)
    assert n == 1, "the preset's global_batch line moved"
    path = os.path.join(folder, f"gpt3_175b_{micro_batches}mb.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def run(collsim, workload, extra, timeout):
    stdout, seconds, rss = run_timed([collsim, "workload", workload, "--network", "loggops", "--json"] + extra, timeout)
    return json.loads(stdout), seconds, rss / 1024 / 1024 / 1024


def show(title, out, wall, rss_gb):
    ms = lambda ps: ps / 1e9
    exposed = ", ".join(f"{d} {ms(v):.1f}" for d, v in out["exposed_comm_ps"].items())
    print(f"{title}: {wall:.1f} s wall (lowering + simulation), peak RSS {rss_gb:.2f} GB, "
          f"{out['ops_total'] / 1e6:.1f} M ops, {out['events'] / 1e6:.1f} M events")
    print(f"  iteration {ms(out['iteration_ps']):.3f} ms, compute {ms(out['compute_ps']):.1f} ms, "
          f"exposed ms: {exposed}, MFU {100 * out['mfu']:.1f} %")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--collsim", default="build/release/collsim")
    p.add_argument("--micro-batches", type=int, nargs="+", default=[8, 96])
    p.add_argument("--whole-step", action="store_true", help="also run the whole-step path and compare")
    p.add_argument("--whole-max", type=int, default=8, help="largest micro-batch count for --whole-step")
    p.add_argument("--reuse", action="store_true", help="also run with --fast-forward collectives and compare")
    p.add_argument("--reuse-only", action="store_true", help="only the run with --fast-forward collectives")
    p.add_argument("--timeout", type=float, default=3000)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for m in a.micro_batches:
            workload = preset_with(m, folder)
            if a.reuse or a.reuse_only:
                reused = run(a.collsim, workload, ["--fast-forward", "collectives"], a.timeout)
                show(f"gpt3_175b, {m} micro-batches, TP collectives reused", *reused)
                if a.reuse_only:
                    continue
            streamed = run(a.collsim, workload, [], a.timeout)
            show(f"gpt3_175b, {m} micro-batches, streamed", *streamed)
            if a.reuse:
                err = lambda x, ref: f"{100 * (x - ref) / ref:+.2f} %" if ref else "-"
                shares = ", ".join(f"{k} {err(v, streamed[0]['exposed_comm_ps'][k])}"
                                   for k, v in reused[0]["exposed_comm_ps"].items() if streamed[0]["exposed_comm_ps"][k])
                print(f"  reused against exact: iteration {err(reused[0]['iteration_ps'], streamed[0]['iteration_ps'])}"
                      f" (exposed: {shares}); {streamed[1] / reused[1]:.1f}x faster")
            if a.whole_step and m <= a.whole_max:
                whole = run(a.collsim, workload, ["--whole-step"], a.timeout)
                show(f"gpt3_175b, {m} micro-batches, whole step", *whole)
                differ = [k for k in SAME_KEYS if streamed[0][k] != whole[0][k]]
                print("  same report both ways" if not differ else f"  DIFFERENT: {differ}")


if __name__ == "__main__":
    main()
