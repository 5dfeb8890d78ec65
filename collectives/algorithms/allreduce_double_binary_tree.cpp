// Double binary tree allreduce as NCCL builds it (src/graph/trees.cc). Per channel, half of
// the data is reduced up one binary tree and broadcast back down it, the other half through a
// second tree in which the leaves of the first are the interior vertices: the mirror image
// (n-1-r) for even n, the first tree shifted by one rank for odd n. Both halves are cut into
// pipeline steps of at most a chunk that stream through the trees, so step k goes up while
// step k-1 comes down. With ranks_per_node = p > 1 the trees span nodes: one member of every
// node stands for it in the trees over nodes, and the node's other members hang below it as
// a chain whose start rotates with the channel (member_links). Any n works: the trees are
// defined for every vertex count.

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "algorithms/rooted_schedule.hpp"
#include "algorithms/binary_trees.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

// Member `me`'s links in tree `tree` of n members in nodes of p: leaders in the tree over
// nodes, everyone else in a chain below the leader. Channel pair `pair` starts each node's
// chain `pair` members further on (member first + pair mod the node's size leads it), as NCCL
// builds each channel's chain along that channel's own ring order (log 24's INFO lines show
// the chains rotating over channels): with one order for all channels, the chain's top and
// bottom GPUs would send in one direction only, at twice the share of the rest, and queue up
// the port of their one neighbour.
TreeLinks member_links(std::uint32_t n, std::uint32_t p, std::uint32_t tree, std::uint32_t me, std::uint32_t pair) {
  const std::uint32_t node = me / p, first = node * p;
  const auto size_of = [&](std::uint32_t k) { return std::min(p, n - k * p); };
  const std::uint32_t node_size = size_of(node);
  // Position in the chain, and the member at a position.
  const std::uint32_t shift = pair % node_size;
  const std::uint32_t pos = (me - first + node_size - shift) % node_size;
  const auto at = [&](std::uint32_t q) { return first + (q + shift) % node_size; };
  TreeLinks links;
  if (pos > 0) {
    links.parent = at(pos - 1);
    if (pos + 1 < node_size) links.add_child(at(pos + 1));
    return links;
  }
  const auto leader = [&](std::uint32_t k) { return k * p + pair % size_of(k); };
  const std::uint32_t nodes = (n + p - 1) / p;
  const TreeLinks over_nodes = double_tree(nodes, tree, node);
  if (over_nodes.parent != kNone) links.parent = leader(over_nodes.parent);
  for (std::uint32_t i = 0; i < over_nodes.num_children; ++i) links.add_child(leader(over_nodes.children[i]));
  if (node_size > 1) links.add_child(at(1));
  return links;
}

