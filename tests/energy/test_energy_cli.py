#!/usr/bin/env python3
"""`collsim workload --energy` end to end: figures the step's own numbers give by hand, the
carbon of a run, bad settings, and the same energy under mpirun on 1 and 2 ranks."""

import json
import os
import subprocess
import unittest

COLLSIM = os.environ["COLLSIM"]
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
# Every figure zero, so that a test turns on only what it derives.
ZERO = ["--power-set", "gpu_compute_w=0", "--power-set", "gpu_comm_w=0", "--power-set", "gpu_idle_w=0",
        "--power-set", "nic_w=0", "--power-set", "optics_pj_per_bit=0", "--power-set", "switch_static_pj_per_bit=0",
        "--power-set", "switch_pj_per_bit=0", "--power-set", "nvswitch_port_w=0", "--power-set", "pue=1"]


def collsim(*args, ranks=0):
    cmd = ([MPIEXEC, "--oversubscribe", "-n", str(ranks)] if ranks else []) + [COLLSIM, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=ENV)


def energy_of(*args, ranks=0):
    r = collsim("workload", "resnet50", "--energy", "--json", "--quiet", *args, ranks=ranks)
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    j = json.loads(r.stdout)
    return j, j["energy"]


class Energy(unittest.TestCase):
    def test_a_flat_gpu_draw_is_power_times_step_times_gpus(self):
        # Every GPU draws 100 W whatever it does: 64 GPUs x 100 W x the step.
        j, e = energy_of("--network", "loggops", *ZERO, "--power-set", "gpu_compute_w=100", "--power-set",
                         "gpu_comm_w=100", "--power-set", "gpu_idle_w=100")
        step_s = j["iteration_ps"] * 1e-12
        self.assertEqual(e["step_ps"], j["iteration_ps"])
        self.assertEqual(e["counted"]["gpus"], 64)
        gpus = e["gpu_compute_j"] + e["gpu_comm_j"] + e["gpu_idle_j"]
        self.assertAlmostEqual(gpus / (64 * 100 * step_s), 1.0, places=12)
        self.assertAlmostEqual(e["it_j"] / gpus, 1.0, places=12)
        self.assertAlmostEqual(e["per_gpu_min_j"] / (100 * step_s), 1.0, places=12)

    def test_optics_of_the_jobs_nic_links(self):
        # resnet50 runs on 64 GPUs of dgx_a100_pod, each with one 200 Gb/s NIC link: both ends
        # of 64 links at 10 pJ/bit x 200 Gb/s = 2 W each, for the step.
        j, e = energy_of("--network", "loggops", *ZERO, "--power-set", "optics_pj_per_bit=10")
        step_s = j["iteration_ps"] * 1e-12
        self.assertEqual(e["counted"]["network_links"], 64)
        self.assertAlmostEqual(e["optics_j"] / (64 * 2 * 2.0 * step_s), 1.0, places=12)
        self.assertAlmostEqual(e["it_j"] / e["optics_j"], 1.0, places=12)

    def test_facility_and_carbon_of_a_run(self):
        j, e = energy_of("--network", "loggops", "--power-set", "pue=1.25", "--power-set", "carbon_g_per_kwh=400",
                         "--train-steps", "1000")
        self.assertAlmostEqual(e["facility_j"] / (1.25 * e["it_j"]), 1.0, places=12)
        self.assertAlmostEqual(e["co2e_g"] / (e["facility_j"] / 3.6e6 * 400), 1.0, places=12)
        self.assertAlmostEqual(e["run_kwh"] / (1000 * e["facility_j"] / 3.6e6), 1.0, places=12)
        self.assertAlmostEqual(e["run_co2e_kg"] / (e["run_kwh"] * 0.4), 1.0, places=12)
        self.assertEqual(e["power"]["pue"], 1.25)
        # A100 figures from the workload's device.
        self.assertEqual(e["power"]["gpu_compute_w"], 400)

    def test_the_human_summary_has_the_energy_lines(self):
        r = collsim("workload", "resnet50", "--network", "loggops", "--energy")
        self.assertEqual(r.returncode, 0, r.stderr)
        for line in ("energy ", "  GPUs ", "  network ", "carbon "):
            self.assertIn("\n" + line, r.stdout)

    def test_bad_settings_are_errors_before_the_run(self):
        r = collsim("workload", "resnet50", "--energy", "--power-set", "nic_ww=3")
        self.assertEqual(r.returncode, 64, r.stderr)
        self.assertIn("collsim: error: --power-set: unknown power parameter 'nic_ww' (did you mean nic_w?)", r.stderr)
        r = collsim("workload", "resnet50", "--energy", "--power-set", "pue")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("expected name=value", r.stderr)

    def test_a_goal_schedule_with_the_gpus_named(self):
        # tests/data/exec/compute_then_ring.goal: 4 ranks compute 10 ms and 1 ms each; at
        # 100 W while computing and nothing otherwise, 4 x 100 W x 11 ms = 4.4 J.
        ring = os.path.join(os.environ["COLLSIM_SOURCE_DIR"], "tests", "data", "exec", "compute_then_ring.goal")
        r = collsim("run", "--schedule", ring, "--topology", "fat_tree_k8", "--energy", *ZERO, "--power-set",
                    "gpu_compute_w=100", "--json", "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        e = json.loads(r.stdout)["energy"]
        self.assertAlmostEqual(e["gpu_compute_j"], 4.4, places=12)
        self.assertEqual(e["counted"]["gpus"], 4)
        r = collsim("run", "--schedule", ring, "--topology", "fat_tree_k8", "--energy")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("give --energy-gpu", r.stderr)
        r = collsim("run", "--schedule", ring, "--topology", "fat_tree_k8", "--energy", "--energy-gpu", "H100",
                    "--json", "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["energy"]["power"]["gpu_compute_w"], 700)

    def test_the_same_energy_on_one_and_two_ranks(self):
        ring = os.path.join(os.environ["COLLSIM_SOURCE_DIR"], "tests", "data", "exec", "compute_then_ring.goal")
        args = ("run", "--schedule", ring, "--topology", "fat_tree_k8", "--energy", "--energy-gpu", "B200", "--json",
                "--quiet")
        one, two = collsim(*args), collsim(*args, ranks=2)
        self.assertEqual(one.returncode, 0, one.stderr)
        self.assertEqual(two.returncode, 0, two.stderr)
        one, two = json.loads(one.stdout)["energy"], json.loads(two.stdout)["energy"]
        self.assertEqual(one, two)
        self.assertGreater(one["switch_traffic_j"], 0)


if __name__ == "__main__":
    unittest.main()
