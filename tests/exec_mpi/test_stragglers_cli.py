#!/usr/bin/env python3
"""Uneven compute end to end (--slow-gpu, --stall, --noise-trace, --op-noise): expected times
derived by hand on tests/data/exec/compute_then_ring.goal, and the same times under mpirun."""

import json
import os
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
ROOT = os.environ["COLLSIM_SOURCE_DIR"]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
# 4 ranks: each computes 10 ms, sends 1 KiB to the next one of a ring, and computes 1 ms once
# the previous one's message is in.
RING = os.path.join(ROOT, "tests", "data", "exec", "compute_then_ring.goal")
MS = 1_000_000_000


def collsim(*args, ranks=0):
    cmd = ([MPIEXEC, "--oversubscribe", "-n", str(ranks)] if ranks else []) + [COLLSIM, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=ENV)


def ring(*extra, ranks=0):
    r = collsim("run", "--schedule", RING, "--topology", "fat_tree_k8", "--json", "--quiet", *extra, ranks=ranks)
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return json.loads(r.stdout)


class Stragglers(unittest.TestCase):
    def test_one_slow_gpu_holds_up_the_ring(self):
        nominal = ring()
        # Every rank ends 1 ms after the message from its predecessor, which left at 10 ms.
        message = nominal["makespan_ps"] - 11 * MS
        self.assertGreater(message, 0)
        self.assertLess(message, MS // 100)
        slow = ring("--slow-gpu", "2:1.5")
        # Rank 2 computes 15 ms, then its 1 ms as 1.5 ms: 16.5 ms, later than rank 3, which
        # gets rank 2's message at 15 ms plus the message time and ends 1 ms after.
        self.assertEqual(slow["makespan_ps"], 16_500_000_000)
        self.assertEqual(slow["compute_variation"]["slowest"], [{"rank": 2, "factor": 1.5}])
        self.assertEqual(slow["compute_variation"]["ranks_off_nominal"], 1)

    def test_a_slow_stage_in_a_1f1b_pipeline(self):
        # tests/data/exec/two_stage_1f1b.goal: two stages, two micro-batches, forward 1 ms,
        # backward 2 ms, a message m between stages. Nominal: stage 1 runs F0 [1+m, 2+m], B0 to
        # 4+m, F1 to 5+m, B1 to 7+m; stage 0 gets the last gradient at 7+2m and ends B1 at 9 ms + 2m.
        def pipeline(*extra):
            r = collsim("run", "--schedule", os.path.join(ROOT, "tests", "data", "exec", "two_stage_1f1b.goal"),
                        "--topology", "fat_tree_k8", "--json", "--quiet", *extra)
            self.assertEqual(r.returncode, 0, r.stderr)
            return json.loads(r.stdout)["makespan_ps"]
        two_m = pipeline() - 9 * MS
        self.assertGreater(two_m, 0)
        self.assertLess(two_m, MS // 100)
        # Stage 1 twice as slow: F0 to 3+m, B0 to 7+m, F1 to 9+m, B1 to 13+m; stage 0's B1
        # ends at 15 ms + 2m.
        self.assertEqual(pipeline("--slow-gpu", "1:2"), 15 * MS + two_m)
        # Stage 0 twice as slow: F0, F1 end at 2 and 4 ms; stage 1's gradients come at 5+2m and
        # 8+2m; B0 runs [5+2m, 9+2m], B1 [9+2m, 13+2m].
        self.assertEqual(pipeline("--slow-gpu", "0:2"), 13 * MS + two_m)

    def test_a_stall_delays_the_calc_it_meets(self):
        nominal = ring()
        stalled = ring("--stall", "0:5ms:2ms")
        # Rank 0's first calc runs into the stall: its message leaves 2 ms late, and so rank 1
        # ends 2 ms late, the last of all.
        self.assertEqual(stalled["makespan_ps"], nominal["makespan_ps"] + 2 * MS)
        # A stall after every calc changes nothing.
        self.assertEqual(ring("--stall", "3:20ms:5ms")["makespan_ps"], nominal["makespan_ps"])

    def test_a_noise_trace_adds_its_detours(self):
        # One 1 ms detour every 100 ms, every rank from the same offset: the 10 ms calcs meet
        # it or not depending on the offset, so the ring is late by 0 or by 1 ms.
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("# start duration, ns\n0\t1000000\n100000000\t0\n")
        nominal = ring()["makespan_ps"]
        late = ring("--noise-trace", f.name, "--noise-cosched")["makespan_ps"] - nominal
        self.assertIn(late, (0, MS))
        os.unlink(f.name)

    def test_op_noise_is_deterministic_and_seeded(self):
        a = ring("--op-noise", "lognormal:0.1")["makespan_ps"]
        self.assertEqual(a, ring("--op-noise", "lognormal:0.1")["makespan_ps"])
        self.assertNotEqual(a, ring("--op-noise", "lognormal:0.1", "--variation-seed", "2")["makespan_ps"])

    def test_straggler_report_prices_each_cause(self):
        # m: the message's time, from the nominal run (11 ms + m). With rank 2 at 1.5 and
        # rank 0 stalled 2 ms at 5 ms: the step is 16.5 ms (rank 2); without rank 2's slowness it
        # is 13 ms + m (the stall delays rank 0's message, so rank 1 ends 2 ms late), without
        # the stall still 16.5 ms.
        m = ring()["makespan_ps"] - 11 * MS
        for ranks in (0, 2):
            j = ring("--slow-gpu", "2:1.5", "--stall", "0:5ms:2ms", "--straggler-report", ranks=ranks)
            slow, stall = j["stragglers"]
            self.assertEqual(slow["source"], "rank 2 x1.5")
            self.assertEqual(slow["step_delay_ps"], 3_500_000_000 - m)
            # Rank 2 ends at 16.5 ms instead of 11 ms + m; rank 3, 1 ms after rank 2's message,
            # at 16 ms + m instead of 11 ms + m.
            self.assertEqual(slow["most_delayed"], [{"rank": 2, "delay_ps": 5_500_000_000 - m},
                                                    {"rank": 3, "delay_ps": 5 * MS}])
            self.assertEqual(stall["source"], "stall of rank 0 at 5ms for 2ms")
            self.assertEqual(stall["step_delay_ps"], 0)
            # Rank 1 waits for rank 0's late message: 13 ms + m instead of 11 ms + m; rank 0
            # itself ends its last calc at 13 ms instead of 11 ms + m.
            self.assertEqual(stall["most_delayed"], [{"rank": 1, "delay_ps": 2 * MS},
                                                     {"rank": 0, "delay_ps": 2 * MS - m}])
        r = collsim("workload", "gpt3_1.3b", "--slow-gpu", "1:2", "--straggler-report")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("is for run", r.stderr)

    def test_loggops_sees_the_same_straggler(self):
        nominal = ring("--network", "loggops")["makespan_ps"]
        slow = ring("--network", "loggops", "--slow-gpu", "2:1.5")["makespan_ps"]
        # The same 16.5 ms for rank 2, plus LogGOPS's overheads around its receive.
        self.assertGreaterEqual(slow, 16_500_000_000)
        self.assertLess(slow - 16_500_000_000, nominal - 11 * MS + MS // 100)

    def test_the_same_times_on_one_two_and_four_ranks(self):
        args = ("--slow-gpus", "2:1.3", "--op-noise", "normal:0.05", "--stall", "1:3ms:1ms")
        one = ring(*args)
        for ranks in (2, 4):
            other = ring(*args, ranks=ranks)
            self.assertEqual(other["makespan_ps"], one["makespan_ps"], ranks)
            self.assertEqual(other["compute_variation"], one["compute_variation"], ranks)

    def test_bad_settings_are_clear_errors(self):
        for args, text in ((("--slow-gpu", "9:2"), "names rank 9, but the schedule has 4"),
                           (("--slow-gpu", "1:0"), "expected a time factor above 0"),
                           (("--op-noise", "gauss:1"), "unknown distribution 'gauss'"),
                           (("--stall", "1:5ms"), "expected RANK:AT:FOR"),
                           (("--noise-cosched",), "needs --noise-trace")):
            r = collsim("run", "--schedule", RING, "--topology", "fat_tree_k8", *args)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn("collsim: error:", r.stderr)
            self.assertIn(text, r.stderr, args)
        # Reused collective timings were taken without the stragglers.
        r = collsim("workload", "gpt3_1.3b", "--fast-forward", "collectives", "--slow-gpu", "1:2")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("give --fast-forward off", r.stderr)


if __name__ == "__main__":
    unittest.main()
