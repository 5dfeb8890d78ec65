"""End-to-end tests of `collsim topo show`: every preset through the program, and errors."""

import json
import os
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
TOPOLOGIES = os.environ["COLLSIM_TOPOLOGIES"]

# hosts, switches, links of every preset, counted by hand (see tests/topo/presets_test.cpp).
PRESETS = {
    "fat_tree_k8.yaml": (128, 80, 384),
    "fat_tree_k16.yaml": (1024, 320, 3072),
    "leaf_spine_64.yaml": (64, 8, 80),
    "leaf_spine_128_200g.yaml": (128, 24, 256),
    "dgx_a100_pod.yaml": (256, 56, 768),
    "dgx_h100_superpod.yaml": (256, 44, 768),
    # 128 NVSwitches + 8 rails x 8 leaves + 16 spines; 1024 NVLinks + 1024 NICs + 64 x 16 uplinks.
    "dgx_a100_1024.yaml": (1024, 208, 3072),
    # 2048 NVSwitches + 8 rails x 64 leaves + 32 spines; 16384 NVLinks + 16384 NICs + 512 x 32 uplinks.
    "h100_rail_2048.yaml": (16384, 2592, 49152),
    "dragonfly_small.yaml": (72, 36, 162),
    "torus_4x4x4.yaml": (64, 64, 256),
}


def run(*args):
    return subprocess.run([COLLSIM, *args], capture_output=True, text=True, timeout=120)


class TopoShow(unittest.TestCase):
    def test_every_preset_is_listed(self):
        on_disk = sorted(f for f in os.listdir(TOPOLOGIES) if f.endswith(".yaml"))
        self.assertEqual(on_disk, sorted(PRESETS))

    def test_json_of_every_preset(self):
        for name, (hosts, switches, links) in PRESETS.items():
            with self.subTest(preset=name):
                r = run("topo", "show", "--json", os.path.join(TOPOLOGIES, name))
                self.assertEqual(r.returncode, 0, r.stderr)
                j = json.loads(r.stdout)
                for key in ("name", "kind", "hosts", "switches", "links", "diameter_hops",
                            "bisection_bandwidth_bps", "bisection_exact"):
                    self.assertIn(key, j)
                self.assertEqual((j["hosts"], j["switches"], j["links"]), (hosts, switches, links))
                self.assertEqual(j["name"] + ".yaml", name)
                self.assertTrue(j["connected"])
                self.assertGreater(j["bisection_bandwidth_bps"], 0)
                self.assertEqual(sum(c["count"] for c in j["link_classes"]), links)

    def test_human_summary(self):
        r = run("topo", "show", os.path.join(TOPOLOGIES, "fat_tree_k8.yaml"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("hosts             128", r.stdout)
        self.assertIn("switches          80", r.stdout)
        self.assertIn("384 x network 100Gbps, 1us", r.stdout)
        self.assertIn("diameter          6 hops", r.stdout)
        self.assertIn("bisection         6.4Tbps (exact;", r.stdout)

    def test_explicit_bisection_is_marked_as_an_estimate(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "pair.yaml")
            with open(path, "w") as f:
                f.write("kind: explicit\nlink: {bandwidth: 100Gbps, latency: 1us}\n"
                        "nodes: [{name: a, kind: host}, {name: b, kind: host}, {name: s, kind: switch}]\n"
                        "links: [{a: a, b: s}, {a: b, b: s}]\n")
            r = run("topo", "show", "--json", path)
            self.assertEqual(r.returncode, 0, r.stderr)
            j = json.loads(r.stdout)
            self.assertEqual(j["name"], "pair")
            self.assertFalse(j["bisection_exact"])
            self.assertEqual(j["bisection_bandwidth_bps"], 100 * 10**9)
            r = run("topo", "show", path)
            self.assertIn("estimate", r.stdout)

    def test_error_names_file_line_and_column(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.yaml")
            with open(path, "w") as f:
                f.write("kind: fat_tree\nk: 5\nlink: {bandwidth: 100Gbps, latency: 1us}\n")
            r = run("topo", "show", path)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(r.stdout, "")
            self.assertIn("collsim: error: " + path + ":2:4: k must be even and at least 2, found 5", r.stderr)

    def test_missing_file(self):
        r = run("topo", "show", "/nonexistent.yaml")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("/nonexistent.yaml", r.stderr)


if __name__ == "__main__":
    unittest.main()
