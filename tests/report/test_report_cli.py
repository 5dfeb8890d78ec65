"""`collsim report` end to end: a run's --hdf5 file and a validate --json output become pages
that hold everything they show (no script, nothing fetched), and Chromium (Debian's, headless)
opens them without console messages and draws the charts (the screenshot has the charts'
colours). Without Chromium the browser part is skipped (exit 77); scripts/setup.sh --tests
installs it."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def collsim(*args, cwd):
    r = subprocess.run([COLLSIM, *args], capture_output=True, text=True, cwd=cwd, timeout=300)
    if r.returncode != 0:
        raise AssertionError(f"collsim {' '.join(args)} exited {r.returncode}:\n{r.stderr}")
    return r.stdout


def screenshot(html, png, height):
    """Opens `html` in headless Chromium; returns its console lines."""
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--screenshot={png}", f"--window-size=1000,{height}", "--enable-logging=stderr", "--v=0",
                        "file://" + html], capture_output=True, text=True, timeout=120)
    if not os.path.exists(png):
        raise AssertionError(f"chromium wrote no screenshot ({r.returncode}):\n{r.stderr}")
    return [line for line in r.stderr.splitlines() if "CONSOLE" in line]


def colour_share(png, rgb):
    """The share of the screenshot's pixels within a few units of `rgb`."""
    import matplotlib.image  # noqa: PLC0415 (Debian's python3-matplotlib, installed by setup.sh)
    pixels = matplotlib.image.imread(png)[:, :, :3] * 255
    close = (abs(pixels - rgb) <= 6).all(axis=2)
    return close.mean()


class Report(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def assert_self_contained(self, html):
        self.assertNotIn("<script", html)
        self.assertNotIn("<link", html)
        # The only URL is SVG's namespace, which is a name, not something fetched.
        self.assertEqual(set(re.findall(r"https?://[^\"' <]+", html)), {"http://www.w3.org/2000/svg"})

    def test_result_page(self):
        collsim("run", "--topology", "fat_tree_k8", "--coll", "allreduce", "--ranks", "16", "--bytes", "4MiB",
                "--channels", "2", "--hdf5", "r.h5", "--quiet", cwd=self.dir)
        out = collsim("report", "r.h5", "-o", "r.html", cwd=self.dir)
        self.assertIn("r.html", out)
        with open(os.path.join(self.dir, "r.html")) as f:
            html = f.read()
        self.assert_self_contained(html)
        for section in ("breakdown", "collectives", "links", "fct"):
            self.assertIn(f'<section id="{section}">', html)
        self.assertNotIn("Not in this file", html)
        self.assertIn("rank 15", html)  # 16 ranks, all shown
        if not CHROMIUM:
            self.skipTest("no chromium (scripts/setup.sh --tests installs it)")
        png = os.path.join(self.dir, "r.png")
        self.assertEqual(screenshot(os.path.join(self.dir, "r.html"), png, 2000), [])
        # The breakdown's communication bars and the timeline are drawn in the palette's
        # second colour (#f28e2b), the compute bars and the CDF in its first (#4e79a7).
        self.assertGreater(colour_share(png, (0xf2, 0x8e, 0x2b)), 0.002)
        self.assertGreater(colour_share(png, (0x4e, 0x79, 0xa7)), 0.0005)

    def test_validation_page(self):
        v = collsim("validate", os.path.join(ROOT, "validation", "logs", "28_allreduce_8xH100_hgx-nvswitch_NCCL_ALGO-RING.log"),
                    "--max-bytes", "16MiB", "--json", cwd=self.dir)
        with open(os.path.join(self.dir, "v.json"), "w") as f:
            f.write(v)
        collsim("report", "v.json", "-o", "v.html", cwd=self.dir)
        with open(os.path.join(self.dir, "v.html")) as f:
            html = f.read()
        self.assert_self_contained(html)
        self.assertIn("allreduce on dgx-h100, 8 ranks", html)
        self.assertIn("<th>measured busbw</th>", html)
        if not CHROMIUM:
            self.skipTest("no chromium (scripts/setup.sh --tests installs it)")
        png = os.path.join(self.dir, "v.png")
        self.assertEqual(screenshot(os.path.join(self.dir, "v.html"), png, 1400), [])
        self.assertGreater(colour_share(png, (0x4e, 0x79, 0xa7)), 0.0001)  # measured
        self.assertGreater(colour_share(png, (0xf2, 0x8e, 0x2b)), 0.0001)  # simulated

    def test_errors(self):
        with open(os.path.join(self.dir, "x.txt"), "w") as f:
            f.write("hello")
        r = subprocess.run([COLLSIM, "report", "x.txt"], capture_output=True, text=True, cwd=self.dir)
        self.assertEqual(r.returncode, 1)
        self.assertIn("x.txt: not an HDF5 file", r.stderr)
        r = subprocess.run([COLLSIM, "report", "missing.h5"], capture_output=True, text=True, cwd=self.dir)
        self.assertEqual(r.returncode, 64)


if __name__ == "__main__":
    unittest.main()
