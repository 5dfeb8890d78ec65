#!/usr/bin/env python3
"""Plot one metric of a collsim sweep against one parameter, a line per configuration (each
combination of the other parameters). Used by `collsim sweep --plot`:

    plot_sweep.py RESULTS.csv X_PARAMETER Y_METRIC OUT.png
"""
import csv
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

UNITS = {"": 1, "b": 1, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "kb": 1e3, "mb": 1e6, "gb": 1e9,
         "tb": 1e12}


def number(text):
    """A value as a number when it is one (sizes such as 16MiB included), else None."""
    m = re.fullmatch(r"\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).lower() not in UNITS:
        return None
    return float(m.group(1)) * UNITS[m.group(2).lower()]


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, x, y, out = sys.argv[1:]
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows or x not in rows[0]:
        sys.exit(f"plot_sweep.py: {path} has no column '{x}'")
    if y not in rows[0]:
        sys.exit(f"plot_sweep.py: {path} has no metric '{y}' (give it under 'metrics' in the sweep file)")
    parameters = list(rows[0].keys())[:list(rows[0].keys()).index("status")]
    others = [p for p in parameters if p != x]
    numeric_x = all(number(r[x]) is not None for r in rows)
    categories = sorted({r[x] for r in rows}, key=lambda v: (number(v) is None, number(v) or 0, v))
    lines = {}
    for r in rows:
        if r["status"] != "ok" or number(r[y]) is None:
            continue
        config = ", ".join(f"{p}={r[p]}" for p in others if r[p] != "")
        xv = number(r[x]) if numeric_x else categories.index(r[x])
        lines.setdefault(config, []).append((xv, number(r[y])))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for config, points in sorted(lines.items()):
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=config or y)
    if numeric_x:
        values = [number(v) for v in categories]
        if min(values) > 0 and max(values) / min(values) >= 64:
            ax.set_xscale("log", base=2)
        ax.set_xticks(values)
        ax.set_xticklabels(categories, rotation=30, ha="right")
    else:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels(categories, rotation=30, ha="right")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.grid(True, alpha=0.3)
    if len(lines) > 1 or others:
        ax.legend(fontsize=8)
    ax.set_title(f"{y} against {x}")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
