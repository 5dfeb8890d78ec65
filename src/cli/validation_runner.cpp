#include "validation_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "collsim/collectives/generate.hpp"
#include "collsim/common/units.hpp"
#include "collsim/collectives/spec.hpp"
#include "collsim/collectives/tuning.hpp"
#include "collsim/validation/host_issue.hpp"
#include "collsim/validation/collnet_chain_allreduce.hpp"
#include "collsim/validation/nvls_allreduce.hpp"
#include "collsim/validation/system_file.hpp"
#include "collsim/validation/bandwidth_formulas.hpp"

namespace collsim::cli {
namespace {

using validation::SizeComparison;

constexpr const char* kChannelsFromLog = "the log's NCCL INFO";

std::string describe(const coll::Plan& plan) {
  return plan.algorithm + " " + std::string(coll::to_string(plan.protocol)) + " x" + std::to_string(plan.channels);
}

// The lowering of one size. NCCL's chunk and the fabric's 4 KiB MTU make a GiB collective
// millions of messages and billions of packets, so both grow with the size: at most ~8
// pipelined chunks per block and channel (and at most request.max_ops ops in all), and packets
// of 1/64 of a chunk (4 KiB .. 32 KiB). Large sizes are bandwidth-bound, where this changes
// little; small sizes keep NCCL's chunks and 4 KiB packets.
// A smaller ring of whole nodes standing in for one too large to build (see sub_ring).
struct SubRing {
  std::uint32_t ranks = 0, nodes = 0;  // the ring simulated
  std::uint64_t rounds = 0;            // the large ring's
  std::uint64_t sub_rounds = 0;        // the simulated ring's
  double scale() const { return static_cast<double>(rounds) / static_cast<double>(sub_rounds); }
  std::string describe(std::uint32_t all_nodes) const {
    return ", as a ring over " + std::to_string(ranks) + " ranks (" + std::to_string(nodes) + " of " +
           std::to_string(all_nodes) + " nodes) with the same bytes per round, its rounds scaled by " +
           std::to_string(rounds) + "/" + std::to_string(sub_rounds);
  }
};

struct Lowered {
  coll::Plan plan;
  goal::Schedule schedule;
  std::uint32_t mtu = 4096;
  // Bytes a switch must hold from one ingress before it pauses it, at least (0: the default).
  std::uint64_t min_xoff_bytes = 0;
  // Set when a smaller ring stands in: the simulated time after the launch is scaled by its rounds.
  std::optional<SubRing> sub_ring{};
  // A streaming protocol's step latency, paid once per hop on the GPUs' links (see lower).
  std::int64_t hop_latency_ns = 0;
  bool streams = false;  // --streaming-hops applied: said in what the size was simulated as
  // The NICs' rate for this size relative to nic_efficiency's (ll128_network_efficiency).
  double nic_factor = 1.0;
  // The share of every link's rate a tree of this size reaches (coll::tree_correction).
  double tree_share = 1.0;
};

coll::CollectiveSpec base_spec(const ValidationSetup& s, const ValidationRequest& r, std::uint64_t bytes) {
  coll::CollectiveSpec spec;
  spec.collective = s.collective;
  spec.algorithm = r.algorithm;
  spec.num_ranks = s.ranks;
  spec.bytes = bytes;
  spec.channels = s.channels;
  spec.ranks_per_node = s.gpus_per_node;
  // NCCL binds each channel's connections to one NIC of the job's GPUs, and point-to-point to
  // the GPU's own.
  spec.nics = s.nics.count;
  spec.nic_of_rank = s.collective == coll::Collective::AllToAll || s.collective == coll::Collective::SendRecv;
  if (spec.nic_of_rank) spec.rank_nics = s.nics.of_gpu;
  // Channels the log's NCCL INFO reports are what NCCL's search found for these links, so the
  // links' bandwidth is split over them; a channel count cut with --channels (to bound the
  // simulation) does not make a channel faster, so the preset's split holds then.
  spec.system = validation::tuning_system(s.preset, s.nodes, s.channels_source == kChannelsFromLog ? s.channels : 0,
                                          s.gpus_per_node);
  const auto proto = coll::protocol_from_name(s.protocol);
  spec.protocol = proto ? *proto : coll::Protocol::Auto;
  if (r.parameters.launch_us >= 0) spec.launch_ns = std::llround(r.parameters.launch_us * 1000);
  if (r.parameters.step_us >= 0) spec.step_ns = std::llround(r.parameters.step_us * 1000);
  return spec;
}

std::uint32_t mtu_for(std::uint64_t chunk) {
  std::uint32_t mtu = 4096;
  while (std::uint64_t{mtu} * 64 < chunk && mtu < 32 * 1024) mtu *= 2;  // the fabric caps packets at 64 KiB
  return mtu;
}

// NVLS on one node, NVLSTree on two full nodes (see nvls_allreduce.hpp).
bool nvls_possible(const ValidationSetup& s) {
  const bool full_nodes = s.ranks == s.nodes * s.gpus_per_node && s.gpus_per_node > 2;
  return s.preset.nvls && s.nodes <= 2 && full_nodes && s.collective == coll::Collective::Allreduce;
}

// CollNetChain (SHARP) on two or more full nodes: only when asked for, as NCCL runs CollNet
// only with NCCL_COLLNET_ENABLE=1 and a SHARP-capable network.
bool collnet_chain_possible(const ValidationSetup& s) {
  const bool full_nodes = s.ranks == s.nodes * s.gpus_per_node;
  return s.nodes >= 2 && full_nodes && s.preset.nics_per_node > 0 && s.collective == coll::Collective::Allreduce;
}

// NCCL picks NVLS when its model says it is faster than the best ring/tree choice.
bool nvls_chosen(const ValidationSetup& s, const ValidationRequest& r, const coll::Plan& plan) {
  if (!nvls_possible(s)) return false;
  if (r.algorithm == "nvls") return true;
  if (r.algorithm != "auto" || s.protocol != "auto") return false;
  const std::vector<coll::TuningCandidate> c = coll::tuning_candidates(plan);
  return c.empty() || validation::nvls_model_time_us(s.preset, s.ranks, s.channels, plan.bytes, s.nodes,
                                                 plan.system.inter_latency_us) < c.front().time_us;
}

Lowered lower_nvls(const ValidationSetup& s, const ValidationRequest& r, const coll::Plan& plan) {
  validation::NvlsAllreduce a;
  a.gpus = s.gpus_per_node;
  a.nodes = s.nodes;
  a.bytes = plan.bytes;
  a.channels = s.channels;
  const std::uint64_t per_channel = std::max<std::uint64_t>(1, plan.bytes / s.channels);
  // NCCL's NVLS chunk is 128 KiB; at most ~8 chunks per channel keep events bounded. Across
  // 2 nodes a chunk passes 3 hops (up, across, down) with the network's latency in between,
  // so 32 chunks keep that pipeline full.
  const std::uint64_t pieces = s.nodes > 1 ? 32 : 8;
  a.chunk_bytes = std::max<std::uint64_t>(128 * 1024, (per_channel / pieces + 4095) / 4096 * 4096);
  a.launch_ns = r.parameters.launch_us >= 0 ? std::llround(r.parameters.launch_us * 1000) : plan.launch_ns;
  coll::Plan shown = plan;
  shown.algorithm = s.nodes > 1 ? "nvls_tree" : "nvls";
  shown.protocol = coll::Protocol::Simple;
  return {shown, validation::make_nvls_allreduce(a), mtu_for(a.chunk_bytes)};
}

Lowered lower_collnet_chain(const ValidationSetup& s, const ValidationRequest& r, const coll::Plan& plan) {
  validation::CollNetChainAllreduce a;
  a.gpus = s.gpus_per_node;
  a.nodes = s.nodes;
  a.rails = s.nics.count;
  a.bytes = plan.bytes;
  a.channels = s.channels;
  // A chunk climbs gpus - 1 NVLink hops, crosses the network twice and comes back down: like
  // a tree's pipeline, 16 chunks per hop keep filling and draining it small.
  const std::uint64_t per_channel = std::max<std::uint64_t>(1, plan.bytes / s.channels);
  const std::uint64_t pieces = 16 * (2 * (s.gpus_per_node - 1) + 2);
  a.chunk_bytes = std::max<std::uint64_t>(128 * 1024, (per_channel / pieces + 4095) / 4096 * 4096);
  a.launch_ns = r.parameters.launch_us >= 0 ? std::llround(r.parameters.launch_us * 1000) : plan.launch_ns;
  coll::Plan shown = plan;
  shown.algorithm = "collnet_chain";
  shown.protocol = coll::Protocol::Simple;
  shown.channels = s.channels;
  // A head hands its window of chunks to its NIC at NVLink speed; a real NIC reads them from
  // the GPU's memory (GPUDirect RDMA) and never holds up the GPU's NVLink traffic. Our NICs
  // hang off the node switch, so the switch buffers that window instead of pausing the head's
  // NVLink port, which would stall its chain too (8% slower at 256 MiB on 12 x 8 H100).
  const std::uint64_t heads_per_gpu = (s.channels + s.gpus_per_node - 1) / s.gpus_per_node;
  const std::uint32_t mtu = mtu_for(a.chunk_bytes);
  const std::uint64_t window = heads_per_gpu * a.in_flight * a.chunk_bytes;
  return {shown, validation::make_collnet_chain_allreduce(a), mtu, window + window / 64 + 256 * 1024};
}

// What NCCL runs at one size: the tuning's algorithm and protocol, NVLS or CollNetChain.
struct Choice {
  bool nvls = false;
  bool collnet_chain = false;
  std::string algorithm;
  coll::Protocol protocol = coll::Protocol::Simple;
  // The share of the links a tree of the log's size gets (coll::tree_correction): kept when a
  // large size is extrapolated from smaller ones, which would otherwise take their own.
  double tree_share = 1.0;
  std::string key() const {
    return nvls ? "nvls"
           : collnet_chain
               ? "collnet_chain"
               : algorithm + "/" + std::string(coll::to_string(protocol)) + "/" + std::to_string(tree_share);
  }
};

// NCCL's tuning derates a tree by a table it measured, down to 0.4-0.6 of its model at 64
// KiB-16 MiB: what its GPUs lose to a tree's synchronisation at medium sizes, which links and
// chunks here do not. The same share of every link's rate slows the simulated tree alike
// (log 03's 2-node Simple trees: 50.6% -> 18.6% at >= 1 MiB; see validation/REPORT.md).
Choice with_tree_share(Choice c, std::uint64_t bytes) {
  if (c.algorithm == "double_binary_tree") c.tree_share = coll::tree_correction(c.protocol, bytes);
  return c;
}

Choice choose(const ValidationSetup& s, const ValidationRequest& r, std::uint64_t bytes) {
  // CollNet runs Simple only (NCCL's LL and LL128 bandwidths for it are 0).
  if (r.algorithm == "collnet_chain") return {false, true, "collnet_chain", coll::Protocol::Simple};
  coll::CollectiveSpec spec = base_spec(s, r, bytes);
  if (r.algorithm == "nvls") spec.algorithm = "auto";
  const coll::Plan plan = coll::make_plan(spec);
  if (nvls_chosen(s, r, plan)) return {true, false, "nvls", coll::Protocol::Simple};
  // NCCL_ALGO fixes the algorithm only: NCCL still tunes the protocol by size (log 28 runs
  // LL at small sizes under NCCL_ALGO=RING). Candidates come from the "auto" plan.
  if (r.algorithm != "auto" && r.algorithm != "nvls" && s.protocol == "auto") {
    coll::CollectiveSpec tuned = spec;
    tuned.algorithm = "auto";
    if (const auto proto = coll::tuned_protocol(coll::make_plan(tuned), plan.algorithm))
      return with_tree_share({false, false, plan.algorithm, *proto}, bytes);
  }
  return with_tree_share({false, false, plan.algorithm, plan.protocol}, bytes);
}

// A ring sends at least one message per rank, channel and round whatever its chunks.
std::uint64_t least_ring_ops(coll::Collective c, std::uint32_t ranks, std::uint32_t channels) {
  return 2 * coll::ring_steps(c, ranks) * ranks * channels;  // a send and a receive each
}

// A ring too large to build (1440 ranks over 8 channels: 66 M ops, and minutes and gigabytes
// to build) is simulated as a smaller one. Each of a ring's rounds moves S/n bytes per rank one
// hop, so a ring over k whole nodes given S k g / n bytes moves the same chunk per round over
// the same kind of hops (NVLink inside a node, one network crossing per node and channel):
// each of its rounds takes what one of the large ring's takes, and the large ring's time is its
// launch plus the small ring's rounds scaled by the ratio of rounds (exact in an alpha-beta
// model: 2(n-1)(alpha + S/(nB))). What it leaves out is contention that only a network larger
// than k nodes has. The largest k whose ring fits --max-ops is taken.
std::optional<SubRing> sub_ring(const ValidationSetup& s, const ValidationRequest& r) {
  const std::uint64_t least = least_ring_ops(s.collective, s.ranks, s.channels);
  if (least <= r.max_ops) return std::nullopt;
  const bool rounds_of_chunks = s.collective == coll::Collective::Allreduce ||
                                s.collective == coll::Collective::Allgather ||
                                s.collective == coll::Collective::ReduceScatter;
  const bool whole_nodes = s.ranks == s.nodes * s.gpus_per_node;
  for (std::uint32_t k = s.nodes - 1; rounds_of_chunks && whole_nodes && k >= 2; --k) {
    const std::uint32_t n = k * s.gpus_per_node;
    if (least_ring_ops(s.collective, n, s.channels) <= r.max_ops)
      return SubRing{n, k, coll::ring_steps(s.collective, s.ranks), coll::ring_steps(s.collective, n)};
  }
  std::string why = rounds_of_chunks && whole_nodes && s.nodes > 2
                        ? "; a ring over 2 whole nodes, the smallest that stands in for it, needs " +
                              std::to_string(least_ring_ops(s.collective, 2 * s.gpus_per_node, s.channels))
                        : "; a smaller ring stands in for it only in allreduce, allgather and reduce-scatter over "
                          "3 or more whole nodes";
  throw std::runtime_error("a ring of " + std::to_string(s.ranks) + " ranks over " + std::to_string(s.channels) +
                           " channel(s) needs at least " + std::to_string(least) +
                           " GOAL ops per size (a send and a receive per rank, channel and each of " +
                           std::to_string(coll::ring_steps(s.collective, s.ranks)) + " rounds), above --max-ops " +
                           std::to_string(r.max_ops) + why +
                           ": raise --max-ops, give fewer --channels, or another --algo");
}

Lowered lower(const ValidationSetup& s, const ValidationRequest& r, std::uint64_t bytes, const Choice& choice) {
  coll::CollectiveSpec spec = base_spec(s, r, bytes);
  if (choice.nvls || choice.collnet_chain) {
    spec.algorithm = "auto";
    spec.protocol = coll::Protocol::Simple;
    return choice.nvls ? lower_nvls(s, r, coll::make_plan(spec)) : lower_collnet_chain(s, r, coll::make_plan(spec));
  }
  spec.algorithm = choice.algorithm;
  spec.protocol = choice.protocol;
  if (choice.protocol == coll::Protocol::Simple) {
    if (r.parameters.simple_launch_us >= 0) spec.launch_ns = std::llround(r.parameters.simple_launch_us * 1000);
    if (r.parameters.simple_step_us >= 0) spec.step_ns = std::llround(r.parameters.simple_step_us * 1000);
  }
  std::optional<SubRing> sub;
  if (choice.algorithm == "ring" && (sub = sub_ring(s, r))) {
    spec.num_ranks = sub->ranks;
    spec.bytes = std::max<std::uint64_t>(1, bytes * sub->ranks / s.ranks);
  }
  coll::Plan plan = coll::make_plan(spec);
  std::uint64_t chunk = plan.chunk_bytes;
  const std::uint64_t per_channel_block = std::max<std::uint64_t>(1, plan.block_bytes() / plan.channels);
  // A ring keeps every rank busy on another block each step, so ~8 chunks per block suffice. A
  // tree is one pipeline up the node's chain and the tree over nodes and back down, `depth`
  // hops, and a broadcast or reduce chain one through every rank; filling and draining it
  // costs about depth chunk times, so 16 chunks per hop keep that near 6% (NCCL's own chunks
  // are small enough that it hardly pays it).
  std::uint64_t pieces = 8;
  std::uint64_t depth = 0, ops_per_step = 0;
  if (plan.algorithm == "double_binary_tree") {
    const auto levels = static_cast<std::uint64_t>(std::ceil(std::log2(std::max(1u, s.nodes))));
    depth = 2 * (s.gpus_per_node - 1 + levels);
    ops_per_step = 6;
  } else if (plan.algorithm == "pipelined_chain") {
    depth = s.ranks - 1;
    ops_per_step = 3;
  }
  if (depth > 0) {
    // A step costs each rank up to ops_per_step ops per channel: stay within --max-ops up front
    // (1440 ranks in NVL72 racks would otherwise build 100 M ops to throw away).
    const std::uint64_t affordable = r.max_ops / (std::uint64_t{s.ranks} * plan.channels * ops_per_step);
    pieces = std::max<std::uint64_t>(8, std::min(16 * depth, affordable));
  }
  const std::uint64_t piece = (per_channel_block / pieces + 4095) / 4096 * 4096;
  if (per_channel_block / chunk > pieces) chunk = piece;
  // LL and LL128 flag every 8 or 128 bytes, so a GPU forwards what has arrived before the
  // rest of the step has. A chain of them is therefore cut finer than NCCL's steps, each piece
  // paying its share of a step's cost, where chunks that fill a step would be stored and
  // forwarded whole at every hop (Simple's are: its flag covers the slice).
  //
  // --streaming-hops takes that further, for trees too: a step's latency becomes a hop's, paid
  // once on the way and overlapped with the data behind it rather than spent before every
  // send; it goes on the GPUs' links (Lowered::hop_latency_ns), the pipeline is cut finer with
  // as many bytes in flight as NCCL's NCCL_STEPS buffers hold, and a tree's messages between
  // nodes stay NCCL's chunks, each with its step cost, as NCCL's proxy posts a network step
  // once the GPU has written all of it (Plan::steps_per_network_message, network_step_ns).
  // It is not the default: the 72-deep chains of two NVL72 racks (log 34) need it, but a
  // 2-node H100 training log (25) fits the default better (see validation/REPORT.md).
  const bool fine_protocol = (plan.algorithm == "pipelined_chain" || plan.algorithm == "double_binary_tree") &&
                             plan.protocol != coll::Protocol::Simple;
  const bool streams = r.streaming_hops && fine_protocol;
  const std::uint64_t finer = std::max<std::uint64_t>(4096, piece);
  const auto steps_of = [&](std::uint64_t c) { return std::max<std::uint64_t>(1, (per_channel_block + c - 1) / c); };
  std::int64_t hop_latency_ns = 0;
  if (streams) {
    hop_latency_ns = plan.step_ns;
    spec.step_ns = 0;
    spec.network_step_ns = plan.step_ns;
    if (per_channel_block / chunk < pieces && finer < chunk) {
      const std::uint64_t per_chunk = chunk / finer;
      spec.max_in_flight = static_cast<std::uint32_t>(
          std::clamp<std::uint64_t>(std::uint64_t{plan.max_in_flight} * per_chunk, plan.max_in_flight, 64));
      if (plan.algorithm == "double_binary_tree" && s.nodes > 1)
        spec.steps_per_network_message = static_cast<std::uint32_t>(std::min<std::uint64_t>(per_chunk, 1u << 20));
      chunk = finer;
    }
  } else if (fine_protocol && plan.algorithm == "pipelined_chain" && per_channel_block / chunk < pieces &&
             steps_of(finer) > steps_of(chunk)) {
    spec.step_ns = static_cast<std::int64_t>(static_cast<double>(plan.step_ns) * static_cast<double>(steps_of(chunk)) /
                                             static_cast<double>(steps_of(finer)));
    chunk = finer;
  }
  if (chunk != plan.chunk_bytes || streams) {
    spec.chunk_bytes = chunk;
    plan = coll::make_plan(spec);
  }
  goal::Schedule schedule = coll::generate(plan);
  while (schedule.num_ops() > r.max_ops && plan.chunk_bytes < per_channel_block) {
    spec.chunk_bytes = plan.chunk_bytes * 2;
    spec.steps_per_network_message = std::max<std::uint32_t>(1, spec.steps_per_network_message / 2);
    plan = coll::make_plan(spec);
    schedule = coll::generate(plan);
  }
  const std::uint32_t mtu = mtu_for(plan.chunk_bytes);
  const double nic_factor =
      plan.protocol == coll::Protocol::LL128 && s.nodes > 1 ? r.parameters.ll128_network_efficiency : 1.0;
  return {std::move(plan), std::move(schedule), mtu, 0, sub, hop_latency_ns, streams, nic_factor, choice.tree_share};
}

std::string tree_share_note(const Lowered& lowered) {
  if (lowered.tree_share >= 1.0) return "";
  char text[64];
  std::snprintf(text, sizeof text, " at %.1f of the links (NCCL's tree correction)", lowered.tree_share);
  return text;
}

// No rank can send or receive its bytes faster than its one link carries them (with each
// packet's header): a lower bound on the schedule's time, in µs, that grows linearly with
// the size. Extrapolation uses it as the least time a byte can add: two sizes simulated where
// latency still dominates (a ring over 128 ranks at 64 and 128 MiB) grow by less than their
// bytes, and a line through them would run faster than the links.
double wire_floor_us(const goal::Schedule& schedule, const topo::Topology& topology, std::uint32_t mtu) {
  std::vector<std::uint64_t> out(schedule.num_ranks()), in(schedule.num_ranks());
  for (goal::RankId r = 0; r < schedule.num_ranks(); ++r) {
    const goal::RankOps ops = schedule.rank(r);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      if (ops.kind(i) != goal::OpKind::Send) continue;
      out[r] += ops.size(i);
      if (ops.peer(i) < in.size()) in[ops.peer(i)] += ops.size(i);
    }
  }
  double floor_us = 0;
  const double header_share = 1.0 + static_cast<double>(mtu / 64) / mtu;
  for (goal::RankId r = 0; r < schedule.num_ranks() && r < topology.num_hosts(); ++r) {
    const std::vector<topo::Port>& ports = topology.ports(topology.host(r));
    if (ports.empty()) continue;
    const double bps = static_cast<double>(topology.link(ports.front().link).bandwidth.bps());
    if (bps <= 0) continue;
    const double bytes = static_cast<double>(std::max(out[r], in[r])) * header_share;
    floor_us = std::max(floor_us, bytes * 8.0 / bps * 1e6);
  }
  return floor_us;
}

// The largest size simulated packet by packet: every rank puts about factor * size bytes on
// its link (NVLS twice that, up and down), in packets of up to 32 KiB; above
// request.max_packets packets in all, sizes are extrapolated (see validate_run).
// A smaller ring standing in for a large one sends size * ranks' / ranks per rank.
std::uint64_t largest_simulated_size(const ValidationSetup& s, const ValidationRequest& r, const Choice& choice) {
  const double factor = std::max(1.0, validation::busbw_factor(s.collective, s.ranks)) * (nvls_possible(s) ? 2.0 : 1.0);
  double senders = s.ranks;
  if (choice.algorithm == "ring")
    if (const std::optional<SubRing> sub = sub_ring(s, r)) senders = static_cast<double>(sub->ranks) * sub->ranks / s.ranks;
  const double cap = static_cast<double>(r.max_packets) * 32768.0 / (senders * factor);
  std::uint64_t size = 1ull << 20;
  while (static_cast<double>(size) * 2 <= cap) size *= 2;
  return size;
}

}  // namespace

