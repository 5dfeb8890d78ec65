// CollNet (NCCL 2.12+ with NCCL_COLLNET_ENABLE=1 and a SHARP plugin): the InfiniBand switches
// reduce across nodes. Our switches only forward, so each rail's aggregation is a helper rank
// of its own between the nodes (a host on that rail's switch, linked at the NIC rate times
// the nodes: it keeps up with every node at line rate); channel c goes to rail c mod rails,
// as NCCL binds a channel's connections to one NIC.
//
// CollNetChain: per channel a chain of the node's GPUs over NVLink, starting at a different
// GPU on every channel (the one nearest the channel's NIC). The tail sends its chunk up, each
// GPU adds its own and passes the sum on, the head hands the node's sum to the rail's
// aggregation, which returns the total of all nodes to every head; the total flows back down.
//
// CollNetDirect: every GPU of a node talks to the network. A chunk is cut into one share per
// GPU; the GPUs reduce-scatter the shares over NVLink (each sends every other GPU its share),
// each sends its reduced share to its own rail's aggregation, receives the total, and sends
// it to every other GPU of the node.

#include <algorithm>
#include <string>
#include <vector>

#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

std::vector<std::uint32_t> one_aggregation_per_rail(const Plan& plan) {
  return std::vector<std::uint32_t>(plan.nics, kInNetwork);
}

std::string unsupported(const Plan& plan) {
  if (plan.nodes() < 2) return "reduces in the network between nodes: needs 2 or more (ranks_per_node)";
  if (plan.n % plan.node_size() != 0) return "needs nodes with the same number of ranks";
  return "";
}

UnitRange unit_range(std::uint64_t u) { return {u, u + 1}; }

void emit_chain(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint64_t steps = plan.block_pipeline_steps();
  const std::uint32_t g = plan.node_size(), me = out.me();
  const auto chunk = [&](std::uint32_t c, std::uint64_t k) { return unit_range(std::uint64_t{c} * steps + k); };
  const auto aggregation = [&](std::uint32_t c) { return plan.n + c % plan.nics; };
  if (plan.is_helper(me)) {
    for (std::uint32_t c = me - plan.n; c < plan.channels; c += plan.nics)
      for (std::uint64_t k = 0; k < steps; ++k) {
        std::vector<goal::LocalOp> sums;
        for (std::uint32_t node = 0; node < plan.nodes(); ++node)
          sums.push_back(out.recv(node * g + c % g, c, chunk(c, k), DataAction::Reduce));
        for (std::uint32_t node = 0; node < plan.nodes(); ++node) out.send(node * g + c % g, c, chunk(c, k), sums);
      }
    return;
  }
  const std::uint32_t first = me - me % g, local = me % g;
  for (std::uint32_t c = 0; c < plan.channels; ++c) {
    // Position 0 is the head; channel c's chain starts at local GPU c mod g.
    const std::uint32_t pos = (local + g - c % g) % g;
    const auto at = [&](std::uint32_t p) { return first + (p + c) % g; };
    const bool tail = pos + 1 == g;
    const std::uint32_t up = pos == 0 ? aggregation(c) : at(pos - 1);
    std::vector<goal::LocalOp> totals;
    for (std::uint64_t k = 0; k < steps; ++k) {
      // A chunk goes up once the partial sum from below is in and its buffer is free again
      // (the total of chunk k - max_in_flight came back).
      const goal::LocalOp partial = tail ? kNoOp : out.recv(at(pos + 1), c, chunk(c, k), DataAction::Reduce);
      const goal::LocalOp slot_free = k >= plan.max_in_flight ? totals[k - plan.max_in_flight] : kNoOp;
      const goal::LocalOp sent_up = out.send(up, c, chunk(c, k), {partial, slot_free});
      const goal::LocalOp total = out.recv(up, c, chunk(c, k), DataAction::Copy, {}, sent_up);
      totals.push_back(total);
      if (!tail) out.send(at(pos + 1), c, chunk(c, k), total);
    }
  }
}

