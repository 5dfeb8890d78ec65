"""Errors as a user meets them: one format, one set of exit statuses, and the nearest name for
a misspelled subcommand or option."""

import os
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
USAGE = 64  # README, "Errors and exit status"


def run(*args):
    return subprocess.run([COLLSIM, *args], capture_output=True, text=True, timeout=60)


class Errors(unittest.TestCase):
    def test_a_misspelled_subcommand_gets_the_nearest(self):
        r = run("wrokload", "gpt3_1.3b")
        self.assertEqual(r.returncode, USAGE)
        self.assertTrue(r.stderr.startswith("collsim: error: no subcommand 'wrokload' (did you mean workload?)"),
                        r.stderr)
        r = run("simulate")
        self.assertEqual(r.returncode, USAGE)
        self.assertNotIn("did you mean", r.stderr)

    def test_a_misspelled_option_gets_the_nearest_of_its_subcommand(self):
        r = run("run", "--topolgy", "fat_tree_k8", "--coll", "allreduce", "--bytes", "1MiB")
        self.assertEqual(r.returncode, USAGE)
        self.assertIn("collsim: error: ", r.stderr)
        self.assertIn("(did you mean --topology?)", r.stderr)
        self.assertIn("collsim run --help", r.stderr)

    def test_the_same_bad_value_is_the_same_error_in_every_command(self):
        for args in (("run", "--coll", "allreduce", "--ranks", "4", "--network", "loggops"),
                     ("gen", "allreduce", "--ranks", "4")):
            r = run(*args, "--bytes", "-5")
            self.assertEqual(r.returncode, USAGE, (args, r.stderr))
            self.assertTrue(r.stderr.startswith("collsim: error: --bytes: '-5' is not a size"), r.stderr)

    def test_an_option_found_unusable_during_the_run_is_a_usage_error_too(self):
        # validate checks --algo against the log's system once it has read the log.
        log = os.path.join(os.environ["COLLSIM_SOURCE_DIR"], "validation", "logs",
                           "12_allreduce_2xA100-80GB_docker-nvlink_NCCL-INFO.log")
        r = run("validate", log, "--algo", "nvls")
        self.assertEqual(r.returncode, USAGE)
        self.assertTrue(r.stderr.startswith("collsim: error: --algo: nvls is emulated only"), r.stderr)

    def test_a_file_that_is_not_there_is_a_usage_error_and_one_that_is_wrong_an_input_error(self):
        r = run("goal", "stats", "/no/such/file.goal")
        self.assertEqual(r.returncode, USAGE)
        self.assertTrue(r.stderr.startswith("collsim: error: "), r.stderr)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.goal")
            with open(path, "w") as f:
                f.write("num_ranks two\n")
            r = run("goal", "stats", path)
            self.assertEqual(r.returncode, 1)
            self.assertTrue(r.stderr.startswith("collsim: error: " + path + ":1:"), r.stderr)

    def test_topology_presets_are_taken_by_name_everywhere(self):
        for args in (("run", "--coll", "allreduce", "--ranks", "8", "--bytes", "64KiB"),
                     ("flows", "--pattern", "permutation", "--bytes", "64KiB")):
            r = run(*args, "--topology", "fat_tree_k8")
            self.assertEqual(r.returncode, 0, (args, r.stderr))
            r = run(*args, "--topology", "fat_tree_k9")
            self.assertEqual(r.returncode, USAGE, (args, r.stderr))
            self.assertIn("not a topology preset (", r.stderr)
            self.assertIn("fat_tree_k8", r.stderr)

    def test_help_lists_each_subcommand_on_one_line(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        listing = r.stdout[r.stdout.index("Subcommands:"):].splitlines()[1:]
        names = [line.split()[0] for line in listing if line.startswith("  ") and line.split()]
        self.assertIn("validate", names)
        self.assertIn("calibrate", names)
        self.assertEqual(len(names), len([line for line in listing if line.strip()]), r.stdout)

    def test_a_run_that_outgrows_the_machines_memory_stops_with_an_error(self):
        # A machine with 300 MB left of 8 GB is below its reserve (400 MB): the first look at
        # memory, at the first progress report, ends the run.
        with tempfile.TemporaryDirectory() as d:
            meminfo = os.path.join(d, "meminfo")
            with open(meminfo, "w") as f:
                f.write("MemTotal:        8000000 kB\nMemAvailable:     300000 kB\n")
            r = subprocess.run([COLLSIM, "run", "--topology", "fat_tree_k8", "--coll", "allreduce", "--bytes", "16MiB"],
                               capture_output=True, text=True, timeout=60, env=dict(os.environ, COLLSIM_MEMINFO=meminfo))
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertRegex(r.stderr, r"collsim: error: out of memory at sim [0-9.]+ us with [0-9]+ ops of 208154 done: "
                                       r"this process holds [0-9]+ MB and the machine has 307 MB of its 8.2 GB left "
                                       r"\(a run stops below 410 MB, before the kernel would kill it\)")


if __name__ == "__main__":
    unittest.main()
