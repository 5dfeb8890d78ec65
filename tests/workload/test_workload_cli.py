"""`collsim workload` as a user types it: the JSON report adds up, the schedule it writes is
the one it simulates, results do not depend on the number of MPI ranks, and workloads that do
not fit their cluster are refused."""

import json
import os
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
ROOT = os.environ["COLLSIM_SOURCE_DIR"]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
# peak_live_ops: a streamed run's, summed over the simulator ranks (a whole step has none), and
# peak_live_ops_floor, the low estimate of it that a streamed step is refused on.
VOLATILE = {"wall_s", "events_per_s", "sim_ranks", "windows", "sync_fraction", "pdes", "peak_live_ops",
            "peak_live_ops_floor"}
DIMS = ["tp", "pp", "dp", "ep"]

# 16 GPUs on two DGX H100 servers: TP inside a server, PP and DP across.
SMALL = """
name: small
model: {layers: 4, hidden: 256, heads: 8, seq: 128, vocab: 1024}
training: {global_batch: 16, micro_batch: 1}
parallelism: {tp: 2, sp: true, pp: 2, dp: 4, dp_bucket: 1MiB}
comm: {channels: 1}
device: {preset: H100}
cluster: {topology: dgx_h100_superpod}
"""


def collsim(*args, ranks=0):
    cmd = ([MPIEXEC, "--oversubscribe", "-n", str(ranks)] if ranks else []) + [COLLSIM, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=ENV)


