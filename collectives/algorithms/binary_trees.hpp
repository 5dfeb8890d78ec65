#pragma once
// NCCL's binary trees (src/graph/trees.cc) over vertices 0..m-1, and the pair of them that a
// double binary tree runs: the double binary tree allreduce builds its trees over nodes from
// them, NVLSTree its trees over the nodes' NVSwitches.

#include <array>
#include <cstdint>

namespace collsim::collectives {

inline constexpr std::uint32_t kNone = 0xFFFFFFFFu;

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
TreeLinks binary_tree(std::uint32_t m, std::uint32_t v);
// Vertex x's links in tree `tree` (0 or 1) of the pair: tree 1 relabels vertices so that
// tree 0's leaves become its interior (the mirror image n-1-x for even m, a shift by one for
// odd m).
TreeLinks double_tree(std::uint32_t m, std::uint32_t tree, std::uint32_t x);

}  // namespace collsim::collectives
