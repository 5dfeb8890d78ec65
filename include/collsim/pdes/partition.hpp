#pragma once
// Which rank runs which LP.
//
// Every rank holds the same LpGraph (a compact description of all LPs and of who can send
// to whom with what minimum latency) and computes the same Partition from it; each then
// builds only the LPs it owns. The lookahead of a run is the smallest latency of an edge
// the partition cuts.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collsim/pdes/event.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::pdes {

struct LpGraph {
  struct Edge {
    LpId a;
    LpId b;
    SimTime latency;  // minimum delay of an event between a and b, either way
  };

  std::uint32_t num_lps = 0;
  std::vector<std::uint32_t> weight;  // expected load per LP; empty: all 1
  // LPs of one class (1, 2, ...) are busy at the same time (the GPUs of a pipeline stage in
  // every data-parallel replica): METIS spreads each class's weight evenly over the ranks, so
  // that in every phase each rank has its share. Empty, or 0 for an LP: no class.
  std::vector<std::uint32_t> busy_together;
  std::vector<Edge> edges;
  // Every LP may send to every other with at least this delay (PHOLD-like models).
  std::optional<SimTime> any_to_any;

  std::uint32_t weight_of(LpId lp) const { return weight.empty() ? 1 : weight[lp]; }
};

struct Partition {
  std::uint32_t num_ranks = 1;
  std::vector<std::uint32_t> owner;  // rank of each LP

  bool operator==(const Partition&) const = default;
};

enum class PartitionMethod {
  Block,       // contiguous runs of LP ids, balanced by weight
  RoundRobin,  // LP groups dealt to ranks in turn
  Random,      // LP groups to random ranks (seeded): for testing
  Metis,       // METIS k-way on the graph, sparing short links, spreading each busy_together class
};

std::optional<PartitionMethod> partition_method_from_name(std::string_view name);

// Partitions the graph; LPs joined by zero-latency edges always share a rank. Throws
// std::invalid_argument for a malformed graph (unknown LP, negative latency).
Partition make_partition(const LpGraph& graph, std::uint32_t num_ranks, PartitionMethod method,
                         std::uint64_t seed = 1);

// Throws std::invalid_argument naming the edge when `partition` cuts an edge whose latency
// is not positive, or does not fit the graph.
void check_partition(const LpGraph& graph, const Partition& partition);

// Smallest latency of a cut edge; infinity() if the partition cuts none.
SimTime lookahead_of(const LpGraph& graph, const Partition& partition);

}  // namespace collsim::pdes
