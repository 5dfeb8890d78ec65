"""Golden outputs: the human summary and the JSON of the README's preset scenarios, with what
depends on the machine (wall times, rates) or on the number of MPI ranks (windows, the PDES
record) taken out, compared with tests/golden/expected. A change in results shows up as a diff
to review; after a deliberate one, `scripts/test.sh --update-golden` (or COLLSIM_UPDATE_GOLDEN=1
on this test) rewrites the files from the single-process run.

The scenarios marked mpi also run under mpirun on 2 and 4 ranks (COLLSIM_GOLDEN_RANKS), whose
outputs must equal the same files: results do not depend on the partition."""

import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPECTED = os.path.join(ROOT, "tests", "golden", "expected")
COLLSIM = os.environ.get("COLLSIM", os.path.join(ROOT, "build", "release", "collsim"))
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
UPDATE = os.environ.get("COLLSIM_UPDATE_GOLDEN") == "1"
RANKS = [int(r) for r in os.environ.get("COLLSIM_GOLDEN_RANKS", "1").split(",") if r]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")

# name -> (arguments, JSON from: "summary" (--summary FILE beside the human output) or "json"
# (a second run with --json), runs under mpirun)
SCENARIOS = {
    "workload_resnet50": (["workload", "resnet50"], "summary", False),
    "workload_mixtral_loggops": (["workload", "mixtral_8x7b", "--network", "loggops"], "summary", False),
    "run_allreduce_fat_tree_k8": (["run", "--topology", "fat_tree_k8", "--coll", "allreduce", "--bytes", "16MiB",
                                   "--channels", "2"], "summary", False),
    "run_alltoall_hybrid": (["run", "--topology", "dgx_a100_pod", "--coll", "alltoall", "--ranks", "16", "--bytes",
                             "16MiB", "--fidelity", "nvlink=flow"], "summary", True),
    "run_loggops_bcast": (["run", "--network", "loggops", "--schedule",
                           "goal/examples/loggopsim2_binomialtreebcast_128_1024.goal"], "summary", False),
    "flows_permutation": (["flows", "--topology", "fat_tree_k8", "--pattern", "permutation", "--bytes", "1MiB"],
                          "json", True),
    "replay_chakra": (["replay", "tests/data/traces/chakra/all_reduce_8npus_1MB", "--topology", "leaf_spine_64"],
                      "summary", True),
    "replay_nccl_log": (["replay", "tests/data/traces/nccl/snellius_2x4.log", "--topology", "leaf_spine_64"],
                        "summary", True),
    "validate_28_ring": (["validate", "validation/logs/28_allreduce_8xH100_hgx-nvswitch_NCCL_ALGO-RING.log",
                          "--max-bytes", "64MiB"], "json", False),
    "validate_25_calibrated": (["validate", "validation/logs/25_allreduce_8xH100_snellius-2x4-ib-4x200G_NCCL-INFO.log",
                                "--system", "h100-4gpu-ib", "--calibration", "validation/calibration/h100-4gpu-ib.yaml",
                                "--min-bytes", "64MiB"], "json", False),
}

# JSON keys that measure the machine or the partition, not the simulated system.
MACHINE_KEYS = {"wall_s", "events_per_s", "sim_ranks", "windows", "sync_fraction", "pdes", "timing_alone_s",
                "packet_hops_per_s", "ranks_mpi"}


def without_machine(value):
    if isinstance(value, dict):
        return {k: without_machine(v) for k, v in value.items() if k not in MACHINE_KEYS}
    if isinstance(value, list):
        return [without_machine(v) for v in value]
    return value


def human_without_machine(text):
    out = []
    for line in text.splitlines():
        # "simulation    306504 events in 0.051 s (...), 1 rank(s), 1 windows, sync 0.002 %": the
        # event count is the system's, the rest the machine's and the partition's.
        m = re.match(r"^(simulation\s+\d+ events)\b", line)
        if m:
            line = m.group(1)
        line = re.sub(r"\bin \d+(\.\d+)? s\b", "in <wall> s", line)
        line = re.sub(r"\(\d+(\.\d+)? s\)", "(<wall> s)", line)
        line = re.sub(r"\d+(\.\d+)? M events/s", "<rate> M events/s", line)
        out.append(line.rstrip())
    return "\n".join(out) + "\n"


def run(ranks, args):
    prefix = [MPIEXEC, "--oversubscribe", "-n", str(ranks)] if ranks > 1 else []
    cmd = prefix + [COLLSIM, *args, "--quiet"] if args[0] != "validate" else prefix + [COLLSIM, *args]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=ENV, timeout=600)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r.stdout


def outputs(ranks, args, json_from):
    if json_from == "summary":
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "summary.json")
            human = run(ranks, args + ["--summary", path])
            with open(path) as f:
                data = json.load(f)
    else:
        human = run(ranks, args)
        data = json.loads(run(ranks, args + ["--json"]))
    return human_without_machine(human), json.dumps(without_machine(data), indent=1, sort_keys=True) + "\n"


def differences(expected_path, actual):
    with open(expected_path) as f:
        expected = f.read()
    if expected == actual:
        return ""
    return "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                        expected_path, "actual"))


class Golden(unittest.TestCase):
    pass


def add_test(name, args, json_from, mpi):
    def test(self):
        for ranks in RANKS:
            if ranks > 1 and not mpi:
                continue
            with self.subTest(ranks=ranks):
                human, data = outputs(ranks, list(args), json_from)
                txt, js = (os.path.join(EXPECTED, name + ext) for ext in (".txt", ".json"))
                if UPDATE and ranks == RANKS[0]:
                    for path, text in ((txt, human), (js, data)):
                        with open(path, "w") as f:
                            f.write(text)
                    continue
                for path, text in ((txt, human), (js, data)):
                    self.assertTrue(os.path.exists(path), f"no {path}: run scripts/test.sh --update-golden")
                    diff = differences(path, text)
                    if diff:
                        self.fail(f"{name} on {ranks} rank(s) differs from {path}:\n{diff}")
    setattr(Golden, "test_" + name, test)


for _name, (_args, _json_from, _mpi) in SCENARIOS.items():
    add_test(_name, _args, _json_from, _mpi)

if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[1:])