void emit_direct(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint64_t steps = plan.block_pipeline_steps();
  const std::uint32_t g = plan.node_size(), me = out.me();
  // Share j of channel c's chunk k.
  const auto share = [&](std::uint32_t c, std::uint64_t k, std::uint32_t j) {
    return unit_range((std::uint64_t{c} * steps + k) * g + j);
  };
  if (plan.is_helper(me)) {
    const std::uint32_t rail = me - plan.n;
    for (std::uint32_t c = 0; c < plan.channels; ++c)
      for (std::uint64_t k = 0; k < steps; ++k)
        for (std::uint32_t j = rail; j < g; j += plan.nics) {
          std::vector<goal::LocalOp> sums;
          for (std::uint32_t node = 0; node < plan.nodes(); ++node)
            sums.push_back(out.recv(node * g + j, c, share(c, k, j), DataAction::Reduce));
          for (std::uint32_t node = 0; node < plan.nodes(); ++node) out.send(node * g + j, c, share(c, k, j), sums);
        }
    return;
  }
  const std::uint32_t first = me - me % g, j = me % g, aggregation = plan.n + j % plan.nics;
  const std::uint64_t window = plan.max_in_flight;
  for (std::uint32_t c = 0; c < plan.channels; ++c) {
    std::vector<goal::LocalOp> totals;              // per chunk: its total share is back
    std::vector<std::vector<goal::LocalOp>> gave;   // per chunk: its sends of the shares
    // A GPU's reduce-scatter and allgather messages to one peer share a connection, whose
    // messages leave in order: chunk k's allgather is issued after chunk k + window's
    // reduce-scatter, so that it holds up no chunk of the window.
    const auto allgather = [&](std::uint64_t k) {
      for (std::uint32_t q = 0; q < g; ++q)
        if (q != j) out.send(first + q, c, share(c, k, j), totals[k]);
      // Another GPU's total overwrites the share this GPU gave it: that send must have started.
      for (std::uint32_t q = 0; q < g; ++q)
        if (q != j) out.recv(first + q, c, share(c, k, q), DataAction::Copy, {}, gave[k][q]);
    };
    for (std::uint64_t k = 0; k < steps; ++k) {
      const goal::LocalOp slot_free = k >= window ? totals[k - window] : kNoOp;
      std::vector<goal::LocalOp>& given = gave.emplace_back(g, kNoOp);
      std::vector<goal::LocalOp> reduced{slot_free};
      for (std::uint32_t q = 0; q < g; ++q)
        if (q != j) given[q] = out.send(first + q, c, share(c, k, q), slot_free);
      for (std::uint32_t q = 0; q < g; ++q)
        if (q != j) reduced.push_back(out.recv(first + q, c, share(c, k, j), DataAction::Reduce));
      const goal::LocalOp sent = out.send(aggregation, c, share(c, k, j), reduced);
      totals.push_back(out.recv(aggregation, c, share(c, k, j), DataAction::Copy, {}, sent));
      if (k >= window) allgather(k - window);
    }
    for (std::uint64_t k = steps > window ? steps - window : 0; k < steps; ++k) allgather(k);
  }
}

// A chunk climbs the node's chain (g - 1 NVLink hops), goes to the aggregation and back, and
// comes down again.
std::uint64_t chain_depth(const Plan& plan) { return 2 * std::uint64_t{plan.node_size()}; }

// NCCL's CollNetChain chunk: one step of its buffer, at most 256 KiB, halved down to 128, 64
// and 32 KiB while a channel's share of the size holds fewer than 64, 8 and 1 chunks per GPU
// of the chain.
std::uint64_t chain_chunk(const Plan& plan) {
  std::uint64_t chunk = std::min<std::uint64_t>(256 * 1024, one_step_bytes(plan.protocol));
  const std::uint64_t per_channel = plan.bytes / plan.channels, depth = plan.node_size();
  while (per_channel / chunk < depth * 64 && chunk > 128 * 1024) chunk /= 2;
  while (per_channel / chunk < depth * 8 && chunk > 64 * 1024) chunk /= 2;
  while (per_channel / chunk < depth && chunk > 32 * 1024) chunk /= 2;
  return chunk;
}

// Like NVLS and trees, CollNet runs chunks of one step of NCCL's buffer, NCCL_STEPS in flight
// per connection (one_step_chunks).

// Per step and channel a GPU receives the partial sum, sends it up, receives the total and
// passes it down (and reduces); the aggregations add two ops per node and channel.
constexpr std::uint32_t kChainOpsPerStep = 6;

// A chunk is cut into one share per GPU of the node.
std::uint64_t direct_slices(const Plan& plan) { return pipelined_slices(plan) * plan.node_size(); }

}  // namespace

extern const Algorithm kAllreduceCollNetChain{
    "collnet_chain", Collective::Allreduce,
    "NCCL CollNetChain: a chain of each node's GPUs, the node's sum reduced across nodes by the rail's switch (SHARP)",
    pipelined_slices, emit_chain, unsupported, chain_chunk, 1, true, ChunkPath::Other, chain_depth, kChainOpsPerStep,
    one_aggregation_per_rail};

extern const Algorithm kAllreduceCollNetDirect{
    "collnet_direct", Collective::Allreduce,
    "NCCL CollNetDirect: each node's GPUs reduce-scatter over NVLink, reduce their shares across nodes in the rails' "
    "switches (SHARP) and allgather them",
    direct_slices, emit_direct, unsupported, nullptr, 1, true, ChunkPath::Other, nullptr, 0,
    one_aggregation_per_rail};

}  // namespace collsim::collectives
