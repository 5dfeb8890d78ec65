#include "collsim/validation/size_lowering.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "collsim/collectives/generate.hpp"
#include "collsim/collectives/tuning.hpp"
#include "collsim/validation/bandwidth_formulas.hpp"
#include "collsim/validation/nvls_model.hpp"

namespace collsim::validation {

std::string Choice::key() const {
  return algorithm + "/" + std::string(collectives::to_string(protocol)) + "/" + std::to_string(tree_share);
}

std::string SubRing::describe(std::uint32_t all_nodes) const {
  return ", as a ring over " + std::to_string(ranks) + " ranks (" + std::to_string(nodes) + " of " +
         std::to_string(all_nodes) + " nodes) with the same bytes per round, its rounds scaled by " +
         std::to_string(rounds) + "/" + std::to_string(sub_rounds);
}

namespace {

const collectives::Algorithm& algorithm_of(const collectives::Plan& plan) {
  const collectives::Algorithm* a = collectives::find_algorithm(plan.collective, plan.algorithm);
  if (a == nullptr) throw std::logic_error("no registered algorithm " + plan.algorithm);
  return *a;
}

collectives::ChunkPath path_of(const collectives::Plan& plan) { return algorithm_of(plan).path; }

collectives::CollectiveSpec base_spec(const ValidationSetup& s, const ValidationRequest& r, std::uint64_t bytes) {
  collectives::CollectiveSpec spec;
  spec.collective = s.collective;
  spec.algorithm = r.algorithm;
  spec.num_ranks = s.ranks;
  spec.bytes = bytes;
  spec.channels = s.channels;
  spec.ranks_per_node = s.gpus_per_node;
  // NCCL binds each channel's connections to one NIC of the job's GPUs, and point-to-point to
  // the GPU's own.
  spec.nics = s.nics.count;
  spec.nic_of_rank = s.collective == collectives::Collective::AllToAll || s.collective == collectives::Collective::SendRecv;
  if (spec.nic_of_rank) spec.rank_nics = s.nics.of_gpu;
  // Channels the log's NCCL INFO reports are what NCCL's search found for these links, so the
  // links' bandwidth is split over them; a channel count cut with --channels (to bound the
  // simulation) does not make a channel faster, so the preset's split holds then.
  spec.system = tuning_system(s.preset, s.nodes, s.channels_source == kChannelsFromLog ? s.channels : 0,
                                          s.gpus_per_node);
  const auto proto = collectives::protocol_from_name(s.protocol);
  spec.protocol = proto ? *proto : collectives::Protocol::Auto;
  if (r.parameters.launch) spec.launch = nearest_ns(*r.parameters.launch);
  if (r.parameters.step) spec.step = nearest_ns(*r.parameters.step);
  return spec;
}

std::uint32_t mtu_for(std::uint64_t chunk) {
  std::uint32_t mtu = 4096;
  while (std::uint64_t{mtu} * 64 < chunk && mtu < 32 * 1024) mtu *= 2;  // the fabric caps packets at 64 KiB
  return mtu;
}

}  // namespace

bool nvls_available(const ValidationSetup& s) {
  const bool full_nodes = s.ranks == s.nodes * s.gpus_per_node && s.gpus_per_node > 2;
  return s.preset.nvls && full_nodes && s.collective == collectives::Collective::Allreduce;
}

bool nvls_possible(const ValidationSetup& s) { return nvls_available(s) && s.nodes <= 2; }

// Only when asked for, as NCCL runs CollNet only with NCCL_COLLNET_ENABLE=1 and a
// SHARP-capable network.
bool collnet_chain_possible(const ValidationSetup& s) {
  const bool full_nodes = s.ranks == s.nodes * s.gpus_per_node;
  return s.nodes >= 2 && full_nodes && s.preset.nics_per_node > 0 && s.collective == collectives::Collective::Allreduce;
}

namespace {

// NCCL picks NVLS when its model says it is faster than the best ring/tree choice.
bool nvls_chosen(const ValidationSetup& s, const ValidationRequest& r, const collectives::Plan& plan) {
  if (r.asks_nvls()) return nvls_available(s);
  if (!nvls_possible(s)) return false;
  if (r.algorithm != "auto" || s.protocol != "auto") return false;
  const std::vector<collectives::TuningCandidate> c = collectives::tuning_candidates(plan);
  return c.empty() || nvls_model_time(s.preset, s.ranks, s.channels, plan.bytes, s.nodes,
                                      Duration::us(plan.system.inter_latency_us)) < Duration::us(c.front().time_us);
}

// A GPU hands the chunks it sends to a SHARP aggregation to its NIC at NVLink speed; a real
// NIC reads them from the GPU's memory (GPUDirect RDMA) and never holds up the GPU's NVLink
// traffic. Our NICs hang off the node switch, so the switch buffers a window of them instead of
// pausing the GPU's NVLink port, which would stall its chain too (8% slower at 256 MiB on
// 12 x 8 H100): the bytes a switch holds from one ingress before it pauses it.
std::uint64_t in_network_window(const ValidationSetup& s, const collectives::Plan& plan) {
  const auto& nodes = plan.helper_nodes;
  if (std::find(nodes.begin(), nodes.end(), collectives::kInNetwork) == nodes.end()) return 0;
  const std::uint64_t channels_per_gpu = (plan.channels + s.gpus_per_node - 1) / s.gpus_per_node;
  const std::uint64_t window = channels_per_gpu * plan.max_in_flight * plan.chunk_bytes;
  return window + window / 64 + 256 * 1024;
}

// NCCL's tuning derates a tree by a table it measured, down to 0.4-0.6 of its model at 64
// KiB-16 MiB: what its GPUs lose to a tree's synchronisation at medium sizes, which links and
// chunks here do not. The same share of every link's rate slows the simulated tree alike
// (log 03's 2-node Simple trees: 50.6% -> 18.6% at >= 1 MiB; see validation/REPORT.md).
Choice with_tree_share(Choice c, std::uint64_t bytes) {
  if (c.path == collectives::ChunkPath::Tree) c.tree_share = collectives::tree_correction(c.protocol, bytes);
  return c;
}

}  // namespace

Choice choose(const ValidationSetup& s, const ValidationRequest& r, std::uint64_t bytes) {
  // CollNet runs Simple only (NCCL's LL and LL128 bandwidths for it are 0).
  if (r.asks_collnet()) return {false, r.algorithm, collectives::ChunkPath::Other, collectives::Protocol::Simple};
  collectives::CollectiveSpec spec = base_spec(s, r, bytes);
  if (r.asks_nvls()) spec.algorithm = "auto";
  const collectives::Plan plan = collectives::make_plan(spec);
  if (nvls_chosen(s, r, plan))
    return {true, s.nodes > 1 ? "nvls_tree" : "nvls", collectives::ChunkPath::Other, collectives::Protocol::Simple};
  // NCCL_ALGO fixes the algorithm only: NCCL still tunes the protocol by size (log 28 runs
  // LL at small sizes under NCCL_ALGO=RING). Candidates come from the "auto" plan.
  if (r.algorithm != "auto" && !r.asks_nvls() && s.protocol == "auto") {
    collectives::CollectiveSpec tuned = spec;
    tuned.algorithm = "auto";
    if (const auto proto = collectives::tuned_protocol(collectives::make_plan(tuned), plan.algorithm))
      return with_tree_share({false, plan.algorithm, path_of(plan), *proto}, bytes);
  }
  return with_tree_share({false, plan.algorithm, path_of(plan), plan.protocol}, bytes);
}

namespace {

// A ring sends at least one message per rank, channel and round whatever its chunks.
std::uint64_t least_ring_ops(collectives::Collective c, std::uint32_t ranks, std::uint32_t channels) {
  return 2 * collectives::ring_steps(c, ranks) * ranks * channels;  // a send and a receive each
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
  const bool rounds_of_chunks = s.collective == collectives::Collective::Allreduce ||
                                s.collective == collectives::Collective::Allgather ||
                                s.collective == collectives::Collective::ReduceScatter;
  const bool whole_nodes = s.ranks == s.nodes * s.gpus_per_node;
  for (std::uint32_t k = s.nodes - 1; rounds_of_chunks && whole_nodes && k >= 2; --k) {
    const std::uint32_t n = k * s.gpus_per_node;
    if (least_ring_ops(s.collective, n, s.channels) <= r.max_ops)
      return SubRing{n, k, collectives::ring_steps(s.collective, s.ranks), collectives::ring_steps(s.collective, n)};
  }
  std::string why = rounds_of_chunks && whole_nodes && s.nodes > 2
                        ? "; a ring over 2 whole nodes, the smallest that stands in for it, needs " +
                              std::to_string(least_ring_ops(s.collective, 2 * s.gpus_per_node, s.channels))
                        : "; a smaller ring stands in for it only in allreduce, allgather and reduce-scatter over "
                          "3 or more whole nodes";
  throw std::runtime_error("a ring of " + std::to_string(s.ranks) + " ranks over " + std::to_string(s.channels) +
                           " channel(s) needs at least " + std::to_string(least) +
                           " GOAL ops per size (a send and a receive per rank, channel and each of " +
                           std::to_string(collectives::ring_steps(s.collective, s.ranks)) + " rounds), above --max-ops " +
                           std::to_string(r.max_ops) + why +
                           ": raise --max-ops, give fewer --channels, or another --algo");
}

}  // namespace

Lowered lower(const ValidationSetup& s, const ValidationRequest& r, std::uint64_t bytes, const Choice& choice) {
  collectives::CollectiveSpec spec = base_spec(s, r, bytes);
  spec.algorithm = choice.algorithm;
  spec.protocol = choice.protocol;
  if (choice.protocol == collectives::Protocol::Simple) {
    if (r.parameters.simple_launch) spec.launch = nearest_ns(*r.parameters.simple_launch);
    if (r.parameters.simple_step) spec.step = nearest_ns(*r.parameters.simple_step);
  }
  std::optional<SubRing> sub;
  if (choice.path == collectives::ChunkPath::Ring && (sub = sub_ring(s, r))) {
    spec.num_ranks = sub->ranks;
    spec.bytes = std::max<std::uint64_t>(1, bytes * sub->ranks / s.ranks);
  }
  collectives::Plan plan = collectives::make_plan(spec);
  std::uint64_t chunk = plan.chunk_bytes;
  const std::uint64_t per_channel_block = std::max<std::uint64_t>(1, plan.block_bytes() / plan.channels);
  // A ring keeps every rank busy on another block each step, so ~8 chunks per block suffice. A
  // tree is one pipeline up the node's chain and the tree over nodes and back down, `depth`
  // hops, and a broadcast or reduce chain one through every rank; filling and draining it
  // costs about depth chunk times, so 16 chunks per hop keep that near 6% (NCCL's own chunks
  // are small enough that it hardly pays it).
  std::uint64_t pieces = 8;
  const collectives::Algorithm& algorithm = algorithm_of(plan);
  const std::uint64_t depth = algorithm.pipeline_depth ? algorithm.pipeline_depth(plan) : 0;
  const std::uint64_t ops_per_step = std::max<std::uint32_t>(1, algorithm.ops_per_step);
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
  // send; it goes on the GPUs' links (Lowered::hop_latency), the pipeline is cut finer with
  // as many bytes in flight as NCCL's NCCL_STEPS buffers hold, and a tree's messages between
  // nodes stay NCCL's chunks, each with its step cost, as NCCL's proxy posts a network step
  // once the GPU has written all of it (Plan::steps_per_network_message, network_step).
  // It is not the default: the 72-deep chains of two NVL72 racks (log 34) need it, but a
  // 2-node H100 training log (25) fits the default better (see validation/REPORT.md).
  const bool fine_protocol = (algorithm.path == collectives::ChunkPath::Chain || algorithm.path == collectives::ChunkPath::Tree) &&
                             plan.protocol != collectives::Protocol::Simple;
  const bool streams = r.streaming_hops && fine_protocol;
  const std::uint64_t finer = std::max<std::uint64_t>(4096, piece);
  const auto steps_of = [&](std::uint64_t c) { return std::max<std::uint64_t>(1, (per_channel_block + c - 1) / c); };
  SimTime hop_latency;
  if (streams) {
    hop_latency = SimTime::ns(plan.step.picoseconds() / 1000);
    spec.step = SimTime::zero();
    spec.network_step = plan.step;
    if (per_channel_block / chunk < pieces && finer < chunk) {
      const std::uint64_t per_chunk = chunk / finer;
      spec.max_in_flight = static_cast<std::uint32_t>(
          std::clamp<std::uint64_t>(std::uint64_t{plan.max_in_flight} * per_chunk, plan.max_in_flight, 64));
      if (algorithm.path == collectives::ChunkPath::Tree && s.nodes > 1)
        spec.steps_per_network_message = static_cast<std::uint32_t>(std::min<std::uint64_t>(per_chunk, 1u << 20));
      chunk = finer;
    }
  } else if (fine_protocol && algorithm.path == collectives::ChunkPath::Chain && per_channel_block / chunk < pieces &&
             steps_of(finer) > steps_of(chunk)) {
    const auto step_ns = static_cast<double>(plan.step.picoseconds() / 1000);
    spec.step = SimTime::ns(static_cast<std::int64_t>(step_ns * static_cast<double>(steps_of(chunk)) /
                                                      static_cast<double>(steps_of(finer))));
    chunk = finer;
  }
  if (chunk != plan.chunk_bytes || streams) {
    spec.chunk_bytes = chunk;
    plan = collectives::make_plan(spec);
  }
  goal::Schedule schedule = collectives::generate(plan);
  while (schedule.num_ops() > r.max_ops && plan.chunk_bytes < per_channel_block) {
    spec.chunk_bytes = plan.chunk_bytes * 2;
    spec.steps_per_network_message = std::max<std::uint32_t>(1, spec.steps_per_network_message / 2);
    plan = collectives::make_plan(spec);
    schedule = collectives::generate(plan);
  }
  const std::uint32_t mtu = mtu_for(plan.chunk_bytes);
  const double nic_factor =
      plan.protocol == collectives::Protocol::LL128 && s.nodes > 1 ? r.parameters.ll128_network_efficiency : 1.0;
  const std::uint64_t min_xoff = in_network_window(s, plan);
  return {std::move(plan), std::move(schedule), mtu, min_xoff, sub, hop_latency, streams, nic_factor,
          choice.tree_share};
}

std::string Lowered::description() const {
  std::string text = plan.algorithm + " " + std::string(collectives::to_string(plan.protocol)) + " x" +
                     std::to_string(plan.channels) + (streams ? " streaming" : "");
  if (tree_share < 1.0) {
    char note[64];
    std::snprintf(note, sizeof note, " at %.1f of the links (NCCL's tree correction)", tree_share);
    text += note;
  }
  return text;
}

// Extrapolation uses it as the least time a byte can add: two sizes simulated where latency
// still dominates (a ring over 128 ranks at 64 and 128 MiB) grow by less than their bytes, and
// a line through them would run faster than the links.
Duration wire_floor(const goal::Schedule& schedule, const topo::Topology& topology, std::uint32_t mtu) {
  std::vector<std::uint64_t> out(schedule.num_ranks()), in(schedule.num_ranks());
  for (goal::RankId r = 0; r < schedule.num_ranks(); ++r) {
    const goal::RankOps ops = schedule.rank(r);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      if (ops.kind(i) != goal::OpKind::Send) continue;
      out[r] += ops.size(i);
      if (ops.peer(i) < in.size()) in[ops.peer(i)] += ops.size(i);
    }
  }
  Duration floor;
  const double header_share = 1.0 + static_cast<double>(mtu / 64) / mtu;
  for (goal::RankId r = 0; r < schedule.num_ranks() && r < topology.num_hosts(); ++r) {
    const std::vector<topo::Port>& ports = topology.ports(topology.host(r));
    if (ports.empty()) continue;
    const double bps = static_cast<double>(topology.link(ports.front().link).bandwidth.bps());
    if (bps <= 0) continue;
    const double bytes = static_cast<double>(std::max(out[r], in[r])) * header_share;
    floor = std::max(floor, Duration::us(bytes * 8.0 / bps * 1e6));
  }
  return floor;
}

// Every rank puts about factor * size bytes on its link (NVLS twice that, up and down), in
// packets of up to 32 KiB. A smaller ring standing in for a large one sends size * ranks' /
// ranks per rank.
std::uint64_t largest_simulated_size(const ValidationSetup& s, const ValidationRequest& r, const Choice& choice) {
  const double factor = std::max(1.0, busbw_factor(s.collective, s.ranks)) * (nvls_possible(s) || choice.nvls ? 2.0 : 1.0);
  double senders = s.ranks;
  if (choice.path == collectives::ChunkPath::Ring)
    if (const std::optional<SubRing> sub = sub_ring(s, r)) senders = static_cast<double>(sub->ranks) * sub->ranks / s.ranks;
  const double cap = static_cast<double>(r.max_packets) * 32768.0 / (senders * factor);
  std::uint64_t size = 1ull << 20;
  while (static_cast<double>(size) * 2 <= cap) size *= 2;
  return size;
}

}  // namespace collsim::validation
