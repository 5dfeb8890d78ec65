#!/usr/bin/python3
"""Regenerates validation/REPORT.md and validation/plots/*.png: calibrates the presets that
have training logs, then validates every log in validation/logs against its preset.

Usage: python3 validation/make_report.py [--collsim PATH] [--only NN,NN] [--leave-one-out] [--output FILE]

Which log is training and which validation, and which preset and options each log gets, is
the table LOGS below (facts from validation/logs/INDEX.md). Takes some minutes.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# preset -> training logs (calibrate) and calibrate options; the rest of that preset's logs
# are validation. Single-node logs fit the link efficiencies and launch latency, multi-node
# ones the NIC efficiency and network latency.
TRAINING = {
    "dgx-h100": (["17"], ["--iterations", "8"]),
    "h100-4gpu-ib": (["22", "25"], ["--sizes-per-run", "16", "--iterations", "8"]),
    "dgx-a100": (["12", "16"], ["--ranks", "256", "--iterations", "8"]),
}

# log -> (preset, calibration preset or None, extra validate options, note)
LOGS = {
    "03": ("a100-efa", "dgx-a100", [], "AWS p4de (EFA v1): Simple protocol across nodes, as aws-ofi-nccl sets it on p4d; NVLink calibrated on DGX A100 logs; EFA message latency fitted on log 04 (p5, EFA v2)."),
    "04": ("h100-efa", "dgx-h100", [], "AWS p5, 32x100G EFA; NVLSTree on 2 nodes emulated; training log for the EFA message latency (small sizes)."),
    "05": ("pcie-8gpu", None, [], "PCIe-only RTX 6000D; NIC speed not stated in the log (400G assumed). Uncalibrated."),
    "06": ("gb300-4gpu-rdma", None, [], "GB300 trays in separate NVLink domains; 800G NICs assumed. Uncalibrated."),
    "09": ("dgx-a100", "dgx-a100", ["--gpus-per-thread", "8"], "Summary table (in-place busbw only): times derived from busbw. One process drives the 8 GPUs (the guide's NCCLBandwidth.py runs all_reduce_perf -g 8 in every version), hence --gpus-per-thread 8."),
    "10": ("dgx-a100", "dgx-a100", [], "sendrecv, one process with -g 8."),
    "11": ("dgx-spark", None, [], "Run B (FEC off) must be flagged as inconsistent with the preset."),
    "12": ("dgx-a100", "dgx-a100", [], "2 GPUs of an A100 box."),
    "14": ("gb200-nvl72", None, ["--algo", "ring", "--max-packets", "4000000"], "1440 ranks, 20 NVL72 racks. Simulated as a ring (--algo ring): its 4.4-5.2 ms intercept is 2 x 1439 ring rounds (the log has no INFO lines to say so); a ring over 2 of the 20 racks with the same bytes per round stands in for it, its rounds scaled by 2878/286. Uncalibrated."),
    "16": ("dgx-a100", "dgx-a100", ["--ranks", "256"], "Old format, 0..128 B only; 256 ranks per INDEX.md (the log does not say)."),
    "17": ("dgx-h100", "dgx-h100", [], "Five tests on one HGX H100 node."),
    "19": ("dgx-h100", "dgx-h100", [], "10 nodes; NIC efficiency not calibrated (training log 17 is single-node)."),
    "22": ("h100-4gpu-ib", "h100-4gpu-ib", [], "4x H100 NVLink mesh (Snellius)."),
    "23": ("h100-4gpu-ib", "h100-4gpu-ib", [], "Same node as 22."),
    "24": ("h100-4gpu-ib", "h100-4gpu-ib", [], "Same node as 22."),
    "25": ("h100-4gpu-ib", "h100-4gpu-ib", [], "2 nodes x 4, 4x HDR; the 2 MiB row was cut by INFO lines and is rejoined."),
    "28": ("dgx-h100", "dgx-h100", ["--algo", "ring"], "NCCL_ALGO=RING, NVLS off: simulated with --algo ring."),
    "31": ("dgx-a100", "dgx-a100", [], "CoreWeave 2022, a poorly performing run per INDEX.md."),
    "33": ("dgx-h100", "dgx-h100", ["--algo", "collnet_chain"], "NCCL_ALGO=COLLNETCHAIN (SHARP in-network reduction): simulated with --algo collnet_chain."),
    "34": ("gb200-nvl72", None, ["--max-packets", "32000000"], "128 ranks over 2 NVL72 racks (inferred); NVLS across racks not modelled. Uncalibrated. 32 M packets per size: a ring of 128 ranks is still mostly per-step latency at 512 MiB, and with 8 M packets the sizes from 1 GiB up were extrapolated from sizes validate marks 'not yet linear'; with 32 M the 1 GiB tree and 2 GiB ring are simulated and the line through them is straight."),
    "36": ("dgx-h100", "dgx-h100", [], "Unknown, much slower inter-node fabric (INDEX.md)."),
    "37": ("dgx-b200", None, [], "GKE A4: 2 nodes x 8 B200 over RoCE through Google's gIB plugin, 8 x 400G per node assumed. Uncalibrated (no other B200 log crosses nodes)."),
    "41": ("dgx-b200", None, [], "2 of the 8 B200 of one GKE A4 node over NVLink5; rows below 64 MiB elided in the original. Uncalibrated (no other single-node B200 log)."),
}

TARGET_LARGE, TARGET_SMALL = 0.10, 0.25

DISCUSSION = """## What the errors say

