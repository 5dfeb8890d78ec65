#!/usr/bin/python3
"""Turns a collsim HDF5 result (`collsim run --hdf5 out.h5`) into PNGs:

  link_utilisation.png   heat map of the busiest link directions over time
  queue_occupancy.png    bytes queued over time at the busiest queues
  rank_timeline.png      per rank, compute and communication ops over time
  fct_distribution.png   CDF of the flow completion times

A plot whose datasets the file does not have is skipped with a note. The layout is the
README's section "HDF5 results". Needs Debian's python3-h5py, python3-matplotlib and
python3-numpy (scripts/setup.sh installs them).
"""

import argparse
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")  # no display on a cluster node
import matplotlib.pyplot as plt  # noqa: E402 (the backend must be chosen first)
from matplotlib.patches import Patch  # noqa: E402
import numpy as np  # noqa: E402

FORMAT = "collsim-results"
MAX_LINKS = 64        # heat map rows: more would be unreadable
MAX_TIME_BINS = 2000  # heat map columns: about the width of the image in pixels
MAX_QUEUES = 8
MAX_RANKS = 64        # timeline lanes
MAX_OPS = 100_000     # timeline bars; the shortest are invisible anyway
BLOCK_VALUES = 1 << 22  # sample values read at a time, so that a huge matrix is never loaded whole


