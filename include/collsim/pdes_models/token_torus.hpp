#pragma once
// A small network for testing the kernel on a real graph: a W x H torus of routers, each
// with a host attached by a zero-latency link (so the two must share a rank). Hosts send
// tokens to random hosts after exponential think times; routers serve tokens one at a time
// (a FIFO queue, a service time) and forward them in dimension order, X then Y, the short
// way round. Links in X and Y have different latencies, so the lookahead depends on where
// the partition cuts. The checksum hashes every LP's ordered history.

#include <cstdint>

#include "collsim/pdes/event_queue.hpp"
#include "collsim/pdes/partition.hpp"
#include "collsim/pdes/run_stats.hpp"
#include "collsim/common/sim_time.hpp"
#include "collsim/pdes/transport.hpp"

namespace collsim::pdes_models {

struct TokenTorusConfig {
  std::uint32_t width = 8;
  std::uint32_t height = 8;
  SimTime x_latency = SimTime::ns(500);
  SimTime y_latency = SimTime::ns(700);
  SimTime service = SimTime::ns(60);     // a router's time per token
  SimTime mean_think = SimTime::us(2);   // a host's mean time between tokens
  std::uint32_t tokens_per_host = 4;                 // tokens each host keeps in circulation
  SimTime end = SimTime::us(200);
  std::uint64_t seed = 1;
  pdes::PartitionMethod partition = pdes::PartitionMethod::Metis;
  pdes::QueueKind queue = pdes::QueueKind::Wheel;
};

struct TokenTorusResult {
  pdes::RunStats stats;
  std::uint64_t checksum = 0;    // on rank 0
  std::uint64_t delivered = 0;   // tokens that reached their host (all ranks)
  double mean_hops = 0;          // per delivered token
};

// The LP graph: routers 0..W*H-1, host of router r is W*H + r.
pdes::LpGraph token_torus_graph(const TokenTorusConfig& config);

// Collective over the transport's ranks. Throws std::invalid_argument for bad parameters.
TokenTorusResult run_token_torus(const TokenTorusConfig& config, pdes::Transport& transport);

}  // namespace collsim::pdes_models
