// Two-level allreduce for nodes of ranks_per_node = p consecutive members. When every node
// has p members the ranks form a p x (n/p) grid: a ring reduce-scatter inside each node leaves
// local rank j with piece j reduced over the node, a ring allreduce across nodes among the
// members with local rank j completes piece j, and a ring allgather inside the node spreads
// the pieces. Every rank sends 2(p-1) messages of S/p and 2(n/p-1) of S/n. When the last
// node is smaller the grid has holes, so each node instead reduces to its first member along
// a chain, those leaders run a ring allreduce, and each leader broadcasts along the chain.
// p = 1 and p >= n are a single ring. Each (channel, pipeline step) is an independent
// instance.

#include <algorithm>
#include <cstdint>

#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

// Ring over `size` members first, first+stride, ...; this member is at position `pos`.
struct Ring {
  std::uint32_t first, stride, size, pos;
  std::uint32_t member(std::uint32_t position) const { return first + (position % size) * stride; }
  std::uint32_t next() const { return member(pos + 1); }
  std::uint32_t prev() const { return member(pos + size - 1); }
};

// Block b of a ring phase: `width` consecutive units from base + b * width.
struct Blocks {
  std::uint64_t base, width;
  UnitRange operator[](std::uint64_t b) const { return {base + b * width, base + (b + 1) * width}; }
};

// Leaves position i with block i reduced over the ring; `after` gates the first message.
goal::LocalOp ring_reduce_scatter(RankEmitter& out, std::uint32_t c, const Ring& ring, Blocks blocks,
                                  goal::LocalOp after) {
  const std::uint32_t m = ring.size;
  goal::LocalOp have = after;
  for (std::uint32_t k = 0; k + 1 < m; ++k) {
    out.send(ring.next(), c, blocks[(ring.pos + 2 * m - k - 1) % m], have);
    have = out.recv(ring.prev(), c, blocks[(ring.pos + 2 * m - k - 2) % m], DataAction::Reduce, have);
  }
  return have;
}

// Position i starts with block i; at the end every position holds every block.
goal::LocalOp ring_allgather(RankEmitter& out, std::uint32_t c, const Ring& ring, Blocks blocks,
                             goal::LocalOp after) {
  const std::uint32_t m = ring.size;
  goal::LocalOp have = after;
  for (std::uint32_t k = 0; k + 1 < m; ++k) {
    out.send(ring.next(), c, blocks[(ring.pos + m - k) % m], have);
    have = out.recv(ring.prev(), c, blocks[(ring.pos + 2 * m - k - 1) % m], DataAction::Copy, have);
  }
  return have;
}

struct Shape {
  std::uint32_t p;       // members per node, at most n
  std::uint32_t nodes;
  bool grid;             // every node is full
};
Shape shape_of(const Plan& plan) {
  const std::uint32_t p = plan.node_size(), nodes = plan.nodes();
  return {p, nodes, plan.n % p == 0};
}

// Units per instance: the grid cuts it into n (p pieces of one unit per node), the leaders'
// ring into one per node.
std::uint64_t units_per_instance(const Plan& plan) {
  const Shape shape = shape_of(plan);
  return shape.grid ? plan.n : shape.nodes;
}

// Messages stay within a chunk: the grid's largest carry a node piece (a ring block when p = 1),
// the chains carry whole instances.
std::uint64_t pipeline_steps(const Plan& plan) {
  const Shape shape = shape_of(plan);
  if (!shape.grid) return plan.pipeline_steps(plan.bytes);
  const std::uint64_t pieces = shape.p > 1 ? shape.p : plan.n;
  return plan.pipeline_steps((plan.bytes + pieces - 1) / pieces);
}

std::uint64_t slices(const Plan& plan) {
  return std::uint64_t{plan.channels} * pipeline_steps(plan) * units_per_instance(plan);
}

void emit_grid(RankEmitter& out, const Shape& shape, std::uint32_t c, std::uint64_t base) {
  const std::uint32_t me = out.me(), node = me / shape.p, local = me % shape.p;
  const Ring in_node{node * shape.p, 1, shape.p, local};
  const Ring across{local, shape.p, shape.nodes, node};
  const Blocks pieces{base, shape.nodes};
  const Blocks mine{base + std::uint64_t{local} * shape.nodes, 1};
  goal::LocalOp have = ring_reduce_scatter(out, c, in_node, pieces, kNoOp);
  have = ring_reduce_scatter(out, c, across, mine, have);
  have = ring_allgather(out, c, across, mine, have);
  ring_allgather(out, c, in_node, pieces, have);
}

void emit_leaders(RankEmitter& out, const Shape& shape, std::uint32_t c, std::uint64_t base) {
  const std::uint32_t me = out.me(), node = me / shape.p, local = me % shape.p;
  const std::uint32_t node_size = std::min(shape.p, out.n() - node * shape.p);
  const UnitRange all{base, base + shape.nodes};
  const bool has_next = local + 1 < node_size;
  goal::LocalOp have = has_next ? out.recv(me + 1, c, all, DataAction::Reduce) : kNoOp;
  if (local > 0) {
    out.send(me - 1, c, all, have);
    have = out.recv(me - 1, c, all, DataAction::Copy);
  } else {
    const Ring leaders{0, shape.p, shape.nodes, node};
    const Blocks blocks{base, 1};
    have = ring_reduce_scatter(out, c, leaders, blocks, have);
    have = ring_allgather(out, c, leaders, blocks, have);
  }
  if (has_next) out.send(me + 1, c, all, have);
}

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  if (out.n() == 1) return;
  const Shape shape = shape_of(plan);
  const std::uint64_t steps = pipeline_steps(plan), units = units_per_instance(plan);
  for (std::uint64_t s = 0; s < steps; ++s)
    for (std::uint32_t c = 0; c < plan.channels; ++c) {
      const std::uint64_t base = (std::uint64_t{c} * steps + s) * units;
      if (shape.grid) {
        emit_grid(out, shape, c, base);
      } else {
        emit_leaders(out, shape, c, base);
      }
    }
}

}  // namespace

extern const Algorithm kAllreduceHierarchical{
    "hierarchical", Collective::Allreduce,
    "2D: ring reduce-scatter in the node, ring allreduce across nodes, ring allgather in the node "
    "(leader chains when nodes differ in size)",
    slices, emit};

}  // namespace collsim::collectives
