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

#include "collsim/collectives/algorithm.hpp"

namespace collsim::coll {
namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// Where one member sits in one tree; children in the order messages to them are emitted.
struct TreeLinks {
  std::uint32_t parent = kNone;
  std::array<std::uint32_t, 3> children{kNone, kNone, kNone};
  std::uint32_t num_children = 0;
  void add_child(std::uint32_t child) {
    if (child != kNone) children[num_children++] = child;
  }
};

// NCCL's binary tree over vertices 0..m-1. A vertex's lowest set bit says how high it sits:
// odd vertices are leaves, vertex 0 is the root with the single child bit_floor(m-1).
TreeLinks binary_tree(std::uint32_t m, std::uint32_t v) {
  TreeLinks links;
  if (v == 0) {
    if (m > 1) links.add_child(std::bit_floor(m - 1));
    return links;
  }
  const std::uint64_t bit = v & (~v + 1);
  const std::uint64_t up = (v ^ bit) | (bit << 1);
  links.parent = static_cast<std::uint32_t>(up < m ? up : v ^ bit);
  // The lower child always exists; the upper one moves closer until it is in range.
  if (bit > 1) links.add_child(static_cast<std::uint32_t>(v - bit / 2));
  for (std::uint64_t offset = bit / 2; offset > 0; offset /= 2)
    if (v + offset < m) {
      links.add_child(static_cast<std::uint32_t>(v + offset));
      break;
    }
  return links;
}

// Tree 1 of the pair relabels vertices so that tree 0's leaves become its interior.
std::uint32_t to_tree_vertex(std::uint32_t m, std::uint32_t tree, std::uint32_t x) {
  if (tree == 0) return x;
  return m % 2 == 0 ? m - 1 - x : (x + m - 1) % m;
}
std::uint32_t from_tree_vertex(std::uint32_t m, std::uint32_t tree, std::uint32_t y) {
  if (tree == 0 || y == kNone) return y;
  return m % 2 == 0 ? m - 1 - y : (y + 1) % m;
}

TreeLinks double_tree(std::uint32_t m, std::uint32_t tree, std::uint32_t x) {
  const TreeLinks shape = binary_tree(m, to_tree_vertex(m, tree, x));
  TreeLinks links;
  links.parent = from_tree_vertex(m, tree, shape.parent);
  for (std::uint32_t i = 0; i < shape.num_children; ++i) links.add_child(from_tree_vertex(m, tree, shape.children[i]));
  return links;
}

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

// plan.channels counts both trees: channel 2c + t runs tree t of the c-th channel asked for,
// so half the data goes through each tree, and pipelined_slices gives every pipeline step of
// every tree its own slice. Both trees of a pair go through the pair's NIC (RankEmitter::nic),
// whose node is interior in one tree and a leaf in the other, as NCCL's are.

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n();
  if (n == 1) return;
  const std::uint32_t p = plan.node_size();
  const std::uint64_t steps = plan.block_pipeline_steps();
  std::vector<std::array<TreeLinks, 2>> trees;
  for (std::uint32_t pair = 0; pair < plan.channels / 2; ++pair)
    trees.push_back(std::array<TreeLinks, 2>{member_links(n, p, 0, out.me(), pair), member_links(n, p, 1, out.me(), pair)});
  // Every rank walks (step, channel, tree) in the same order, so each connection carries its
  // messages in the same order at both ends.
  for (std::uint64_t s = 0; s < steps; ++s)
    for (std::uint32_t pair = 0; pair < plan.channels / 2; ++pair)
      for (std::uint32_t t = 0; t < 2; ++t) {
        const TreeLinks& links = trees[pair][t];
        const std::uint32_t c = 2 * pair + t;
        const std::uint64_t slice = std::uint64_t{c} * steps + s;
        const UnitRange data{slice, slice + 1};
        std::array<goal::LocalOp, 3> reduced{kNoOp, kNoOp, kNoOp};
        for (std::uint32_t i = 0; i < links.num_children; ++i)
          reduced[i] = out.recv(links.children[i], c, data, DataAction::Reduce);
        const Deps subtree_done(std::span<const goal::LocalOp>(reduced.data(), links.num_children));
        goal::LocalOp result = kNoOp;
        if (links.parent != kNone) {
          out.send(links.parent, c, data, subtree_done);
          result = out.recv(links.parent, c, data, DataAction::Copy);
        }
        for (std::uint32_t i = 0; i < links.num_children; ++i)
          out.send(links.children[i], c, data, links.parent != kNone ? Deps(result) : subtree_done);
      }
}

// NCCL (enqueue.cc) halves a tree's chunk while there are fewer than 8 chunks per level of
// the tree, down to 128 KiB, so that the pipeline fills.
std::uint64_t default_chunk(const Plan& plan) {
  const std::uint64_t depth = std::bit_width(plan.nodes()) + plan.node_size() - 1;
  std::uint64_t chunk = plan.chunk_bytes;
  while (plan.bytes / (std::uint64_t{plan.channels} * chunk) < depth * 8 && chunk > 128 * 1024) chunk /= 2;
  return chunk;
}

}  // namespace

extern const Algorithm kAllreduceDoubleBinaryTree{
    "double_binary_tree", Collective::Allreduce,
    "NCCL double binary tree: half the data reduced up and broadcast down each of two complementary trees, pipelined",
    pipelined_slices, emit, nullptr, default_chunk, 2};

}  // namespace collsim::coll