- **Leave-one-out (the headline), and why each miss misses.** Over the 18 logs consistent with
  their system, each validated on a calibration that never saw it, the median |error| is 8.8% at
  >= 1 MiB and 21.2% below, but only 9 of 17 logs are within 10%: the medians meet the targets
  by log count, not on every log. The misses, by cause:
  - *No other log of the system to fit on* (data; each is uncalibrated in this table): 03
    (p4de, EFA v1: +27% / +65%, simulated too fast. Below 1 MiB p4de pays ~2x the 14.5 us per
    message that log 04's EFA v2 fits, and its NVLink is not calibrated: with dgx-a100's fit the
    large sizes drop to 18.6%), 04 (p5: +49% at >= 1 MiB, worst +152% at 16 MiB, where NVLSTree
    runs at NCCL's 0.85 NVLS efficiency while 17 fits 0.63, and the 2-node NVLSTree pipeline
    over EFA is too fast at medium sizes: with dgx-h100's fit 28.6%), 05 (PCIe RTX alltoall:
    +28% too fast at >= 1 MiB, where its PCIe and NICs need ~0.77 of their line rate, and -45%
    too slow below, where 15 peers' direct messages pay NCCL's per-step latency that this
    PCIe box does not), 06 (GB300 trays over RoCE: +26% / +89% too fast: the 800G NIC speed is
    assumed and nothing fits the network latency, 0 without a calibration).
  - *The one log that informs a parameter is the one left out* (data): 16 (256 A100s, 4-128 B
    only) is dgx-a100's only multi-node small-size log, so without it net_latency_us is 0 and
    its 1-8 hop trees are +54% too fast (1.3% with it, as a training log).
  - *A model gap the calibration cannot close* (model): 41 (2 of 8 B200 over NVLink5, +89% too
    fast) and the other 2-GPU log 12 (A100, fitted at 0.644 of NVLink) show that a 2-GPU ring
    reaches ~half its NVLink line rate: a channel's copy rate (its SMs), not the link, limits
    it, which the model does not have (8 H100s, log 17, fit 0.80). 14 and 34 (GB200 NVL72, 20
    racks and 2 racks) each fitted on the other disagree by 2x: 34 fits 0.92 of NVLink, 14 0.51. 14's 1440-rank ring is a ring over
    2 racks scaled to 20, which leaves out the contention that only 20 racks have, and the
    fragment has no INFO lines to say which algorithm and channels ran (42.5% uncalibrated,
    38.5% on 34's fit; 34: 13.7% uncalibrated, 43.7% on 14's).
  - *A log with little to compare* (log): 09 is a summary table (in-place busbw only, -g 8, times
    derived from busbw): 17.6%, +78% at 4 MiB and -17% at 2 GiB, where the table's rounding of
    busbw and one thread's enqueueing of 8 GPUs make the medium sizes unreliable.
  - Not counted (a run reaches less than half of what its system's hardware gives: flagged, never
    fitted): 11 (run B, FEC misconfigured: 11%), 19 (its sendrecv run: 31% of 8 x 400G per node),
    36 (alltoall and sendrecv at 26% and 31%: INDEX.md says its fabric is unknown and much
    slower), 31 (40%, a run INDEX.md calls poorly performing) and 37 (16 B200 over RoCE: 18% of
    what the dgx-b200 preset's simulation gives, 66% of 8 x 400G).

- **nccl-tests' own clock sets a floor when one thread drives several GPUs.** With `-g G` one
  thread enqueues every iteration on each of its G GPUs, and the GPUs run the queued
  iterations back to back, so an iteration costs the longer of the collective and G times the
  CPU's enqueueing (`validation/host_issue.hpp`). Logs 22-24 (-g 4) sit flat at ~17 us and
  log 28 (-g 8) at ~35 us from the smallest size to 256 KiB, far above NCCL's own latencies
  (ring LL 10 and 15 us). 4.25 us per GPU, fitted by hand on training log 22 (17.0 / 4), gives
  28's floor within 2-5% up to 256 B (16% at most to 256 KiB) and 23's and 24's small sizes within 1% and 8% (were 18.5% and 28.3%).
  MPI runs with -g 1 (05, 06, 17, 19, 25, 31, 36) are unchanged. Until now the calibration had
  put that floor into `launch_us` (11.6 us for h100-4gpu-ib), which made every protocol's
  latency too high; calibrate now leaves sizes at the floor out of the launch fit, and
  launch_us stays at NCCL's per-protocol values.
- **NCCL_ALGO fixes the algorithm, not the protocol**: with `--algo ring` log 28 now runs LL at
  small sizes and LL128 up to 32 MiB as NCCL's tuning picks them (it ran Simple at every size,
  60 us where 35 were measured); 28 meets both targets (5.1% / 5.0%, was 5.1% / 40.2%).
- **A Simple ring's latency is a fixed cost, not a per-round one.** With launch_us at NCCL's
  values, allgather and reduce-scatter on the 4-GPU mesh (23, 24) were simulated 7-14% and
  12-19% too fast at 16-128 MiB and 20-62% too fast at 4-8 MiB, where the measured times have a
  second floor of ~44 us (all three collectives, as soon as NCCL leaves LL). The logs say why:
  a Simple ring's time depends on the bytes each rank puts on the wire, not on its number of
  rounds. Allreduce of S moves as many bytes per rank as allgather of 2S, and takes the same
  time on the mesh (22 vs 23: 327.4 vs 329.7 us at 64/128 MiB, 180.0 vs 181.2, 101.9 vs 101.2,
  44.98 vs 46.38) and on 8 H100s (28 vs 17, two HGX boxes: 368.7 vs 382.2 us at 64/128 MiB,
  702.6 vs 721.3), although allreduce has twice the rounds. Both show the same intercept,
  ~25-45 us, above their wire time, where NCCL's tuning table says 8.4 us plus 3.4 us per round.
  The Simple protocol now has its own fitted `simple_launch_us` and `simple_step_us`:
  calibrate moves them by the line through the median residual of each ring round count on
  the one-node Simple ring sizes below 64 MiB (`--sizes-per-run 16` for h100-4gpu-ib, so that
  22 has such sizes). Training log 22 has one round count (allreduce, 6 rounds), so only the
  fixed part moves (21.4 us, with 3.4 us per round kept); fitted on 22 and 23 together the
  per-round part falls to 1.9 us and the fixed part rises to 25.4 us, which fits 24 within 7.7%
  (checked in tests/validation/test_validate_cli.py). With it 23 and 24 meet both targets (7.8% / 1.0% and
  8.9% / 8.4%; were 17.1% / 1.0% and 24.6% / 8.4%). dgx-h100 fits 12.4 us on 17's 32 MiB
  allgather and reduce-scatter, which moves none of its validation logs by more than a point.
  Training log 25 (2 nodes, trees) got worse (13.4% -> 21.6%): with 16 sizes its NIC
  efficiency is fitted on 512 MiB-8 GiB, where it fits within 1%, and its 1-256 MiB tree sizes
  are 18-41% too fast, a tree-pipeline error the 8-size fit used to average away. Log 24's
  reduce-scatter stays ~11% slower per byte than allgather on the mesh (not on 8 NVSwitch GPUs,
  log 17), which no change to the ring's latency explains.
