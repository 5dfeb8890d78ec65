#!/usr/bin/env python3
"""Watching a run from outside, end to end: the status endpoint answers while a run goes on,
rejects bad requests and reports the finished run; progress lines come and go with --quiet;
--hdf5 holds the documented datasets with values that add up (link bytes over time equal the
bytes each link sent, flows carry every message, collectives end when their ranks do), the same
on 1 and 2 ranks; and the plot script draws them."""

import json
import os
import re
import select
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import h5py
import numpy as np

COLLSIM = os.environ["COLLSIM"]
SOURCE = os.environ["COLLSIM_SOURCE_DIR"]
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
TOPOLOGY = os.path.join(SOURCE, "topologies", "fat_tree_k8.yaml")
PLOT = os.path.join(SOURCE, "scripts", "plot_results.py")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
DEADLINE_S = 600
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what, flush=True)


def get(address, path):
    """(status code, body) of GET http://address/path; a 4xx/5xx is an answer too."""
    try:
        with urllib.request.urlopen("http://" + address + path, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def raw(address, data):
    """Sends raw bytes and returns what comes back before the server closes (bounded)."""
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        try:
            s.sendall(data)
        except OSError:
            pass  # the server may cut an oversized request off while it is being sent
        chunks = []
        try:
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            pass
    return b"".join(chunks).decode(errors="replace")


def read_line_with(proc, pattern, deadline):
    """Reads the process's stderr until a line matches; returns the match and the lines read."""
    lines = []
    while time.time() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 1.0)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(pattern, line)
        if m:
            return m, lines
    return None, lines


