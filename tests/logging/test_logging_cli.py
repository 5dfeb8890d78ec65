"""The global --log-level and --log-file options as a user types them: debug lines go to the
file (and stderr), never to stdout; a bad level is refused; under mpirun every line carries its
rank and only rank 0 prints the human summary."""

import os
import re
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
ROOT = os.environ["COLLSIM_SOURCE_DIR"]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
FAT_TREE = os.path.join(ROOT, "topologies", "fat_tree_k8.yaml")
# "[2026-11-22 10:00:00.123] [debug] [topo] message"
LINE = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] \[(trace|debug|info|warn|error)\] \[[a-z]+\] ")


def collsim(*args, ranks=0):
    cmd = ([MPIEXEC, "--oversubscribe", "-n", str(ranks)] if ranks else []) + [COLLSIM, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=ENV)


def read(path):
    with open(path) as f:
        return f.read()


class OneProcess(unittest.TestCase):
    def test_debug_lines_go_to_the_file_and_stdout_is_unchanged(self):
        plain = collsim("topo", "show", "--json", FAT_TREE)
        self.assertEqual(plain.returncode, 0, plain.stderr)
        # At the default level (warn) nothing is logged while loading a good topology.
        self.assertEqual(plain.stderr, "")
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "collsim.log")
            r = collsim("--log-level", "debug", "--log-file", log, "topo", "show", "--json", FAT_TREE)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, plain.stdout)
            text = read(log)
            # A k=8 fat tree: k^3/4 = 128 hosts, 5k^2/4 = 80 switches, 3k^3/4 = 384 links.
            self.assertIn("] [debug] [topo] loaded " + FAT_TREE + ": 'fat_tree_k8' (fat_tree), 128 hosts, 80 switches, "
                          "384 links\n", text)
            for line in text.splitlines():
                self.assertRegex(line, LINE)
                self.assertNotIn("[rank ", line)  # one process: no rank prefix
            # The same lines on stderr, which is where logging goes without a file.
            self.assertIn("[debug] [topo] loaded", r.stderr)
            # Only one process: no per-rank files.
            self.assertEqual(os.listdir(d), ["collsim.log"])

    def test_info_level_hides_debug_lines(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "collsim.log")
            r = collsim("--log-level", "info", "--log-file", log, "topo", "show", FAT_TREE)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("[debug]", read(log))

    def test_unknown_level_is_refused_with_the_accepted_names(self):
        r = collsim("--log-level", "nonsense", "topo", "show", FAT_TREE)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(r.stdout, "")
        self.assertIn("--log-level", r.stderr)
        self.assertIn("unknown log level 'nonsense' (expected one of: trace, debug, info, warn, error, off)", r.stderr)

    def test_a_log_file_that_cannot_be_opened_is_an_error_naming_it(self):
        with tempfile.TemporaryDirectory() as d:
            blocker = os.path.join(d, "plain")
            with open(blocker, "w") as f:
                f.write("x")
            r = collsim("--log-file", os.path.join(blocker, "x.log"), "topo", "show", FAT_TREE)
            self.assertEqual(r.returncode, 1)
            self.assertIn("collsim: error: " + os.path.join(blocker, "x.log") + ": cannot open the log file", r.stderr)

    def test_errors_of_a_simulating_command_reach_the_log_file(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "collsim.log")
            bad = os.path.join(d, "bad.yaml")
            with open(bad, "w") as f:
                f.write("kind: no_such_kind\n")
            r = collsim("--log-file", log, "run", "--topology", bad, "--coll", "allreduce", "--bytes", "1KiB")
            self.assertEqual(r.returncode, 1, r.stderr)
            # stderr keeps its own format; the file has the same message as a log line.
            self.assertIn("collsim: error: " + bad, r.stderr)
            self.assertRegex(read(log), r"\] \[error\] \[cli\] .*bad\.yaml")


class TwoRanks(unittest.TestCase):
    def test_each_rank_logs_with_its_prefix_and_only_rank_0_prints_the_summary(self):
        args = ("run", "--topology", FAT_TREE, "--coll", "allreduce", "--bytes", "1MiB")
        one = collsim(*args)
        self.assertEqual(one.returncode, 0, one.stderr)
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "run.log")
            r = collsim("--log-level", "debug", "--log-file", log, *args, ranks=2)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(sorted(os.listdir(d)), ["run.log.rank0", "run.log.rank1"])
            for rank in (0, 1):
                text = read(f"{log}.rank{rank}")
                lines = text.splitlines()
                self.assertTrue(lines, f"rank {rank} wrote nothing")
                for line in lines:
                    self.assertRegex(line, LINE)
                    self.assertIn(f"] [rank {rank}] ", line)
                # Each rank builds its half of the fabric and reports its own share of the LPs.
                self.assertRegex(text, rf"\[pdes\] \[rank {rank}\] rank {rank} of 2 owns \d+ of 208 LPs")
            # The human summary's first line appears once, from rank 0, like on one process.
            first = one.stdout.splitlines()[0]
            self.assertEqual(r.stdout.count(first), 1, r.stdout)
            self.assertEqual(r.stdout.count("\n"), one.stdout.count("\n"), r.stdout)
            # stderr has the same lines as the files, with prefixes from both ranks.
            self.assertIn("] [rank 0] ", r.stderr)
            self.assertIn("] [rank 1] ", r.stderr)


if __name__ == "__main__":
    unittest.main()