- **The switch-buffer scaling is right; it exposed unfitted efficiencies.** Without it, 32 KiB
  packets against a 256 KiB xoff make PFC pauses that no real switch would send (log 05 at 1
  GiB: 11,654 pauses without the scaling, none with it; log 06 at 256 MiB: 732 against 197).
  Those pauses slow the transfers by 15-20% (05 at 1 GiB, 06 at 256 MiB), which happened to stand in for the link and
  protocol efficiency that the calibrated presets fit (0.77-0.80 NVLink, 0.87 NIC): the logs it
  "hurt" are exactly those whose limiting link has no fitted efficiency: 05 (pcie-8gpu,
  uncalibrated: with the scaling it needs 0.765 of the PCIe/NIC line rate at 1 GiB), 06
  (gb300-4gpu-rdma, uncalibrated; its >= 256 MiB sizes are within 6-14% with the scaling), 19
  and 31 (nic_efficiency stays 1.0 because dgx-h100's and dgx-a100's training logs are
  single-node or small-size only). Logs 04 and 25, whose NIC efficiency is fitted, got better.
  What 05/06/19 need is a training log of their preset, not the pauses back.
- **Two nodes run trees, as NCCL does** (logs 03, 25), and NVLSTree on H100 NVSwitch nodes (log
  04), run as collectives' registered `nvls_tree`: NVLS inside each node plus an exchange of the
  node sums between the two NVLS engines; simulated busbw passes the NIC line rate as measured.
- **EFA** has its own message latency: the EFA presets add 14.5 us per network crossing
  (`kEfaMessageLatency`, fitted by hand on the sizes < 64 KiB of log 04, so 04 is a training
  log). Log 03 (p4de, EFA v1) stays ~2x slower than that per message and misses both targets.
- **EFA v1 runs Simple only across nodes.** aws-ofi-nccl sets NCCL_PROTO=simple on p4d/p4de,
  as EFA v1 may deliver a message's bytes out of order and LL/LL128 read flags stored next to
  their data (aws-ofi-nccl issue #76; PR #280 exempted p5 from it): the a100-efa preset now
  runs the Simple protocol whenever a run spans nodes, and `validate` prints so. Log 03's
  small sizes go from 138% to 58% (71 us simulated against 161-165 measured, now 107); its
  1-16 MiB stay 2-3x too fast, a per-message cost of EFA v1 that one crossing latency fitted on
  EFA v2 does not hold.
- **Tree chains rotate over channels**, as NCCL builds each channel's chain along that
  channel's ring (log 24's INFO shows them rotating). With one chain 0..7 for every channel, its
  top and bottom GPUs sent one way only at twice the others' share, and a one-node tree on 8
  A100 reached ~100 GB/s busbw at 64 MiB against the ring's 184; rotated, 176 (neither the step
  latency per chunk nor the connection window was the cause: both tried, < 5%). Log 09's 2 MiB
  (a one-node tree) goes from -63% to +15%, and log 33 (12 nodes, trees at >= 512 MiB) from
  48.3% to 13.0%. But 2-node trees over EFA are now too fast at 1-32 MiB (04: 38-62%, 03:
  60-214%): the old chain's slowness had hidden EFA's per-message costs (proxy, SRD) that the
  model has only as one latency per crossing; 04 (training) goes from 7.1% to 16.5% at >= 1 MiB
  and 03 from 42% to 63%, 31 (flagged) from 117% to 241%. The rotation is its own commit.
- **CollNetChain (SHARP) runs as collectives' registered `collnet_chain`** (`--algo collnet_chain`, log 33: NCCL_ALGO=COLLNETCHAIN on
  12 x 8 H100): per channel a chain of the node's GPUs over NVLink, whose head hands the node's
  sum to an aggregation rank on its rail switch, which returns the total of all nodes; the chain
  rotates over the GPUs from channel to channel. A GPU then sends 1.875 S over its NVLink (S up
  and S down the chain, less the tail's share), so at the NVLink efficiency fitted on log 17
  (0.796) the chain is bound at 374 GB/s busbw (450 x 0.796 x 64/65 / 1.875 x 1.979) and
  simulated at 354-371, where 356-387 were measured: 33 goes from 13.0% (simulated as trees)
  to 3.5%. Our NICs hang off the node switch, so a head
  would push its window of chunks to the NIC over its NVLink port, and the PFC pauses of that
  backlog stalled its chain too (8% at 256 MiB); the switch now holds that window, as a real
  NIC reads it from GPU memory.
- **Extrapolated sizes no longer outrun the links.** Sizes above the packet budget are the line
  through two simulated sizes; with many ranks those sizes can still be mostly per-step latency
  (a ring over 128 GB200 ranks at 64 and 128 MiB), and the line then ran faster than any link:
  log 34 reached 4900 GB/s busbw at 16 GiB on 900 GB/s NVLink. No byte may now be added faster
  than the busiest host link carries it (each rank's bytes sent or received over its one link),
  which takes 19 from 48% to 19% and 34 from 199% to 10%. The other way round, a line through
  sizes where each step's latency still grows with the size runs too slow (34's LL128 ring at 2
  GiB: 475 GB/s against 680 measured; validate now marks such sizes "not yet linear" when the
  slope below differs by more than 20%). With `--max-packets 8M` log 34 still extrapolated its
  1 GiB tree and its 4-16 GiB rings from 256 and 512 MiB, which validate marked "not yet
  linear"; the report now gives it 32 M packets (~10% more wall time), so that the 1 GiB tree
  and the 2 GiB ring are simulated and 4-16 GiB are the line through 1 and 2 GiB, which is
  straight (no size is marked). 1 GiB moves from +6.0% (extrapolated) to -8.0% (simulated) and
  4 GiB from +17.9% to +17.4%, and 34 meets its target (10.1% -> 9.4%). The rings stay 8-17%
  too fast at 2-16 GiB: the NVLink5 efficiency, which no GB200 training log fits.
- **Log 09 was run by one process driving 8 GPUs** (the Azure guide's `NCCLBandwidth.py` runs
  `all_reduce_perf -g 8` in every version), which the summary table does not print:
  `--gpus-per-thread 8` puts the 8 x 4.25 us enqueueing floor under its small sizes (139% ->
  ~29%). The floor measured there is ~45 us, 5.6 us per GPU on that AMD EPYC 7V12 host against
  the 4.25 fitted on log 22's; no A100 training log has a host floor to fit. Its large sizes
  reach 231 GB/s busbw where the dgx-a100 calibration (2-GPU log 12, 195 GB/s, and log 10's
  sendrecv agrees) gives 188: two A100 machines that differ by 18%, which no model parameter
  explains.
- **NCCL's tree correction table is in the tuning model.** NCCL derates a tree's bandwidth by
  a measured table per size (0.4-0.9 between 64 B and 256 MiB, per protocol) before it compares
  algorithms; without it our tuning kept trees at sizes where NCCL leaves them. It moves
  choices only at medium sizes on more than one node: log 04's 512 KiB and 1 MiB become LL
  rings (+75% / +62% -> -16% / -18%), but its 64 MiB becomes NVLSTree (+7.5% -> +95%) and
  its 256 MiB an LL128 tree (-10% -> -28%), so 04 (training) goes from 16.1% to 20.7% at
  >= 1 MiB; 25 from 21.6% / 12.8% to 19.8% / 11.1%; 09 from 18.2% to 18.6%; no calibration
  moved. Where a choice flips, the simulated algorithm's own error shows (NVLSTree at 64 MiB
  across 2 nodes is 2x too fast).
