"""End-to-end tests of `collsim goal ...`: what a user types, what they get back."""

import json
import os
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
EXAMPLES = os.environ["COLLSIM_GOAL_EXAMPLES"]
TEST_DATA = os.environ["COLLSIM_TEST_DATA"]
BCAST128 = os.path.join(EXAMPLES, "loggopsim2_binomialtreebcast_128_1024.goal")


def run(*args):
    return subprocess.run([COLLSIM, *args], capture_output=True, text=True, timeout=60)


class GoalStats(unittest.TestCase):
    def test_json_has_the_documented_keys_and_hand_counted_values(self):
        r = run("goal", "stats", "--json", BCAST128)
        self.assertEqual(r.returncode, 0, r.stderr)
        s = json.loads(r.stdout)
        # Binomial broadcast from rank 0 over 128 ranks: 127 messages of 1024 B; rank 0 sends
        # 7 with no prerequisite, every other send waits for its rank's receive.
        expected = {"num_ranks": 128, "ops": 254, "sends": 127, "recvs": 127, "calcs": 0,
                    "requires_edges": 120, "irequires_edges": 0, "bytes_sent": 127 * 1024,
                    "longest_chain_ops": 2}
        for key, value in expected.items():
            self.assertEqual(s[key], value, key)

    def test_human_summary(self):
        r = run("goal", "stats", BCAST128)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ranks             128", r.stdout)
        self.assertIn("longest chain     2 ops", r.stdout)

    def test_invalid_dialect_names_file_line_and_construct(self):
        path = os.path.join(TEST_DATA, "goal/invalid/loggopsim2_portals4_spin_test_4.goal")
        r = run("goal", "stats", path)
        self.assertEqual(r.returncode, 1)
        self.assertIn(path + ":3:5: 'put' is an operation of LogGOPSim2's Portals-4/sPIN dialect", r.stderr)

    def test_missing_file(self):
        r = run("goal", "stats", "/nonexistent.goal")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("/nonexistent.goal", r.stderr)


class GoalConvert(unittest.TestCase):
    def test_all_forms_describe_the_same_schedule(self):
        with tempfile.TemporaryDirectory() as d:
            chain = [BCAST128, f"{d}/a.bin", f"{d}/b.goalb", f"{d}/c.goal", f"{d}/d.bin"]
            for src, dst in zip(chain, chain[1:]):
                r = run("goal", "convert", src, dst)
                self.assertEqual(r.returncode, 0, r.stderr)
            stats = []
            for path in chain:
                r = run("goal", "stats", "--json", path)
                self.assertEqual(r.returncode, 0, r.stderr)
                s = json.loads(r.stdout)
                s.pop("file"), s.pop("format")
                stats.append(s)
            for s in stats[1:]:
                self.assertEqual(s, stats[0])
            # Converting text -> bin twice gives the same bytes.
            with open(chain[1], "rb") as a, open(chain[4], "rb") as b:
                self.assertEqual(a.read(), b.read())

    def test_format_from_flag_and_unknown_extension(self):
        with tempfile.TemporaryDirectory() as d:
            r = run("goal", "convert", BCAST128, f"{d}/out.dat")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("give --to", r.stderr)
            r = run("goal", "convert", BCAST128, f"{d}/out.dat", "--to", "goalb")
            self.assertEqual(r.returncode, 0, r.stderr)
            r = run("goal", "stats", "--json", f"{d}/out.dat")
            self.assertEqual(json.loads(r.stdout)["format"], "goalb")
            r = run("goal", "convert", BCAST128, f"{d}/out.dat", "--to", "xml")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("unknown format 'xml'", r.stderr)

    def test_damaged_binary_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(run("goal", "convert", BCAST128, f"{d}/x.goalb").returncode, 0)
            with open(f"{d}/x.goalb", "r+b") as f:
                # Section 6 (peers): its offset is at byte 8 of its 32-byte table entry.
                f.seek(64 + 32 * 6 + 8)
                peers = int.from_bytes(f.read(8), "little")
                f.seek(peers + 5)
                f.write(b"\x7f")
            r = run("goal", "stats", f"{d}/x.goalb")
            self.assertEqual(r.returncode, 1)
            self.assertIn("section 6: checksum mismatch: the file is corrupted", r.stderr)


class Program(unittest.TestCase):
    def test_help_and_version(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("goal", r.stdout)
        self.assertEqual(run("--version").returncode, 0)

    def test_subcommand_required(self):
        self.assertNotEqual(run().returncode, 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
