"""`collsim validate` and `collsim calibrate` end to end on small shared logs."""

import json
import os
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
ROOT = os.environ["COLLSIM_SOURCE_DIR"]
LOGS = os.path.join(ROOT, "validation", "logs")


USAGE = 64  # an option's value that cannot be used (README, "Errors and exit status")


def log(number):
    return os.path.join(LOGS, next(n for n in sorted(os.listdir(LOGS)) if n.startswith(number + "_")))


def collsim(*args):
    return subprocess.run([COLLSIM, *args], capture_output=True, text=True, timeout=900)


def write_two_node_log(path, gpus_per_node, program):
    """An nccl-tests log of 2 nodes with this many H100s each and one 256 MiB row; its measured
    numbers are placeholders (the tests read the simulated ones)."""
    lines = ["# Collective test starting: %s" % program,
             "# nThread 1 nGpus 1 minBytes 268435456 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 "
             "agg iters: 1 validation: 1 graph: 0", "#", "# Using devices"]
    for rank in range(2 * gpus_per_node):
        node, device = divmod(rank, gpus_per_node)
        lines.append("#  Rank %2d Group  0 Pid %d on %10s device %2d [0000:%02x:00] NVIDIA H100 80GB HBM3"
                     % (rank, 1000 + rank, "node%d" % node, device, device))
    n = 2 * gpus_per_node
    factor = 2 * (n - 1) / n if program == "all_reduce_perf" else 1.0
    algbw = 268435456 / 10000.0 / 1e3
    row = "%7.1f %7.2f %7.2f      0" % (10000.0, algbw, algbw * factor)
    lines += ["#", "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   "
              "algbw   busbw #wrong",
              "   268435456      67108864     float     sum      -1 %s %s" % (row, row),
              "# Out of bounds values : 0 OK", "# Avg bus bandwidth    : %.2f" % (algbw * factor), "#",
              "# Collective test concluded: %s" % program]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


