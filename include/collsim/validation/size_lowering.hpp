#pragma once
// One size of an nccl-tests run as NCCL would run it: the algorithm and protocol its tuning
// picks (or NVLS, CollNet), and that collective lowered to a GOAL schedule bounded in ops
// and packets, with what the fabric needs to run it as NCCL's connections would.

#include <cstdint>
#include <optional>
#include <string>

#include "collsim/collectives/algorithm.hpp"
#include "collsim/collectives/spec.hpp"
#include "collsim/common/sim_time.hpp"
#include "collsim/goal/schedule.hpp"
#include "collsim/topo/topology.hpp"
#include "collsim/validation/run_setup.hpp"

namespace collsim::validation {

// What NCCL runs at one size: the tuning's algorithm and protocol, NVLS (its model picks it as
// the tuning picks the rest) or what the request names.
struct Choice {
  bool nvls = false;  // nvls or nvls_tree, chosen by NCCL's NVLS model
  std::string algorithm;
  collectives::ChunkPath path = collectives::ChunkPath::Other;
  collectives::Protocol protocol = collectives::Protocol::Simple;
  // The share of the links a tree of the log's size gets (collectives::tree_correction): kept when a
  // large size is extrapolated from smaller ones, which would otherwise take their own.
  double tree_share = 1.0;
  // Two sizes with the same key run the same lowering.
  std::string key() const;
};

// A smaller ring of whole nodes standing in for one too large to build (see lower).
struct SubRing {
  std::uint32_t ranks = 0, nodes = 0;  // the ring simulated
  std::uint64_t rounds = 0;            // the large ring's
  std::uint64_t sub_rounds = 0;        // the simulated ring's
  double scale() const { return static_cast<double>(rounds) / static_cast<double>(sub_rounds); }
  std::string describe(std::uint32_t all_nodes) const;
};

struct Lowered {
  collectives::Plan plan;
  goal::Schedule schedule;
  std::uint32_t mtu = 4096;
  // Bytes a switch must hold from one ingress before it pauses it, at least (0: the default).
  std::uint64_t min_xoff_bytes = 0;
  // Set when a smaller ring stands in: the simulated time after the launch is scaled by its rounds.
  std::optional<SubRing> sub_ring{};
  // A streaming protocol's step latency, paid once per hop on the GPUs' links (see lower).
  SimTime hop_latency = SimTime::zero();
  bool streams = false;  // --streaming-hops applied: said in what the size was simulated as
  // The NICs' rate for this size relative to nic_efficiency's (ll128_network_efficiency).
  double nic_factor = 1.0;
  // The share of every link's rate a tree of this size reaches (collectives::tree_correction).
  double tree_share = 1.0;
  // What ran, for the output: "ring LL128 x24", with streaming and the tree's share.
  std::string description() const;
};

// NVLS on one node, NVLSTree on several (collectives' nvls and nvls_tree): allreduce on full
// nodes of a preset with NVLS, what --algo nvls may ask for.
bool nvls_available(const ValidationSetup& s);
// Where NCCL's own choice of NVLS is simulated: one or two nodes. Beyond two NCCL's model
// picks NVLSTree too; simulating that choice would change the reports of the logs over more
// nodes (19, 31), which the validation report has not been regenerated for.
bool nvls_possible(const ValidationSetup& s);
// CollNetChain (SHARP) on two or more full nodes.
bool collnet_chain_possible(const ValidationSetup& s);

Choice choose(const ValidationSetup& s, const ValidationRequest& r, std::uint64_t bytes);

// The lowering of one size. NCCL's chunk and the fabric's 4 KiB MTU make a GiB collective
// millions of messages and billions of packets, so both grow with the size: at most ~8
// pipelined chunks per block and channel (and at most request.max_ops ops in all), and packets
// of 1/64 of a chunk (4 KiB .. 32 KiB). Large sizes are bandwidth-bound, where this changes
// little; small sizes keep NCCL's chunks and 4 KiB packets. Throws std::runtime_error when a
// ring too large for max_ops has no smaller ring to stand in for it.
Lowered lower(const ValidationSetup& s, const ValidationRequest& r, std::uint64_t bytes, const Choice& choice);

// The largest size simulated packet by packet (a power of two, at least 1 MiB): above
// request.max_packets packets in all, sizes are extrapolated (see validate_run).
std::uint64_t largest_simulated_size(const ValidationSetup& s, const ValidationRequest& r, const Choice& choice);

// No rank can send or receive its bytes faster than its one link carries them (with each
// packet's header): a lower bound on the schedule's time that grows linearly with the size.
Duration wire_floor(const goal::Schedule& schedule, const topo::Topology& topology, std::uint32_t mtu);

}  // namespace collsim::validation