validation::SystemPreset system_of_option(const std::string& name_or_path) {
  try {
    return validation::resolve_system(name_or_path);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--system", e.what());
  }
}

ValidationSetup resolve_setup(const validation::TestRun& run, const ValidationRequest& request) {
  const validation::RunFacts facts = validation::infer_run_facts(run);
  ValidationSetup s;
  if (!facts.unsupported_program.empty())
    throw CLI::ValidationError("LOG", "nccl-tests " + facts.unsupported_program +
                                          " measures a collective that collsim does not simulate (it validates "
                                          "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce and "
                                          "sendrecv)");
  if (!facts.collective)
    throw CLI::ValidationError("LOG", "the log does not say which collective it measured (no program name, and the "
                                      "columns do not tell)");
  s.collective = *facts.collective;
  s.collective_source = facts.collective_source;
  if (request.ranks != 0 && facts.ranks != 0 && request.ranks != facts.ranks)
    throw CLI::ValidationError("--ranks", "the log says " + std::to_string(facts.ranks) + " ranks (" +
                                              facts.ranks_source + "), not " + std::to_string(request.ranks));
  s.ranks = request.ranks != 0 ? request.ranks : facts.ranks;
  s.ranks_source = request.ranks != 0 ? "--ranks" : facts.ranks_source;
  if (s.ranks == 0 && request.ranks_if_unknown != 0) {
    s.ranks = request.ranks_if_unknown;
    s.ranks_source = "--ranks (the log does not tell)";
  }
  if (s.ranks < 2) throw CLI::ValidationError("--ranks", "the log does not tell how many ranks ran; give --ranks N");

  if (!request.system.empty()) {
    s.preset = system_of_option(request.system);
    s.preset_source = request.system_source;
  } else {
    std::string why;
    const auto p = validation::infer_system_preset(facts.gpu, facts.gpus_per_node, &why);
    if (!p)
      throw CLI::ValidationError("--system", facts.gpu.empty()
                                                 ? "the log has no device lines to infer the system from; give --system"
                                                 : "no preset for GPU '" + facts.gpu + "'; give --system");
    s.preset = *p;
    s.preset_source = "inferred: " + why;
  }
  if (request.gpus_per_node != 0 && facts.gpus_per_node != 0 && request.gpus_per_node != facts.gpus_per_node)
    throw CLI::ValidationError("--gpus-per-node", "the log says " + std::to_string(facts.gpus_per_node) +
                                                      " GPUs per node (" + facts.ranks_source + "), not " +
                                                      std::to_string(request.gpus_per_node));
  s.gpus_per_node = request.gpus_per_node != 0 ? request.gpus_per_node
                    : facts.gpus_per_node != 0 ? facts.gpus_per_node
                                               : std::min(s.preset.gpus_per_node, s.ranks);
  // NVL72 racks are one NVLink domain of many 4-GPU trays: the domain is the node.
  if (request.gpus_per_node == 0 && s.preset.gpus_per_node > s.gpus_per_node && s.preset.name.find("nvl72") != std::string::npos)
    s.gpus_per_node = std::min(s.preset.gpus_per_node, s.ranks);
  if (s.gpus_per_node > s.preset.gpus_per_node)
    throw CLI::ValidationError("--gpus-per-node", std::to_string(s.gpus_per_node) + " GPUs per node, but preset " +
                                                      s.preset.name + " has " + std::to_string(s.preset.gpus_per_node));
  s.nodes = (s.ranks + s.gpus_per_node - 1) / s.gpus_per_node;
  s.nics = validation::node_nics(s.preset, s.gpus_per_node);
  if (request.channels != 0) {
    s.channels = request.channels;
    s.channels_source = "--channels";
  } else if (run.info.coll_channels && *run.info.coll_channels > 0) {
    s.channels = static_cast<std::uint32_t>(*run.info.coll_channels);
    s.channels_source = kChannelsFromLog;
  } else if (s.nodes > 1 && s.nics.count < s.preset.nics_per_node) {
    // On part of a node NCCL's search finds one channel per NIC at the NIC's speed and then
    // duplicates them (ncclTopoPostset): 2 per NIC, as log 25's INFO lines show on 4 x 200G.
    s.channels = std::min(2 * s.nics.count, s.preset.channels);
    s.channels_source = "2 per NIC of the job's " + std::to_string(s.nics.count) + " (of " +
                        std::to_string(s.preset.nics_per_node) + ")";
  } else {
    s.channels = s.preset.channels;
    s.channels_source = "preset";
  }
  s.channels = std::min<std::uint32_t>(s.channels, 64);
  if (request.gpus_per_thread != 0) {
    if (facts.gpus_per_thread != 0 && facts.gpus_per_thread != request.gpus_per_thread)
      throw CLI::ValidationError("--gpus-per-thread", "the log says " + std::to_string(facts.gpus_per_thread) +
                                                          " GPUs per thread (" + facts.gpus_per_thread_source + "), not " +
                                                          std::to_string(request.gpus_per_thread));
    if (request.gpus_per_thread > s.gpus_per_node)
      throw CLI::ValidationError("--gpus-per-thread", "one nccl-tests thread drives GPUs of one node: at most " +
                                                          std::to_string(s.gpus_per_node) + ", not " +
                                                          std::to_string(request.gpus_per_thread));
    s.gpus_per_thread = request.gpus_per_thread;
    s.gpus_per_thread_source = "--gpus-per-thread";
  } else {
    s.gpus_per_thread = std::max<std::uint32_t>(1, facts.gpus_per_thread);
    s.gpus_per_thread_source = facts.gpus_per_thread != 0 ? facts.gpus_per_thread_source : "not printed (1 assumed)";
  }
  if (const auto asked = coll::protocol_from_name(request.protocol); asked && *asked != coll::Protocol::Auto) {
    s.protocol = request.protocol;
    s.protocol_source = "--proto";
  } else if (s.preset.network_simple_only && s.nodes > 1) {
    s.protocol = "simple";
    s.protocol_source = "the preset's network plugin sets NCCL_PROTO=simple across nodes";
  }
  const bool has_out = std::any_of(run.rows.begin(), run.rows.end(), [](const auto& r) { return r.out_of_place.has_value(); });
  s.in_place = request.column == "in-place" || (request.column == "auto" && !has_out);
  return s;
}