- **Log 14 runs as a ring, simulated over 2 of its 20 racks.** Its times grow by ~2.5 ms per
  512 MiB above an intercept of 4.4-5.2 ms: 2 x 1439 ring rounds at ~1.5-1.8 us each, where a
  tree over 20 racks would cost tens of us, so the report runs it with `--algo ring` (the
  fragment has no INFO lines to confirm it). A 1440-rank ring needs at least 66 M GOAL ops over
  8 channels, too many to build; `validate` now simulates a ring that does not fit `--max-ops`
  as a ring over k whole nodes given S kg/n bytes, whose rounds move the same chunk over the
  same kind of hops (NVLink inside a node, one network crossing per node and channel), and
  scales its time after the launch by the ratio of rounds (exact in an alpha-beta model; the
  busbw is the small ring's). Checked against full rings on log 19's 10 nodes: an allreduce
  ring over 4 nodes within 2%, an allgather ring over 2 nodes within 7% (its 2 channels bound
  to 2 of the 8 NICs; tests/validation/test_validate_cli.py). Log 14 goes from 68% (trees as our tuning picks
  them) to 43.2%: its 512 MiB is within 7.6%, so the rounds' latency holds (LL128 steps on
  NVLink5, one IB crossing per rack), but its bytes go 1.8x too fast: above 512 MiB the
  simulation adds 2.8 ms per GiB, which is what log 34's 2 racks measure (2.7 ms), where the
  20 racks of log 14 measure 5.0 ms, with the same bytes on every GPU's link. What slows the
  20-rack ring lies outside any 2-rack ring (contention in the larger IB network, or fewer
  channels, which the log does not print), and a sub-ring cannot see it.
- **Each message keeps to one NIC, as NCCL binds its connections.** The presets' NICs hang off
  the node switch, and validate used to spray every message's packets over all of a node's
  NICs, so that one flow crossing nodes had every NIC's bandwidth: log 19's 80-rank sendrecv
  (10 crossings) was simulated at ~340 GB/s, where one 400G NIC gives 50. Validate now routes
  by rail (`--routing rail`): a message takes the rail of the NIC its op names, channel c of a
  ring or tree NIC c modulo the node's NICs (both trees of a channel pair the same NIC, as in
  NCCL, where the node is interior in one and a leaf in the other; tree 0 on the even NICs and
  tree 1 on the odd would load them 3:1 and took log 31's 16-node trees from 160 to 100
  GB/s), and alltoall and sendrecv the sending GPU's own NIC, as NCCL's p2p does. p5's 32 EFA
  devices are 8 NICs of 400G here, 4 per GPU striped by aws-ofi-nccl as one NCCL device. A
  2-node sendrecv now gets one NIC, 49.2 GB/s (tests/validation/test_validate_cli.py); log
  19's sendrecv error falls from 2200% to 224% and log 36's from 2225% to 225%, still flagged:
  15 GB/s measured is a third of one NIC. Rings and trees that spread their channels evenly
  move by a few percent (25, training: 19.8% -> 21.4%; 06: 21.0% -> 25.8%, its rings ~4%
  faster than sprayed ones); the targets met stay the same.
