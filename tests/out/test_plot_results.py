"""scripts/plot_results.py on a file written by write_sample_results (the writer's own output,
not a hand-made imitation of it), and its refusals of files that are not collsim results."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

try:
    import h5py
    import matplotlib  # noqa: F401 (the script needs it)
except ImportError as e:
    print(f"skipping: {e} (scripts/setup.sh installs python3-h5py and python3-matplotlib)")
    sys.exit(77)  # ctest SKIP_RETURN_CODE

WRITE_SAMPLE_RESULTS = os.environ["WRITE_SAMPLE_RESULTS"]
PLOT_RESULTS = os.environ["PLOT_RESULTS"]
PLOTS = ["link_utilisation.png", "queue_occupancy.png", "rank_timeline.png", "fct_distribution.png"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def plot(*args):
    return subprocess.run([sys.executable, PLOT_RESULTS, *args], capture_output=True, text=True, timeout=240)


class PlotResults(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="collsim_plot_test_")
        self.results = os.path.join(self.dir, "run.h5")
        r = subprocess.run([WRITE_SAMPLE_RESULTS, self.results], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_writes_the_four_pngs(self):
        out = os.path.join(self.dir, "plots", "nested")  # made by the script
        r = plot(self.results, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        for name in PLOTS:
            path = os.path.join(out, name)
            self.assertTrue(os.path.isfile(path), f"{name} missing; stdout:\n{r.stdout}")
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), PNG_SIGNATURE, name)
            self.assertGreater(os.path.getsize(path), 1000, name)
        self.assertNotIn("skipped", r.stdout)

    def test_skips_a_plot_whose_datasets_are_absent(self):
        with h5py.File(self.results, "a") as f:
            for group in ("samples", "flows"):
                del f[group]
        out = os.path.join(self.dir, "plots")
        r = plot(self.results, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("skipped link_utilisation.png: no link samples (samples/utilisation, samples/time_ps missing)",
                      r.stdout)
        self.assertIn("skipped queue_occupancy.png: no queue samples", r.stdout)
        self.assertIn("skipped fct_distribution.png: no flows (flows/fct_ps missing)", r.stdout)
        self.assertEqual(sorted(os.listdir(out)), ["rank_timeline.png"])

    def test_refuses_an_hdf5_file_that_is_not_a_collsim_result(self):
        other = os.path.join(self.dir, "other.h5")
        with h5py.File(other, "w") as f:
            f["ops/rank"] = [0, 1]  # looks like ours, but has no format marker
        r = plot(other, "-o", self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"plot_results: {other}: not a collsim result", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_refuses_a_file_that_is_not_hdf5(self):
        text = os.path.join(self.dir, "notes.txt")
        with open(text, "w") as f:
            f.write("not hdf5\n")
        r = plot(text)
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"plot_results: {text}: not an HDF5 file", r.stderr)

    def test_refuses_a_missing_file(self):
        missing = os.path.join(self.dir, "nope.h5")
        r = plot(missing)
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"plot_results: {missing}: no such file", r.stderr)


if __name__ == "__main__":
    unittest.main()
