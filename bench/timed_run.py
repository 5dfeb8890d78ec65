"""Runs a command under /usr/bin/time -v: its output, wall time and peak RSS, for the benches."""

import re
import subprocess
import tempfile
import time


def run_timed(cmd, timeout=None):
    """Returns (stdout, wall seconds, peak RSS in bytes); a failing command ends the bench with its stderr."""
    full = ["/usr/bin/time", "-v"] + cmd
    r = subprocess.run(full, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(full)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", r.stderr).group(1)
    seconds = 0.0
    for part in wall.split(":"):
        seconds = seconds * 60 + float(part)
    return r.stdout, seconds, rss_kb * 1024


def timed(cmd, cwd=None):
    """(stdout, wall s, cpu s, peak RSS bytes) of one run of cmd (in cwd, if given)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        start = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-o", t.name, "-f", "%U %S %M"] + cmd, capture_output=True, text=True,
                           cwd=cwd)
        wall = time.perf_counter() - start
        if r.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
        user, system, rss_kb = t.read().split()[-3:]
    return r.stdout, wall, float(user) + float(system), int(rss_kb) * 1024