- **A tree runs on NCCL's channels, in NCCL's chunks.** NCCL's "coll channels" count both trees:
  its channel c and its duplicate c + nChannels/2 run the two trees of one search channel, one
  tree each (log 12's INFO lines: 24 channels, 12 with each tree). Validate ran two trees on
  every channel, twice NCCL's tree instances, each with its own step costs; it now runs one,
  and cuts them as NCCL 2.19 and later do: one step of the buffer per chunk (512 KiB for
  Simple, where it used the ring's 2 MiB), LL128's 576000 bytes halved while a channel has
  fewer than 64 (1 + log2 nodes + ppn/10)/ppn chunks, with NCCL_STEPS (8) of them in flight;
  broadcast and reduce chains get the 8 too. NCCL then halves LL128 again down to 32 KiB; that
  round is left out, because a step's cost is spent before each send here, where NCCL's GPUs
  overlap a hop's latency with arriving data (at 18 KB a chunk, log 25's 2 MiB tree took 179
  us against 87 measured). Training log 25 meets its targets (21.4% -> 9.0%): its 1-4 MiB
  LL128 trees are +21-30%, its 8-32 MiB ones within 10% and its 64-256 MiB ones +18-22%
  (were +18-47% throughout). Log 03 falls from
  63% to 51%. Log 34 no longer meets its target (9.0% -> 13.7%): its 512 MiB and 1 GiB trees,
  a chain of 72 GPUs per rack, are 17-20% slow with half the instances, since each hop stores
  and forwards a whole 576000-byte chunk where LL128 streams its lines; cutting LL128 trees
  finer, as the chains are, brings them to +13%/-4% but makes log 25's 4-32 MiB sizes 17-22%
  too slow in 4 KiB pieces, so that is left for a streaming model of LL128 hops. The tuning
  no longer sees twice the channels for an `auto` plan that picked the tree, and caps LL by
  NCCL's multi-node llMaxBw (39.0 GB/s on 2 nodes, 20.4 beyond): without the cap, 32 correct
  channels made log 14's 512 MiB ring pick LL (2.9 ms against 7.1 measured).
- **Lossless switches hold every port's pause threshold.** An NVL72 rack's switch has 145
  ports (72 GPUs, 72 rails, the NVLS engine), and validate pauses an ingress port at up to
  2 MiB (32 KiB packets); the default 32 MiB shared buffer dropped 139 packets of log 34's
  1 GiB tree, which nothing resends in lossless mode, and the run hung. Validate's switches
  now buffer without limit, so PFC alone holds data back, and a run that does not complete
  names its drops, PFC deadlock and first stuck op.
- **Streaming LL/LL128 hops are an option (`--streaming-hops`), not the default.** LL128
  flags every 128-byte line, so over NVLink a GPU forwards a step's first lines while the rest
  arrive; NCCL's network proxy instead posts a step once it is written. With the option, an
  LL/LL128 tree or chain pays its protocol's step latency once per hop (on the GPUs' links),
  is cut into pieces of ~16 per hop with NCCL_STEPS' bytes in flight, and sends whole NCCL
  chunks between nodes, each after its step cost. Log 34's 72-deep trees then come within
  +4.7% / -8.7% at 512 MiB / 1 GiB (were -16.7% / -19.5%) and 34 meets its target (13.7% ->
  9.0%), and a one-node LL128 tree on 8 H100 at 32 MiB takes what the hand count gives (within
  5%: wire time, launch, 14 hop latencies, the fill of 8 KiB pieces). Training log 25 (2 x 4
  H100, 4 x 200G) prefers the default, though: with LL128's share of the network fitted (next
  bullet) it is at 2.6% by default and 8.8% with the option, whose 4-32 MiB LL128 trees come
  out 15-35% fast where a step cost before every send matches them within 15% (without that
  share, 9.0% against 26.2%). The model is chosen on training logs, so the report runs the
  default; no training log has deep NVLink chains to tell the two apart where they differ most.
- **LL128 gets ~80% of Simple's rate between nodes** (`ll128_network_efficiency`, fitted).
  Training log 25's 64-256 MiB LL128 trees move a NIC byte at ~78% of the rate its >= 512 MiB
  Simple trees do (3959 us for 256 MiB against 6235 us for 512 MiB), beyond the 120/128 of data
  per LL128 line that the model already counts; with one NIC efficiency for both, the LL128
  sizes were 18-30% fast and pulled the Simple fit down. Calibrate now fits the LL128 sizes
  between nodes on their own (0.803 for h100-4gpu-ib; nic_efficiency 0.919 -> 0.921), and 25
  goes from 9.0% to 2.6% at >= 1 MiB (its LL128 trees within 4% from 8 to 256 MiB except 32
  MiB, -15%). The other presets' training logs have no LL128 sizes between nodes, so their
  share stays 1 and no validation log moves.
