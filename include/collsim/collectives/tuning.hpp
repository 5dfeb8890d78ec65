#pragma once
// "auto": NCCL's choice of algorithm and protocol, from its cost model
// time = latency + bytes / bandwidth per (algorithm, protocol) (reference/nccl.md section 3).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collsim/collectives/spec.hpp"

namespace collsim::collectives {

struct TuningCandidate {
  std::string algorithm;   // our registered name ("ring", "double_binary_tree")
  Protocol protocol;
  double latency_us;
  double bandwidth_gbytes_per_s;  // algorithm bandwidth; 0 when NCCL would not use it
  double time_us;
};

// Rounds of NCCL's ring: 2(n - 1) for allreduce, n - 1 for allgather and reduce-scatter, n
// for the others.
std::uint64_t ring_steps(Collective c, std::uint32_t n);
// NCCL's measured share of its tree model's bandwidth that a tree of `bytes` reaches with
// `protocol` ("trees are not perfectly sticking to the model for medium sizes"): 0.4-1 from
// 64 B to 256 MiB, 1 above.
double tree_correction(Protocol protocol, std::uint64_t bytes);
// Every candidate NCCL considers for the plan's collective, size and system, cheapest first.
std::vector<TuningCandidate> tuning_candidates(const Plan& plan);
// The protocol of the cheapest candidate that runs `algorithm` (a registered name), as NCCL
// tunes the protocol when NCCL_ALGO fixes the algorithm; nothing when no candidate runs it.
// `plan` is an "auto" plan (its channels as requested).
std::optional<Protocol> tuned_protocol(const Plan& plan, std::string_view algorithm);
// Sets plan.algorithm and, unless the request fixed it, plan.protocol.
void choose_automatically(Plan& plan, bool protocol_fixed);

}  // namespace collsim::collectives
