#!/usr/bin/env python3
"""Links and switches failing mid-run, end to end (--link-down, --switch-down, --reconvergence,
--link-speed): what is reported, the same JSON under mpirun, a disconnecting fault's report
and exit status, and a degraded link's closed form."""

import json
import os
import subprocess
import unittest

COLLSIM = os.environ["COLLSIM"]
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
ROOT = os.environ["COLLSIM_SOURCE_DIR"]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
DATA = os.path.join(ROOT, "tests", "data", "net")
LEAF_SPINE = os.path.join(ROOT, "topologies", "leaf_spine_64.yaml")
# What may differ between rank counts: how long it took and how the ranks synchronised.
VOLATILE = {"wall_s", "events_per_s", "sim_ranks", "windows", "sync_fraction", "pdes"}


def collsim(*args, ranks=0):
    cmd = ([MPIEXEC, "--oversubscribe", "-n", str(ranks)] if ranks else []) + [COLLSIM, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=ENV)


def collective(name, *extra, ranks=0, expect=0):
    r = collsim("run", "--coll", name, "--bytes", "1MiB", "--ranks", "32", "--topology", LEAF_SPINE,
                "--json", "--quiet", *extra, ranks=ranks)
    if r.returncode != expect:
        raise AssertionError(f"exit {r.returncode}, expected {expect}:\n{r.stderr}")
    return json.loads(r.stdout), r.stderr


class Faults(unittest.TestCase):
    def test_a_spine_link_failing_mid_run_is_reported_and_costs_time(self):
        # An all-to-all's 32 ranks fill leaves 0 and 1; leaf0:spine0 fails at 150 us, while
        # ranks of leaf0 send to leaf1, and is back at 400 us; routes follow 20 us after each change.
        args = ("--link-down", "leaf0:spine0@150us..400us", "--reconvergence", "20us")
        out, _ = collective("alltoall", *args)
        self.assertTrue(out["complete"])
        f = out["faults"]
        self.assertEqual(f["events"], [{"what": "link leaf0:spine0", "down_ps": 150_000_000, "up_ps": 400_000_000}])
        self.assertEqual(f["reconvergence_ps"], 20_000_000)
        self.assertGreater(f["packets_lost"], 0)
        self.assertGreater(f["flows_resent"], 0)
        self.assertLessEqual(f["flows_resent"], f["flows"])
        self.assertEqual(f["flows_given_up"], 0)
        self.assertEqual(f["makespan_without_faults_ps"], collective("alltoall")[0]["makespan_ps"])
        self.assertGreater(out["makespan_ps"], f["makespan_without_faults_ps"])
        self.assertAlmostEqual(f["slowdown"], out["makespan_ps"] / f["makespan_without_faults_ps"])
        reference = {k: v for k, v in out.items() if k not in VOLATILE}
        for ranks in (2, 4):
            other, _ = collective("alltoall", *args, ranks=ranks)
            self.assertEqual({k: v for k, v in other.items() if k not in VOLATILE}, reference, f"{ranks} ranks")

    def test_a_failed_switch_that_cuts_hosts_off_is_reported_not_waited_for(self):
        # leaf1 carries hosts 16..31, ranks 16..31 of the ring: down at 20 us for good, they are
        # cut off from everyone, and the ring cannot finish.
        out, err = collective("allreduce", "--switch-down", "leaf1@20us", "--reconvergence", "10us", expect=2)
        self.assertFalse(out["complete"])
        self.assertGreater(out["faults"]["flows_given_up"], 0)
        cut = {(g["src_host"], g["dst_host"]) for g in out["faults"]["given_up"]}
        for src, dst in cut:
            self.assertTrue(src >= 16 or dst >= 16, (src, dst))
        self.assertIn("cannot reach each other once the faults settle", err)
        self.assertIn("cut off   host", err)
        self.assertIn("blocked   rank", err)
        other, _ = collective("allreduce", "--switch-down", "leaf1@20us", "--reconvergence", "10us", ranks=2, expect=2)
        self.assertEqual(other["faults"]["given_up"], out["faults"]["given_up"])

    def test_replay_names_the_collectives_a_fault_slowed(self):
        # An NCCL log's 8 ranks on leaf 0: host 3's link is down from 10 to 30 us, while the
        # all-reduce (0) runs and before the broadcast (1) ends; lost packets wait for a 50 us
        # timeout. Both collectives take longer than on the intact fabric, the all-reduce most.
        args = ("replay", os.path.join(ROOT, "tests", "data", "traces", "nccl", "snellius_2x4.log"),
                "--topology", LEAF_SPINE, "--link-down", "h3:leaf0@10us..30us", "--reconvergence", "1us",
                "--set", "rto_lossless=50us", "--json")
        r = collsim(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        f = out["faults"]
        self.assertGreater(f["slowdown"], 1)
        slowed = f["collectives_slowed"]
        self.assertEqual([c["collective"] for c in slowed], [0, 1])
        for c in slowed:
            self.assertGreater(c["duration_ps"], c["duration_without_faults_ps"])
            self.assertEqual(c["duration_ps"], out["collectives"][c["collective"]]["duration_ps"])
        r2 = collsim(*args, ranks=2)
        self.assertEqual(r2.returncode, 0, r2.stderr)
        self.assertEqual(json.loads(r2.stdout)["faults"], f)

    def test_a_link_at_half_speed_under_one_flow(self):
        # tests/net/link_change_test.cpp derives 166,623,200 ps for 1,000,000 B over h0 -1us-
        # s0 -2us- s1 -0.5us- h1 at 100 Gb/s with the middle link at 50 Gb/s.
        r = collsim("flows", "--topology", f"{DATA}/chain3.yaml", "--flows", f"{DATA}/one_flow.csv", "--json",
                    "--link-speed", "s0:s1@0s=50Gbps", ranks=2)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["makespan_ps"], 166_623_200)

    def test_a_flow_cut_off_fails_the_flows_command(self):
        r = collsim("flows", "--topology", f"{DATA}/chain3.yaml", "--flows", f"{DATA}/one_flow.csv",
                    "--link-down", "s0:s1@10us", "--reconvergence", "0")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cut off   host 0 -> host 1", r.stderr)
        self.assertIn("1 flow(s) never completed", r.stderr)

    def test_bad_faults_are_refused_with_what_is_wrong(self):
        for args, message in [
            (("--link-down", "leaf0:leaf1@1ms"), "no link between leaf0 and leaf1"),
            (("--link-down", "leaf0:spine0@2ms..1ms"), "must come back after it goes down"),
            (("--link-down", "leaf0:spine0"), "expected NODE_A:NODE_B@TIME"),
            (("--switch-down", "spine9@1ms"), "no node 'spine9'"),
            (("--switch-down", "spine0@1ms", "--reconvergence", "soon"), "--reconvergence"),
            (("--switch-down", "spine0@1ms", "--set", "rto_lossless=100ns"), "rto_lossless must be at least 1us"),
        ]:
            r = collsim("run", "--coll", "allreduce", "--bytes", "1MiB", "--ranks", "8", "--topology", LEAF_SPINE,
                        *args)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(message, r.stderr, args)
        r = collsim("run", "--coll", "allreduce", "--bytes", "1MiB", "--ranks", "8", "--network", "loggops",
                    "--link-down", "leaf0:spine0@1ms")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("--link-down", r.stderr)


if __name__ == "__main__":
    unittest.main()
