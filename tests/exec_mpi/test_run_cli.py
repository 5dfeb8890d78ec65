"""`collsim gen` and `collsim run` as a user types them; `run` gives the same JSON on 1, 2
and 4 ranks apart from timings and synchronisation statistics."""

import json
import os
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
ROOT = os.environ["COLLSIM_SOURCE_DIR"]
DATA = os.path.join(ROOT, "tests", "data", "exec")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
VOLATILE = {"wall_s", "events_per_s", "sim_ranks", "windows", "sync_fraction", "pdes"}
LEAF_SPINE = os.path.join(ROOT, "topologies", "leaf_spine_64.yaml")


def collsim(*args, ranks=0):
    cmd = ([MPIEXEC, "--oversubscribe", "-n", str(ranks)] if ranks else []) + [COLLSIM, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=ENV)


class Gen(unittest.TestCase):
    def test_verify_json_has_the_documented_keys(self):
        r = collsim("gen", "allreduce", "--algo", "ring", "--ranks", "8", "--bytes", "1MiB", "--verify", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        j = json.loads(r.stdout)
        self.assertTrue(j["ok"])
        self.assertEqual(j["collective"], "allreduce")
        self.assertEqual(j["algorithm"], "ring")
        self.assertEqual(j["ranks"], 8)
        # Ring allreduce: 2(n-1) messages of S/n per rank.
        self.assertEqual(j["messages"], 8 * 14)
        self.assertEqual(j["bytes_per_rank_max"], 14 * (1 << 20) // 8)

    def test_tree_messages_between_nodes_carry_several_steps(self):
        # 2 nodes of 4, one channel (one tree), 1 MiB in 64 KiB steps: 16 steps per edge and
        # direction. The 3 NVLink edges of each node's chain carry 16 messages up and 16 down;
        # the one edge between the node leaders carries 16 / 4 = 4 each way.
        r = collsim("gen", "allreduce", "--algo", "double_binary_tree", "--ranks", "8", "--ranks-per-node", "4",
                    "--proto", "simple", "--bytes", "1MiB", "--chunk", "64KiB", "--steps-per-network-message", "4",
                    "--verify", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        j = json.loads(r.stdout)
        self.assertTrue(j["ok"])
        self.assertEqual(j["messages"], 2 * 3 * 2 * 16 + 2 * 4)
        r = collsim("gen", "allreduce", "--algo", "ring", "--ranks", "8", "--bytes", "1MiB",
                    "--steps-per-network-message", "4")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("steps_per_network_message applies to the double binary tree only", r.stderr)

    def test_writes_goal_that_goal_stats_reads_back(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "a2a.goal")
            r = collsim("gen", "alltoall", "--algo", "pairwise", "--ranks", "5", "--bytes", "5KiB", "-o", path)
            self.assertEqual(r.returncode, 0, r.stderr)
            s = json.loads(collsim("goal", "stats", "--json", path).stdout)
            self.assertEqual(s["num_ranks"], 5)
            self.assertEqual(s["sends"], 5 * 4)

    def test_unknown_algorithm_lists_the_known_ones(self):
        r = collsim("gen", "allgather", "--algo", "tree", "--ranks", "4", "--bytes", "1KiB")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no algorithm 'tree' for allgather (there are: ring, recursive_doubling, bruck", r.stderr)


    def test_latencies_and_rates_that_mean_nothing_are_refused(self):
        # -1 is "the protocol's"; other negatives fell back to it silently, 2^62 ns wrapped
        # around in picoseconds (a shorter run), and nan/inf fed the tuning model.
        base = ("gen", "allreduce", "--ranks", "16", "--ranks-per-node", "8", "--bytes", "64MiB")
        for args, message in [
            (("--launch-ns", "-5"), "--launch-ns: Value -5 not in range -1 to 1000000000000"),
            (("--step-ns", "4611686018427387904"), "--step-ns: Value 4611686018427387904 not in range"),
            (("--intra-bw", "nan"), "--intra-bw: must be a positive number, not nan"),
            (("--inter-bw", "inf"), "--inter-bw: must be a positive number, not inf"),
            # The plan's own checks name the option, not the collective.
            (("--channels", "0"), "--channels: channels must be 1..64"),
        ]:
            r = collsim(*base, *args)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(message, r.stderr, args)
        self.assertEqual(collsim(*base, "--launch-ns", "-1", "--intra-bw", "20").returncode, 0)


class Run(unittest.TestCase):
    def result(self, ranks, *args):
        r = collsim("run", "--json", *args, ranks=ranks)
        self.assertEqual(r.returncode, 0, f"{args} on {ranks} ranks:\n{r.stderr}")
        out = json.loads(r.stdout)
        return {k: v for k, v in out.items() if k not in VOLATILE}

    def test_identical_results_on_1_2_and_4_ranks(self):
        scenarios = [
            ("--topology", LEAF_SPINE, "--coll", "allreduce", "--algo", "ring", "--bytes", "1MiB", "--channels", "2"),
            ("--topology", LEAF_SPINE, "--coll", "alltoall", "--algo", "direct", "--bytes", "256KiB", "--ranks", "16",
             "--placement", "random"),
            ("--topology", LEAF_SPINE, "--schedule",
             os.path.join(ROOT, "goal", "examples", "loggopsim2_binomialtreebcast_128_1024.goal"),
             "--placement", "packed", "--host-set", "o=1500", "--host-set", "S=0"),
        ]
        for args in scenarios:
            one = self.result(0, *args)
            self.assertTrue(one["complete"])
            self.assertEqual(one["ops_completed"], one["ops_total"])
            self.assertEqual(max(one["rank_finish_ps"]), one["makespan_ps"])
            for ranks in (1, 2, 4):
                self.assertEqual(self.result(ranks, *args), one, f"{args} on {ranks} ranks")

    def test_options_the_model_has_no_use_for_are_refused(self):
        # Each was ignored without a word: LogGOPS has no fabric, hosts or end time, and the
        # packet model no LogGOPS parameters.
        base = ("run", "--quiet", "--coll", "allreduce", "--bytes", "1MiB", "--ranks", "8")
        for args, message in [
            (("--network", "loggops", "--end", "1us"), "--end: applies to --network packet or flow only"),
            (("--network", "loggops", "--cc", "dcqcn"), "--cc: applies to --network packet or flow only"),
            (("--network", "loggops", "--placement", "random"), "--placement: applies to --network packet or flow only"),
            (("--topology", f"{ROOT}/topologies/leaf_spine_64.yaml", "--loggops-set", "G=5"),
             "--loggops-set: applies to --network loggops only"),
            (("--topology", f"{ROOT}/topologies/leaf_spine_64.yaml", "--cc", "none", "--set", "cc=dcqcn"),
             "--set: cc=dcqcn and --cc both set cc: give one"),
            # A per-byte cost of 1e30 ns ended in the kernel's "negative delay"; -1 wrapped.
            (("--topology", f"{ROOT}/topologies/leaf_spine_64.yaml", "--host-set", "O=1e30"),
             "--host-set: host parameter O = '1e30': expected nanoseconds per byte, 0..10^6"),
            (("--topology", f"{ROOT}/topologies/leaf_spine_64.yaml", "--host-set", "control_bytes=-1"),
             "--host-set: host parameter control_bytes = '-1': expected a whole number of bytes, 1..65535"),
        ]:
            r = collsim(*base, *args)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(message, r.stderr, args)

    def test_flow_and_hybrid_models_are_identical_on_1_2_and_4_ranks(self):
        dgx = os.path.join(ROOT, "topologies", "dgx_a100_pod.yaml")
        scenarios = [
            ("--topology", dgx, "--coll", "allreduce", "--algo", "ring", "--ranks", "32", "--bytes", "8MiB",
             "--channels", "2", "--fidelity", "nvlink=flow"),
            ("--topology", dgx, "--coll", "alltoall", "--ranks", "16", "--bytes", "4MiB", "--network", "flow"),
            ("--topology", LEAF_SPINE, "--coll", "allreduce", "--algo", "ring", "--bytes", "1MiB", "--network", "flow"),
        ]
        for args in scenarios:
            one = self.result(0, *args)
            self.assertTrue(one["complete"])
            self.assertGreater(one["flow_messages"], 0)
            for ranks in (1, 2, 4):
                self.assertEqual(self.result(ranks, *args), one, f"{args} on {ranks} ranks")

    def test_the_flow_model_reports_its_fidelity_and_refuses_what_it_cannot_join(self):
        dgx = os.path.join(ROOT, "topologies", "dgx_a100_pod.yaml")
        base = ("run", "--quiet", "--coll", "allreduce", "--bytes", "1MiB", "--ranks", "16", "--topology", dgx)
        j = json.loads(collsim(*base, "--json", "--fidelity", "nvlink=flow").stdout)
        self.assertEqual(j["fidelity"], "network=packet nvlink=flow pcie=packet")
        self.assertEqual(j["network"], "packet")
        self.assertGreater(j["packets_forwarded"], 0)
        j = json.loads(collsim(*base, "--json", "--network", "flow").stdout)
        self.assertEqual(j["fidelity"], "network=flow nvlink=flow pcie=flow")
        self.assertEqual(j["packets_forwarded"], 0)
        human = collsim(*base, "--fidelity", "nvlink=flow").stdout
        self.assertIn("messages as flows", human)
        for args, message in [
            (("--fidelity", "pcie=flow"), "--fidelity: 'pcie' names no link of topology 'dgx_a100_pod'"),
            (("--fidelity", "nvlink"), "--fidelity: 'nvlink' is not link-kind=model"),
            (("--fidelity", "nvlink=fluid"), "--fidelity: unknown model 'fluid' (packet, flow)"),
            (("--network", "fluid"), "--network: unknown network model 'fluid' (packet, flow, loggops)"),
            (("--fidelity", "nvlink=flow", "--scale-up", "message"), "--scale-up: message stands in for NVLink packets"),
            (("--network", "flow", "--routing", "spray"), "routing spray chooses per packet or by queue"),
        ]:
            r = collsim(*base, *args)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(message, r.stderr, args)
        r = collsim("run", "--quiet", "--coll", "allreduce", "--bytes", "1MiB", "--ranks", "8", "--network", "loggops",
                    "--fidelity", "nvlink=flow")
        self.assertIn("--fidelity: applies to --network packet or flow only", r.stderr)

    def test_a_deadlock_is_reported_and_fails(self):
        with tempfile.TemporaryDirectory() as d:
            summary = os.path.join(d, "s.json")
            r = collsim("run", "--topology", LEAF_SPINE, "--schedule", os.path.join(DATA, "deadlock.goal"),
                        "--summary", summary)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("blocked   rank 0 op 0 (recv 100 b from 1 tag 0 cpu 0 nic 0): posted; no matching message",
                          r.stderr)
            self.assertIn("blocked   rank 1 op 1 (send 100 b to 0 tag 0 cpu 0 nic 0): waits for op 0 to finish", r.stderr)
            with open(summary) as f:
                s = json.load(f)
            self.assertFalse(s["complete"])
            self.assertEqual(len(s["blocked"]), 4)

    def test_drops_despite_pfc_are_named_when_a_lossless_run_hangs(self):
        # Three hosts send 1 MiB each to a fourth through one switch. With a 1 MiB pause
        # threshold per ingress and 64 KiB of buffer, the switch drops packets that lossless
        # mode never resends, and the run hangs; with the default 32 MiB it completes.
        with tempfile.TemporaryDirectory() as d:
            for buffer, complete in (("64KiB", False), ("32MiB", True)):
                topology = os.path.join(d, buffer + ".yaml")
                with open(topology, "w") as f:
                    f.write("kind: explicit\nlink: {bandwidth: 100Gbps, latency: 1us}\nnodes:\n" +
                            "".join(f"  - {{name: h{i}, kind: host}}\n" for i in range(4)) +
                            f"  - {{name: s0, kind: switch, buffer: {buffer}}}\nlinks:\n" +
                            "".join(f"  - {{a: h{i}, b: s0}}\n" for i in range(4)))
                r = collsim("run", "--topology", topology, "--schedule", os.path.join(DATA, "incast.goal"),
                            "--set", "pfc_xoff_bytes=1MiB")
                if complete:
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertNotIn("dropped despite PFC", r.stderr)
                else:
                    self.assertEqual(r.returncode, 2, r.stderr)
                    self.assertRegex(r.stderr, r"\n  [1-9][0-9]* packet\(s\) dropped despite PFC: a switch's buffer")

    def test_a_message_nobody_receives_is_reported(self):
        r = collsim("run", "--topology", LEAF_SPINE, "--schedule", os.path.join(DATA, "unmatched.goal"), ranks=2)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("unmatched rank 1: message from rank 0 tag 6", r.stderr)

    def test_loggops_mode_gives_loggopsims_makespan(self):
        # Derived by hand from LogGOPSim's rules in tests/exec/loggops_test.cpp: the
        # binomial broadcast of 1 KiB over 128 ranks ends at 81,466 ns on rank 127.
        bcast = os.path.join(ROOT, "goal", "examples", "loggopsim2_binomialtreebcast_128_1024.goal")
        for ranks in (0, 2):
            r = collsim("run", "--network", "loggops", "--schedule", bcast, "--json", ranks=ranks)
            self.assertEqual(r.returncode, 0, r.stderr)
            j = json.loads(r.stdout)
            self.assertTrue(j["complete"])
            self.assertEqual(j["makespan_ps"], 81466 * 1000)
            self.assertEqual(j["rank_finish_ps"][127], 81466 * 1000)

    def test_loggops_parameters_take_fractions_and_units(self):
        # ATLAHS writes G=0.04 (ns per byte, 200 Gb/s): the same gap as G=200Gbps or G=0 with
        # G_ps=40; L=2.5us is LogGOPSim's default L=2500, so the broadcast above is unchanged.
        bcast = os.path.join(ROOT, "goal", "examples", "loggopsim2_binomialtreebcast_128_1024.goal")

        def makespan(*settings):
            args = [a for s in settings for a in ("--loggops-set", s)]
            r = collsim("run", "--network", "loggops", "--schedule", bcast, "--json", *args)
            self.assertEqual(r.returncode, 0, r.stderr)
            return json.loads(r.stdout)["makespan_ps"]

        self.assertEqual(makespan("L=2.5us", "S=64KiB"), makespan("S=65536"))
        self.assertEqual(makespan("L=2.5us"), 81466 * 1000)
        atlahs = makespan("G=0.04")
        self.assertEqual(atlahs, makespan("G=200Gbps"))
        self.assertEqual(atlahs, makespan("G=0", "G_ps=40"))
        self.assertLess(atlahs, makespan("G=1"))
        r = collsim("run", "--network", "loggops", "--schedule", bcast, "--loggops-set", "G=0.0001ns")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not a whole number of picoseconds", r.stderr)

    def test_op_times_in_hdf5(self):
        try:
            import h5py
        except ImportError:
            self.skipTest("python3-h5py is not installed")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "ops.h5")
            r = collsim("run", "--topology", LEAF_SPINE, "--coll", "broadcast", "--algo", "binomial_tree",
                        "--bytes", "64KiB", "--ranks", "8", "--ops", path, "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            makespan = json.loads(r.stdout)["makespan_ps"]
            with h5py.File(path) as f:
                ends = f["ops/end_ps"][:]
                self.assertEqual(len(ends), len(f["ops/rank"][:]))
                self.assertEqual(int(ends.max()), makespan)
                self.assertTrue((f["ops/start_ps"][:] <= ends).all())


class MpiModule(unittest.TestCase):
    def test_a_run_on_its_own_does_not_load_mpi(self):
        # The program links no MPI library; the module beside it has them.
        libs = subprocess.run(["ldd", COLLSIM], capture_output=True, text=True).stdout
        self.assertNotIn("libmpi", libs)
        module = os.path.join(os.path.dirname(os.path.realpath(COLLSIM)), "libcollsim_mpi.so")
        self.assertIn("libmpi", subprocess.run(["ldd", module], capture_output=True, text=True).stdout)

    def test_a_parallel_run_without_the_module_says_so(self):
        env = dict(ENV, COLLSIM_MPI="1", COLLSIM_MPI_MODULE="/nonexistent/libcollsim_mpi.so")
        r = subprocess.run([COLLSIM, "run", "--topology", LEAF_SPINE, "--coll", "allreduce", "--ranks", "8",
                            "--bytes", "64KiB"], capture_output=True, text=True, timeout=600, env=env)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("MPI module", r.stderr)
        self.assertIn("/nonexistent/libcollsim_mpi.so", r.stderr)
        self.assertIn("COLLSIM_MPI_MODULE", r.stderr)


if __name__ == "__main__":
    unittest.main()
