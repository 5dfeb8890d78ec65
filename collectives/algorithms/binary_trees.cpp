#include "algorithms/binary_trees.hpp"

#include <bit>

namespace collsim::collectives {

namespace {

// Tree 1 of the pair relabels vertices so that tree 0's leaves become its interior.
std::uint32_t to_tree_vertex(std::uint32_t m, std::uint32_t tree, std::uint32_t x) {
  if (tree == 0) return x;
  return m % 2 == 0 ? m - 1 - x : (x + m - 1) % m;
}
std::uint32_t from_tree_vertex(std::uint32_t m, std::uint32_t tree, std::uint32_t y) {
  if (tree == 0 || y == kNone) return y;
  return m % 2 == 0 ? m - 1 - y : (y + 1) % m;
}

}  // namespace

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

TreeLinks double_tree(std::uint32_t m, std::uint32_t tree, std::uint32_t x) {
  const TreeLinks shape = binary_tree(m, to_tree_vertex(m, tree, x));
  TreeLinks links;
  links.parent = from_tree_vertex(m, tree, shape.parent);
  for (std::uint32_t i = 0; i < shape.num_children; ++i) links.add_child(from_tree_vertex(m, tree, shape.children[i]));
  return links;
}


}  // namespace collsim::collectives