// plan.channels are NCCL's channels (the "coll channels" its INFO lines count): channel c runs
// tree c % 2 of pair c / 2, as NCCL's channel c and its duplicate c + nChannels/2 run the two
// trees of one search channel, so half the data goes through each tree and an odd count leaves
// the last pair a single tree. pipelined_slices gives every pipeline step of every channel its
// own slice. Both trees of a pair go through the pair's NIC (RankEmitter::nic), whose node is
// interior in one tree and a leaf in the other, as NCCL's are.
//
// With plan.steps_per_network_message = k > 1 a message between nodes carries k consecutive
// steps of its channel: a rank sends its subtree's sum of the k steps to a parent on another
// node when it has all of them, and receives the k steps' result from it before it passes
// any of them down; a parent sends k steps down to a child on another node at once.
void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n();
  if (n == 1) return;
  const std::uint32_t p = plan.node_size();
  const std::uint64_t steps = plan.block_pipeline_steps();
  const std::uint64_t k = plan.steps_per_network_message;
  const auto crosses = [&](std::uint32_t peer) { return peer / p != out.me() / p; };
  std::vector<TreeLinks> trees;
  for (std::uint32_t c = 0; c < plan.channels; ++c) trees.push_back(member_links(n, p, c % 2, out.me(), c / 2));
  std::vector<std::vector<goal::LocalOp>> up_ready(plan.channels);
  std::vector<std::array<goal::LocalOp, 3>> from_child(plan.channels, {kNoOp, kNoOp, kNoOp});
  std::vector<std::array<std::vector<goal::LocalOp>, 3>> down_ready(plan.channels);
  for_each_slice(plan, [&](std::uint32_t c, UnitRange data) {
    const TreeLinks& links = trees[c];
    // The group of steps [first, end) of channel c that this step belongs to.
    const std::uint64_t step = data.begin - std::uint64_t{c} * steps;
    const std::uint64_t first = c * steps + step / k * k, end = std::min(first + k, (c + 1) * steps);
    const UnitRange group{first, end};
    const auto send_down = [&](UnitRange slice, Deps after) {
      for (std::uint32_t i = 0; i < links.num_children; ++i) {
        if (!crosses(links.children[i])) {
          out.send(links.children[i], c, slice, after);
          continue;
        }
        down_ready[c][i].insert(down_ready[c][i].end(), after.begin(), after.end());
        if (slice.end == end) {
          out.send(links.children[i], c, group, down_ready[c][i]);
          down_ready[c][i].clear();
        }
      }
    };
    std::array<goal::LocalOp, 3> reduced{kNoOp, kNoOp, kNoOp};
    for (std::uint32_t i = 0; i < links.num_children; ++i) {
      if (!crosses(links.children[i])) {
        reduced[i] = out.recv(links.children[i], c, data, DataAction::Reduce);
      } else {
        if (data.begin == first) from_child[c][i] = out.recv(links.children[i], c, group, DataAction::Reduce);
        reduced[i] = from_child[c][i];
      }
    }
    const Deps subtree_done(std::span<const goal::LocalOp>(reduced.data(), links.num_children));
    if (links.parent == kNone) {
      send_down(data, subtree_done);
    } else if (!crosses(links.parent)) {
      out.send(links.parent, c, data, subtree_done);
      send_down(data, out.recv(links.parent, c, data, DataAction::Copy));
    } else {
      up_ready[c].insert(up_ready[c].end(), subtree_done.begin(), subtree_done.end());
      if (data.end != end) return;
      out.send(links.parent, c, group, up_ready[c]);
      up_ready[c].clear();
      const goal::LocalOp result = out.recv(links.parent, c, group, DataAction::Copy);
      for (std::uint64_t s = first; s < end; ++s) send_down(UnitRange{s, s + 1}, result);
    }
  });
}

// NCCL (2.19 on, calcCollChunking) cuts a tree into chunks of one step of its buffer, 512 KiB
// for Simple. LL128 halves its step (576000 bytes) while a channel gets fewer chunks than
// 64 (1 + log2 nodes + ppn / 10) / ppn, down to 128 KiB or just below. NCCL then halves on
// down to 32 KiB while a channel gets fewer than a quarter of that; that second round is left
// out here, because a chunk's step cost is spent before each send (RankEmitter::send), where
// NCCL's GPUs overlap a hop's latency with the data still arriving: at 18 KB a chunk, a step
// cost per send would cap a channel near 3 GB/s (a 2-node H100 tree at 2 MiB: 179 us, where
// log 25 measures 87).
std::uint64_t default_chunk(const Plan& plan) {
  std::uint64_t chunk = one_step_bytes(plan.protocol);
  if (plan.protocol != Protocol::LL128) return chunk;
  const double ppn = static_cast<double>(plan.n) / plan.nodes();
  const double steps = 1 + (std::bit_width(plan.nodes()) - 1) + 0.1 * ppn;
  while (static_cast<double>(plan.bytes / (std::uint64_t{plan.channels} * chunk)) < steps * 64 / ppn && chunk > 131072)
    chunk /= 2;
  return chunk;
}

// Up the node's chain and the tree over nodes, then back down both.
std::uint64_t tree_depth(const Plan& plan) {
  const std::uint64_t levels = std::bit_width(std::uint64_t{plan.nodes()} - 1);  // ceil(log2(nodes))
  return 2 * (plan.node_size() - 1 + levels);
}

}  // namespace

extern const Algorithm kAllreduceDoubleBinaryTree{
    "double_binary_tree", Collective::Allreduce,
    "NCCL double binary tree: half the data reduced up and broadcast down each of two complementary trees, pipelined",
    pipelined_slices, emit, nullptr, default_chunk, 2, true, ChunkPath::Tree, tree_depth, 6};

}  // namespace collsim::collectives
