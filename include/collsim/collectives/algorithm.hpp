#pragma once
// The registry of collective algorithms: one file per algorithm in collectives/algorithms/,
// each defining one Algorithm value.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "collsim/collectives/collective.hpp"
#include "collsim/collectives/rank_emitter.hpp"
#include "collsim/collectives/spec.hpp"

namespace collsim::collectives {

// How a chunk travels between ranks, which tells how NCCL's cost model treats the algorithm
// and how deep a pipeline of chunks has to be to keep every rank busy.
enum class ChunkPath : std::uint8_t {
  Other,  // direct exchanges, recursive doubling and halving, binomial trees
  Ring,   // every rank forwards to the next: each round moves every rank's chunk one hop
  Tree,   // up a chain inside the node, up and down a tree across nodes, back down the chain
  Chain,  // one chain through every rank (NCCL's ring broadcast and reduce)
};

struct Algorithm {
  std::string_view name;          // unique per collective, e.g. "ring"
  Collective collective;
  std::string_view description;   // one line for `collsim gen --list`
  // How many slices every block is cut into (see UnitLayout), from a plan whose other fields
  // are final.
  std::uint64_t (*slices)(const Plan& plan);
  // Emits the ops of group member out.me().
  void (*emit)(RankEmitter& out);
  // Why the algorithm cannot run this plan, or "" when it can. Null: it runs any plan.
  std::string (*unsupported)(const Plan& plan) = nullptr;
  // The chunk when the request names none, from a plan holding the protocol's chunk. Null:
  // the protocol's.
  std::uint64_t (*default_chunk)(const Plan& plan) = nullptr;
  // Consecutive channels that go through one NIC: the double binary tree's channels 2p and
  // 2p + 1 run the two trees of pair p, which NCCL puts on one NIC (its channel c and its
  // duplicate c + nChannels/2).
  std::uint32_t channels_per_nic = 1;
  // Its default chunk is one step of NCCL's buffer or less (chunkSteps 1: trees and chains),
  // so NCCL_STEPS of them are in flight per connection, where a ring's chunk takes 4 steps.
  bool one_step_chunks = false;
  ChunkPath path = ChunkPath::Other;
  // Hops a chunk passes from the first rank that sends it to the last that receives it, when
  // one pipeline runs through the ranks (trees, chains); 0 when every rank works on its own
  // block each round (rings), and a few chunks per block keep every link busy.
  std::uint64_t (*pipeline_depth)(const Plan& plan) = nullptr;
  // The most ops one rank issues per pipeline step and channel (sizes the pipeline to a budget
  // of ops).
  std::uint32_t ops_per_step = 0;
  // Reductions inside the network (an NVSwitch's NVLS, a SHARP switch): a schedule rank of its
  // own per reducing switch, which holds no data of its own, reduces what the members send it
  // at its link's rate and sends results back. Returns the node of each (kInNetwork between
  // nodes). Null: no helpers.
  std::vector<std::uint32_t> (*helpers)(const Plan& plan) = nullptr;
};

// The slicing most algorithms use: every block cut into channels * block_pipeline_steps()
// slices, channel c owning [c * steps, (c + 1) * steps).
inline std::uint64_t pipelined_slices(const Plan& plan) {
  return std::uint64_t{plan.channels} * plan.block_pipeline_steps();
}

std::span<const Algorithm* const> all_algorithms();
// Null when there is none of that name for that collective.
const Algorithm* find_algorithm(Collective c, std::string_view name);

}  // namespace collsim::collectives
