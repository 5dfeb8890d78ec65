#pragma once
// Small workloads built in code, for tests whose expected numbers are derived by hand.

#include "collsim/workload/compute_model.hpp"
#include "collsim/workload/workload_spec.hpp"

namespace collsim::workload::testing {

// A 4-layer transformer small enough to lower in milliseconds: hidden 256, 8 heads, sequence
// 128, vocabulary 1024, BF16, so one micro-batch's activation is A = 128·256·2 = 64 KiB.
inline WorkloadSpec tiny_transformer(std::uint32_t tp, std::uint32_t pp, std::uint32_t dp, std::uint64_t micro_batches = 4) {
  WorkloadSpec w;
  w.name = "tiny";
  TransformerSpec t;
  t.layers = 4;
  t.hidden = 256;
  t.heads = 8;
  t.seq = 128;
  t.vocab = 1024;
  w.model.transformer = t;
  w.model.name = "tiny";
  w.training.micro_batch = 1;
  w.training.global_batch = micro_batches * dp;
  w.parallel.tp = tp;
  w.parallel.pp = pp;
  w.parallel.dp = dp;
  // Ring algorithms with the Simple protocol put exactly the data on the wire.
  w.comm.allreduce = w.comm.allgather = w.comm.reduce_scatter = "ring";
  w.comm.alltoall = "direct";
  w.comm.protocol = collectives::Protocol::Simple;
  w.comm.channels = 1;
  w.device = *device_preset("A100");
  return w;
}

inline constexpr std::uint64_t kTinyActivation = 128 * 256 * 2;

}  // namespace collsim::workload::testing