RunValidation validate_run(const validation::TestRun& log_run, std::size_t run_index, const ValidationSetup& setup,
                           const ValidationRequest& request, const SimulationCliOptions& base, ParallelContext& parallel,
                           RunWatch* watch) {
  if (request.algorithm == "nvls" && !nvls_possible(setup))
    throw CLI::ValidationError("--algo", "nvls is emulated only for allreduce on one or two full nodes of a preset with NVLS (" +
                                             setup.preset.name + ", " + std::to_string(setup.nodes) + " node(s))");
  const auto proto = coll::protocol_from_name(request.protocol);
  if (request.algorithm == "collnet_chain" && proto && *proto != coll::Protocol::Auto && *proto != coll::Protocol::Simple)
    throw CLI::ValidationError("--proto", "CollNetChain runs the Simple protocol only, not " + request.protocol);
  if (request.algorithm == "collnet_chain" && !setup.preset.sharp)
    throw CLI::ValidationError("--algo", "collnet_chain needs a network that reduces in its switches (SHARP), and " +
                                             setup.preset.name +
                                             " has none (a system file with 'sharp: true' says it has)");
  if (request.algorithm == "collnet_chain" && !collnet_chain_possible(setup))
    throw CLI::ValidationError("--algo", "collnet_chain is emulated only for allreduce on two or more full nodes (" +
                                             std::to_string(setup.nodes) + " node(s), " + std::to_string(setup.ranks) +
                                             " ranks)");
  validation::TestRun run = log_run;
  validation::derive_summary_times(run, setup.collective, setup.ranks);
  RunValidation out;
  out.run_index = run_index;
  out.setup = setup;
  out.findings = validation::check_consistency(run, setup.collective, setup.ranks);
  validation::LinkScaling scaling{request.parameters.gpu_link_efficiency, request.parameters.nic_efficiency};
  scaling.sharp_engines = request.algorithm == "collnet_chain";
  scaling.nvls_engine = nvls_possible(setup) && !scaling.sharp_engines;
  scaling.net_latency_ns = request.parameters.net_latency_us * 1000;
  scaling.nvls = request.parameters.nvls_efficiency > 0 ? request.parameters.nvls_efficiency
                                                         : validation::nccl_nvls_efficiency(setup.preset.arch);
  // One network per hop latency and NIC rate that a size's protocol asks for (Lowered).
  std::map<std::tuple<std::int64_t, double, double>, topo::Topology> topologies;
  const auto topology_for = [&](const Lowered& lowered) -> const topo::Topology& {
    const auto key = std::make_tuple(lowered.hop_latency_ns, lowered.nic_factor, lowered.tree_share);
    auto it = topologies.find(key);
    if (it == topologies.end()) {
      validation::LinkScaling for_size = scaling;
      for_size.hop_latency_ns = static_cast<double>(lowered.hop_latency_ns);
      for_size.nic *= lowered.nic_factor * lowered.tree_share;
      for_size.gpu_link *= lowered.tree_share;
      it = topologies
               .emplace(key, validation::make_system_topology(setup.preset, setup.nodes, setup.gpus_per_node, for_size))
               .first;
    }
    return it->second;
  };
  const auto t0 = std::chrono::steady_clock::now();
  if (request.max_sizes > 0 && run.rows.size() > request.max_sizes) {
    // Evenly spread, first and last included.
    std::vector<validation::ResultRow> kept;
    const std::size_t n = run.rows.size(), k = std::max<std::uint32_t>(2, request.max_sizes);
    for (std::size_t i = 0; i < k; ++i) kept.push_back(run.rows[i * (n - 1) / (k - 1)]);
    run.rows = std::move(kept);
  }
  struct Simulated {
    double us = 0;
    std::uint64_t events = 0;
    double wall_s = 0;
    std::string description;
    double wire_floor_us = 0;
  };
  std::map<std::pair<std::uint64_t, std::string>, std::optional<Simulated>> cache;
  auto simulate_at = [&](std::uint64_t bytes, const Choice& choice) -> std::optional<Simulated> {
    const auto key = std::make_pair(bytes, choice.key());
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    const Lowered lowered = lower(setup, request, bytes, choice);
    SimulationCliOptions o = base;
    o.network = "packet";
    o.fabric.set.push_back("mtu_bytes=" + std::to_string(lowered.mtu));
    // The header keeps its 64/4096 share of a packet whatever the MTU.
    o.fabric.set.push_back("header_bytes=" + std::to_string(lowered.mtu / 64));
    // So do the switch buffers: PFC and ECN thresholds hold as many packets as they do at the
    // default 4 KiB MTU (with 32 KiB packets a 256 KiB xoff is 8 packets, and PFC pauses, not
    // links, set the pace: NVLSTree on log 04 lost half its bandwidth to them).
    const std::uint64_t scale = lowered.mtu / 4096;
    const std::uint64_t xoff = std::max<std::uint64_t>(scale * 256 * 1024, lowered.min_xoff_bytes);
    o.fabric.set.push_back("pfc_xoff_bytes=" + std::to_string(xoff));
    o.fabric.set.push_back("pfc_xon_bytes=" + std::to_string(xoff / 2));
    o.fabric.set.push_back("ecn_kmin_bytes=" + std::to_string(scale * 100 * 1024));
    o.fabric.set.push_back("ecn_kmax_bytes=" + std::to_string(scale * 400 * 1024));
    // Each message keeps to its NIC's rail, as NCCL's connections do (see base_spec).
    if (o.fabric.routing.empty()) o.fabric.routing = "rail";
    // NCCL's buffers are posted ahead: every message is eager.
    o.host_set.push_back("S=" + std::to_string(std::uint64_t{1} << 40));
    const auto ts = std::chrono::steady_clock::now();
    const topo::Topology& topology = topology_for(lowered);
    const std::optional<exec::SimulationRun> sim = simulate_schedule(o, topology, lowered.schedule, parallel);
    std::optional<Simulated> result;
    if (sim) {
      if (!sim->result.complete) {
        std::string why;
        if (!sim->result.pfc_deadlock.empty()) why += "; PFC deadlock: " + sim->result.pfc_deadlock;
        if (sim->totals.drops_despite_pfc > 0) why += "; " + drops_despite_pfc(sim->totals.drops_despite_pfc);
        const auto first_of = [&](const std::vector<std::string>& lines, const char* what) {
          if (!lines.empty()) why += std::string("; ") + what + ": " + lines.front();
        };
        first_of(sim->result.blocked, "first op that never finished");
        first_of(sim->result.unmatched, "first message nobody received");
        throw std::runtime_error("the simulation of " + std::to_string(bytes) + " B did not complete (" +
                                 std::to_string(sim->result.ops_completed) + " of " +
                                 std::to_string(sim->result.ops_total) + " ops" + why + ")");
      }
      result = Simulated{static_cast<double>(sim->result.makespan_ps) / 1e6, sim->stats.events,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count(),
                         describe(lowered.plan) + (lowered.streams ? " streaming" : "") + tree_share_note(lowered),
                         wire_floor_us(lowered.schedule, topology, lowered.mtu)};
      if (const std::optional<SubRing>& sub = lowered.sub_ring) {
        // The launch once, every round of the large ring; its bytes per link scale alike.
        const double launch_us = static_cast<double>(lowered.plan.launch_ns) / 1e3;
        result->us = launch_us + std::max(0.0, result->us - launch_us) * sub->scale();
        result->wire_floor_us *= sub->scale();
        result->description += sub->describe(setup.nodes);
      }
    }
    cache[key] = result;
    if (watch) watch->advance(0, sim ? sim->stats.events : 0);
    return result;
  };
  const double host_issue_us = validation::host_issue_us_per_gpu(request.parameters.host_issue_us);
  // Progress counts rows of the log, compared or skipped.
  struct RowDone {
    RunWatch* watch;
    ~RowDone() {
      if (watch) watch->advance(1, 0);
    }
  };
  for (const validation::ResultRow& row : run.rows) {
    const RowDone done{watch};
    const auto& m = setup.in_place ? row.in_place : row.out_of_place;
    const std::string size = std::to_string(row.size) + " B";
    if (!m) {
      out.skipped.push_back(size + ": no " + std::string(setup.in_place ? "in-place" : "out-of-place") + " value");
      continue;
    }
    if (row.size == 0 || m->time_us <= 0) {
      out.skipped.push_back(size + ": no bandwidth to compare");
      continue;
    }
    if (row.size < request.min_bytes || row.size > request.max_bytes) continue;
    const Choice choice = choose(setup, request, row.size);
    const std::uint64_t cap = largest_simulated_size(setup, request, choice);
    SizeComparison c;
    if (row.size <= cap) {
      const std::optional<Simulated> sim = simulate_at(row.size, choice);
      if (!sim) continue;
      c.simulated_us = sim->us;
      c.algorithm = sim->description;
      c.wall_s = sim->wall_s;
      c.events = sim->events;
    } else {
      // Too many packets: the same algorithm at cap/2 and cap, and the line through them
      // (sizes this large are bandwidth-bound, where time is linear in size), but no byte
      // added faster than the busiest link carries it (wire_floor_us).
      const std::optional<Simulated> a = simulate_at(cap / 2, choice), b = simulate_at(cap, choice);
      if (!a || !b) continue;
      const double measured_slope = (b->us - a->us) / static_cast<double>(cap / 2);
      const double floor_slope = b->wire_floor_us / static_cast<double>(cap);
      c.simulated_us = b->us + static_cast<double>(row.size - cap) * std::max(measured_slope, floor_slope);
      c.algorithm = b->description + ", extrapolated from " + format_byte_size(cap / 2) + " and " + format_byte_size(cap);
      if (floor_slope > measured_slope) c.algorithm += " at the busiest link's rate";
      // A line is only as good as the time is linear there: the slope below cap/2 should be
      // the same. When it is not (each step's latency still grows with the size, or latency
      // still hides the bytes), the output says so, and --max-packets can move the line up.
      if (const std::optional<Simulated> q = simulate_at(cap / 4, choice)) {
        const double lower_slope = (a->us - q->us) / static_cast<double>(cap / 4);
        const double change = lower_slope > 0 ? measured_slope / lower_slope - 1 : 1.0;
        if (std::fabs(change) > 0.2)
          c.algorithm += " (not yet linear: the slope changed by " + std::to_string(std::lround(100 * change)) +
                         "% from the halves below; raise --max-packets)";
      }
    }
    c.collective_us = c.simulated_us;
    c.simulated_us = validation::nccl_tests_iteration_us(c.simulated_us, setup.gpus_per_thread, host_issue_us);
    c.bytes = row.size;
    c.measured_us = m->time_us;
    c.measured_busbw = m->derived ? m->busbw : validation::busbw_gbps(setup.collective, setup.ranks, row.size, m->time_us);
    c.simulated_busbw = validation::busbw_gbps(setup.collective, setup.ranks, row.size, c.simulated_us);
    c.error = validation::busbw_error(c.measured_us, c.simulated_us);
    out.sizes.push_back(std::move(c));
  }
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.summary = validation::summarize(out.sizes);
  out.preset_check = validation::check_against_preset(out.sizes);
  return out;
}

}  // namespace collsim::cli
