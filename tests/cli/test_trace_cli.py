"""--trace as a user opens it: a Trace Event Format file whose slices, arrows and counters obey
the format's rules and whose times agree with the run's summary."""

import json
import os
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]


def run(*args):
    return subprocess.run([COLLSIM, *args], capture_output=True, text=True, timeout=120)


def check_format(test, trace):
    test.assertEqual(trace["displayTimeUnit"], "ns")
    events = trace["traceEvents"]
    starts, ends = {}, {}
    for e in events:
        test.assertIn(e["ph"], ("X", "s", "f", "C", "M"), e)
        test.assertIsInstance(e["pid"], int)
        if e["ph"] == "M":
            continue
        test.assertGreaterEqual(e["ts"], 0)
        if e["ph"] == "X":
            test.assertGreaterEqual(e["dur"], 0)
            test.assertIsInstance(e["tid"], int)
            test.assertTrue(e["name"])
        if e["ph"] == "s":
            starts[e["id"]] = e
        if e["ph"] == "f":
            ends[e["id"]] = e
    # Every arrow has both ends, and goes forward in time.
    test.assertEqual(set(starts), set(ends))
    for i, s in starts.items():
        test.assertLessEqual(s["ts"], ends[i]["ts"])
    return events


class Trace(unittest.TestCase):
    def test_a_collective_run(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.json")
            r = run("run", "--topology", "fat_tree_k8", "--coll", "allreduce", "--ranks", "8", "--bytes", "1MiB",
                    "--algo", "ring", "--trace", path, "--json", "--quiet")
            self.assertEqual(r.returncode, 0, r.stderr)
            summary = json.loads(r.stdout)
            with open(path) as f:
                trace = json.load(f)
            events = check_format(self, trace)
            slices = [e for e in events if e["ph"] == "X"]
            # A ring allreduce over 8 ranks: each rank sends and receives 2 x 7 messages per
            # pipeline step, and the last slice ends at the makespan.
            sends = [e for e in slices if " send " in e["name"]]
            self.assertEqual(len(sends) % (8 * 14), 0)
            self.assertEqual(len([e for e in events if e["ph"] == "s"]), len(sends))
            self.assertAlmostEqual(max(e["ts"] + e["dur"] for e in slices), summary["makespan_ps"] / 1e6, places=3)
            self.assertEqual({e["pid"] for e in slices}, set(range(8)))
            self.assertTrue(any(e["ph"] == "C" for e in events))

    def test_flows_and_a_workload(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "f.json")
            r = run("flows", "--topology", "fat_tree_k8", "--pattern", "permutation", "--bytes", "64KiB",
                    "--trace", path, "--quiet")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path) as f:
                events = check_format(self, json.load(f))
            self.assertEqual(len([e for e in events if e["ph"] == "X"]), 128)
            path = os.path.join(d, "w.json")
            r = run("workload", "resnet50", "--network", "loggops", "--trace", path, "--quiet")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path) as f:
                events = check_format(self, json.load(f))
            names = {e["name"].split(" ")[0] for e in events if e["ph"] == "X"}
            self.assertIn("compute", names)

    def test_a_folder_that_is_not_there_is_refused_before_the_run(self):
        r = run("run", "--coll", "allreduce", "--ranks", "4", "--network", "loggops", "--trace", "/no/such/t.json")
        self.assertEqual(r.returncode, 64)
        self.assertIn("--trace", r.stderr)


if __name__ == "__main__":
    unittest.main()
