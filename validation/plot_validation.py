#!/usr/bin/python3
"""Measured against simulated busbw over size (log axes), one colour per run of the log.

Usage: plot_validation.py VALIDATION.json OUT.png   (the JSON of `collsim validate --json`)
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        data = json.load(f)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, run in enumerate(data["runs"]):
        sizes = [s for s in run["sizes"] if s["measured_busbw"] > 0 and s["simulated_busbw"] > 0]
        if not sizes:
            continue
        c = colours[i % len(colours)]
        x = [s["bytes"] for s in sizes]
        label = f'{run["collective"]} ({run["ranks"]} ranks, {run["system"]})'
        if not run.get("consistent_with_preset", True):
            label += " INCONSISTENT"
        ax.plot(x, [s["measured_busbw"] for s in sizes], "o-", color=c, label=label + " measured")
        ax.plot(x, [s["simulated_busbw"] for s in sizes], "x--", color=c, label=label + " simulated")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("size (bytes)")
    ax.set_ylabel("busbw (GB/s)")
    name = data["log"].rsplit("/", 1)[-1]
    ax.set_title(name if len(name) < 70 else name[:67] + "...", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, loc="best")
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
