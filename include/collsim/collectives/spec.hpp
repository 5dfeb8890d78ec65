#pragma once
// A request for one collective (what the user or the workload asks for) and its resolved
// plan (every default and "auto" decided), which is what algorithms read.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collsim/collectives/collective.hpp"
#include "collsim/collectives/system_model.hpp"
#include "collsim/common/sim_time.hpp"
#include "collsim/goal/op.hpp"

namespace collsim::collectives {

// The node of a helper that sits between nodes (a SHARP switch).
inline constexpr std::uint32_t kInNetwork = 0xFFFFFFFFu;

struct CollectiveSpec {
  Collective collective = Collective::Allreduce;
  std::string algorithm = "auto";       // a registered name, or "auto"
  std::uint32_t num_ranks = 0;          // ranks of the whole schedule; 0: the group's size
  std::vector<goal::RankId> group;      // member i is schedule rank group[i]; empty: 0..num_ranks-1
  // Where the algorithm's helpers run (Algorithm::helpers: in-network reductions); empty: the
  // ranks after the schedule's others, which the schedule then grows by.
  std::vector<goal::RankId> helper_ranks;
  std::uint64_t bytes = 0;              // nccl-tests "size" (see blocks_per_slice)
  std::uint32_t root = 0;               // group index of the root (broadcast, reduce)
  std::uint32_t channels = 1;           // parallel rings/trees; channel c runs on cpu first_cpu+c
  std::uint64_t chunk_bytes = 0;        // data bytes per pipelined message; 0: the protocol's
  std::uint32_t max_in_flight = 0;      // messages in flight per connection; 0: the protocol's
  // The double binary tree's messages between nodes carry this many pipeline steps each, as
  // NCCL's network proxy sends a whole buffer step of LL/LL128 where NVLink streams its lines.
  std::uint32_t steps_per_network_message = 1;
  Protocol protocol = Protocol::Auto;   // Auto: Simple, unless algorithm "auto" picks one
  double reduce_bytes_per_ns = 200.0;   // reduction bandwidth (200 GB/s); 0: reductions are free
  std::optional<SimTime> launch;        // once per channel; none: the protocol's
  std::optional<SimTime> step;          // before each send; none: the protocol's
  std::optional<SimTime> network_step;  // before each send to another node instead; none: step
  std::uint32_t ranks_per_node = 1;     // consecutive group members that share a node
  std::uint32_t nics = 1;               // channel c sends through nic c % nics
  // Instead, a rank sends through its own GPU's NICs: local rank r of a node with g ranks
  // through nic r * nics / g (plus c % (nics / g) when it has several), as NCCL's p2p does.
  bool nic_of_rank = false;
  // With nic_of_rank, the NICs of local rank r are rank_nics[r] instead (channel c takes the
  // (c % size)-th), when the node's NICs are not dealt to its GPUs in order. Each below nics.
  std::vector<std::vector<std::uint32_t>> rank_nics;
  std::uint8_t first_cpu = 0;
  std::uint32_t tag = 0;                // the collective uses tags [tag, tag + channels)
  SystemModel system;                   // what "auto" tunes for
};

// Everything resolved. Algorithms read only this.
struct Plan {
  Collective collective = Collective::Allreduce;
  std::string algorithm;
  std::uint32_t num_ranks = 0;
  std::vector<goal::RankId> group;      // always filled
  std::uint32_t n = 0;                  // group size
  // Helper h (participant n + h) runs on schedule rank helpers[h], in node helper_nodes[h]
  // (kInNetwork: a switch between nodes). See Algorithm::helpers.
  std::vector<goal::RankId> helpers;
  std::vector<std::uint32_t> helper_nodes;
  std::uint64_t bytes = 0;
  std::uint32_t root = 0;
  std::uint32_t channels = 1;
  std::uint64_t chunk_bytes = 0;
  std::uint32_t max_in_flight = 1;
  // See CollectiveSpec. A connection between nodes keeps max_in_flight / this many in flight,
  // the bytes of one within a node.
  std::uint32_t steps_per_network_message = 1;
  Protocol protocol = Protocol::Simple;
  double reduce_bytes_per_ns = 0.0;
  SimTime launch;
  SimTime step;
  SimTime network_step;                 // step of the sends to another node
  std::uint32_t ranks_per_node = 1;
  std::uint32_t nics = 1;
  bool nic_of_rank = false;
  std::vector<std::vector<std::uint32_t>> rank_nics;
  // Consecutive channels that share a NIC (Algorithm::channels_per_nic), as the two trees of
  // an NCCL channel pair do.
  std::uint32_t channels_per_nic = 1;
  std::uint8_t first_cpu = 0;
  std::uint32_t tag = 0;
  std::uint64_t slices = 1;             // chosen by the algorithm (see UnitLayout)
  SystemModel system;

  // Members per node (ranks_per_node, at most n) and nodes (the last one may be smaller).
  std::uint32_t node_size() const { return ranks_per_node < n ? ranks_per_node : n; }
  std::uint32_t nodes() const { return (n + node_size() - 1) / node_size(); }
  // Participants: the members 0..n-1, then the helpers n..n+helpers-1.
  std::uint32_t participants() const { return n + static_cast<std::uint32_t>(helpers.size()); }
  bool is_helper(std::uint32_t participant) const { return participant >= n; }
  goal::RankId rank_of(std::uint32_t participant) const {
    return participant < n ? group[participant] : helpers[participant - n];
  }
  // The node a participant is in; kInNetwork for a helper between nodes.
  std::uint32_t node_of(std::uint32_t participant) const {
    return participant < n ? participant / node_size() : helper_nodes[participant - n];
  }

  std::uint64_t block_bytes() const { return collectives::block_bytes(collective, n, bytes); }
  std::uint64_t blocks_per_slice() const { return collectives::blocks_per_slice(collective, n); }
  std::uint64_t num_units() const { return blocks_per_slice() * slices; }
  // Pipelined messages needed for `bytes` per channel: ceil(bytes / (channels * chunk)), at least 1.
  std::uint64_t pipeline_steps(std::uint64_t bytes_in_all_channels) const;
  // The same for one block: the steps that cut every block into messages of at most a chunk.
  std::uint64_t block_pipeline_steps() const { return pipeline_steps(block_bytes()); }
};

// Resolves defaults and "auto", checks the request, and asks the algorithm for its slices.
// Throws std::invalid_argument naming the field that is wrong.
Plan make_plan(const CollectiveSpec& spec);

}  // namespace collsim::collectives
