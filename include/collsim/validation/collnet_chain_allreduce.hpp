#pragma once
// CollNetChain allreduce (NCCL 2.14+, NCCL_ALGO=COLLNETCHAIN with NCCL_COLLNET_ENABLE=1):
// inside each node a chain of its GPUs over NVLink, between nodes an in-network (SHARP)
// reduction in the InfiniBand switches. Per channel, the chain's tail sends its chunk to the
// next GPU up, which adds its own and passes the sum on, up to the chain's head; the head
// hands the node's sum to the network, which reduces the sums of all nodes and returns the
// total to every head; the total then flows back down the chain. The chain rotates over the
// node's GPUs from channel to channel, as NCCL starts each channel's chain at a different GPU
// (the one nearest that channel's NIC).
//
// Our switches only forward, so each rail switch's aggregation becomes a rank of its own on a
// host attached to that rail switch (make_system_topology adds "sharp<r>" when asked), linked
// at the NIC rate times the number of nodes: the aggregation keeps up with every node at
// line rate, and each node's NIC carries S up and S down, as with SHARP. Channel c goes to
// rail c mod rails. Each GPU moves S up and S down its chain (a ring: 2(n-1)/n * S each way).

#include <cstdint>

#include "collsim/goal/schedule.hpp"

namespace collsim::validation {

struct CollNetChainAllreduce {
  std::uint32_t gpus = 8;            // per node; GPU g of node i is rank i*gpus+g
  std::uint32_t nodes = 2;           // rail r's aggregation is rank nodes*gpus+r
  std::uint32_t rails = 1;
  std::uint64_t bytes = 0;
  std::uint32_t channels = 16;
  std::uint64_t chunk_bytes = 1 << 20;
  std::uint32_t in_flight = 4;       // chunks a GPU may have outstanding up its chain per channel
  std::int64_t launch_ns = 0;        // once per channel before the first chunk
};
// Throws std::invalid_argument for no GPUs, fewer than 2 nodes, no rails, channels outside
// 1..255, or a zero chunk or window.
goal::Schedule make_collnet_chain_allreduce(const CollNetChainAllreduce& a);

}  // namespace collsim::validation
