"""`collsim sweep` end to end: a grid of run points on two processes, a failing point recorded
beside the others, a rerun that reuses what finished, the CSV and JSON-lines results, a
workload key swept through an edited workload file, the plot, and usage errors."""

import csv
import json
import os
import shutil
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def collsim(*args, cwd):
    return subprocess.run([COLLSIM, *args], capture_output=True, text=True, cwd=cwd, timeout=300)


class Sweep(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_grid_failures_and_resume(self):
        # A ring allreduce of 8 ranks on fat_tree_k8 at 1 and 2 channels; --bytes 0x is refused
        # by run, so that point fails with run's own error and the others still finish.
        self.write("s.yaml", "command: run\n"
                             "args: [--topology, fat_tree_k8, --coll, allreduce, --algo, ring, --ranks, '8']\n"
                             "grid:\n  bytes: [64KiB, 0x, 256KiB]\n  channels: [1, 2]\n"
                             "metrics: [makespan_ps, ops_completed]\n")
        r = collsim("sweep", "s.yaml", "-j", "2", cwd=self.dir)
        self.assertEqual(r.returncode, 2, r.stderr)  # incomplete: a point failed
        self.assertIn("6 points, 2 failed", r.stdout)
        with open(os.path.join(self.dir, "s.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([row["bytes"] for row in rows], ["64KiB", "64KiB", "0x", "0x", "256KiB", "256KiB"])
        self.assertEqual([row["status"] for row in rows], ["ok", "ok", "failed", "failed", "ok", "ok"])
        self.assertIn("--bytes", rows[2]["error"])
        self.assertTrue(rows[2]["error"].startswith("collsim: error:"), rows[2]["error"])
        # A bigger message takes longer, on each channel count.
        self.assertLess(int(rows[0]["makespan_ps"]), int(rows[4]["makespan_ps"]))
        self.assertLess(int(rows[1]["makespan_ps"]), int(rows[5]["makespan_ps"]))
        # The same point as `collsim run` gives on its own.
        alone = collsim("run", "--topology", "fat_tree_k8", "--coll", "allreduce", "--algo", "ring", "--ranks", "8",
                        "--bytes", "64KiB", "--channels", "2", "--json", cwd=self.dir)
        self.assertEqual(json.loads(alone.stdout)["makespan_ps"], int(rows[1]["makespan_ps"]))
        with open(os.path.join(self.dir, "s.results.jsonl")) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual(len(lines), 6)
        self.assertEqual(sum(1 for j in lines if j["status"] == "ok"), 4)
        # The rerun runs the two failed points again and reuses the four others.
        r = collsim("sweep", "s.yaml", "-j", "2", "--quiet", cwd=self.dir)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout.count("(earlier run)"), 4)
        with open(os.path.join(self.dir, "s.results.jsonl")) as f:
            self.assertEqual(len(f.readlines()), 8)

    def test_workload_keys_and_plot(self):
        self.write("w.yaml", "command: workload\nargs: [resnet50, --network, loggops]\n"
                             "grid:\n  parallelism.dp: [8, 16]\n"
                             "metrics: [iteration_ps, gpus]\nplot: {x: parallelism.dp, y: iteration_ps}\n")
        r = collsim("sweep", "w.yaml", "--quiet", cwd=self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.dir, "w.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([row["gpus"] for row in rows], ["8", "16"])
        # Twice the replicas, half the samples each: the step's compute halves.
        self.assertLess(int(rows[1]["iteration_ps"]), 0.6 * int(rows[0]["iteration_ps"]))
        png = os.path.join(self.dir, "w.png")
        has_matplotlib = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"]).returncode == 0
        if has_matplotlib:
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_workload_anywhere_in_args_without_key_edits(self):
        # Without dotted keys nothing reads the workload file: it may come anywhere in args.
        self.write("a.yaml", "command: workload\nargs: [--network, loggops, resnet50]\npoints: [{loggops-set: L=2000}, {loggops-set: L=3000}]\n"
                             "metrics: [gpus]\n")
        r = collsim("sweep", "a.yaml", "--quiet", cwd=self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 points, 0 failed", r.stdout)

    def test_usage_errors(self):
        self.write("bad.yaml", "command: run\ngrid: {bytes: [1MiB]}\nplots: {}\n")
        r = collsim("sweep", "bad.yaml", cwd=self.dir)
        self.assertEqual(r.returncode, 1)
        self.assertIn("bad.yaml:3:1", r.stderr)
        r = collsim("sweep", "missing.yaml", cwd=self.dir)
        self.assertEqual(r.returncode, 64)
        r = collsim("sweep", "bad.yaml", "-j", "0", cwd=self.dir)
        self.assertEqual(r.returncode, 64)


if __name__ == "__main__":
    unittest.main()
