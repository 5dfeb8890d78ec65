"""`collsim replay` as a user types it: every Chakra sample set, gzip, an NCCL log written
here, --emit-goal, --comm-groups, and the errors for broken input."""

import gzip
import json
import os
import shutil
import subprocess
import tempfile
import unittest

COLLSIM = os.environ["COLLSIM"]
ROOT = os.environ["COLLSIM_SOURCE_DIR"]
CHAKRA = os.path.join(ROOT, "tests", "data", "traces", "chakra")
LEAF_SPINE = os.path.join(ROOT, "topologies", "leaf_spine_64.yaml")
VOLATILE = {"wall_s", "events_per_s", "sim_ranks", "windows", "sync_fraction", "pdes", "schedule"}


class Varint(bytes):
    """Bytes already encoded as a varint value (field() must not length-prefix them)."""
    _varint = True


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return Varint(out)


def field(number, value):
    """A protobuf field: bytes are length-delimited, anything from varint() is passed as encoded."""
    if isinstance(value, bytes) and not getattr(value, "_varint", False):
        return varint(number << 3 | 2) + varint(len(value)) + value
    return varint(number << 3) + value


def message(body):
    return varint(len(body)) + body


def collsim(*args):
    return subprocess.run([COLLSIM, *args], capture_output=True, text=True, timeout=300)


def replay_json(*args):
    r = collsim("replay", "--json", "--topology", LEAF_SPINE, *args)
    if r.returncode != 0:
        raise AssertionError(f"replay {args} failed:\n{r.stderr}")
    return json.loads(r.stdout)


