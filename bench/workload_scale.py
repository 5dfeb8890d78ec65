#!/usr/bin/env python3
"""How far one machine goes: the llama3_405b preset's structure (TP 8, PP 16, 126 layers,
16 micro-batches per DP replica) at DP 8, 16, ..., 128, i.e. 1,024 to 16,384 GPUs on
h100_rail_2048, in a chosen network model (issue 29, point 3).

Per size: wall time, peak RSS, ops lowered, the most ops held at once and the low estimate of
it that a step is refused on before it runs (peak_live_ops_floor), the iteration, and the
memory per GPU and per op held; then how many GPUs this machine's memory would hold at the
largest size's memory per GPU (an extrapolation from what was measured, said as such).

  python3 bench/workload_scale.py [--collsim build/release/collsim] [--dp 8 16 32 64 128]
      [--model loggops+reuse] [--timeout 7200]

Models are bench/workload_presets.py's (flow+reuse is the preset's own default).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from timed_run import run_timed
from workload_presets import MODELS

HERE = os.path.dirname(os.path.abspath(__file__))
PRESET = os.path.join(HERE, "..", "workload", "presets", "llama3_405b.yaml")
MICRO_BATCHES = 16


def variant(dp, directory):
    """The preset with DP `dp` and 16 micro-batches per replica, written into `directory`."""
    with open(PRESET) as f:
        text = f.read()
    for key, value in (("dp", dp), ("global_batch", MICRO_BATCHES * dp)):
        text, n = re.subn(rf"^(\s+{key}:) \d+$", rf"\g<1> {value}", text, count=1, flags=re.M)
        if n != 1:
            raise SystemExit(f"{PRESET}: no '{key}:' line to change")
    path = os.path.join(directory, f"llama3_405b_dp{dp}.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def memory_total():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--collsim", default=os.path.join(HERE, "..", "build", "release", "collsim"))
    p.add_argument("--dp", nargs="+", type=int, default=[8, 16, 32, 64, 128])
    p.add_argument("--model", default="loggops+reuse", choices=list(MODELS))
    p.add_argument("--timeout", type=float, default=7200)
    a = p.parse_args()
    print(f"{'GPUs':>6} {'DP':>4} {'wall s':>8} {'peak GB':>8} {'ops':>8} {'held':>8} {'floor':>8} {'MB/GPU':>7} "
          f"{'B/held op':>9}  iteration", flush=True)
    largest = None
    with tempfile.TemporaryDirectory() as tmp:
        for dp in a.dp:
            cmd = [a.collsim, "workload", variant(dp, tmp), "--json", "--quiet"] + MODELS[a.model]
            try:
                stdout, wall, rss = run_timed(cmd, a.timeout)
            except subprocess.TimeoutExpired:
                print(f"{'':>6} {dp:>4} not done after {a.timeout:.0f} s", flush=True)
                continue
            j = json.loads(stdout)
            gpus, held = j["gpus"], j["peak_live_ops"]
            print(f"{gpus:>6} {dp:>4} {wall:8.1f} {rss / 1e9:8.2f} {j['ops_total'] / 1e6:7.0f}M {held / 1e6:7.1f}M "
                  f"{j['peak_live_ops_floor'] / 1e6:7.1f}M "
                  f"{rss / gpus / 1e6:7.2f} {rss / held:9.0f}  {j['iteration_ps'] / 1e9:.3f} ms"
                  + ("" if j["complete"] else "  INCOMPLETE"), flush=True)
            largest = (gpus, rss)
    total = memory_total()
    if largest and total:
        gpus, rss = largest
        print(f"at {rss / gpus / 1e6:.2f} MB per GPU, this machine's {total / 2**30:.0f} GiB would hold about "
              f"{int(total / (rss / gpus)):,} GPUs of this step in {a.model} (extrapolated, not run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
