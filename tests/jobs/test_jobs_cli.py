#!/usr/bin/env python3
"""`collsim jobs` end to end: jobs that share nothing run as they do alone (to the picosecond),
jobs that share links slow down and name them, bad jobs files are clear errors, and mpirun on 2
ranks gives the same results."""

import json
import os
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
ROOT = os.environ["COLLSIM_SOURCE_DIR"]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def collsim(*args, ranks=0):
    cmd = ([MPIEXEC, "--oversubscribe", "-n", str(ranks)] if ranks else []) + [COLLSIM, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=ENV)


class Jobs(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, text):
        path = os.path.join(self.dir.name, "jobs.yaml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_jobs(self, text, *extra, ranks=0):
        r = collsim("jobs", self.write(text), "--json", "--quiet", *extra, ranks=ranks)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_jobs_in_separate_pods_run_as_alone(self):
        # fat_tree_k8's pods have 16 hosts each; traffic between hosts of one pod stays in it,
        # so the two jobs meet on no link and each ends exactly as it does alone, the second
        # counted from its start.
        j = self.run_jobs("""topology: fat_tree_k8
jobs:
  - name: ring
    collective: {coll: allreduce, bytes: 4MiB, algo: ring}
    gpus: {policy: packed, count: 16}
  - name: a2a
    collective: {coll: alltoall, bytes: 1MiB, repeat: 2}
    gpus: {policy: packed, count: 16}
    start: 20us
""")
        ring, a2a = j["jobs"]
        self.assertEqual(ring["gpus"], list(range(16)))
        self.assertEqual(a2a["gpus"], list(range(16, 32)))
        self.assertEqual(a2a["start_ps"], 20_000_000)
        for job in (ring, a2a):
            self.assertEqual(job["together_ps"], job["alone_ps"], job["name"])
            self.assertEqual(job["slowdown"], 1.0)
        self.assertEqual(j["shared_links"], [])

    INTERLEAVED = """topology: fat_tree_k8
jobs:
  - name: ring
    collective: {coll: allreduce, bytes: 4MiB, algo: ring}
    gpus: [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
  - name: a2a
    collective: {coll: alltoall, bytes: 1MiB, repeat: 2}
    gpus: [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31]
    start: 20us
"""

    def test_interleaved_jobs_share_links_and_slow_down(self):
        j = self.run_jobs(self.INTERLEAVED)
        for job in j["jobs"]:
            self.assertGreater(job["together_ps"], job["alone_ps"], job["name"])
            self.assertAlmostEqual(job["slowdown"], job["together_ps"] / job["alone_ps"])
        self.assertEqual(len(j["shared_links"]), 5)
        totals = [l["bytes"] for l in j["shared_links"]]
        self.assertEqual(totals, sorted(totals, reverse=True))
        for l in j["shared_links"]:
            self.assertEqual(sum(l["bytes_by_job"]), l["bytes"])
            self.assertTrue(all(b > 0 for b in l["bytes_by_job"]))
            self.assertIn(" -> ", l["link"])

    def test_the_hdf5_record_has_a_span_per_job_and_rank(self):
        h5 = os.path.join(self.dir.name, "jobs.h5")
        r = collsim("jobs", self.write(self.INTERLEAVED), "--hdf5", h5, "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        page = os.path.join(self.dir.name, "jobs.html")
        r = collsim("report", h5, "-o", page)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(page) as f:
            html = f.read()
        # The report's collective timeline names each job's spans.
        self.assertIn("ring", html)
        self.assertIn("a2a", html)

    def test_loggops_has_no_contention(self):
        # The message-level model has no links: every job ends as it does alone.
        j = self.run_jobs(self.INTERLEAVED, "--network", "loggops")
        for job in j["jobs"]:
            self.assertEqual(job["together_ps"], job["alone_ps"])
        self.assertEqual(j["shared_links"], [])

    def test_a_workload_beside_a_collective(self):
        j = self.run_jobs("""topology: dgx_a100_pod
jobs:
  - name: resnet
    workload: resnet50
    gpus: {nodes: 0-7}
  - name: probe
    collective: {coll: allreduce, bytes: 64MiB}
    gpus: {nodes: 8-9}
""", "--network", "loggops")
        resnet, probe = j["jobs"]
        self.assertEqual(len(resnet["gpus"]), 64)
        self.assertEqual(len(probe["gpus"]), 16)
        self.assertEqual(resnet["together_ps"], resnet["alone_ps"])

    def test_traces_as_jobs(self):
        traces = os.path.join(ROOT, "tests", "data", "traces")
        j = self.run_jobs(f"""topology: leaf_spine_64
jobs:
  - name: chakra
    trace: {traces}/chakra/all_reduce_8npus_1MB
  - name: nccl
    trace: [{traces}/nccl/snellius_2x4.log]
""")
        chakra, nccl = j["jobs"]
        self.assertIn("chakra ET", chakra["what"])
        self.assertIn("NCCL log", nccl["what"])
        self.assertEqual(chakra["gpus"], list(range(8)))
        self.assertEqual(nccl["gpus"], list(range(8, 16)))
        for job in (chakra, nccl):
            self.assertGreater(job["alone_ps"], 0)

    def test_the_same_results_on_two_ranks(self):
        one = self.run_jobs(self.INTERLEAVED)
        two = self.run_jobs(self.INTERLEAVED, ranks=2)
        self.assertEqual(one["jobs"], two["jobs"])
        self.assertEqual(one["shared_links"], two["shared_links"])

    def test_bad_jobs_files_are_clear_errors(self):
        cases = [
            ("topology: fat_tree_k8\njobs:\n  - collective: {coll: allreduce, bytes: 1MiB}\n    gpus: [0, 1]\n"
             "  - collective: {coll: allreduce, bytes: 1MiB}\n    gpus: [1, 2]\n", "both ask for GPU 1"),
            ("topology: fat_tree_k8\njobs:\n  - collective: {coll: allreduce, bytes: 1MiB}\n    gpus: {count: 200}\n",
             "only 128 of"),
            ("topology: dgx_a100_pod\njobs:\n  - workload: gpt3_1.3b\n    gpus: {policy: spread}\n",
             "spans GPUs"),
            ("topology: fat_tree_k8\njobs:\n  - workload: resnet50\n    gpus: [0, 1]\n", "runs 64 ranks but is given 2"),
            ("jobs:\n  - collective: {coll: allreduce, bytes: 1MiB}\n    gpus: [0, 1]\n", "names no topology"),
        ]
        for text, message in cases:
            r = collsim("jobs", self.write(text))
            self.assertNotEqual(r.returncode, 0, text)
            self.assertIn("collsim: error:", r.stderr)
            self.assertIn(message, r.stderr, text)


if __name__ == "__main__":
    unittest.main()