class Validate(unittest.TestCase):
    def test_json_of_a_two_gpu_log(self):
        r = collsim("validate", log("12"), "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        j = json.loads(r.stdout)
        for key in ("sizes", "median_abs_error_large", "median_abs_error_small", "runs"):
            self.assertIn(key, j)
        self.assertEqual([s["bytes"] for s in j["sizes"]], [134217728, 268435456, 536870912])
        run = j["runs"][0]
        self.assertEqual(run["system"], "dgx-a100")  # inferred from "NVIDIA A100-SXM4-80GB"
        self.assertEqual(run["ranks"], 2)
        self.assertEqual(run["channels"], 24)  # from the log's NCCL INFO line
        self.assertEqual(run["findings"], [])
        self.assertIsNone(j["median_abs_error_small"])  # no size below 1 MiB
        for s in j["sizes"]:
            for key in ("bytes", "measured_us", "simulated_us", "measured_busbw", "simulated_busbw", "error"):
                self.assertIn(key, s)
            # 2 ranks: busbw = algbw. The link is 300 GB/s, of which 64/65 carries data (the
            # header is 1/64 of a packet): busbw can be at most 295.4 GB/s, and a ring of
            # 24 channels keeps it above 80% of that.
            self.assertLess(s["simulated_busbw"], 300 * 64 / 65)
            self.assertGreater(s["simulated_busbw"], 0.8 * 300 * 64 / 65)
            self.assertAlmostEqual(s["error"], s["measured_us"] / s["simulated_us"] - 1, places=9)
            self.assertAlmostEqual(s["measured_busbw"], s["bytes"] / s["measured_us"] / 1e3, places=6)

    def test_human_output_and_plot(self):
        with tempfile.TemporaryDirectory() as d:
            png = os.path.join(d, "v.png")
            r = collsim("validate", log("12"), "--plot", png)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("system      dgx-a100 (inferred: A100", r.stdout)
            self.assertIn("log check   every value agrees with nccl-tests' formulas", r.stdout)
            self.assertIn("summary     >= 1 MiB: median |error|", r.stdout)
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_misconfigured_run_is_flagged(self):
        r = collsim("validate", log("11"), "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        runs = json.loads(r.stdout)["runs"]
        self.assertEqual([x["system"] for x in runs], ["dgx-spark", "dgx-spark"])
        self.assertTrue(runs[0]["consistent_with_preset"], runs[0]["preset_reason"])
        self.assertFalse(runs[1]["consistent_with_preset"])
        self.assertIn("misconfigured", runs[1]["preset_reason"])

    def test_errors(self):
        r = collsim("validate", log("12"), "--system", "dgx-z100")
        self.assertEqual(r.returncode, USAGE)
        self.assertIn("unknown system preset 'dgx-z100' (there are: dgx-a100,", r.stderr)
        r = collsim("validate", log("03"))  # no device lines
        self.assertEqual(r.returncode, USAGE)
        self.assertIn("give --system", r.stderr)
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.log")
            with open(bad, "w") as f:
                f.write("#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                        "  1024  256  float  sum  -1  16.89  0.06  0.09  0  16.65  0.06  0.09  0\n"
                        "  2048  512  float  sum  -1  16.86  0.12\n")
            r = collsim("validate", bad, "--system", "dgx-h100")
            self.assertEqual(r.returncode, 1)
            self.assertIn(bad + ":3:1: expected a result row", r.stderr)


    def test_options_that_contradict_the_log_or_mean_nothing_are_refused(self):
        # Log 25: 8 ranks on 2 hosts of 4 GPUs (device lines).
        for args, message in [
            (["--ranks", "16"], "--ranks: the log says 8 ranks (device lines), not 16"),
            (["--gpus-per-node", "3"], "--gpus-per-node: the log says 4 GPUs per node (device lines), not 3"),
            (["--ranks", "1"], "--ranks: Value 1 not in range 2"),
            (["--channels", "65"], "--channels: Value 65 not in range 1 to 64"),
            (["--channels", "0"], "--channels: Value 0 not in range 1 to 64"),
            (["--max-packets", "0"], "--max-packets: must be at least 1, not 0"),
            (["--max-ops", "0"], "--max-ops: must be at least 1, not 0"),
        ]:
            r = collsim("validate", log("25"), *args)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(message, r.stderr + r.stdout, args)
        # An output that cannot be written is refused before any simulation, not after.
        r = collsim("validate", log("25"), "--plot", "/nonexistent-folder/25.png")
        self.assertIn("--plot: cannot write /nonexistent-folder/25.png: the folder /nonexistent-folder does not exist",
                      r.stderr + r.stdout)
        r = collsim("calibrate", log("25"), "--system", "h100-4gpu-ib", "-o", "/nonexistent-folder/cal.yaml")
        self.assertIn("--output: cannot write /nonexistent-folder/cal.yaml", r.stderr + r.stdout)
        self.assertNotIn("pass 0", r.stdout + r.stderr)
        # A log that does not say how its ranks sit on nodes takes --gpus-per-node, and the
        # header says when the last node is not full (256 ranks in nodes of 3: 85 x 3 + 1).
        r = collsim("validate", log("16"), "--system", "dgx-a100", "--ranks", "256", "--gpus-per-node", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("256 (--ranks) on 86 node(s) x 3 GPU(s), the last with 1;", r.stdout)
    def test_a_tree_at_medium_sizes_gets_nccls_share_of_its_links(self):
        # NCCL's tuning derates a tree by log2(bytes / 64): LL128 at 1 MiB (index 14) 0.6, at 128
        # MiB (index 21) none; validate slows the simulated tree's links alike. Log 25's 1 MiB
        # runs an LL128 tree, 512 KiB an LL ring (never derated), 128 MiB an LL128 tree.
        r = collsim("validate", log("25"), "--system", "h100-4gpu-ib", "--min-bytes", "512KiB", "--max-bytes", "128MiB",
                    "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        described = {s["bytes"]: s["algorithm"] for s in json.loads(r.stdout)["runs"][0]["sizes"]}
        self.assertEqual(described[1 << 20], "double_binary_tree LL128 x8 at 0.6 of the links (NCCL's tree correction)")
        self.assertEqual(described[512 << 10], "ring LL x8")
        self.assertEqual(described[128 << 20], "double_binary_tree LL128 x8")

    def test_nvls_on_one_h100_node(self):
        # NCCL's model at 32 MiB on 8 H100 (24 channels of 450/24 GB/s): NVLS 25 us + 32 MiB at
        # 733.1*8/14 = 418.9 GB/s = 105 us; ring Simple 8.4 + 14*3.4 us + 32 MiB at 450*8/14 GB/s
        # = 186 us; ring LL128 40.6 + 141.8 = 182 us. So NVLS.
        r = collsim("validate", log("17"), "--run", "0", "--max-bytes", "32MiB", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        sizes = json.loads(r.stdout)["sizes"]
        self.assertEqual(len(sizes), 1)
        self.assertTrue(sizes[0]["algorithm"].startswith("nvls"), sizes[0]["algorithm"])
        r = collsim("validate", log("17"), "--run", "1", "--algo", "nvls")
        self.assertEqual(r.returncode, USAGE)
        self.assertIn("nvls is emulated only for allreduce on full nodes of a preset with NVLS", r.stderr)

    def test_two_nodes_run_trees_at_large_sizes(self):
        # Log 04 (2x8 H100, 32x100G EFA, 24 channels) at 1 GiB, NCCL's model: NVLSTree
        # 25 + 2*(20.9 + EFA latency) us + 1 GiB at 733.1*16/30 = 391 GB/s = ~2.9 ms; ring Simple
        # 1 GiB at 24*min(18.75, 16.67)*16/30 = 213 GB/s = 5.0 ms. So NVLSTree, and its busbw
        # goes above the 400 GB/s of the node's NICs (S crosses per node, busbw = 1.875 algbw).
        r = collsim("validate", log("04"), "--system", "h100-efa", "--min-bytes", "1GiB", "--max-bytes", "1GiB",
                    "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        size = json.loads(r.stdout)["sizes"][0]
        self.assertTrue(size["algorithm"].startswith("nvls_tree"), size["algorithm"])
        self.assertGreater(size["simulated_busbw"], 400)
        # Log 25 (2x4 H100, 4x200G, 8 channels) at 1 GiB: tree 8*min(56.25, 2*12.5)*0.92/2 = 92
        # GB/s beats ring 8*12.5*8/14 = 57; the tree's busbw passes the 100 GB/s NIC rate.
        r = collsim("validate", log("25"), "--min-bytes", "1GiB", "--max-bytes", "1GiB", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        size = json.loads(r.stdout)["sizes"][0]
        self.assertTrue(size["algorithm"].startswith("double_binary_tree Simple"), size["algorithm"])
        self.assertGreater(size["simulated_busbw"], 100)

    def test_one_thread_driving_eight_gpus_under_nccl_algo_ring(self):
        # Log 28: NCCL_ALGO=RING, one thread with -g 8 (header nGpus 8). NCCL still tunes the
        # protocol: at 8 B ring LL (6.6 + 14 * 0.6 = 15 us) beats LL128 (40.6) and Simple (56).
        # Its ~15 us is hidden under the CPU's enqueueing, 8 * 4.25 = 34 us per iteration,
        # which is what every size up to 256 B reports (measured 34.8-35.6 us).
        r = collsim("validate", log("28"), "--algo", "ring", "--max-bytes", "256", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        j = json.loads(r.stdout)
        self.assertEqual(j["runs"][0]["gpus_per_thread"], 8)
        self.assertEqual(len(j["sizes"]), 6)
        for s in j["sizes"]:
            self.assertTrue(s["algorithm"].startswith("ring LL "), s["algorithm"])
            self.assertAlmostEqual(s["simulated_us"], 34.0, places=6)
        # Without the floor (host_issue_us 0) the ring's own ~15 us shows: well below 34.
        with tempfile.TemporaryDirectory() as d:
            cal = os.path.join(d, "cal.yaml")
            with open(cal, "w") as f:
                f.write("system: dgx-h100\nparameters:\n  host_issue_us: 0\n")
            r = collsim("validate", log("28"), "--algo", "ring", "--max-bytes", "8", "--json", "--calibration", cal)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertLess(json.loads(r.stdout)["sizes"][0]["simulated_us"], 25.0)

    def test_gpus_per_thread_when_the_log_does_not_print_it(self):
        # Log 09 is a summary table without a header; one process drove the 8 GPUs. Its small
        # sizes then sit at 8 x 4.25 us of enqueueing per iteration.
        r = collsim("validate", log("09"), "--system", "dgx-a100", "--gpus-per-thread", "8", "--max-bytes", "4096",
                    "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        j = json.loads(r.stdout)
        self.assertEqual(j["runs"][0]["gpus_per_thread"], 8)
        self.assertEqual(len(j["sizes"]), 3)
        for s in j["sizes"]:
            self.assertAlmostEqual(s["simulated_us"], 34.0, places=6)
        # Log 28's header says nGpus 8: a different -g is refused.
        r = collsim("validate", log("28"), "--gpus-per-thread", "4")
        self.assertEqual(r.returncode, USAGE)
        self.assertIn("the log says 8 GPUs per thread (header nGpus), not 4", r.stderr)

    def test_efa_v1_runs_the_simple_protocol_across_nodes(self):
        # aws-ofi-nccl sets NCCL_PROTO=simple on p4d/p4de (EFA v1 does not deliver a message's
        # bytes in order, which LL and LL128 rely on), so NCCL tunes only the algorithm there.
        r = collsim("validate", log("03"), "--system", "a100-efa", "--max-bytes", "64", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        j = json.loads(r.stdout)
        self.assertEqual(j["runs"][0]["protocol"], "simple")
        self.assertIn("NCCL_PROTO=simple", j["runs"][0]["protocol_source"])
        self.assertEqual(len(j["sizes"]), 4)
        for s in j["sizes"]:
            self.assertIn(" Simple x", s["algorithm"])
        # The same 16 GPUs on InfiniBand run LL at 8 B, as does --proto ll on EFA (the user's word wins).
        for args in (("--system", "dgx-a100"), ("--system", "a100-efa", "--proto", "ll")):
            r = collsim("validate", log("03"), *args, "--max-bytes", "8", "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(" LL x", json.loads(r.stdout)["sizes"][0]["algorithm"], args)

    def ring_busbw(self, run, max_ops, *extra):
        r = collsim("validate", log("19"), "--run", str(run), "--algo", "ring", "--channels", "2", "--min-bytes",
                    "60MiB", "--max-bytes", "64MiB", "--max-ops", str(max_ops), "--json", *extra)
        self.assertEqual(r.returncode, 0, r.stderr)
        size = json.loads(r.stdout)["sizes"][0]
        return size["simulated_busbw"], size["algorithm"]

    def test_a_ring_too_large_to_build_is_a_smaller_ring_of_whole_nodes_scaled_by_rounds(self):
        # Log 19: 80 H100 = 10 nodes x 8. Each round of a ring moves S/n per rank one hop, so
        # a ring over k whole nodes given S*8k/80 bytes has the same rounds, fewer of them, and
        # the same busbw. The full allreduce ring over 2 channels needs at least
        # 2 x 158 rounds x 80 x 2 = 50560 ops; under --max-ops 12000 the largest ring that fits
        # is 4 nodes (2 x 62 x 32 x 2 = 7936; 5 nodes would need 12480).
        full, how = self.ring_busbw(0, 4000000)
        self.assertNotIn("as a ring over", how)
        scaled, how = self.ring_busbw(0, 12000)
        self.assertIn("as a ring over 32 ranks (4 of 10 nodes) with the same bytes per round, its rounds scaled by 158/62",
                      how)
        self.assertLess(abs(scaled / full - 1), 0.03, (scaled, full))
        # Allgather (n - 1 rounds) of the Simple protocol, down to 2 nodes: 2 x 15 x 16 x 2 = 960.
        # Its 2 channels keep to 2 of the 8 NICs, which bound both rings (~85 GB/s), and the
        # 2-node ring fills its pipeline differently: within 8%.
        full, _ = self.ring_busbw(1, 4000000, "--proto", "simple")
        scaled, how = self.ring_busbw(1, 1200, "--proto", "simple")
        self.assertIn("as a ring over 16 ranks (2 of 10 nodes)", how)
        self.assertIn("scaled by 79/15", how)
        self.assertLess(full, 2 * 50)  # two 400G NICs
        self.assertLess(abs(scaled / full - 1), 0.08, (scaled, full))

    def test_a_ring_too_large_even_over_two_nodes_is_refused_up_front(self):
        # 1440 ranks (log 14) in a ring over 8 channels: 2 x 2878 rounds x 1440 x 8 = 66309120
        # sends and receives at the least, whatever the chunk; over 2 racks of 72 it would
        # still be 2 x 286 x 144 x 8 = 658944, above --max-ops 100000.
        r = collsim("validate", log("14"), "--system", "gb200-nvl72", "--algo", "ring", "--channels", "8",
                    "--max-ops", "100000")
        self.assertEqual(r.returncode, 1)
        self.assertIn("a ring of 1440 ranks over 8 channel(s) needs at least 66309120 GOAL ops per size", r.stderr)
        self.assertIn("above --max-ops 100000; a ring over 2 whole nodes, the smallest that stands in for it, needs "
                      "658944", r.stderr)

    def test_extrapolation_never_outruns_the_links(self):
        # Log 17 run 0 (8 H100, one NVSwitch node) with a budget of 1000 packets: 16 GiB is
        # extrapolated from 512 KiB and 1 MiB, where a ring is still mostly latency and the
        # line through them would run far faster than the links (log 34's 128-rank ring at the
        # default budget came out at 4900 GB/s on 900 GB/s NVLink). A ring's busbw is each GPU's
        # wire rate: at most the 450 GB/s NVLink's 64/65 data share, which a 16 GiB ring nears.
        r = collsim("validate", log("17"), "--run", "0", "--algo", "ring", "--max-packets", "1000", "--min-bytes",
                    "16GiB", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        size = json.loads(r.stdout)["sizes"][0]
        self.assertTrue(size["algorithm"].startswith("ring Simple"), size["algorithm"])
        self.assertIn("extrapolated from 512KiB and 1MiB at the busiest link's rate", size["algorithm"])
        self.assertLessEqual(size["simulated_busbw"], 450 * 64 / 65)
        self.assertGreater(size["simulated_busbw"], 0.95 * 450 * 64 / 65)
        # LL128 from 4, 8 and 16 MiB: the slope above 8 MiB is under half the one below (the
        # per-step latency stops growing with the chunks), and the output says the line is
        # not to be trusted.
        r = collsim("validate", log("17"), "--run", "0", "--algo", "ring", "--proto", "LL128", "--max-packets",
                    "20000", "--min-bytes", "32MiB", "--max-bytes", "32MiB", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        size = json.loads(r.stdout)["sizes"][0]
        self.assertIn("extrapolated from 8MiB and 16MiB", size["algorithm"])
        self.assertIn("not yet linear", size["algorithm"])

    def test_broadcast_and_reduce_run_as_nccls_ring_chains(self):
        # nccl-tests broadcast_perf and reduce_perf on log 17's 8 H100 (times made up, busbw =
        # algbw as nccl-tests computes it). NCCL runs both as a chain around the ring in chunks
        # of one 512 KiB step. At 1 GiB each of 24 channels pipelines 85 chunks through 7 hops
        # (85/92 busy) and each 28 us chunk waits a 3.4 us step (89%): ~82% of 450 x 64/65 GB/s.
        # At 4 MiB (LL128) a chain streams: well under the 7 x 4 MiB / 443 GB/s = 66 us that
        # forwarding each step whole at every hop would take, and above one pass, 10 us.
        with open(log("17")) as f:
            header = f.read().split("# Reducing")[0]
        link = 450 * 64 / 65
        with tempfile.TemporaryDirectory() as d:
            for program, redop in (("broadcast_perf", "none"), ("reduce_perf", "sum")):
                rows = []
                for size in (4 << 20, 1 << 30):
                    t = 20 + size / 300e3
                    bw = size / t / 1e3
                    rows.append(f"{size:12d}  {size // 4:12d}     float  {redop:>6s}       0  {t:7.2f}  {bw:6.2f}  "
                                f"{bw:6.2f}       0  {t:7.2f}  {bw:6.2f}  {bw:6.2f}       0")
                path = os.path.join(d, program + ".log")
                with open(path, "w") as f:
                    f.write(header.replace("all_reduce_perf", program) +
                            "#       size         count      type   redop    root     time   algbw   busbw  #wrong"
                            "     time   algbw   busbw  #wrong\n" + "\n".join(rows) + "\n")
                r = collsim("validate", path, "--json")
                self.assertEqual(r.returncode, 0, r.stderr)
                small, large = json.loads(r.stdout)["sizes"]
                self.assertTrue(small["algorithm"].startswith("pipelined_chain LL128"), small["algorithm"])
                self.assertLess(small["simulated_us"], 0.8 * 7 * (4 << 20) / link / 1e3, program)
                self.assertGreater(small["simulated_us"], (4 << 20) / link / 1e3, program)
                self.assertTrue(large["algorithm"].startswith("pipelined_chain Simple"), large["algorithm"])
                self.assertGreater(large["simulated_busbw"], 0.75 * link, program)
                self.assertLess(large["simulated_busbw"], 0.9 * link, program)

    def test_streaming_hops_pay_a_steps_latency_once_per_hop(self):
        # Log 17's 8 H100 (24 channels), an LL128 tree at 32 MiB. Each tree of a pair is the
        # node's chain (7 hops up, 7 down); per GPU 2 trees x 2 directions x 7/8 x S/2 = 1.75 S
        # leaves over its 450 x 64/65 GB/s link as LL128 lines (128/120), of which a tree of 32
        # MiB gets 0.9 (NCCL's tree correction, index log2(32 MiB / 64) = 19): 157.1 us.
        # Streaming, the time is that, LL128's 14 us launch, one 1.9 us step per hop (14: 26.6
        # us) and the chain's fill in 8 KiB pieces (1.4 MB per channel / (16 x 14) rounded up to
        # 4 KiB), 14 x 8 KiB x 128/120 at half a channel's share of the link (0.9 x 443 / 24 / 2
        # GB/s): 14.7 us; 212 us. Stored and forwarded in NCCL's 72000 B chunks it is slower.
        args = ("validate", log("17"), "--run", "0", "--algo", "double_binary_tree", "--proto", "LL128",
                "--min-bytes", "32MiB", "--max-bytes", "32MiB", "--json")
        times = {}
        for mode in ("store", "stream"):
            r = collsim(*args, *(["--streaming-hops"] if mode == "stream" else []))
            self.assertEqual(r.returncode, 0, r.stderr)
            size = json.loads(r.stdout)["sizes"][0]
            self.assertEqual(size["algorithm"], "double_binary_tree LL128 x24" + (" streaming" if mode == "stream" else "") +
                             " at 0.9 of the links (NCCL's tree correction)")
            times[mode] = size["simulated_us"]
        link = 450e3 * 64 / 65 * 0.9  # bytes per us
        wire = 1.75 * (32 << 20) * 128 / 120 / link
        expected = wire + 14 + 14 * 1.9 + 14 * 8192 * 128 / 120 / (link / 24 / 2)
        self.assertAlmostEqual(times["stream"], expected, delta=0.05 * expected)
        self.assertGreater(times["store"], times["stream"] + 25)

    def test_collectives_collsim_does_not_simulate_are_refused_not_guessed(self):
        # scatter_perf prints busbw = algbw (n-1)/n and no redop, as allgather does: a run named
        # gather, scatter or hypercube must not be simulated as what its columns resemble.
        with open(log("17")) as f:
            text = f.read()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "scatter.log")
            with open(path, "w") as f:
                f.write(text.replace("all_gather_perf", "scatter_perf"))
            r = collsim("validate", path, "--run", "1")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("nccl-tests scatter_perf measures a collective that collsim does not simulate", r.stderr)
            r = collsim("validate", path, "--run", "0", "--max-bytes", "32MiB")  # the all_reduce_perf run
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_point_to_point_goes_through_the_gpus_own_nic(self):
        # Log 36's sendrecv: 16 ranks on 2 nodes of 8, rank r sends to r + 1. Ranks 7 and 15
        # send across, each through its GPU's one 400G NIC as NCCL's p2p does, whatever its 24
        # channels (spread over the node's 8 NICs it would reach 8 times that): busbw = algbw
        # <= 50 GB/s x 64/65 of header = 49.2 GB/s.
        r = collsim("validate", log("36"), "--system", "dgx-h100", "--run", "1", "--min-bytes", "1GiB",
                    "--max-bytes", "1GiB", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        size = json.loads(r.stdout)["sizes"][0]
        self.assertLessEqual(size["simulated_busbw"], 50 * 64 / 65 * 1.001)
        self.assertGreater(size["simulated_busbw"], 0.95 * 50 * 64 / 65)

    def test_a_transport_carries_its_share_of_the_nics_line_rate(self):
        # Log 04's 2 x 8 H100 on a system file of 4 x 200G TCPX NICs per node: 75% of 200 Gb/s
        # each, 75 GB/s per node. A 2-node NVLSTree crosses the network with S per node and
        # direction, so its busbw is at most 75 x 1.875 (16 ranks) x 64/65 of headers.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "a3-high.yaml")
            with open(path, "w") as f:
                f.write("base: dgx-h100\nnics_per_node: 4\nnic: 200Gbps\ntransport: tcpx\n"
                        "net_message_latency: 25us\n")
            r = collsim("validate", log("04"), "--system", path, "--min-bytes", "1GiB", "--max-bytes", "1GiB",
                        "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            run = json.loads(r.stdout)["runs"][0]
            self.assertEqual(run["system_hardware"]["transport"], "tcpx")
            self.assertEqual(run["system_hardware"]["net_efficiency"], 0.75)
            bound = 75 * 1.875 * 64 / 65
            busbw = run["sizes"][0]["simulated_busbw"]
            self.assertLessEqual(busbw, bound * 1.001)
            self.assertGreater(busbw, 0.95 * bound)
            # Without the latency nobody has published for TCPX, the file is refused at its line.
            with open(path, "w") as f:
                f.write("base: dgx-h100\ntransport: tcpx\n")
            r = collsim("validate", log("04"), "--system", path)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("a3-high.yaml:2:12: transport tcpx needs 'net_message_latency'", r.stderr)

    def test_a_job_on_some_gpus_of_a_node_gets_only_their_nics(self):
        # 2 nodes with g GPUs each of a DGX H100 (one 400G NIC per GPU) or of a 4 x H100 node
        # with 4 x 200G: every ring channel crosses the network once per node and direction,
        # through a NIC of the job's GPUs, so a ring all-reduce's busbw is at most the g NICs'
        # rate x 64/65 of header. Sending through all the node's NICs it would be 8x (1 GPU),
        # 4x (2 GPUs) and 2x (4 GPUs) that. The same for one GPU's sendrecv: its one NIC.
        with tempfile.TemporaryDirectory() as d:
            for system, nic_gbytes, counts in (("dgx-h100", 50, (1, 2, 4, 8)), ("h100-4gpu-ib", 25, (1, 2, 4))):
                for g in counts:
                    path = os.path.join(d, "job.log")
                    write_two_node_log(path, g, "all_reduce_perf")
                    r = collsim("validate", path, "--system", system, "--algo", "ring", "--json")
                    self.assertEqual(r.returncode, 0, r.stderr)
                    run = json.loads(r.stdout)["runs"][0]
                    self.assertEqual(run["nics_used_per_node"], list(range(g)))
                    bound = g * nic_gbytes * 64 / 65
                    busbw = run["sizes"][0]["simulated_busbw"]
                    self.assertLessEqual(busbw, bound * 1.001, (system, g))
                    self.assertGreater(busbw, 0.95 * bound, (system, g))
            write_two_node_log(path, 1, "sendrecv_perf")
            r = collsim("validate", path, "--system", "dgx-h100", "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            busbw = json.loads(r.stdout)["runs"][0]["sizes"][0]["simulated_busbw"]
            self.assertLessEqual(busbw, 50 * 64 / 65 * 1.001)
            self.assertGreater(busbw, 0.95 * 50 * 64 / 65)

    def test_collnet_needs_a_network_with_sharp(self):
        # CollNetChain reduces in the switches: EFA has no SHARP, and cannot have it (SHARP is
        # InfiniBand's); the same nodes on InfiniBand with SHARP, as a system file, can.
        r = collsim("validate", log("25"), "--system", "h100-efa", "--algo", "collnet_chain")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("collnet_chain needs a network that reduces in its switches (SHARP), and h100-efa has none",
                      r.stderr)
        with tempfile.TemporaryDirectory() as d:
            sharp = os.path.join(d, "efa-sharp.yaml")
            with open(sharp, "w") as f:
                f.write("base: h100-efa\nsharp: true\n")
            r = collsim("validate", log("25"), "--system", sharp, "--algo", "collnet_chain")
            self.assertEqual(r.returncode, 1)
            self.assertIn("efa-sharp.yaml:2:8: sharp needs transport: ib", r.stderr)
            with open(sharp, "w") as f:
                f.write("base: h100-efa\ntransport: ib\nsharp: true\n")
            r = collsim("validate", log("25"), "--system", sharp, "--algo", "collnet_chain", "--min-bytes", "1GiB",
                        "--max-bytes", "1GiB", "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            run = json.loads(r.stdout)["runs"][0]
            self.assertTrue(run["system_hardware"]["sharp"])
            self.assertTrue(run["sizes"][0]["algorithm"].startswith("collnet_chain"), run["sizes"][0]["algorithm"])

    def test_collnet_direct_is_bound_by_the_gpus_links(self):
        # Log 33's 12 x 8 H100 with CollNetDirect: each GPU sends 7 of 8 shares to the node's
        # others, its reduced share to its rail and the total share to the others: 15/8 of S
        # over its 450 GB/s NVLink, so algbw <= 450 x 8/15 x 64/65 and busbw <= that x 2(n-1)/n.
        r = collsim("validate", log("33"), "--system", "dgx-h100", "--algo", "collnet_direct", "--min-bytes", "1GiB",
                    "--max-bytes", "1GiB", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        size = json.loads(r.stdout)["sizes"][0]
        self.assertTrue(size["algorithm"].startswith("collnet_direct Simple x24"), size["algorithm"])
        bound = 450 * 8 / 15 * 64 / 65 * 2 * 95 / 96
        self.assertLessEqual(size["simulated_busbw"], bound * 1.001)
        self.assertGreater(size["simulated_busbw"], 0.8 * bound)
        r = collsim("validate", log("33"), "--system", "dgx-h100", "--algo", "collnet_direct", "--proto", "LL128")
        self.assertEqual(r.returncode, USAGE)
        self.assertIn("CollNetDirect runs the Simple protocol only, not LL128", r.stderr)

    def test_list_systems(self):
        r = collsim("validate", "--list-systems")
        self.assertEqual(r.returncode, 0, r.stderr)
        for name in ("dgx-a100", "a100-efa", "dgx-h100", "h100-efa", "pcie-8gpu", "dgx-b200", "gb200-nvl72",
                     "gb300-nvl72"):
            self.assertIn(name, r.stdout)

    def test_a_system_file_with_fewer_nics_is_bound_by_them(self):
        # Log 25's 2 nodes of 4 H100 with 2 of their 4 200G NICs: a double binary tree over 2
        # nodes sends S up one tree and S down the other out of each node, so algbw is at most
        # 2 x 25 GB/s and busbw = algbw x 2 x 7/8 at most 87.5 GB/s (with 4 NICs, 175).
        with tempfile.TemporaryDirectory() as d:
            thin = os.path.join(d, "thin.yaml")
            with open(thin, "w") as f:
                f.write("base: h100-4gpu-ib\nname: two-nics\nnics_per_node: 2\nnic: 200Gbps\n")
            r = collsim("validate", log("25"), "--system", thin, "--min-bytes", "4GiB", "--max-bytes", "4GiB",
                        "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            size = json.loads(r.stdout)["sizes"][0]
            self.assertTrue(size["algorithm"].startswith("double_binary_tree Simple"), size["algorithm"])
            self.assertLess(size["simulated_busbw"], 87.5)
            self.assertGreater(size["simulated_busbw"], 0.9 * 87.5)

    def test_system_file_errors_name_file_and_line(self):
        with tempfile.TemporaryDirectory() as d:
            cases = [
                ("base: dgx-h100\nnics: 4\n", ":2:1: unknown key 'nics'"),
                ("base: dgx-h100\nnic: fast\n", ":2:6: key 'nic': expected a bandwidth"),
                ("base: dgx-h9\n", ":1:7: key 'base': no built-in preset 'dgx-h9'"),
                ("arch: hopper\ngpus_per_node: 8\n", ":1:1: missing key 'intra_node'"),
                ("base: dgx-h100\nintra_node: pcie\n", ":2:13: nvls needs intra_node: nvswitch"),
                ("base: dgx-a100\nchannels: 65\n", ":2:11: key 'channels': expected 1 to 64"),
                ("base: [dgx-h100\n", "bad.yaml:"),
            ]
            for text, message in cases:
                bad = os.path.join(d, "bad.yaml")
                with open(bad, "w") as f:
                    f.write(text)
                r = collsim("validate", log("12"), "--system", bad)
                self.assertNotEqual(r.returncode, 0, text)
                self.assertIn(message, r.stderr, text)
            r = collsim("validate", log("12"), "--system", os.path.join(d, "missing.yaml"))
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("missing.yaml: no such system file", r.stderr)
            r = collsim("validate", log("12"), "--system", "dgx-h9")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("unknown system preset 'dgx-h9'", r.stderr)
        r = collsim("validate", "--help-system")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("nics_per_node", r.stdout)

    def test_b200_device_lines_infer_the_dgx_b200_preset(self):
        with tempfile.TemporaryDirectory() as d:
            with open(log("17")) as f:
                text = f.read().replace("NVIDIA H100 80GB HBM3", "NVIDIA B200")
            b200 = os.path.join(d, "b200.log")
            with open(b200, "w") as f:
                f.write(text)
            r = collsim("validate", b200, "--run", "1", "--max-bytes", "64MiB", "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            run = json.loads(r.stdout)["runs"][0]
            self.assertEqual(run["system"], "dgx-b200")
            # Allgather on 8 GPUs: every busbw is below NVLink5's 900 GB/s.
            for s in run["sizes"]:
                self.assertLess(s["simulated_busbw"], 900)


# The two longest simulations, in a class of their own so that ctest runs them beside the rest
# (under the sanitizers each is minutes).
class ValidateLongRuns(unittest.TestCase):
    def test_collnet_chain_is_bound_by_the_chain_on_nvlink(self):
        # Log 33: 12 nodes x 8 H100, NCCL_ALGO=COLLNETCHAIN. Per channel every GPU but the
        # chain's tail sends its share up and down the chain (the head up to the network), and
        # chains rotate over the 8 GPUs: a GPU sends S * (2 - 1/8) = 1.875 S over its NVLink.
        # At 0.8 of 450 GB/s, with 64 of every 65 bytes data, 512 MiB needs at least
        # 1.875 * 2^29 B / (360 GB/s * 64/65) = 2839.6 us; the 8x 400G NICs carry only S per
        # node and are not the limit. The pipeline's fill and latency add a few percent. With
        # --max-packets 500000 the size is extrapolated from 32 and 64 MiB, where NCCL cuts
        # 64 KiB chunks and a GPU's two sends per chunk would make the Simple protocol's step
        # cost the limit: the calibration sets it to 0 to see the links alone.
        with tempfile.TemporaryDirectory() as d:
            cal = os.path.join(d, "cal.yaml")
            with open(cal, "w") as f:
                f.write("system: dgx-h100\nparameters:\n  gpu_link_efficiency: 0.8\n  simple_step_us: 0\n")
            r = collsim("validate", log("33"), "--system", "dgx-h100", "--algo", "collnet_chain", "--max-bytes",
                        "512MiB", "--max-packets", "500000", "--json", "--calibration", cal)
        self.assertEqual(r.returncode, 0, r.stderr)
        size = json.loads(r.stdout)["sizes"][0]
        self.assertTrue(size["algorithm"].startswith("collnet_chain Simple x24"), size["algorithm"])
        bound = 1.875 * 2**29 / (360e9 * 64 / 65) * 1e6
        self.assertGreaterEqual(size["simulated_us"], bound)
        self.assertLess(size["simulated_us"], 1.08 * bound)
        # NVLSTree over 10 nodes of 8 H100 (log 19's all_reduce run): the nodes' switches reduce
        # over NCCL's double binary tree. Its channels spread over each node's 8 x 400G NICs: on
        # one NIC per node (50 GB/s) no tree could pass 50 x 1.875 = 94 GB/s of bus bandwidth.
        r = collsim("validate", log("19"), "--run", "0", "--algo", "nvls_tree", "--min-bytes", "64MiB",
                    "--max-bytes", "64MiB", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        size = json.loads(r.stdout)["sizes"][0]
        self.assertTrue(size["algorithm"].startswith("nvls_tree Simple"), size["algorithm"])
        self.assertGreater(size["simulated_busbw"], 100)
        r = collsim("validate", log("17"), "--run", "0", "--algo", "collnet_chain")
        self.assertEqual(r.returncode, USAGE)
        self.assertIn("collnet_chain is emulated only for allreduce on two or more full nodes", r.stderr)
        r = collsim("validate", log("33"), "--system", "dgx-h100", "--algo", "collnet_chain", "--proto", "LL")
        self.assertEqual(r.returncode, USAGE)
        self.assertIn("CollNetChain runs the Simple protocol only, not LL", r.stderr)

    def test_a_system_file_based_on_a_preset_simulates_as_the_preset(self):
        with tempfile.TemporaryDirectory() as d:
            same = os.path.join(d, "snellius.yaml")
            with open(same, "w") as f:
                f.write("base: h100-4gpu-ib\n")
            args = (log("25"), "--min-bytes", "256MiB", "--max-bytes", "1GiB", "--json")
            preset = json.loads(collsim("validate", *args, "--system", "h100-4gpu-ib").stdout)
            r = collsim("validate", *args, "--system", same)
            self.assertEqual(r.returncode, 0, r.stderr)
            custom = json.loads(r.stdout)
            self.assertEqual(custom["runs"][0]["system"], "snellius")  # the file's name
            # The JSON says what hardware was simulated: the preset's, for a file based on it.
            hardware = custom["runs"][0]["system_hardware"]
            self.assertEqual(hardware, dict(preset["runs"][0]["system_hardware"],
                                            description="based on h100-4gpu-ib, from " + same))
            self.assertEqual((hardware["gpus_per_node"], hardware["intra_node"], hardware["nics_per_node"],
                              hardware["nic_gbits_per_s"]), (4, "nvlink-mesh", 4, 200))
            self.assertEqual([s["simulated_us"] for s in custom["sizes"]], [s["simulated_us"] for s in preset["sizes"]])


class Progress(unittest.TestCase):
    def test_progress_lines_count_sizes_and_show_no_clock(self):
        # Each size is a simulation of its own from time 0, so a simulated clock ("sim 0.000 us")
        # would say nothing: the line counts sizes.
        r = collsim("validate", log("12"), "--progress-every", "0s")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [line for line in r.stderr.splitlines() if line.startswith("collsim: progress: ")]
        self.assertTrue(lines, r.stderr)
        self.assertIn("sizes 3/3 (100.0%)", lines[-1])
        self.assertFalse([line for line in lines if "sim " in line], lines)


# Few sizes, and large ones extrapolated early: what these tests check (which parameter moves,
# and where the fit settles) holds, at a fraction of the time (the sanitizer build runs them too).
SMALL_FIT = ("--sizes-per-run", "8", "--max-packets", "200000")


class Calibrate(unittest.TestCase):
    def test_fit_on_one_log_and_validate_another(self):
        with tempfile.TemporaryDirectory() as d:
            cal = os.path.join(d, "cal.yaml")
            r = collsim("calibrate", log("22"), "--system", "h100-4gpu-ib", "-o", cal, "--iterations", "2")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("pass 2:", r.stdout)
            with open(cal) as f:
                text = f.read()
            self.assertIn("system: h100-4gpu-ib", text)
            self.assertIn("gpu_link_efficiency:", text)
            before = json.loads(collsim("validate", log("22"), "--json").stdout)
            after = json.loads(collsim("validate", log("22"), "--json", "--calibration", cal).stdout)
            # Fitted on this log, the fit must be at least as good as the uncalibrated model.
            self.assertLessEqual(after["median_abs_error_large"], before["median_abs_error_large"])
            r = collsim("validate", log("23"), "--json", "--calibration", cal)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(r.stdout)["runs"][0]["system"], "h100-4gpu-ib")

    def test_each_log_may_have_its_own_options(self):
        # CollNetChain needs several nodes: for one-node log 22 and two-node log 25 together it
        # can only be 25's own option, and the fit then runs with it.
        r = collsim("calibrate", log("22"), log("25"), "--system", "h100-4gpu-ib", "-o", os.devnull, "--algo",
                    "collnet_chain", "--iterations", "1", "--sizes-per-run", "4")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("collnet_chain is emulated only for allreduce on two or more full nodes", r.stderr)
        with tempfile.TemporaryDirectory() as d:
            cal = os.path.join(d, "cal.yaml")
            r = collsim("calibrate", log("22"), log("25"), "--system", "h100-4gpu-ib", "-o", cal, "--log-options",
                        log("25") + ": --algo collnet_chain --channels 4", "--iterations", "1", "--sizes-per-run", "4")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("pass 1:", r.stdout)
            for options, message in (
                    ("elsewhere.log: --algo ring", "'elsewhere.log' is not one of the logs given"),
                    (log("25") + " --algo ring", "expected 'LOG: OPTIONS'"),
                    (log("25") + ": --algo", "--log-options: '" + log("25") + ": --algo'"),
                    (log("25") + ": --proto LL64", "LL, LL128, Simple or auto")):
                r = collsim("calibrate", log("22"), log("25"), "--system", "h100-4gpu-ib", "-o", cal,
                            "--log-options", options)
                self.assertNotEqual(r.returncode, 0, options)
                self.assertIn(message, r.stderr, options)

    def test_ll128_between_nodes_is_fitted_apart_from_simple(self):
        # Log 25 (2 x 4 H100, 4 x 200G): its 64-256 MiB LL128 trees move a NIC byte at ~78% of
        # the rate its >= 512 MiB Simple trees do (3959 us for 256 MiB against 6235 for 512,
        # with LL128's 128/120 lines counted). A calibration file with that share must slow the
        # LL128 sizes between nodes by it and leave the Simple ones alone.
        with open(os.path.join(ROOT, "validation", "calibration", "h100-4gpu-ib.yaml")) as f:
            base = f.read()
        with tempfile.TemporaryDirectory() as d:
            times = {}
            for share in ("1.0", "0.5"):
                cal = os.path.join(d, share + ".yaml")
                with open(cal, "w") as f:
                    f.write(base.replace("ll128_network_efficiency: ", "ll128_network_efficiency: " + share + " #"))
                r = collsim("validate", log("25"), "--calibration", cal, "--min-bytes", "256MiB", "--max-bytes",
                            "512MiB", "--json")
                self.assertEqual(r.returncode, 0, r.stderr)
                times[share] = {s["bytes"]: (s["algorithm"], s["simulated_us"]) for s in json.loads(r.stdout)["sizes"]}
            ll128, simple = 256 << 20, 512 << 20
            self.assertTrue(times["1.0"][ll128][0].startswith("double_binary_tree LL128"), times["1.0"][ll128])
            self.assertTrue(times["1.0"][simple][0].startswith("double_binary_tree Simple"), times["1.0"][simple])
            self.assertEqual(times["0.5"][simple][1], times["1.0"][simple][1])
            # Bound by the NICs: half their rate, close to twice the time.
            self.assertGreater(times["0.5"][ll128][1], 1.8 * times["1.0"][ll128][1])

    def test_simple_ring_latency_is_mostly_fixed(self):
        # On the 4-GPU mesh allreduce of S (6 ring rounds) takes as long as allgather of 2S (3
        # rounds, the same bytes per rank): 327.4 vs 329.7 us at 64/128 MiB in logs 22 and 23.
        # NCCL's table charges 8.4 us plus 3.4 us per round, which would make the allreduce ~10 us
        # slower; fitted on both logs, the per-round part must shrink and the fixed part grow.
        with tempfile.TemporaryDirectory() as d:
            both = os.path.join(d, "both.yaml")
            r = collsim("calibrate", log("22"), log("23"), "--system", "h100-4gpu-ib", "-o", both,
                        "--sizes-per-run", "16")
            self.assertEqual(r.returncode, 0, r.stderr)
            fitted = calibration_parameters(both)
            self.assertLess(fitted["simple_step_us"], 2.5, r.stdout)
            self.assertGreater(fitted["simple_launch_us"], 15.0, r.stdout)
            # Reduce-scatter on the same node, not used for fitting, within the 10% target.
            v = json.loads(collsim("validate", log("24"), "--json", "--calibration", both).stdout)
            self.assertLessEqual(v["median_abs_error_large"], 0.10)
            # One collective alone has one round count: only the fixed part can move.
            one = os.path.join(d, "one.yaml")
            r = collsim("calibrate", log("22"), "--system", "h100-4gpu-ib", "-o", one,
                        "--iterations", "1", "--sizes-per-run", "16")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertAlmostEqual(calibration_parameters(one)["simple_step_us"], 3.4, places=6)

    def test_network_latency_fit_settles_where_a_ring_crosses_more_than_counted(self):
        # Log 06 (2 x 4 GB300 over RDMA): its 4-32 KiB allgathers take ~28.5 us where the
        # uncalibrated model gives 16.8. Calibrate counts one network crossing for the ring, but
        # the simulated time grows by ~3x the latency added, so a full step (11.7 us) overshot
        # and the fit swung between 0 and 11.7 for ever. The secant step must settle, and the
        # small sizes then fit.
        with tempfile.TemporaryDirectory() as d:
            cal = os.path.join(d, "06.yaml")
            r = collsim("calibrate", log("06"), "--system", "gb300-4gpu-rdma", "-o", cal, *SMALL_FIT)
            self.assertEqual(r.returncode, 0, r.stderr)
            latency = [float(line.split("net_latency_us ")[1].split()[0])
                       for line in r.stdout.splitlines() if line.startswith("pass ")]
            self.assertEqual(len(latency), 5, r.stdout)
            self.assertGreater(latency[-1], 1.0, r.stdout)
            self.assertAlmostEqual(latency[-1], latency[-2], delta=0.05 * latency[-1], msg=r.stdout)
            self.assertNotIn("not settled", r.stdout)
            v = json.loads(collsim("validate", log("06"), "--json", "--calibration", cal, "--max-bytes", "32KiB").stdout)
            self.assertLessEqual(v["median_abs_error_small"], 0.15)

    def test_from_keeps_what_the_new_logs_do_not_inform(self):
        # Log 25 spans two nodes: its sizes inform the NICs' efficiency and the network's
        # latency, not the NVLink efficiency or the Simple ring's latency, which one-node logs
        # fit (made up here). --from must keep those and name both trainings.
        with tempfile.TemporaryDirectory() as d:
            start = os.path.join(d, "start.yaml")
            with open(start, "w") as f:
                f.write("system: h100-4gpu-ib\ntrained_on: [one-node.log]\nparameters:\n"
                        "  gpu_link_efficiency: 0.7\n  simple_launch_us: 30\n")
            out = os.path.join(d, "out.yaml")
            r = collsim("calibrate", log("25"), "--system", "h100-4gpu-ib", "--from", start, "-o", out,
                        "--iterations", "1", *SMALL_FIT)
            self.assertEqual(r.returncode, 0, r.stderr)
            fitted = calibration_parameters(out)
            self.assertEqual(fitted["gpu_link_efficiency"], 0.7)
            self.assertEqual(fitted["simple_launch_us"], 30.0)
            self.assertLess(fitted["nic_efficiency"], 1.0, r.stdout)
            # One pass moved the network latency from 0 (2.3 us): calibrate says the fit has not settled.
            self.assertRegex(r.stdout, r"not settled: the last pass moved .*net_latency_us 0\.000 -> ")
            with open(out) as f:
                trained_on = next(line for line in f if line.startswith("trained_on:"))
            self.assertIn("one-node.log", trained_on)
            self.assertIn(os.path.basename(log("25")), trained_on)
            # The options that say how NCCL ran the logs are validate's, checked the same way.
            r = collsim("calibrate", log("25"), "--system", "h100-4gpu-ib", "-o", out, "--proto", "LL64")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("--proto", r.stderr)

    def test_host_floor_is_fitted_per_gpu_a_thread_drives(self):
        # Log 22: one thread drives 4 GPUs (-g 4), and every size up to 32 KiB takes ~17 us, far
        # above NCCL's ~10 us ring LL: 17 / 4 = 4.25 us to enqueue on one GPU, the value once
        # fitted by hand (kHostIssueUsPerGpu). Calibrate must find it from the log.
        with tempfile.TemporaryDirectory() as d:
            cal = os.path.join(d, "22.yaml")
            r = collsim("calibrate", log("22"), "--system", "h100-4gpu-ib", "-o", cal, "--iterations", "1",
                        *SMALL_FIT)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertAlmostEqual(calibration_parameters(cal)["host_issue_us"], 4.25, delta=0.15, msg=r.stdout)
            # MPI runs (-g 1) hide the enqueueing: log 25 leaves it at -1 (the built-in value).
            r = collsim("calibrate", log("25"), "--system", "h100-4gpu-ib", "-o", cal, "--iterations", "1",
                        *SMALL_FIT)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(calibration_parameters(cal)["host_issue_us"], -1.0)

    def test_across_nodes_the_slower_of_nvlink_and_the_nics_is_fitted(self):
        # Log 25's 2 x 4 H100 have 4 x 200G per node (100 GB/s) against 450 GB/s of NVLink per
        # GPU: its large sizes fit the NICs. Give the nodes 4 x 800G (400 GB/s) and 250 GB/s of
        # NVLink, and NVLink limits them (still fast enough for the run to be consistent with
        # the system), so the fit must move the NVLink efficiency and leave the NICs' alone (an
        # NVL72 rack, a 400G NIC per GPU, is such a system).
        with tempfile.TemporaryDirectory() as d:
            fast_nics = os.path.join(d, "fast-nics.yaml")
            with open(fast_nics, "w") as f:
                f.write("base: h100-4gpu-ib\ngpu_link: 250GB/s\nnic: 800Gbps\n")
            fitted = {}
            for system in ("h100-4gpu-ib", fast_nics):
                cal = os.path.join(d, "cal.yaml")
                r = collsim("calibrate", log("25"), "--system", system, "-o", cal, "--iterations", "1", *SMALL_FIT)
                self.assertEqual(r.returncode, 0, r.stderr)
                fitted[system] = calibration_parameters(cal)
            self.assertLess(fitted["h100-4gpu-ib"]["nic_efficiency"], 1.0)
            self.assertEqual(fitted["h100-4gpu-ib"]["gpu_link_efficiency"], 1.0)
            self.assertEqual(fitted[fast_nics]["nic_efficiency"], 1.0)
            self.assertLess(fitted[fast_nics]["gpu_link_efficiency"], 1.0)


def calibration_parameters(path):
    values = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.strip().partition(":")
            if line.startswith("  ") and value.strip():
                values[key] = float(value)
    return values


if __name__ == "__main__":
    unittest.main()
