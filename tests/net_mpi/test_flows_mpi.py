"""Every fabric scenario gives the same JSON on 1, 2 and 3 ranks, apart from timings and the
synchronisation statistics; and the closed forms hold through the command line."""

import json
import os
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
ROOT = os.environ["COLLSIM_SOURCE_DIR"]
DATA = os.path.join(ROOT, "tests", "data", "net")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

# What may differ between rank counts: how long it took and how the ranks synchronised.
VOLATILE = {"wall_s", "events_per_s", "sim_ranks", "windows", "sync_fraction", "pdes"}


def flows(ranks, *args, expect_ok=True):
    cmd = ([MPIEXEC, "--oversubscribe", "-n", str(ranks)] if ranks else []) + [COLLSIM, "flows", "--json", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=ENV)
    if expect_ok and r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r


def result(ranks, *args):
    out = json.loads(flows(ranks, *args).stdout)
    return {k: v for k, v in out.items() if k not in VOLATILE}, out


SCENARIOS = {
    "single flow": ("--topology", f"{DATA}/chain3.yaml", "--flows", f"{DATA}/one_flow.csv"),
    "bottleneck": ("--topology", f"{DATA}/star9.yaml", "--flows", f"{DATA}/bottleneck.csv"),
    "lossless incast": ("--topology", f"{DATA}/star9.yaml", "--pattern", "incast", "--fan-in", "8", "--bytes", "1MB"),
    "lossy incast": ("--topology", f"{DATA}/star9.yaml", "--pattern", "incast", "--fan-in", "8", "--bytes", "1MB",
                     "--lossy", "--set", "ecn=false"),
    "ecmp permutation": ("--topology", f"{ROOT}/topologies/leaf_spine_64.yaml", "--pattern", "permutation",
                         "--bytes", "512KiB"),
    "spray permutation": ("--topology", f"{ROOT}/topologies/fat_tree_k8.yaml", "--pattern", "permutation",
                          "--bytes", "256KiB", "--routing", "spray"),
    "dcqcn": ("--topology", f"{DATA}/star9.yaml", "--flows", f"{DATA}/dcqcn_join.csv", "--cc", "dcqcn"),
    "swift": ("--topology", f"{DATA}/star9.yaml", "--pattern", "incast", "--fan-in", "4", "--bytes", "2MB",
              "--cc", "swift"),
    "dragonfly ugal": ("--topology", f"{ROOT}/topologies/dragonfly_small.yaml", "--pattern", "random",
                       "--bytes", "256KiB", "--routing", "ugal"),
    "torus dimension order": ("--topology", f"{ROOT}/topologies/torus_4x4x4.yaml", "--pattern", "permutation",
                              "--bytes", "256KiB", "--routing", "dimension-order"),
    "degraded and repaired links": ("--topology", f"{ROOT}/topologies/fat_tree_k8.yaml", "--pattern", "permutation",
                                    "--bytes", "1MiB", "--link-speed", "pod0_edge0:pod0_agg0@0s=10Gbps",
                                    "--link-speed", "pod1_agg1:core4@20us=25Gbps",
                                    "--link-speed", "pod1_agg1:core4@60us=100Gbps"),
    "failed links on a torus": ("--topology", f"{ROOT}/topologies/torus_4x4x4.yaml", "--pattern", "permutation",
                                "--bytes", "256KiB", "--routing", "dimension-order",
                                "--link-down", "sw1_0_0:sw2_0_0@5us", "--link-down", "sw0_1_0:sw0_2_0@5us",
                                "--reconvergence", "2us"),
    "a dragonfly router down and back": ("--topology", f"{ROOT}/topologies/dragonfly_small.yaml", "--pattern",
                                         "random", "--bytes", "256KiB", "--routing", "ugal",
                                         "--switch-down", "g0r1@5us..60us", "--reconvergence", "2us"),
    "flow model permutation": ("--topology", f"{ROOT}/topologies/fat_tree_k8.yaml", "--pattern", "permutation",
                               "--bytes", "1MiB", "--fidelity", "all=flow"),
    "flow model alltoall": ("--topology", f"{ROOT}/topologies/dgx_a100_pod.yaml", "--pattern", "random",
                            "--bytes", "1MiB", "--fidelity", "nvlink=flow"),
}


