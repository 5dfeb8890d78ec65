// NVLS (NVLink SHARP, NCCL 2.17+ on Hopper and later NVSwitches): the NVSwitch reduces and
// multicasts. Our switches only forward, so each node's switch is a helper rank of its own
// (a host on the NVSwitch whose link carries what the switch's reduction engine can process):
// per channel and chunk every GPU sends its chunk to the switch, and the switch, once it has
// the chunk of every GPU of its node, sends the sum back to each. Every GPU moves S up and S
// down, where a ring moves 2(n-1)/n S each way.
//
// NVLSTree (NCCL 2.18+) joins nodes by trees over their switches. On two nodes each switch,
// once it has its GPUs' chunk, sends the node's sum to the other node's switch and sends the
// total down once the other's sum is back: that one exchange is the tree, and S crosses the
// network per node and direction, so the bus bandwidth can exceed the NICs' line rate. On
// more nodes channel c runs tree c mod 2 of NCCL's double binary tree over the nodes: a
// switch adds its children's sums to its node's, sends that to its parent, and passes the
// total from the parent (the root: its own) to its children and its GPUs.

#include <bit>
#include <string>
#include <vector>

#include "algorithms/binary_trees.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

// NCCL's NVLS chunk.
constexpr std::uint64_t kNvlsChunkBytes = 128 * 1024;

std::vector<std::uint32_t> one_switch_per_node(const Plan& plan) {
  std::vector<std::uint32_t> nodes(plan.nodes());
  for (std::uint32_t i = 0; i < nodes.size(); ++i) nodes[i] = i;
  return nodes;
}

std::string full_nodes(const Plan& plan, std::uint32_t nodes, const char* what) {
  if (plan.n < 2) return "needs at least 2 ranks";
  if (plan.nodes() != nodes)
    return std::string(what) + ", not " + std::to_string(plan.nodes()) + " (ranks_per_node " +
           std::to_string(plan.ranks_per_node) + ")";
  if (plan.n % plan.node_size() != 0) return "needs nodes with the same number of ranks";
  return "";
}

std::string unsupported_nvls(const Plan& plan) {
  return full_nodes(plan, 1, "reduces inside one NVLink domain: 1 node (nvls_tree joins several)");
}

std::string unsupported_nvls_tree(const Plan& plan) {
  if (plan.nodes() < 2) return "joins the NVLS of 2 or more nodes, not 1 (ranks_per_node " +
                               std::to_string(plan.ranks_per_node) + "; nvls is the one-node algorithm)";
  return full_nodes(plan, plan.nodes(), "");
}

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint64_t steps = plan.block_pipeline_steps();
  const std::uint32_t me = out.me();
  const auto chunk = [&](std::uint32_t c, std::uint64_t k) {
    const std::uint64_t u = out.layout().unit(std::uint64_t{c} * steps + k, 0);
    return UnitRange{u, u + 1};
  };
  if (!plan.is_helper(me)) {
    const std::uint32_t nvswitch = plan.n + plan.node_of(me);
    for (std::uint32_t c = 0; c < plan.channels; ++c) {
      // A chunk's buffer is free again once its sum is back: max_in_flight chunks per channel.
      std::vector<goal::LocalOp> totals;
      for (std::uint64_t k = 0; k < steps; ++k) {
        const goal::LocalOp slot_free = k >= plan.max_in_flight ? totals[k - plan.max_in_flight] : kNoOp;
        out.send(nvswitch, c, chunk(c, k), slot_free);
        totals.push_back(out.recv(nvswitch, c, chunk(c, k), DataAction::Copy));
      }
    }
    return;
  }
  const std::uint32_t node = me - plan.n, first = node * plan.node_size(), nodes = plan.nodes();
  const auto switch_of = [&](std::uint32_t n) { return plan.n + n; };
  for (std::uint32_t c = 0; c < plan.channels; ++c) {
    const TreeLinks tree = double_tree(nodes, c % 2, node);
    for (std::uint64_t k = 0; k < steps; ++k) {
      std::vector<goal::LocalOp> in;
      for (std::uint32_t g = first; g < first + plan.node_size(); ++g)
        in.push_back(out.recv(g, c, chunk(c, k), DataAction::Reduce));
      if (nodes == 2) {
        // The node's sum leaves before the other node's arrives in the same buffer.
        const std::uint32_t other = switch_of(1 - node);
        const goal::LocalOp sum_out = out.send(other, c, chunk(c, k), in);
        in.push_back(out.recv(other, c, chunk(c, k), DataAction::Reduce, {}, sum_out));
      } else if (nodes > 2) {
        for (std::uint32_t i = 0; i < tree.num_children; ++i)
          in.push_back(out.recv(switch_of(tree.children[i]), c, chunk(c, k), DataAction::Reduce));
        if (tree.parent != kNone) {
          // The subtree's sum goes up; the total comes back into the same buffer.
          const goal::LocalOp sum_out = out.send(switch_of(tree.parent), c, chunk(c, k), in);
          in = {out.recv(switch_of(tree.parent), c, chunk(c, k), DataAction::Copy, {}, sum_out)};
        }
        for (std::uint32_t i = 0; i < tree.num_children; ++i) out.send(switch_of(tree.children[i]), c, chunk(c, k), in);
      }
      for (std::uint32_t g = first; g < first + plan.node_size(); ++g) out.send(g, c, chunk(c, k), in);
    }
  }
}

std::uint64_t nvls_chunk(const Plan&) { return kNvlsChunkBytes; }

// A chunk goes up to the switch and comes back down; across two nodes it also crosses between
// the switches.
std::uint64_t nvls_depth(const Plan&) { return 2; }
std::uint64_t nvls_tree_depth(const Plan& plan) {
  // Up and down the tree over nodes, 2 (the exchange) on two.
  const std::uint64_t height = plan.nodes() <= 2 ? 1 : 2 * std::bit_width(plan.nodes() - 1);
  return 2 + height;
}

// NCCL runs every algorithm but the Simple ring with chunks of one step of its buffer, so
// NCCL_STEPS of them are in flight per connection (one_step_chunks).

// Per step and channel a GPU sends and receives a chunk, and its switch does as much for it.
constexpr std::uint32_t kNvlsOpsPerStep = 4;

}  // namespace

extern const Algorithm kAllreduceNvls{
    "nvls", Collective::Allreduce,
    "NCCL NVLS: every GPU sends each chunk to its NVSwitch (a helper rank), which returns the sum",
    pipelined_slices, emit, unsupported_nvls, nvls_chunk, 1, true, ChunkPath::Other, nvls_depth, kNvlsOpsPerStep,
    one_switch_per_node};

extern const Algorithm kAllreduceNvlsTree{
    "nvls_tree", Collective::Allreduce,
    "NCCL NVLSTree: NVLS in each node, the nodes' NVSwitches (helper ranks) reducing over a double binary tree",
    pipelined_slices, emit, unsupported_nvls_tree, nvls_chunk, 1, true, ChunkPath::Other, nvls_tree_depth,
    kNvlsOpsPerStep, one_switch_per_node};

}  // namespace collsim::collectives