class Chakra(unittest.TestCase):
    def test_every_sample_set_replays(self):
        # (set, kind, bytes): comm_size is 1 MiB per rank; an all-gather's size is its output.
        expected = [("all_reduce_8npus_1MB", "allreduce", 1 << 20), ("all_gather_8npus_1MB", "allgather", 8 << 20),
                    ("reduce_scatter_8npus_1MB", "reduce_scatter", 1 << 20),
                    ("all_to_all_8npus_1MB", "alltoall", 1 << 20)]
        for name, kind, size in expected:
            j = replay_json(os.path.join(CHAKRA, name))
            self.assertTrue(j["complete"], name)
            self.assertEqual(j["ranks"], 8)
            self.assertEqual(len(j["collectives"]), 1, name)
            c = j["collectives"][0]
            self.assertEqual((c["kind"], c["bytes"], c["ranks"]), (kind, size, list(range(8))), name)
            # Nothing else runs: the collective starts at 0 and ends with the run.
            self.assertEqual(c["start_ps"], 0)
            self.assertEqual(c["end_ps"], j["makespan_ps"])
            self.assertEqual(c["duration_ps"], c["end_ps"] - c["start_ps"])
        ring = replay_json(os.path.join(CHAKRA, "custom_ring_allreduce_8npus_1MB"))
        self.assertTrue(ring["complete"])
        self.assertEqual(ring["collectives"], [])
        self.assertEqual(ring["ops_total"], 8 * 35)
        self.assertEqual(ring["messages"], 8 * 14)

    def test_one_ranks_trace_runs_as_many_symmetric_ranks(self):
        # Published traces often hold one rank's file. Alone it is a 1-rank job whose
        # collective moves nothing and ends at once; with --ranks 8 every rank runs it, as the
        # 8 files of the set do, with the same times to the picosecond.
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(os.path.join(CHAKRA, "all_reduce_8npus_1MB", "all_reduce.0.et"), d)
            alone = replay_json(os.path.join(d, "all_reduce"))
            self.assertTrue(alone["complete"])
            self.assertEqual(alone["collectives"][0]["ranks"], [0])
            self.assertEqual(alone["collectives"][0]["start_ps"], 0)
            self.assertEqual(alone["collectives"][0]["end_ps"], 0)  # not -1, "did not finish"
            symmetric = replay_json(os.path.join(d, "all_reduce"), "--ranks", "8")
            whole = replay_json(os.path.join(CHAKRA, "all_reduce_8npus_1MB"))
            self.assertEqual(symmetric["ranks"], 8)
            self.assertEqual(symmetric["makespan_ps"], whole["makespan_ps"])
            self.assertEqual([(c["start_ps"], c["end_ps"], c["ranks"]) for c in symmetric["collectives"]],
                             [(c["start_ps"], c["end_ps"], c["ranks"]) for c in whole["collectives"]])
            # --ranks runs one rank's trace: given the 8 files, it is an error.
            r = collsim("replay", "--topology", LEAF_SPINE, os.path.join(CHAKRA, "all_reduce_8npus_1MB"), "--ranks", "8")
            self.assertEqual(r.returncode, 1)
            self.assertIn("run one rank's trace, but 8 rank files were given", r.stderr)

    def test_unrolled_ring_takes_our_ring_allreduces_time(self):
        # Like for like (see tests/traces/ring_equivalence_test.cpp): Simple, one channel, no
        # launch or step latency, reductions of 131072 B in 7 us.
        ours = json.loads(collsim("run", "--json", "--topology", LEAF_SPINE, "--coll", "allreduce", "--algo", "ring",
                                  "--ranks", "8", "--bytes", "1MiB", "--proto", "Simple", "--launch-ns", "0",
                                  "--step-ns", "0", "--reduce-bw", "18.7245715GB/s").stdout)
        trace = replay_json(os.path.join(CHAKRA, "custom_ring_allreduce_8npus_1MB"))
        self.assertLessEqual(abs(trace["makespan_ps"] - ours["makespan_ps"]), 0.01 * ours["makespan_ps"])

    def test_gzip_replays_like_plain_and_emit_goal_writes_the_schedule(self):
        with tempfile.TemporaryDirectory() as d:
            for r in range(8):
                src = os.path.join(CHAKRA, "all_reduce_8npus_1MB", f"all_reduce.{r}.et")
                with open(src, "rb") as f, gzip.open(os.path.join(d, f"ar.{r}.et"), "wb") as g:
                    g.write(f.read())
            goal = os.path.join(d, "ar.goal")
            z = replay_json(os.path.join(d, "ar"), "--emit-goal", goal)
            plain = replay_json(os.path.join(CHAKRA, "all_reduce_8npus_1MB"))
            self.assertEqual({k: v for k, v in z.items() if k not in VOLATILE | {"collectives"}},
                             {k: v for k, v in plain.items() if k not in VOLATILE | {"collectives"}})
            stats = json.loads(collsim("goal", "stats", "--json", goal).stdout)
            self.assertEqual(stats["ops"], plain["ops_total"])

    def test_process_groups_from_a_file(self):
        # 3 ranks; ranks 2 and 0 all-gather 1000 B each on process group "1", rank 1 does nothing.
        with tempfile.TemporaryDirectory() as d:
            node = field(1, varint(1)) + field(2, b"ag") + field(3, varint(7)) + \
                field(10, field(1, b"comm_type") + field(9, varint(2))) + \
                field(10, field(1, b"comm_size") + field(9, varint(1000))) + \
                field(10, field(1, b"pg_name") + field(29, b"1"))
            for r in range(3):
                with open(os.path.join(d, f"pg.{r}.et"), "wb") as f:
                    f.write(message(field(1, b"0.0.4")) + (message(node) if r != 1 else b""))
            groups = os.path.join(d, "pg.json")
            with open(groups, "w") as f:
                json.dump({"1": [2, 0]}, f)
            j = replay_json(os.path.join(d, "pg"), "--comm-groups", groups)
            self.assertEqual([(c["kind"], c["bytes"], c["ranks"]) for c in j["collectives"]], [("allgather", 2000, [2, 0])])
            r = collsim("replay", "--topology", LEAF_SPINE, os.path.join(d, "pg"))
            self.assertEqual(r.returncode, 1)
            self.assertIn(f"{d}/pg.0.et: byte 8: node id 1 'ag': process group '1' is not defined", r.stderr)

    def test_broken_files_are_named(self):
        with tempfile.TemporaryDirectory() as d:
            for r in range(8):
                shutil.copy(os.path.join(CHAKRA, "all_reduce_8npus_1MB", f"all_reduce.{r}.et"), d)
            cut = os.path.join(d, "all_reduce.3.et")
            with open(cut, "rb") as f:
                data = f.read()
            with open(cut, "wb") as f:
                f.write(data[:-5])
            r = collsim("replay", "--topology", LEAF_SPINE, d)
            self.assertEqual(r.returncode, 1)
            # The node's 1-byte prefix follows the 7-byte metadata and its prefix: byte 8.
            self.assertIn(f"{cut}: byte 8: node #0 (after node id none) claims", r.stderr)
            self.assertIn("truncated", r.stderr)

            with open(cut, "wb") as f:
                f.write(b"\x1f\x8b" + b"\x00" * 30)
            r = collsim("replay", "--topology", LEAF_SPINE, d)
            self.assertEqual(r.returncode, 1)
            self.assertIn(f"{cut}: byte", r.stderr)
            self.assertIn("gzip", r.stderr)