class Workload(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.small = cls.write("small.yaml", SMALL)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    @classmethod
    def write(cls, name, text):
        path = os.path.join(cls.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def with_cluster(self, name, keys):
        """SMALL with more keys in its cluster map."""
        return self.write(name, SMALL.replace("cluster: {topology: dgx_h100_superpod}",
                                              "cluster: {topology: dgx_h100_superpod, " + keys + "}"))

    def refused(self, path, *fragments):
        r = collsim("workload", path)
        self.assertNotEqual(r.returncode, 0)
        for f in fragments:
            self.assertIn(f, r.stderr)

    def report(self, *args, ranks=0):
        r = collsim("workload", "--json", *args, ranks=ranks)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_the_time_adds_up_on_the_critical_rank(self):
        j = self.report(self.small)
        self.assertTrue(j["complete"])
        self.assertEqual(j["gpus"], 16)
        self.assertEqual(set(j["exposed_comm_ps"]), set(DIMS))
        self.assertEqual(set(j["bytes_per_rank"]), set(DIMS))
        total = j["compute_ps"] + j["idle_ps"] + sum(j["exposed_comm_ps"].values())
        self.assertEqual(total, j["iteration_ps"])
        self.assertEqual(j["iteration_ps"], j["makespan_ps"])
        self.assertGreater(j["compute_ps"], 0)
        self.assertTrue(0 < j["mfu"] < 1)
        # TP, PP and DP all communicate; there is no EP.
        for d in ["tp", "pp", "dp"]:
            self.assertGreater(j["bytes_per_rank"][d], 0)
        self.assertEqual(j["bytes_per_rank"]["ep"], 0)

    def test_the_written_schedule_is_the_one_simulated(self):
        goal = os.path.join(self.dir.name, "step.goal")
        j = self.report(self.small, "-o", goal, "--run")
        topology = os.path.join(ROOT, "topologies", "dgx_h100_superpod.yaml")
        r = collsim("run", "--schedule", goal, "--topology", topology, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["makespan_ps"], j["iteration_ps"])

    def test_the_message_level_mode_stands_for_the_cluster(self):
        # LogGOPS with the cluster's paths (NVLink inside a server, 400 Gb/s rails between):
        # within a factor of two of the packet-level time, where LogGOPSim's defaults
        # (6 ns per byte) would be far slower.
        packet = self.report(self.small)["iteration_ps"]
        loggops = self.report(self.small, "--network", "loggops")["iteration_ps"]
        self.assertLess(abs(loggops - packet), packet)
        defaults = self.report(self.small, "--network", "loggops", "--loggops-set", "G=6", "--loggops-set", "G_ps=0",
                               "--loggops-set", "ranks_per_node=0")["iteration_ps"]
        self.assertGreater(defaults, 5 * packet)

    def test_identical_results_on_1_and_2_ranks(self):
        one = {k: v for k, v in self.report(self.small).items() if k not in VOLATILE}
        two = {k: v for k, v in self.report(self.small, ranks=2).items() if k not in VOLATILE}
        self.assertEqual(one, two)

    def test_a_tp_group_larger_than_a_server_is_refused(self):
        path = self.write("tp16.yaml", SMALL.replace("tp: 2", "tp: 8").replace("heads: 8", "heads: 16")
                          .replace("pp: 2", "pp: 1").replace("dp: 4", "dp: 2")
                          .replace("{preset: H100}", "{preset: H100}").replace("tp: 8", "tp: 16"))
        r = collsim("workload", path)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("a TP group of 16 GPUs does not fit the 8-GPU servers of dgx_h100_superpod", r.stderr)

    def test_a_layer_count_no_model_has_is_refused_not_run_out_of_memory(self):
        path = self.write("huge.yaml", SMALL.replace("layers: 4", "layers: 1000000000"))
        r = collsim("workload", path)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("key 'layers': at most 100000 layers, found 1000000000", r.stderr)

    def test_a_directory_is_not_a_workload_file(self):
        r = collsim("workload", self.dir.name)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"{self.dir.name}: is a directory, not a YAML file", r.stderr)

    def test_more_gpus_than_hosts_is_refused(self):
        path = self.write("big.yaml", SMALL.replace("dp: 4", "dp: 128").replace("global_batch: 16", "global_batch: 512"))
        r = collsim("workload", path)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("needs 512 GPUs (TP 2 × PP 2 × DP 128) but topology dgx_h100_superpod has 256 hosts", r.stderr)

    def test_loggops_streams_the_step_with_the_same_report(self):
        # Lowered on the fly by default in loggops mode; --whole-step lowers it first.
        streamed = self.report(self.small, "--network", "loggops")
        whole = self.report(self.small, "--network", "loggops", "--whole-step")
        self.assertGreater(streamed["ops_total"], 0)
        # What the window held at most, never all the step's ops nor none of them.
        self.assertGreater(streamed["peak_live_ops"], 0)
        self.assertLess(streamed["peak_live_ops"], streamed["ops_total"])
        # The memory check's low estimate is below what was held.
        self.assertGreater(streamed["peak_live_ops_floor"], 0)
        self.assertLessEqual(streamed["peak_live_ops_floor"], streamed["peak_live_ops"])
        for key in sorted(set(streamed) | set(whole)):
            if key not in VOLATILE:
                self.assertEqual(streamed.get(key), whole.get(key), key)

    def test_packet_mode_streams_the_step_on_any_number_of_ranks(self):
        # Lowered on the fly, each simulator rank lowering only its own hosts' GPUs, with the
        # report of the whole step lowered first (whose op times give the critical rank's split).
        whole = self.report(self.small, "--whole-step")
        self.assertNotIn("peak_live_ops", whole)
        for ranks in (0, 3):
            streamed = self.report(self.small, ranks=ranks)
            self.assertTrue(streamed["complete"])
            self.assertLess(streamed["peak_live_ops"], streamed["ops_total"])
            for key in sorted(set(streamed) | set(whole)):
                if key not in VOLATILE:
                    self.assertEqual(streamed.get(key), whole.get(key), f"{key} on {ranks} rank(s)")

    def test_scale_up_as_messages_is_opt_in_and_close_to_packets(self):
        # Activations of 1 MiB (sequence 1024 × hidden 512 × 2 bytes): TP chunks go by rendezvous,
        # whose data inside a server --scale-up message turns into one delay per port.
        path = self.write("mid.yaml", SMALL.replace("hidden: 256", "hidden: 512").replace("seq: 128", "seq: 1024"))
        packet = self.report(path)
        self.assertEqual(packet["scale_up"], "packet")
        message = self.report(path, "--scale-up", "message")
        self.assertEqual(message["scale_up"], "message")
        self.assertTrue(message["complete"])
        self.assertLess(abs(message["iteration_ps"] - packet["iteration_ps"]), 0.05 * packet["iteration_ps"])
        self.assertLess(message["events"], packet["events"])
        two = self.report(path, "--scale-up", "message", ranks=2)
        for key in message:
            if key not in VOLATILE:
                self.assertEqual(message[key], two[key], key)
        r = collsim("workload", path, "--scale-up", "flows")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("unknown model 'flows' (packet, message)", r.stderr)

    def test_nvlink_as_flows_is_close_to_packets_on_any_number_of_ranks(self):
        # The same step with NVLink's messages as flows: the TP collectives' packets are gone,
        # the pipeline's and the gradients' stay; the iteration within 1 %, and the same JSON
        # streamed on 1 and 3 ranks and lowered whole.
        path = self.write("mid_flows.yaml", SMALL.replace("hidden: 256", "hidden: 512").replace("seq: 128", "seq: 1024"))
        packet = self.report(path)
        hybrid = self.report(path, "--fidelity", "nvlink=flow")
        self.assertTrue(hybrid["complete"])
        self.assertEqual(hybrid["fidelity"], "network=packet nvlink=flow pcie=packet")
        self.assertGreater(hybrid["flow_messages"], 0)
        self.assertLess(abs(hybrid["iteration_ps"] - packet["iteration_ps"]), 0.01 * packet["iteration_ps"])
        self.assertLess(hybrid["events"] * 5, packet["events"])
        for other in (self.report(path, "--fidelity", "nvlink=flow", ranks=3),
                      self.report(path, "--fidelity", "nvlink=flow", "--whole-step")):
            for key in hybrid:
                if key not in VOLATILE and key != "peak_live_ops":
                    self.assertEqual(hybrid[key], other.get(key), key)

    def test_the_files_fidelity_is_a_default_the_command_line_replaces(self):
        path = self.with_cluster("hybrid.yaml", "fidelity: nvlink=flow")
        j = self.report(path)
        self.assertEqual(j["fidelity"], "network=packet nvlink=flow pcie=packet")
        self.assertEqual(self.report(path, "--fidelity", "all=flow")["fidelity"], "network=flow nvlink=flow pcie=flow")
        self.assertNotIn("fidelity", self.report(path, "--network", "packet"))
        self.refused(self.with_cluster("bad_fidelity.yaml", "fidelity: nvlink=fast"), "bad_fidelity.yaml:8:50: key",
                     "key 'fidelity': unknown model 'fast' (packet, flow)")

    def mid_reuse(self):
        """TP 8 on one server, larger than SMALL, so that TP collectives dominate."""
        return self.write("mid_reuse.yaml", SMALL.replace("hidden: 256", "hidden: 512").replace("seq: 128", "seq: 1024")
                          .replace("tp: 2, sp: true, pp: 2, dp: 4", "tp: 8, sp: true, pp: 2, dp: 1"))

    def test_reused_collectives_stand_in_for_tp_collectives_on_any_number_of_ranks(self):
        # TP 8, one server each: its collectives timed once alone and each repeat a barrier and
        # the member's time alone; the iteration within 1 % of the exact run, the same bytes,
        # fewer ops and events; the same JSON streamed on 1 and 3 ranks and lowered whole.
        path = self.mid_reuse()
        exact = self.report(path)
        self.assertNotIn("fast_forward", exact)
        reused = self.report(path, "--fast-forward", "collectives")
        self.assertTrue(reused["complete"])
        self.assertEqual(reused["fast_forward"], "collectives")
        self.assertGreater(reused["collectives_reused"], 0)
        self.assertGreaterEqual(reused["collectives_timed_alone"], 2)  # a collective and its barrier
        self.assertLess(abs(reused["iteration_ps"] - exact["iteration_ps"]), 0.01 * exact["iteration_ps"])
        self.assertEqual(reused["bytes_per_rank"], exact["bytes_per_rank"])
        self.assertLess(reused["ops_total"], exact["ops_total"])
        self.assertLess(reused["events"], exact["events"])
        # Each simulator rank times what its own GPUs need.
        per_rank = VOLATILE | {"timing_alone_s", "collectives_timed_alone"}
        for other in (self.report(path, "--fast-forward", "collectives", ranks=3),
                      self.report(path, "--fast-forward", "collectives", "--whole-step")):
            for key in reused:
                if key not in per_rank:
                    self.assertEqual(reused[key], other.get(key), key)

    def test_reused_collectives_stand_in_for_tp_collectives_in_the_loggops_model(self):
        # The topology gives NVLink its own side beside the NIC (intra_nic), so that a TP
        # collective waits for no pipeline send.
        path = self.mid_reuse()
        exact = self.report(path, "--network", "loggops")
        self.assertIn("intra_nic=1", exact["loggops"])
        reused = self.report(path, "--network", "loggops", "--fast-forward", "collectives")
        self.assertGreater(reused["collectives_reused"], 0)
        self.assertLess(abs(reused["iteration_ps"] - exact["iteration_ps"]), 0.01 * exact["iteration_ps"])
        self.assertEqual(reused["bytes_per_rank"], exact["bytes_per_rank"])
        self.assertLess(reused["events"], exact["events"])

    def test_a_whole_step_too_large_for_memory_is_refused_before_lowering(self):
        # llama3_405b is some 8.5 G ops (one rank per stage counted): hundreds of GB held whole.
        goal = os.path.join(self.dir.name, "huge.goalb")
        for args in (["-o", goal], ["--network", "loggops", "--whole-step"]):
            r = collsim("workload", "llama3_405b", *args)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("llama3_405b.yaml: the whole step is about 8528 M ops; held in memory", r.stderr)
            self.assertIn("GB available. Simulate it streamed", r.stderr)
            self.assertFalse(os.path.exists(goal))

    def test_a_streamed_step_too_large_for_memory_is_refused_before_it_runs(self):
        # llama3_405b's ranks' largest pieces: 56.5 M ops (28 M held at least, 5.6 GB at 100 B
        # each); a machine with 3 GB available gives 3 - 0.4 (its reserve) = 2.6 GB.
        meminfo = os.path.join(self.dir.name, "meminfo")
        with open(meminfo, "w") as f:
            f.write("MemTotal:        8000000 kB\nMemAvailable:    3000000 kB\n")
        r = subprocess.run([COLLSIM, "workload", "llama3_405b", "--network", "loggops", "--fast-forward", "collectives"],
                           capture_output=True, text=True, timeout=120, env=dict(ENV, COLLSIM_MEMINFO=meminfo))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("llama3_405b.yaml: streamed, the step holds at least about 28 M ops at once", r.stderr)
        self.assertIn("about 5.6 GB, and this machine has 2.7 GB to give (3.1 GB available, less a reserve of 410 MB)",
                      r.stderr)
        self.assertNotIn("progress", r.stderr)

    def test_the_files_fast_forward_is_a_default_the_command_line_replaces(self):
        path = self.with_cluster("reuse.yaml", "fast_forward: collectives")
        self.assertEqual(self.report(path)["fast_forward"], "collectives")
        self.assertNotIn("fast_forward", self.report(path, "--fast-forward", "off"))
        self.assertNotIn("fast_forward", self.report(path, "--network", "packet"))
        # Writing the step's GOAL leaves the file's fast-forward out, and refuses the option's.
        goal = os.path.join(self.dir.name, "reuse.goal")
        written = self.report(path, "-o", goal, "--run")
        self.assertNotIn("fast_forward", written)
        r = collsim("workload", path, "-o", goal, "--fast-forward", "collectives")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("write it (-o) without it", r.stderr)
        self.refused(self.with_cluster("bad_reuse.yaml", "fast_forward: on"), "bad_reuse.yaml:8:",
                     "key 'fast_forward': expected off, steady, contended, collectives, steady,collectives or contended,collectives, found 'on'")

    def test_steady_fast_forward_sends_trains_and_stays_close(self):
        # SMALL's DP buckets of 1 MiB (256 packets per message before its split into ring
        # steps) settle and go partly as trains; the step stays within 1 % of exact packets,
        # and on 2 MPI ranks it is the same to the picosecond.
        exact = self.report(self.small)
        steady = self.report(self.small, "--fast-forward", "steady")
        self.assertEqual(steady["fast_forward"], "steady")
        self.assertGreater(steady["packets_in_trains"], 0)
        self.assertLess(steady["packets_in_trains"], steady["data_packets"])
        self.assertLess(steady["packet_hops"] if "packet_hops" in steady else steady["packets_forwarded"],
                        exact["packets_forwarded"])
        self.assertLess(abs(steady["iteration_ps"] - exact["iteration_ps"]), 0.01 * exact["iteration_ps"])
        two = self.report(self.small, "--fast-forward", "steady", ranks=2)
        self.assertEqual({k: v for k, v in steady.items() if k not in VOLATILE},
                         {k: v for k, v in two.items() if k not in VOLATILE})
        both = self.report(self.with_cluster("both.yaml", "fast_forward: 'steady,collectives'"))
        self.assertEqual(both["fast_forward"], "steady,collectives")
        self.assertIn("collectives_reused", both)
        # Through queues, with longer trains: at least as many packets in trains, fewer hops,
        # still within 1 %, and the same on 2 ranks.
        contended = self.report(self.small, "--fast-forward", "contended")
        self.assertEqual(contended["fast_forward"], "contended")
        self.assertGreaterEqual(contended["packets_in_trains"], steady["packets_in_trains"])
        self.assertLess(contended["packets_forwarded"], steady["packets_forwarded"])
        self.assertLess(abs(contended["iteration_ps"] - exact["iteration_ps"]), 0.01 * exact["iteration_ps"])
        two = self.report(self.small, "--fast-forward", "contended", ranks=2)
        self.assertEqual({k: v for k, v in contended.items() if k not in VOLATILE},
                         {k: v for k, v in two.items() if k not in VOLATILE})

    def test_steady_fast_forward_needs_packet_links(self):
        for args, says in [(["--network", "flow"], "every link runs as flows"),
                           (["--network", "loggops"], "applies to --network packet only"),
                           (["--fast-forward", "steady,steady"], "expected off, steady, contended, collectives"),
                           (["--fast-forward", "steady,contended"], "expected off, steady, contended, collectives"),
                           (["--fast-forward", "contended", "--network", "flow"], "contended skips packets")]:
            extra = [] if "--fast-forward" in args else ["--fast-forward", "steady"]
            r = collsim("workload", self.small, *args, *extra)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(says, r.stderr)
        # Without collectives to lower, run takes steady only.
        r = collsim("run", "--schedule", os.path.join(ROOT, "goal", "examples", "loggopsim_binary_tree_16.goal"),
                    "--topology", os.path.join(ROOT, "topologies", "dgx_h100_superpod.yaml"),
                    "--fast-forward", "collectives")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("expected off, steady or contended, found 'collectives'", r.stderr)

    def test_writing_only_lowers(self):
        goal = os.path.join(self.dir.name, "only.goal")
        r = collsim("workload", self.small, "-o", goal)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("lowered", r.stdout)
        self.assertNotIn("iteration", r.stdout)
        self.assertTrue(os.path.getsize(goal) > 0)


if __name__ == "__main__":
    unittest.main()