class SameOnEveryRankCount(unittest.TestCase):
    def test_scenarios(self):
        for name, args in SCENARIOS.items():
            with self.subTest(scenario=name):
                reference, full = result(None, *args)
                self.assertEqual(full["flows_completed"], full["flows"])
                for ranks in (2, 3):
                    same, out = result(ranks, *args)
                    self.assertEqual(out["sim_ranks"], ranks)
                    self.assertEqual(same, reference, f"{name} differs on {ranks} ranks")


class ClosedForms(unittest.TestCase):
    def test_single_flow_to_the_picosecond(self):
        # tests/net/single_flow_test.cpp derives 85,420,000 ps for this flow and path.
        out = json.loads(flows(2, *SCENARIOS["single flow"]).stdout)
        self.assertEqual(out["makespan_ps"], 85_420_000)

    def test_a_degraded_link_slows_the_flows_over_it(self):
        nominal = json.loads(flows(None, *SCENARIOS["ecmp permutation"][:2], "--pattern", "permutation",
                                   "--bytes", "1MiB").stdout)
        slow = json.loads(flows(None, *SCENARIOS["ecmp permutation"][:2], "--pattern", "permutation", "--bytes",
                                "1MiB", "--link-speed", "leaf0:spine0@0s=10Gbps").stdout)
        self.assertGreater(slow["makespan_ps"], nominal["makespan_ps"])
        r = flows(None, *SCENARIOS["ecmp permutation"][:2], "--pattern", "permutation", "--bytes", "1MiB",
                  "--link-speed", "leaf0:leaf1@0s=10Gbps", expect_ok=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no link between leaf0 and leaf1", r.stderr)

    def test_lossy_incast_recovers(self):
        out = json.loads(flows(2, *SCENARIOS["lossy incast"], "--set", "ecn=false").stdout)
        self.assertEqual(out["bytes_delivered"], 8 * 1_000_000)
        self.assertEqual(out["pfc_pauses"], 0)


class Errors(unittest.TestCase):
    def test_bad_flow_file_names_the_line(self):
        path = os.path.join(DATA, "bottleneck.csv")
        r = flows(2, "--topology", f"{DATA}/chain3.yaml", "--flows", path, expect_ok=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"{path}:4:1: host 2 does not exist", r.stderr)

    def test_values_that_would_hang_or_be_altered_are_refused(self):
        # Each of these used to run for ever (a timer of 0, a timeout no ACK can beat, a
        # switch that drops every packet) or to run with another value than the one given.
        star = ("--topology", f"{DATA}/star9.yaml", "--pattern", "incast", "--bytes", "64KiB")
        for args, message in [
            (("--lossy", "--set", "rto=1ns"), "lossy mode needs an rto of at least 1us"),
            (("--cc", "dcqcn", "--set", "dcqcn_alpha_interval=0"), "dcqcn_alpha_interval must be positive"),
            (("--cc", "swift", "--set", "swift_beta=0"), "swift_beta must be within (0, 1]"),
            (("--fan-in", "9"), "--fan-in: 9 senders, but"),
            (("--seed", "-1"), "--seed: expected a whole number, not '-1'"),
        ]:
            r = flows(0, *star, *args, expect_ok=False)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(message, r.stderr, args)
        with tempfile.TemporaryDirectory() as d:
            tiny = os.path.join(d, "tiny_buffer.yaml")
            with open(tiny, "w") as f:
                f.write("kind: leaf_spine\nleaves: 1\nspines: 0\nhosts_per_leaf: 9\n"
                        "link: {bandwidth: 100Gbps, latency: 1us}\nswitch: {buffer: 4KiB}\n")
            r = flows(0, "--topology", tiny, "--pattern", "incast", "--bytes", "64KiB", "--lossy", expect_ok=False)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("cannot hold one packet of 4160 bytes (mtu_bytes + header_bytes)", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