def test_status_endpoint():
    proc = subprocess.Popen([COLLSIM, "run", "--topology", TOPOLOGY, "--coll", "allreduce", "--bytes", "8MiB",
                             "--status-port", "0", "--status-linger", "4s", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    deadline = time.time() + DEADLINE_S
    try:
        m, lines = read_line_with(proc, r"status at http://([0-9.]+:[0-9]+)/status", deadline)
        check(m is not None, "the run says where its status endpoint is: " + "".join(lines))
        if m is None:
            return
        address = m.group(1)
        states, links, answered_running = set(), [], None
        while time.time() < deadline:
            code, body = get(address, "/status")
            check(code == 200, "/status answers 200, not %d" % code)
            s = json.loads(body)
            for key in ("sim_time_ps", "events", "events_per_s", "ops_completed", "ops_total", "ranks", "wall_s", "state"):
                check(key in s, "/status has " + key)
            states.add(s["state"])
            if s["state"] == "running":
                answered_running = s
                code, body = get(address, "/links/top?n=3")
                check(code == 200, "/links/top answers 200")
                top = json.loads(body)
                if top["links"]:
                    links = top["links"]
            if s["state"] == "finished":
                check(s["ops_completed"] == s["ops_total"] > 0, "a finished run completed all its ops: %s" % s)
                break
            time.sleep(0.05)
        check(answered_running is not None, "the endpoint answered while the run was going on")
        if answered_running:
            check(0 < answered_running["ops_completed"] < answered_running["ops_total"] or
                  answered_running["ops_completed"] == 0, "progress mid-run: %s" % answered_running)
        check("finished" in states, "the endpoint reported the run finished (states seen: %s)" % states)
        check(len(links) == 3, "/links/top?n=3 lists 3 links once measured: %s" % links)
        if len(links) == 3:
            check(all(0 <= l["utilisation"] <= 1 for l in links), "utilisation is a share of capacity")
            check(links[0]["utilisation"] >= links[1]["utilisation"] >= links[2]["utilisation"], "most utilised first")
            check(all(" -> " in l["link"] for l in links), "links are named 'from -> to'")
        # Bad requests, while the run lingers.
        code, _ = get(address, "/links/top?n=abc")
        check(code == 400, "a non-numeric n is a bad request, not %d" % code)
        code, _ = get(address, "/nowhere")
        check(code == 404, "an unknown path is 404, not %d" % code)
        check(raw(address, b"NONSENSE\r\n\r\n").startswith("HTTP/1.1 400"), "a malformed request line gets 400")
        answer = raw(address, b"GET /status HTTP/1.1\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n")
        check(answer == "" or re.match(r"HTTP/1.1 4(00|31)", answer), "an oversized request is cut off: " + answer[:80])
        out, err = proc.communicate(timeout=max(1, deadline - time.time()))
        check(proc.returncode == 0, "the watched run succeeds: " + err)
        check(json.loads(out)["complete"], "and completes")
    finally:
        if proc.poll() is None:
            proc.kill()


def test_progress_lines():
    base = [COLLSIM, "run", "--topology", TOPOLOGY, "--coll", "allreduce", "--bytes", "1MiB", "--progress-every", "0s"]
    r = subprocess.run(base, capture_output=True, text=True, env=ENV, timeout=DEADLINE_S)
    check(r.returncode == 0, "run with progress lines: " + r.stderr)
    progress = [l for l in r.stderr.splitlines() if l.startswith("collsim: progress: ")]
    check(len(progress) >= 2, "progress lines when stderr is not a terminal: %r" % r.stderr[:300])
    if progress:
        check("(100.0%)" in progress[-1], "the last progress line is at 100%: " + progress[-1])
    check("makespan" in r.stdout, "the summary still goes to stdout")
    r = subprocess.run(base + ["--quiet"], capture_output=True, text=True, env=ENV, timeout=DEADLINE_S)
    check(r.returncode == 0 and "progress" not in r.stderr, "--quiet silences progress: " + r.stderr[:300])
    # Under MPI the counts are totals over the ranks (carried with each window), printed once.
    r = subprocess.run([MPIEXEC, "-n", "2", "--oversubscribe"] + base + ["--json"], capture_output=True, text=True,
                       env=ENV, timeout=DEADLINE_S)
    check(r.returncode == 0, "progress under mpirun: " + r.stderr[-2000:])
    if r.returncode == 0:
        total = json.loads(r.stdout)["ops_total"]
        last = [l for l in r.stderr.splitlines() if l.startswith("collsim: progress: ")]
        check(last and ("ops %d/%d (100.0%%)" % (total, total)) in last[-1],
              "the last progress line under MPI counts every rank's ops: %s" % (last[-1:] or r.stderr[:300]))


def read_all(path):
    with h5py.File(path, "r") as f:
        data = {}
        f.visititems(lambda name, obj: data.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
        attrs = {k: f.attrs[k] for k in f.attrs}
    return data, attrs


def run_hdf5(tmp, ranks):
    path = os.path.join(tmp, "run%d.h5" % ranks)
    cmd = [COLLSIM, "run", "--topology", TOPOLOGY, "--coll", "allreduce", "--bytes", "1MiB", "--hdf5", path,
           "--sample-interval", "2us", "--json", "--quiet"]
    if ranks > 1:
        cmd = [MPIEXEC, "-n", str(ranks), "--oversubscribe"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=DEADLINE_S)
    check(r.returncode == 0, "run --hdf5 on %d rank(s): %s" % (ranks, r.stderr[-2000:]))
    return path, json.loads(r.stdout)


def test_hdf5_and_plots():
    with tempfile.TemporaryDirectory() as tmp:
        path, summary = run_hdf5(tmp, 1)
        data, attrs = read_all(path)
        for key in ("version", "command", "configuration"):
            check(key in attrs, "root attribute " + key)
        check(json.loads(attrs["configuration"])["topology"] == TOPOLOGY, "the configuration names the topology")
        for name in ("ops/rank", "ops/op", "ops/kind", "ops/start_ps", "ops/end_ps", "links/from", "links/to",
                     "links/bandwidth_bps", "links/bytes", "samples/time_ps", "samples/bytes", "samples/utilisation",
                     "samples/queue_bytes", "flows/src_host", "flows/dst_host", "flows/bytes", "flows/start_ps",
                     "flows/end_ps", "flows/fct_ps", "collectives/rank", "collectives/start_ps", "collectives/end_ps"):
            check(name in data, "dataset " + name)
        if failures:
            return
        check(len(data["ops/kind"]) == summary["ops_total"], "one /ops row per op")
        check(data["ops/end_ps"].max() == summary["makespan_ps"], "the last op ends at the makespan")
        check((data["ops/end_ps"] >= data["ops/start_ps"]).all(), "no op ends before it starts")
        # Link bytes over time add up to each link's total; a link never carries more than its rate.
        check((data["samples/bytes"].sum(axis=0) == data["links/bytes"]).all(), "samples add up to link totals")
        check(data["samples/utilisation"].max() <= 1.0 + 1e-9, "utilisation never exceeds line rate")
        check(data["samples/time_ps"][-1] >= summary["makespan_ps"], "samples cover the whole run")
        # Every message is a flow; the flows carry every byte sent.
        check(len(data["flows/bytes"]) == summary["messages"], "one flow per message")
        check(int(data["flows/bytes"].sum()) == summary["bytes"], "flows carry the bytes sent")
        check((data["flows/fct_ps"] == data["flows/end_ps"] - data["flows/start_ps"]).all(), "fct = end - start")
        check((data["flows/fct_ps"] > 0).all(), "every flow arrived")
        # One collective: each rank's part ends when the rank does.
        finish = np.array(summary["rank_finish_ps"])
        check((data["collectives/end_ps"] == finish[data["collectives/rank"]]).all(), "collectives end with their ranks")
        # The same run on two ranks records the same things.
        path2, _ = run_hdf5(tmp, 2)
        data2, _ = read_all(path2)
        for name, values in data.items():
            check(name in data2 and np.array_equal(values, data2[name]), "dataset %s is the same on 2 ranks" % name)
        out = os.path.join(tmp, "plots")
        r = subprocess.run([sys.executable, PLOT, path, "-o", out], capture_output=True, text=True, timeout=DEADLINE_S)
        check(r.returncode == 0, "plot script: " + r.stderr)
        for png in ("link_utilisation.png", "queue_occupancy.png", "rank_timeline.png", "fct_distribution.png"):
            p = os.path.join(out, png)
            check(os.path.exists(p) and os.path.getsize(p) > 1000, "plot " + png)


def test_flows_hdf5():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "flows.h5")
        r = subprocess.run([COLLSIM, "flows", "--topology", TOPOLOGY, "--pattern", "incast", "--fan-in", "8",
                            "--bytes", "256KiB", "--hdf5", path, "--json"],
                           capture_output=True, text=True, env=ENV, timeout=DEADLINE_S)
        check(r.returncode == 0, "flows --hdf5: " + r.stderr)
        summary = json.loads(r.stdout)
        data, _ = read_all(path)
        fct = np.sort(data["flows/fct_ps"])
        check(len(fct) == summary["flows"], "one row per flow")
        # nearest-rank p50 and the maximum, as `flows --json` computes them
        check(fct[max(1, int(np.ceil(0.5 * len(fct)))) - 1] == summary["fct_p50_ps"], "p50 FCT agrees")
        check(fct[-1] == summary["fct_max_ps"], "max FCT agrees")
        check(int(data["samples/bytes"].sum()) == int(data["links/bytes"].sum()), "flows: samples add up")


def test_bad_options_fail_before_the_run():
    base = [COLLSIM, "run", "--topology", TOPOLOGY, "--coll", "allreduce", "--bytes", "1MiB"]
    for extra, needle in ((["--hdf5", "/nonexistent-folder/x.h5"], "/nonexistent-folder does not exist"),
                          (["--summary", "/nonexistent-folder/s.json"], "/nonexistent-folder does not exist"),
                          (["--max-samples", "3"], "--max-samples: must be even"),
                          (["--sample-interval", "abc"], "--sample-interval"),
                          (["--status-port", "70000"], "--status-port"),
                          (["--status-port", "0", "--status-bind", "not-an-address"], "not-an-address")):
        r = subprocess.run(base + extra, capture_output=True, text=True, env=ENV, timeout=DEADLINE_S)
        check(r.returncode != 0 and needle in r.stderr and "makespan" not in r.stdout,
              "%s is refused before anything runs: rc %d, %r" % (" ".join(extra), r.returncode, r.stderr[-300:]))


for test in (test_bad_options_fail_before_the_run, test_status_endpoint, test_progress_lines, test_hdf5_and_plots, test_flows_hdf5):
    print("--", test.__name__, flush=True)
    test()
if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all observability checks passed")