- **A tree gets NCCL's measured share of its links at medium sizes.** NCCL's tuning derates its
  tree model by a table its authors measured ("trees are not perfectly sticking to the model for
  medium sizes"): 0.4-0.6 of the model's bandwidth at 64 KiB-16 MiB, none from 512 MiB. Our
  tuning used the table to choose, but the simulated trees ran at the links' full (calibrated)
  rate, and log 03's 2-node Simple trees were 30-180% fast from 32 KiB to 64 MiB. Validate now
  gives a tree of each size that share of every link's rate (`coll::tree_correction`; a size
  extrapolated from smaller ones keeps its own). Log 03 goes from 50.6% to 18.6% at >= 1 MiB
  (its small sizes, set by EFA's message latency, stay at 57.9%) and, fitted on itself, now
  meets both targets (6.8% / 3.0%, where it stayed at 32.4% / 3.0%); log 31's small sizes go
  from 35.3% to 27.1%. The training logs do not choose between the two: 25's 1-4 MiB LL128
  trees come within 7% (were +16-24%) and its 16-64 MiB ones 5-8 points slower (-8..-17%),
  3.6% / 10.1% where it was 2.1% / 11.1%, and h100-4gpu-ib's fit keeps every value with a
  training error of 2.3% (was 1.7%). So this rests on NCCL's own table, not on a fit; a
  training log of 2-node trees at medium sizes on other hardware would test it.
- **Calibrate fits what it got wrong or left out.** (1) The network latency moved by the median
  residual over the crossings it counts; on log 06 the simulated ring grows by ~3x the latency
  added where one crossing is counted, so each step overshot and the fit swung between 0 and
  11.7 us for ever. Once two passes have tried two values it now takes the secant's step, and
  06 settles at 3.9 us in two passes; the report's calibrations move by less than 0.03 us.
  (2) `host_issue_us` is fitted: the sizes below 64 KiB that a thread driving several GPUs
  reports above the simulated collective, over its GPUs (4.22 us on log 22, where 4.25 was fitted
  by hand; -g 1 logs leave it). (3) A bandwidth-bound size across nodes fits the slower of a
  GPU's link and its node's NICs: an NVL72 rack with a NIC per GPU is NVLink-bound, and fitting
  the NICs on log 34 lowered their efficiency from 1.0 to 0.68 in four passes with the error
  unchanged (13.7%); NVLink's now fits at 0.915 and 34 comes to 4.6%. (4) `--from` starts from
  a calibration (what the new logs do not inform keeps its value), and calibrate takes
  validate's options for how NCCL ran a log (`--algo`, `--gpus-per-thread`, `--max-packets`, ...).
- **What the self-fits say.** Five misses are calibration data: 03 needs EFA v1's own message
  latency (23 us per network crossing, where p5's EFA gave 14.5) and 0.86 of its NICs; 06 needs
  GB300's own NIC efficiency (0.88), LL128 share (0.81) and network latency (3.9 us); 09 a host floor of 5.4 us
  per GPU (its EPYC host; log 22's: 4.22), a fixed Simple cost of ~154 us and 0.794 of NVLink,
  where the 2-GPU log 12 gives 0.644 with NCCL's 8.4 us, so the two A100 logs differ in exactly
  what a training log of 8 A100s would fit (its 2-16 MiB LL128 rings stay 47-104% fast); 34
  wants 0.915 of NVLink5 (H100: 0.796), and its trees stay 23% slow, the question
  `--streaming-hops` answers for it and not for log 25; 14's fit halves NVLink's efficiency
  (0.51) to stand for the 20-rack network that a 2-rack sub-ring does not see: one bandwidth
  share fits its slope, but the cause is not NVLink. One miss is the model's: 05's small
  alltoalls stay 29-51% slow, because our
  direct alltoall pays its step cost per peer one after another on each channel (8.4 + 15 x 3.4
  us) where NCCL runs a channel's peers together; together they would take ~19 us against 33-37
  measured, so what 05's intra-node peers pay through the network transport (NCCL_P2P_LEVEL=PHB,
  SHM off) is missing as well.
- **A job on part of a node sends through its own GPUs' NICs.** Every preset's NICs served
  every GPU of its node, so a job on 1 of a DGX H100's 8 GPUs per node had all 8 NICs: a 2-node
  ring all-reduce of 256 MiB was simulated at 353 GB/s busbw where its GPU's one 400G NIC gives
  49. NIC k now serves the GPUs closest to it (one NIC per GPU where a node has as many, pairs on
  p4d's 4 NICs, `nic_gpus` in a system file), a job sends only through the NICs of its GPUs
  (48.2, 98.0, 195.6 and 385.1 GB/s on 1, 2, 4 and 8 GPUs per node: tests/validation), and
  unless its log says otherwise it gets 2 channels per NIC, as NCCL's search finds one per NIC
  and duplicates them (log 25's INFO lines: 8 on 4 NICs). No log here runs on part of a node
  across nodes (34's 128 ranks fill one 72-GPU rack and 56 of the next, whose NICs were all
  used already), so no result moved; 19's INDEX entry says its 1-GPU-per-node runs reached
  44-49 GB/s, which is what the model now gives, but those runs were not saved.
- **B200 (37, 41) is uncalibrated: no other B200 log can train it.** 41's two B200 of one node
  reach 483 GB/s out of place and 564 in place at 8 GiB, 54-63% of NVLink5's 900, where the
  model gives a 2-rank ring the whole link (+83..+104%). Fitted on itself it needs 0.514 of
  NVLink (5.7%), against 0.644 for A100's 2-GPU log 12 and 0.796 for H100's 8-GPU log 17: two
  GPUs get a smaller share of their links than eight, which points at what the model leaves out
  (each channel's copy rate, set by its SMs, not by the links), so a B200 share fitted on 8
  GPUs would not carry over to 2. 37's 2 x 8 B200 over RoCE with Google's gIB plugin reach 260
  GB/s at 4-8 GiB, 66% of 8 x 400G (the InfiniBand H100 fit gives 0.92), and its 1-2 MiB rows
  fall to ~1 GB/s (INDEX.md: "mid-size noise is large"), so validate flags it as inconsistent
  with the preset: a GKE A4 system file with its measured NIC share, once a second A4 log can
  train it, is what would tell the model from the network.
- **Not simulated as NCCL chooses it**: NVLS across NVL72 racks (logs 14, 34), and NCCL's own
  choice of NVLSTree on more than 2 nodes: `--algo nvls` runs NVLSTree over any number of nodes
  (NCCL's double binary tree over the nodes' NVSwitches) and `--algo collnet_direct` CollNetDirect,
  but the automatic choice stays on 1 and 2 nodes, so logs 19 and 31 keep rings and trees in this
  report. Log 19's sendrecv and both runs of log 36 (a thin
  inter-node pipe per INDEX.md) are flagged as inconsistent with the preset, as is log 11 run B
  (FEC off), which reaches ~11% of what the DGX Spark preset gives."""


def log_file(number):
    for name in sorted(os.listdir(os.path.join(HERE, "logs"))):
        if name.startswith(number + "_"):
            return os.path.join("validation", "logs", name)
    raise SystemExit(f"no log {number} in validation/logs")


def run(cmd):
    t0 = time.time()
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return r.stdout, time.time() - t0


def pct(v):
    return "–" if v is None else f"{100 * v:.1f}%"


def last_pass(lines):
    """Calibrate's last pass line, and what it says when the fit has not settled."""
    passes = [line for line in lines if line.startswith("pass ")]
    unsettled = [line for line in lines if line.startswith("not settled")]
    return "`" + (passes[-1] if passes else "") + "`" + ("; " + unsettled[-1] if unsettled else "")


def consistent(j):
    return all(x["consistent_with_preset"] for x in j["runs"])


def meets(j):
    ml, ms = j["median_abs_error_large"], j["median_abs_error_small"]
    return (ml is None or ml <= TARGET_LARGE) and (ms is None or ms <= TARGET_SMALL)


def byte_size(b):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift} {unit}"
    return f"{b} B"


def far_sizes(sizes, limit=0.20):
    """Runs of consecutive sizes off by more than `limit`, with their signed errors."""
    runs, current = [], []
    for s in sizes:
        if abs(s["error"]) > limit:
            current.append(s)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    parts = []
    for r in runs:
        lo, hi = min(x["error"] for x in r), max(x["error"] for x in r)
        span = byte_size(r[0]["bytes"]) if len(r) == 1 else f"{byte_size(r[0]['bytes'])}-{byte_size(r[-1]['bytes'])}"
        errors = f"{100 * lo:+.0f}%" if len(r) == 1 else f"{100 * lo:+.0f}..{100 * hi:+.0f}%"
        parts.append(f"{span} ({errors})")
    return ", ".join(parts)


# Fitting a log on itself (calibrate on that log alone, from the report's calibration if it has
# one, with the same options as its validation) tells a log the model can represent, which only
# lacks a training log of its system, from one it cannot. A diagnostic, never a validation.
SELF_FIT_ITERATIONS = "3"


def self_fit(collsim, number, calibrations):
    preset, cal, extra, _ = LOGS[number]
    out = os.path.join("validation", "calibration", "self-fit", number + ".yaml")
    cmd = [collsim, "calibrate", log_file(number), "--system", preset, "-o", out, "--sizes-per-run", "64",
           "--iterations", SELF_FIT_ITERATIONS, *extra]
    if cal:
        cmd += ["--from", calibrations[cal][0]]
    text, wall = run(cmd)
    v, vwall = run([collsim, "validate", log_file(number), "--system", preset, "--json", "--calibration", out, *extra])
    return json.loads(v), out, last_pass(text.splitlines()), wall + vwall


# Leave-one-out: each log validated with a calibration fitted on the other logs of its preset
# (each with its own options, --log-options), or uncalibrated when it is its preset's only log.
# This is what a user gets on a system collsim was not fitted to. Fewer passes and sizes than
# the report's calibrations, to keep ~20 fits affordable.
LOO_OPTIONS = ["--iterations", "3", "--sizes-per-run", "8"]


def leave_one_out(collsim, number):
    preset, _, extra, _ = LOGS[number]
    others = [n for n in sorted(LOGS) if n != number and LOGS[n][0] == preset and n not in PRESET_FITS]
    cmd = [collsim, "validate", log_file(number), "--system", preset, "--json", *extra]
    wall = 0.0
    if others:
        out = os.path.join("validation", "calibration", "leave-one-out", number + ".yaml")
        fit = [collsim, "calibrate", *[log_file(n) for n in others], "--system", preset, "-o", out, *LOO_OPTIONS]
        for n in others:
            if LOGS[n][2]:
                fit += ["--log-options", log_file(n) + ": " + " ".join(LOGS[n][2])]
        _, wall = run(fit)
        cmd += ["--calibration", out]
    text, vwall = run(cmd)
    return json.loads(text), others, wall + vwall


def leave_one_out_lines(loo):
    """The headline: median over logs consistent with their preset of each log's median |error|."""
    def median(v):
        return statistics.median(v) if v else None
    kept = {n: r for n, r in loo.items() if consistent(r[0])}
    large = [r[0]["median_abs_error_large"] for r in kept.values() if r[0]["median_abs_error_large"] is not None]
    small = [r[0]["median_abs_error_small"] for r in kept.values() if r[0]["median_abs_error_small"] is not None]
    within = sum(1 for v in large if v <= TARGET_LARGE)
    lines = ["## Leave-one-out: each log on a calibration it did not train", "",
             f"Each log validated with a calibration fitted on the other logs of its preset (`calibrate "
             f"{' '.join(LOO_OPTIONS)}`, each log with its own options), or uncalibrated when it is its preset's "
             f"only log: what a user gets on a system collsim was not fitted to. Over the {len(kept)} logs consistent "
             f"with their preset: median |error| **{pct(median(large))}** at >= 1 MiB ({within} of {len(large)} "
             f"within 10%) and **{pct(median(small))}** below.", "",
             "| log | preset | calibrated on | >= 1 MiB median / max | < 1 MiB median / max | targets | consistent | wall |",
             "|---|---|---|---|---|---|---|---|"]
    for number, (j, others, wall) in sorted(loo.items()):
        lines.append(f"| [{number}](#log-{number}) | {LOGS[number][0]} | {', '.join(others) or 'nothing (only log)'} | "
                     f"{pct(j['median_abs_error_large'])} / {pct(j['max_abs_error_large'])} | "
                     f"{pct(j['median_abs_error_small'])} / {pct(j['max_abs_error_small'])} | "
                     f"{'met' if meets(j) else 'missed'} | {'yes' if consistent(j) else '**no**'} | {wall:.0f} s |")
    return lines + [""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collsim", default=None)
    ap.add_argument("--only", default="")
    ap.add_argument("--output", default=os.path.join(HERE, "REPORT.md"),
                    help="where to write the report (a trial with --only should not replace REPORT.md)")
    ap.add_argument("--leave-one-out", action="store_true",
                    help="also validate each log on a calibration fitted on the other logs of its preset")
    args = ap.parse_args()
    collsim = args.collsim
    if collsim is None:
        for c in ("build/release/collsim", "build/rel/collsim"):
            if os.path.exists(os.path.join(ROOT, c)):
                collsim = c
                break
    if collsim is None:
        raise SystemExit("no collsim binary; give --collsim PATH")
    only = set(args.only.split(",")) - {""}
    os.makedirs(os.path.join(HERE, "plots"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "calibration"), exist_ok=True)

    calibrations = {}
    for preset, (logs, options) in TRAINING.items():
        out = os.path.join("validation", "calibration", preset + ".yaml")
        text, wall = run([collsim, "calibrate", *[log_file(n) for n in logs], "--system", preset, "-o", out, *options])
        calibrations[preset] = (out, text.strip().splitlines(), wall)
        print(f"calibrated {preset} on {logs} in {wall:.1f} s", file=sys.stderr)

    results = {}
    for number, (preset, cal, extra, note) in sorted(LOGS.items()):
        if only and number not in only:
            continue
        cmd = [collsim, "validate", log_file(number), "--system", preset, "--json",
               "--plot", os.path.join("validation", "plots", number + ".png"), *extra]
        if cal:
            cmd += ["--calibration", calibrations[cal][0]]
        text, wall = run(cmd)
        results[number] = (json.loads(text), wall, cmd)
        print(f"validated {number} in {wall:.1f} s", file=sys.stderr)

    os.makedirs(os.path.join(HERE, "calibration", "self-fit"), exist_ok=True)
    self_fits = {}
    for number, (j, _, _) in results.items():
        if role(number, LOGS[number][0]) == "validation" and consistent(j) and not meets(j):
            self_fits[number] = self_fit(collsim, number, calibrations)
            print(f"fitted {number} on itself in {self_fits[number][3]:.1f} s", file=sys.stderr)

    loo = {}
    if args.leave_one_out:
        os.makedirs(os.path.join(HERE, "calibration", "leave-one-out"), exist_ok=True)
        for number in results:
            loo[number] = leave_one_out(collsim, number)
            print(f"left {number} out in {loo[number][2]:.1f} s", file=sys.stderr)
    write_report(results, calibrations, self_fits, loo, args.output)


# Logs a preset's built-in number was fitted on (not by `collsim calibrate`): training too.
PRESET_FITS = {
    "04": "EFA message latency (kEfaMessageLatency in validation/system_presets.cpp), sizes < 64 KiB",
}


def role(number, preset):
    if number in PRESET_FITS:
        return "training (EFA latency)"
    return "training" if number in TRAINING.get(preset, ([], []))[0] else "validation"


def write_report(results, calibrations, self_fits, loo, output):
    lines = ["# Validation against nccl-tests logs", "",
             "Regenerated by `python3 validation/make_report.py` (calibrates, then runs `collsim validate` on every "
             "log of `validation/logs`; INDEX.md there describes the logs). Error = simulated busbw / measured busbw "
             "- 1 (busbw by nccl-tests' formula on each time). Targets: median |error| <= 10% for sizes >= 1 MiB and "
             "<= 25% below, on validation logs (not used for calibration).", ""]
    if loo:
        lines += leave_one_out_lines(loo)
    lines += ["## Calibrations", ""]
    for preset, (path, text, wall) in calibrations.items():
        lines.append(f"- **{preset}** on logs {', '.join(TRAINING[preset][0])} ({wall:.1f} s): `{path}`; last pass: "
                     f"{last_pass(text)}")
    lines += ["", "## Summary", "",
              "| log | role | preset | calibration | runs | >= 1 MiB median / max | < 1 MiB median / max | targets | "
              "consistent with preset | log check | wall |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    met = []
    for number, (j, wall, _) in results.items():
        preset, cal, _, _ = LOGS[number]
        r = role(number, preset)
        ml, ms = j["median_abs_error_large"], j["median_abs_error_small"]
        findings = sum(len(x["findings"]) for x in j["runs"])
        if r == "validation" and consistent(j):
            met.append((number, meets(j)))
        lines.append(f"| [{number}](#log-{number}) | {r} | {preset} | {cal or 'none'} | {len(j['runs'])} | "
                     f"{pct(ml)} / {pct(j['max_abs_error_large'])} | {pct(ms)} / {pct(j['max_abs_error_small'])} | "
                     f"{'met' if meets(j) else 'missed'} | {'yes' if consistent(j) else '**no**'} | "
                     f"{'ok' if findings == 0 else str(findings) + ' finding(s)'} | {wall:.1f} s |")
    n_ok = sum(1 for _, ok in met if ok)
    lines += ["", f"Validation logs consistent with their preset that meet both targets: {n_ok} of {len(met)} "
              f"({', '.join(n for n, ok in met if ok) or 'none'}).", ""]
    if self_fits:
        lines += ["## Each missed log fitted on itself (a diagnostic, not a validation)", "",
                  "For every validation log above that misses a target, `collsim calibrate` fits the same parameters "
                  "on that log alone (from the report's calibration, when the log has one, with `--from`; the same "
                  f"options as its validation; {SELF_FIT_ITERATIONS} passes over up to 64 sizes), and the log is "
                  "validated again with that fit. The log then trains itself, so this says nothing about prediction; "
                  "it separates a log the model can represent, which lacks only a training log of its system, from "
                  "one it cannot, and names the sizes the model cannot reach.", "",
                  "| log | preset | validated: >= 1 MiB / < 1 MiB | fitted on itself: >= 1 MiB / < 1 MiB | "
                  "sizes still off by > 20% | reading | wall |",
                  "|---|---|---|---|---|---|---|"]
        for number, (j, _, _, wall) in self_fits.items():
            v = results[number][0]
            sizes = [s for x in j["runs"] for s in x["sizes"]]
            if meets(j):
                reading = "meets both targets fitted on itself"
            else:
                reading = "misses a target even fitted on itself"
            lines.append(f"| [{number}](#log-{number}) | {LOGS[number][0]} | {pct(v['median_abs_error_large'])} / "
                         f"{pct(v['median_abs_error_small'])} | {pct(j['median_abs_error_large'])} / "
                         f"{pct(j['median_abs_error_small'])} | {far_sizes(sizes) or 'none'} | {reading} | {wall:.0f} s |")
        lines += ["", "The fits (`validation/calibration/self-fit/`), last pass:", ""]
        for number, (_, _, fit_line, _) in self_fits.items():
            lines.append(f"- {number}: {fit_line}")
        lines.append("")
    lines += [DISCUSSION, ""]
    for number, (j, wall, cmd) in results.items():
        preset, cal, _, note = LOGS[number]
        lines += [f"## Log {number}", "", f"`{j['log']}` — {note}", "",
                  f"Command: `{' '.join(cmd)}` ({wall:.1f} s)", ""]
        for x in j["runs"]:
            lines.append(f"- run {x['run']}: {x['collective']} ({x['collective_source']}), {x['ranks']} ranks "
                         f"({x['ranks_source']}) on {x['nodes']} x {x['gpus_per_node']}, {x['channels']} channels; "
                         f">= 1 MiB median {pct(x['median_abs_error_large'])} max {pct(x['max_abs_error_large'])}; "
                         f"< 1 MiB median {pct(x['median_abs_error_small'])} max {pct(x['max_abs_error_small'])}; "
                         f"simulated in {x['wall_s']:.1f} s" +
                         ("" if x["consistent_with_preset"] else f"; **inconsistent with the preset**: {x['preset_reason']}"))
            for f in x["findings"]:
                lines.append(f"  - log check, line {f['line']}: {f['message']}")
            # One entry per algorithm, whatever share of the links NCCL's tree correction left it.
            algos = sorted({re.sub(r" at \d\.\d of the links \(NCCL's tree correction\)", " with NCCL's tree correction",
                                   s["algorithm"]) for s in x["sizes"]})
            if algos:
                lines.append(f"  - simulated as: {', '.join(algos)}")
        lines += ["", f"![log {number}](plots/{number}.png)", ""]
    with open(output, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
