#include "collsim/collectives/tuning.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

// NCCL 2.30.7 src/graph/tuning.cc constants (reference/nccl.md section 3), indexed by
// protocol LL, LL128, Simple.
enum class NcclAlgo { Tree, Ring };
constexpr double kBaseLatencyUs[2][3] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};
constexpr double kNvlinkLatencyUs[2][3] = {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}};
constexpr double kNetLatencyUs[2][3] = {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}};

int proto_index(Protocol p) { return p == Protocol::LL ? 0 : p == Protocol::LL128 ? 1 : 2; }
int algo_index(NcclAlgo a) { return a == NcclAlgo::Tree ? 0 : 1; }

// NCCL's llMaxBws: on one node by GPU generation; across nodes by the CPU's vendor and the
// node count (its Intel row, 39.0 on 2 nodes and 20.4 beyond, stands for every CPU here; AMD's
// is 22.5 and 19.0), since LL's 8-byte stores then cross PCIe to the NIC.
double ll_max_bw(GpuArch a, std::uint32_t nodes) {
  if (nodes == 2) return 39.0;
  if (nodes > 2) return 20.4;
  switch (a) {
    case GpuArch::Volta: return 39.0;
    case GpuArch::Ampere: return 87.7;
    case GpuArch::Hopper: return 141.0;
    case GpuArch::Blackwell: return 282.0;
  }
  return 87.7;
}
double per_channel_ring_ll128_bw(GpuArch a) {
  return a == GpuArch::Hopper ? 36.7 : a == GpuArch::Blackwell ? 40.0 : 20.0;
}
double per_channel_tree_bw(GpuArch a, std::uint32_t nodes) {
  const bool hopper_or_later = a == GpuArch::Hopper || a == GpuArch::Blackwell;
  const int bucket = nodes <= 1 ? 0 : nodes <= 2 ? 1 : 2;
  constexpr double kAmpere[3] = {24.0, 23.6, 17.8};
  constexpr double kHopper[3] = {38.7, 41.4, 36.0};
  return hopper_or_later ? kHopper[bucket] : kAmpere[bucket];
}

// NCCL's tuning takes a graph's bwIntra on up to 2 nodes and its bwInter beyond; what those
// are depends on the graph. A ring that leaves the node moves the same bytes on every hop, the
// network's included, so its search settles on one speed for both: the slower of NVLink and
// network per channel.
double ring_graph_bw(const SystemModel& sys, std::uint32_t nodes) {
  return nodes <= 1 ? sys.intra_gbytes_per_s : std::min(sys.intra_gbytes_per_s, sys.inter_gbytes_per_s);
}
// A tree on 2 nodes sends each node's data across the network once per direction (the
// algorithm bandwidth), while its bus bandwidth counts it twice (tree algBw = busBw / 2); so
// its intra-node bandwidth may reach twice the network's, which is how NCCL's 2-node trees
// report busbw above the NIC line rate (logs 03, 04, 25). Beyond 2 nodes bwInter counts.
double tree_graph_bw(const SystemModel& sys, std::uint32_t nodes) {
  if (nodes <= 1) return sys.intra_gbytes_per_s;
  if (nodes == 2) return std::min(sys.intra_gbytes_per_s, 2.0 * sys.inter_gbytes_per_s);
  return std::min(sys.intra_gbytes_per_s, sys.inter_gbytes_per_s);
}

// The algorithm that stands for NCCL's Ring / Tree for each collective.
const char* ring_algorithm(Collective c) {
  switch (c) {
    case Collective::Allreduce:
    case Collective::Allgather:
    case Collective::ReduceScatter: return "ring";
    case Collective::Broadcast:
    case Collective::Reduce: return "pipelined_chain";
    case Collective::AllToAll:
    case Collective::SendRecv: return "direct";
    case Collective::Barrier: return "dissemination";
  }
  return "ring";
}