class NotAResult(Exception):
    pass


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def open_result(path):
    if not os.path.isfile(path):
        raise NotAResult(f"{path}: no such file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise NotAResult(f"{path}: not an HDF5 file ({e})") from None
    if text(f.attrs.get("format", "")) != FORMAT:
        f.close()
        raise NotAResult(f"{path}: not a collsim result (its root attribute 'format' is not '{FORMAT}'); "
                         "write one with `collsim run --hdf5 FILE`")
    return f


def missing(f, paths):
    return [p for p in paths if p not in f]


def time_unit(max_ps):
    for scale, name in ((1e12, "s"), (1e9, "ms"), (1e6, "µs"), (1e3, "ns")):
        if max_ps >= scale:
            return scale, name
    return 1.0, "ps"


def link_labels(f):
    return [f"{text(a)}→{text(b)}" for a, b in zip(f["links/from"][:], f["links/to"][:])]


def row_blocks(matrix):
    """Consecutive row ranges of about BLOCK_VALUES values each."""
    rows, cols = matrix.shape
    step = max(1, BLOCK_VALUES // max(1, cols))
    for first in range(0, rows, step):
        yield first, min(rows, first + step)


def column_totals(matrix, reduce):
    """Per column, the sum (np.add) or the maximum (np.maximum) over all rows."""
    total = np.zeros(matrix.shape[1])
    for first, last in row_blocks(matrix):
        block = np.nan_to_num(matrix[first:last].astype(float))
        total = reduce(total, block.sum(axis=0) if reduce is np.add else block.max(axis=0))
    return total


def row_bins(rows, bins):
    """Boundaries of at most `bins` nearly equal groups of rows."""
    return np.linspace(0, rows, min(rows, bins) + 1).astype(int)


def columns_over_time(matrix, columns, edges):
    """The chosen columns (sorted indices), averaged over the groups of rows between edges."""
    out = np.zeros((len(edges) - 1, len(columns)))
    for first, last in row_blocks(matrix):
        block = matrix[first:last][:, columns].astype(float)
        which = np.searchsorted(edges, np.arange(first, last), side="right") - 1
        np.add.at(out, which, np.nan_to_num(block))
    return out / np.diff(edges)[:, None]


def bin_times(f, times, edges):
    """Simulated times at the row-group boundaries: sample k covers (time k-1, time k], and the
    first starts one interval before its stamp (the last may be shorter: the run ended)."""
    interval = int(f["samples"].attrs.get("interval_ps", times[0]))
    starts = np.concatenate(([max(0, int(times[0]) - interval)], times[:-1]))
    return np.concatenate((starts[edges[:-1]], [times[-1]]))


def busiest(totals, n):
    """Indices of the n largest totals, busiest first."""
    order = np.argsort(-totals, kind="stable")
    return order[:n]


def plot_link_utilisation(f, out):
    lacking = missing(f, ["samples/utilisation", "samples/time_ps", "links/from", "links/to"])
    if lacking:
        return f"no link samples ({', '.join(lacking)} missing)"
    share = f["samples/utilisation"]
    times = f["samples/time_ps"][:]
    if share.shape[0] == 0 or share.shape[1] == 0:
        return "the link samples are empty"
    chosen = busiest(column_totals(share, np.add), MAX_LINKS)
    ordered = np.sort(chosen)  # h5py reads columns in increasing order only
    edges = row_bins(share.shape[0], MAX_TIME_BINS)
    grid = columns_over_time(share, ordered, edges)
    rank_in_grid = {c: i for i, c in enumerate(ordered)}
    grid = grid[:, [rank_in_grid[c] for c in chosen]].T  # rows: links, busiest on top
    labels = link_labels(f)
    scale, unit = time_unit(int(times[-1]))

    height = max(3.0, 0.18 * len(chosen) + 1.5)
    fig, ax = plt.subplots(figsize=(11, height))
    # pcolormesh rather than imshow: samples need not be equally long (the last one is cut by
    # the end of the run).
    image = ax.pcolormesh(bin_times(f, times, edges) / scale, np.arange(len(chosen) + 1) - 0.5, grid,
                          cmap="viridis", vmin=0, vmax=max(1.0, float(grid.max())), rasterized=True)
    ax.set_ylim(len(chosen) - 0.5, -0.5)
    ax.set_yticks(range(len(chosen)))
    ax.set_yticklabels([labels[c] for c in chosen], fontsize=max(4, 9 - len(chosen) // 16))
    ax.set_xlabel(f"simulated time ({unit})")
    shown = f"the {len(chosen)} busiest of {share.shape[1]}" if len(chosen) < share.shape[1] else f"all {len(chosen)}"
    ax.set_title(f"Link utilisation ({shown} link directions)")
    fig.colorbar(image, ax=ax, label="utilisation (1 = line rate)")
    save(fig, out, "link_utilisation.png")
    return None


def plot_queue_occupancy(f, out):
    lacking = missing(f, ["samples/queue_bytes", "samples/time_ps", "links/from", "links/to"])
    if lacking:
        return f"no queue samples ({', '.join(lacking)} missing)"
    queue = f["samples/queue_bytes"]
    times = f["samples/time_ps"][:]
    if queue.shape[0] == 0 or queue.shape[1] == 0:
        return "the queue samples are empty"
    peaks = column_totals(queue, np.maximum)
    chosen = [c for c in busiest(peaks, MAX_QUEUES) if peaks[c] > 0]
    scale, unit = time_unit(int(times[-1]))
    labels = link_labels(f)

    fig, ax = plt.subplots(figsize=(11, 4.5))
    if chosen:
        ordered = np.sort(chosen)
        edges = row_bins(queue.shape[0], MAX_TIME_BINS)
        series = columns_over_time(queue, ordered, edges)
        # Queue bytes are stamped at each sample's end: plot each group at its last stamp.
        stamps = times[edges[1:] - 1] / scale
        for i, c in enumerate(ordered):
            ax.plot(stamps, series[:, i] / 1024, marker="." if len(stamps) < 50 else None, label=labels[c])
        ax.legend(fontsize=8, loc="upper right")
        ax.set_title(f"Queue occupancy (the {len(chosen)} queue{'s' if len(chosen) > 1 else ''} with the highest peak)")
    else:
        ax.set_title("Queue occupancy: no queue ever held a byte at a sample")
    ax.set_xlabel(f"simulated time ({unit})")
    ax.set_ylabel("queued (KiB)")
    ax.set_xlim(0, times[-1] / scale)
    save(fig, out, "queue_occupancy.png")
    return None


def op_categories(f, kind):
    """Per op, a category index and the categories' names: the role when the file has one,
    else compute (calc) or communication (send, recv)."""
    if "ops/role" in f:
        names = [text(n) for n in f["ops/role"].attrs.get("names", [])]
        role = f["ops/role"][:]
        names += [f"role {i}" for i in range(len(names), int(role.max(initial=0)) + 1)]
        return role.astype(int), names
    return np.where(kind == 3, 0, 1), ["compute", "communication"]


def plot_rank_timeline(f, out):
    lacking = missing(f, ["ops/rank", "ops/kind", "ops/start_ps", "ops/end_ps"])
    if lacking:
        return f"no op times ({', '.join(lacking)} missing)"
    rank = f["ops/rank"][:]
    kind = f["ops/kind"][:]
    start = f["ops/start_ps"][:]
    end = f["ops/end_ps"][:]
    category, names = op_categories(f, kind)
    done = (start >= 0) & (end >= start)
    if not done.any():
        return "no op both started and ended"
    ranks = np.unique(rank[done])
    notes = []
    if len(ranks) > MAX_RANKS:
        ranks = ranks[np.linspace(0, len(ranks) - 1, MAX_RANKS).astype(int)]
        notes.append(f"{MAX_RANKS} of {len(np.unique(rank[done]))} ranks")
    keep = done & np.isin(rank, ranks)
    if keep.sum() > MAX_OPS:
        longest = np.argsort(-(end - start) * keep, kind="stable")[:MAX_OPS]
        keep = np.zeros_like(keep)
        keep[longest] = True
        notes.append(f"the {MAX_OPS} longest ops")
    lane = {r: i for i, r in enumerate(ranks)}
    scale, unit = time_unit(int(end[keep].max()))
    colours = plt.get_cmap("tab10")
    legend = []

    fig, ax = plt.subplots(figsize=(11, max(3.0, 0.3 * len(ranks) + 1.5)))
    # Compute in the lower half of a rank's lane, communication in the upper: they overlap in
    # time on different streams.
    for c, name in enumerate(names):
        chosen = keep & (category == c)
        if not chosen.any():
            continue
        for is_calc, offset in ((True, 0.0), (False, -0.4)):
            part = chosen & ((kind == 3) == is_calc)
            for r in np.unique(rank[part]):
                mine = part & (rank == r)
                bars = list(zip(start[mine] / scale, (end[mine] - start[mine]) / scale))
                ax.broken_barh(bars, (lane[r] + offset, 0.38), facecolors=colours(c % 10), linewidth=0)
        legend.append(Patch(color=colours(c % 10), label=name))
    ax.set_yticks(range(len(ranks)))
    ax.set_yticklabels([str(r) for r in ranks], fontsize=max(4, 9 - len(ranks) // 16))
    ax.set_ylim(len(ranks) - 0.5, -0.5)
    ax.set_ylabel("rank")
    ax.set_xlabel(f"simulated time ({unit})")
    ax.legend(handles=legend, fontsize=8, loc="upper right")
    ax.set_title("Rank timeline: compute below each rank's line, communication above"
                 + (f" ({', '.join(notes)})" if notes else ""))
    save(fig, out, "rank_timeline.png")
    return None


def plot_fct_distribution(f, out):
    if "flows/fct_ps" not in f:
        return "no flows (flows/fct_ps missing)"
    fct = f["flows/fct_ps"][:]
    delivered = np.sort(fct[fct >= 0])
    if len(delivered) == 0:
        return f"none of the {len(fct)} flows was delivered"
    scale, unit = time_unit(int(delivered[-1]))
    x = np.maximum(delivered / scale, 1e-3 / scale)  # a log axis cannot show 0
    y = np.arange(1, len(x) + 1) / len(x)
    # Start from 0 at the shortest FCT, so that even a single flow draws its step.
    x, y = np.concatenate(([x[0]], x)), np.concatenate(([0.0], y))

    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.step(x, y, where="post", marker="." if len(x) < 50 else None)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(f"flow completion time ({unit})")
    ax.set_ylabel("fraction of flows")
    p50, p99 = np.percentile(delivered, [50, 99]) / scale
    lost = len(fct) - len(delivered)
    ax.set_title(f"FCT distribution: {len(delivered)} flow{'s' if len(delivered) > 1 else ''}, median {p50:.3g} {unit}, p99 {p99:.3g} {unit}"
                 + (f", {lost} not delivered" if lost else ""))
    ax.grid(True, which="both", alpha=0.3)
    save(fig, out, "fct_distribution.png")
    return None


def save(fig, out, name):
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=120)
    plt.close(fig)
    print(f"wrote {os.path.join(out, name)}")


PLOTS = [("link_utilisation.png", plot_link_utilisation), ("queue_occupancy.png", plot_queue_occupancy),
         ("rank_timeline.png", plot_rank_timeline), ("fct_distribution.png", plot_fct_distribution)]


def main(argv):
    parser = argparse.ArgumentParser(description="Plot a collsim HDF5 result (collsim run --hdf5) as PNGs.")
    parser.add_argument("results", help="the .h5 file written by --hdf5")
    parser.add_argument("-o", "--out", default=".", help="folder for the PNGs (made if missing; default: .)")
    args = parser.parse_args(argv)
    try:
        f = open_result(args.results)
    except NotAResult as e:
        print(f"plot_results: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    with f:
        for name, plot in PLOTS:
            why_not = plot(f, args.out)
            if why_not:
                print(f"skipped {name}: {why_not}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