def nccl_line(who, op, op_count, count, datatype, root, comm):
    return (f"{who} NCCL INFO {op}: opCount {op_count:x} sendbuff 0x7f00 recvbuff 0x7f00 count {count} "
            f"datatype {datatype} op 0 root {root} comm {comm} [nranks=4] stream 0x5\n")


class NcclLog(unittest.TestCase):
    def write_job(self, d, drop_last=False):
        """4 ranks, one process each, all in one file behind srun's "r: " prefix: an AllReduce of
        1 MiB (262144 fp32), then a ReduceScatter of 4096 bf16 per rank, 300 us later."""
        lines = []
        for r in range(4):
            lines.append(f"{r}: [2024-05-01 12:00:00.000000] n{r}:{100 + r}:1 [0] NCCL INFO comm 0xc{r} rank {r} "
                         f"nranks 4 cudaDev 0 busId 1000 commId 0x77 - Init COMPLETE\n")
        for r in range(4):
            lines.append(f"{r}: [2024-05-01 12:00:00.000100] " + nccl_line(f"n{r}:{100 + r}:1 [0]", "AllReduce", 0, 262144,
                                                                           7, 0, f"0xc{r}"))
        for r in range(3 if drop_last else 4):
            lines.append(f"{r}: [2024-05-01 12:00:00.000400] " + nccl_line(f"n{r}:{100 + r}:1 [0]", "ReduceScatter", 1,
                                                                           4096, 9, 0, f"0xc{r}"))
        path = os.path.join(d, "job.log")
        with open(path, "w") as f:
            f.writelines(lines)
        return path

    def test_log_replays_into_the_expected_collectives(self):
        with tempfile.TemporaryDirectory() as d:
            j = replay_json(self.write_job(d))
            self.assertTrue(j["complete"])
            self.assertEqual(j["ranks"], 4)
            got = [(c["kind"], c["bytes"], c["ranks"]) for c in j["collectives"]]
            # ReduceScatter's count is per rank: 4096 x 2 B x 4 ranks.
            self.assertEqual(got, [("allreduce", 1 << 20, [0, 1, 2, 3]), ("reduce_scatter", 32768, [0, 1, 2, 3])])
            ar, rs = j["collectives"]
            # Every rank issued the AllReduce at the job's first call and the ReduceScatter 300 us
            # later: it cannot start before then, nor before the AllReduce ended.
            self.assertEqual(ar["start_ps"], 0)
            self.assertGreaterEqual(rs["start_ps"], max(300_000_000, ar["end_ps"]))
            self.assertEqual(rs["end_ps"], j["makespan_ps"])
            untimed = replay_json(self.write_job(d), "--no-timestamps")
            self.assertLess(untimed["collectives"][1]["start_ps"], 300_000_000)

    def test_human_output_lists_the_collectives(self):
        with tempfile.TemporaryDirectory() as d:
            r = collsim("replay", "--topology", LEAF_SPINE, self.write_job(d))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("collectives   2", r.stdout)
            self.assertRegex(r.stdout, r"\n\s+1  reduce_scatter\s+\S+\s+32KiB\s+4 ")

    def test_unmatched_op_count_and_bad_line_are_named(self):
        with tempfile.TemporaryDirectory() as d:
            path = self.write_job(d, drop_last=True)
            r = collsim("replay", "--topology", LEAF_SPINE, path)
            self.assertEqual(r.returncode, 1)
            # Line 9: 4 init lines, 4 AllReduce lines, then rank 0's ReduceScatter.
            self.assertIn(f"{path}:9:1: ReduceScatter opCount 0x1: unmatched opCount", r.stderr)
            self.assertIn("comm rank(s) 3 never logged this call", r.stderr)
            with open(path, "a") as f:
                f.write("0: n0:100:1 [0] NCCL INFO AllReduce: opCount 2 sendbuff 0x1 recvbuff 0x1 count 8 datatype 7 op 0 "
                        "root 0 stream 0x5\n")
            r = collsim("replay", "--topology", LEAF_SPINE, path)
            self.assertEqual(r.returncode, 1)
            self.assertIn(f"{path}:12:", r.stderr)
            self.assertIn("expected 'comm <pointer>'", r.stderr)


if __name__ == "__main__":
    unittest.main()