TuningCandidate ring_candidate(const Plan& plan, Protocol proto) {
  const SystemModel& sys = plan.system;
  const std::uint32_t n = plan.n, nodes = plan.nodes();
  const int p = proto_index(proto), a = algo_index(NcclAlgo::Ring);
  const std::uint64_t steps = std::max<std::uint64_t>(1, ring_steps(plan.collective, n));
  const double intra = kNvlinkLatencyUs[a][p];
  double inter = kNetLatencyUs[a][p] + sys.inter_latency_us;
  if (proto == Protocol::Simple) inter += sys.inter_latency_us;
  double latency = kBaseLatencyUs[a][p];
  if (nodes <= 1) {
    latency += static_cast<double>(steps) * intra;
  } else {
    const std::uint64_t inter_steps = plan.collective == Collective::Allreduce ? 2 * (nodes - 1) : nodes - 1;
    const double net_overhead = proto == Protocol::Simple ? 3.0 : 1.0;
    latency += static_cast<double>(steps - std::min(steps, inter_steps)) * std::max(intra, net_overhead) +
               static_cast<double>(inter_steps) * inter;
    if (plan.collective == Collective::Allreduce && proto == Protocol::Simple &&
        plan.bytes / (std::uint64_t{plan.channels} * n) >= 64)
      latency *= sys.arch == GpuArch::Volta ? 1.9 : 1.4;
  }
  double bus = plan.channels * ring_graph_bw(sys, nodes);
  if (proto == Protocol::LL) bus = std::min(bus * 0.5, ll_max_bw(sys.arch, nodes));
  if (proto == Protocol::LL128) bus = std::min(bus * 0.92, plan.channels * per_channel_ring_ll128_bw(sys.arch));
  const double alg = bus * n / static_cast<double>(steps);
  return {ring_algorithm(plan.collective), proto, latency, alg, 0.0};
}

// NCCL derates its tree's bandwidth by size, by a measured table ("trees are not perfectly
// sticking to the model for medium sizes"): powers of two from 64 B (index log2(bytes / 64))
// to 256 MiB, per protocol LL, LL128, Simple; larger sizes are not derated.
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

TuningCandidate tree_candidate(const Plan& plan, Protocol proto) {
  const SystemModel& sys = plan.system;
  const std::uint32_t ppn = plan.node_size(), nodes = plan.nodes();
  const int p = proto_index(proto), a = algo_index(NcclAlgo::Tree);
  const double latency = kBaseLatencyUs[a][p] +
                         2.0 * ((ppn - 1) * kNvlinkLatencyUs[a][p] +
                                std::log2(static_cast<double>(nodes)) * (kNetLatencyUs[a][p] + sys.inter_latency_us));
  double bus = plan.channels * tree_graph_bw(sys, nodes);
  bus = std::min(bus * 0.92, plan.channels * per_channel_tree_bw(sys.arch, nodes));
  if (proto == Protocol::LL) bus = std::min(bus / 3.8, ll_max_bw(sys.arch, nodes));
  if (proto == Protocol::LL128) bus *= nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
  bus *= tree_correction(proto, plan.bytes);
  return {"double_binary_tree", proto, latency, bus * 0.5, 0.0};
}

}  // namespace

double tree_correction(Protocol proto, std::uint64_t bytes) {
  const auto log_size = std::bit_width((bytes >> 6) | 1) - 1;  // below 128 B: index 0, as NCCL's log2i
  return log_size < 23 ? kTreeCorrection[proto_index(proto)][log_size] : 1.0;
}

std::uint64_t ring_steps(Collective c, std::uint32_t n) {
  if (c == Collective::Allreduce) return 2 * (std::uint64_t{n} - 1);
  if (c == Collective::Allgather || c == Collective::ReduceScatter) return n - 1;
  return n;
}

std::vector<TuningCandidate> tuning_candidates(const Plan& plan) {
  std::vector<TuningCandidate> out;
  for (Protocol proto : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
    out.push_back(ring_candidate(plan, proto));
    if (plan.collective == Collective::Allreduce && plan.n > 1) out.push_back(tree_candidate(plan, proto));
  }
  for (TuningCandidate& c : out)
    c.time_us = c.latency_us + static_cast<double>(plan.bytes) / (1000.0 * c.bandwidth_gbytes_per_s);
  std::stable_sort(out.begin(), out.end(),
                   [](const TuningCandidate& x, const TuningCandidate& y) { return x.time_us < y.time_us; });
  return out;
}

std::optional<Protocol> tuned_protocol(const Plan& plan, std::string_view algorithm) {
  for (const TuningCandidate& cand : tuning_candidates(plan))
    if (cand.algorithm == algorithm) return cand.protocol;
  return std::nullopt;
}

void choose_automatically(Plan& plan, bool protocol_fixed) {
  const Collective c = plan.collective;
  // Point-to-point based collectives have one algorithm and run NCCL's p2p path (Simple).
  if (c == Collective::AllToAll || c == Collective::SendRecv || c == Collective::Barrier) {
    plan.algorithm = ring_algorithm(c);
    return;
  }
  for (const TuningCandidate& cand : tuning_candidates(plan)) {
    if (protocol_fixed && cand.protocol != plan.protocol) continue;
    if (find_algorithm(c, cand.algorithm) == nullptr) continue;
    plan.algorithm = cand.algorithm;
    plan.protocol = cand.protocol;
    return;
  }
  throw std::invalid_argument("auto: no algorithm available for " + std::string(to_string(c)));
}

}  // namespace collsim::collectives
