#!/usr/bin/env python3
"""collsim's FCT distributions beside htsim's published per-flow results on htsim's own scenario
(the 1024-host permutation of 2 MB flows on the 3-tier fat tree; tests/data/net/htsim_anchors,
../shared/data/anchors/README.md for every parameter), without building htsim:

  roce  htsim_roce (RoCE, PFC 60 000 / 48 000 B, no CC, one path per flow) beside collsim with
        the same settings (--routing ecmp, --cc none)
  ndp   htsim_ndp (NDP: sprayed, trimming, receiver pulls) beside collsim --routing spray
        (lossless with PFC: the same spraying, another transport)
  uec   ATLAHS htsim_uec (UEC-like, sprayed, a window of 116 600 B) beside collsim --routing spray

Percentiles are nearest-rank over the 1024 flows, in microseconds. collsim's are deterministic;
htsim_roce's vary by ~1.5% (p50) and ~6% (p99) between runs (it seeds its paths from the clock).

Usage: python3 bench/htsim_anchors.py [--collsim PATH]
"""

import argparse
import csv
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ANCHORS = os.path.join(ROOT, "tests", "data", "net", "htsim_anchors")
FLOWS = os.path.join(HERE, "data", "fat_tree_1024_perm_2MB.flows.csv")
COMMON = ["--set", "mtu_bytes=4000", "--set", "header_bytes=64"]
VARIANTS = [
    ("roce", "htsim_fat_tree_1024_perm_2MB_csg_roce.csv",
     ["--routing", "ecmp", "--cc", "none", "--set", "pfc_xoff_bytes=60000", "--set", "pfc_xon_bytes=48000"]),
    ("ndp", "htsim_fat_tree_1024_perm_2MB_csg_ndp.csv", ["--routing", "spray"]),
    ("uec", "htsim_fat_tree_1024_perm_2MB_atlahs_uec.csv", ["--routing", "spray"]),
]


def nearest_rank(values, p):
    k = max(1, -(-len(values) * p // 100))
    return values[int(k) - 1]


def summary(fcts):
    s = sorted(fcts)
    return [nearest_rank(s, 50), nearest_rank(s, 99), s[-1], sum(s) / len(s)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--collsim", default=os.path.join(ROOT, "build", "release", "collsim"))
    a = ap.parse_args()
    print("| variant | htsim p50 / p99 / max / mean (us) | collsim p50 / p99 / max / mean (us) | "
          "p50, p99 ratio | collsim flags |")
    print("|---|---|---|---|---|")
    for name, anchor, flags in VARIANTS:
        with open(os.path.join(ANCHORS, anchor)) as f:
            theirs = summary([float(row["fct_us"]) for row in csv.DictReader(f)])
        cmd = [a.collsim, "flows", "--topology", os.path.join(ROOT, "topologies", "fat_tree_k16.yaml"), "--flows",
               FLOWS, *COMMON, *flags, "--json", "--quiet"]
        r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        mine = [r["fct_p50_ps"] / 1e6, r["fct_p99_ps"] / 1e6, r["fct_max_ps"] / 1e6, r["fct_mean_ps"] / 1e6]
        fmt = lambda v: " / ".join(f"{x:.1f}" for x in v)  # noqa: E731
        print(f"| {name} | {fmt(theirs)} | {fmt(mine)} | {mine[0] / theirs[0]:.3f}, {mine[1] / theirs[1]:.3f} | "
              f"{' '.join(flags)} |")


if __name__ == "__main__":
    main()
