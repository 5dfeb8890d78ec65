#pragma once
// One training step as a GOAL schedule: every GPU's forward and backward compute as calcs on
// its compute stream (cpu 0), each TP/SP, PP, EP collective where it occurs (blocking the
// compute that needs its result), and the DP gradient reduction in buckets on separate
// streams that overlap the backward pass.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "collsim/collectives/system_model.hpp"
#include "collsim/goal/op_span.hpp"
#include "collsim/goal/schedule.hpp"
#include "collsim/workload/collective_reuse.hpp"
#include "collsim/workload/workload_spec.hpp"

namespace collsim::workload {

// What an op does, for the report of where the time goes: compute, or communication of
// one parallel dimension (role = 1 + Dimension).
enum class OpRole : std::uint8_t { Compute = 0, TP = 1, PP = 2, DP = 3, EP = 4 };

struct LoweringOptions {
  std::uint32_t gpus_per_node = 1;  // consecutive ranks sharing a node (collectives plan for it)
  collectives::SystemModel system;         // what "auto" tunes for (the arch comes from the device)
  // Set: blocking TP and EP collectives inside one node are lowered as a barrier and the
  // member's time alone (see collective_reuse.hpp).
  CollectiveReuse* reuse = nullptr;
};

// What a step adds up to, whether lowered whole or streamed (step_stream.hpp).
struct StepTotals {
  std::vector<std::uint64_t> compute_ns;          // per rank: its compute calcs summed
  std::vector<std::array<std::uint64_t, kDimensions>> bytes_sent;  // per rank and dimension (wire bytes)
  double model_flops = 0;                         // per iteration on all GPUs, without recomputation
  std::uint64_t micro_batches = 0;
  std::uint64_t total_params = 0;
  std::vector<std::uint64_t> collectives_reused;  // per rank: collectives lowered as barrier and calc
};

struct LoweredStep : StepTotals {
  goal::Schedule schedule;
  std::vector<OpRole> role;                       // per global op
  // Every rank's part of every collective, in emission order; names like "dp allreduce".
  std::vector<goal::OpSpan> collectives;
  std::vector<std::string> collective_names;
};

// Throws std::invalid_argument for an inconsistent workload (see validate()).
LoweredStep lower_step(const WorkloadSpec& w, const LoweringOptions& options);

// The size of the whole step's schedule without building it: one rank of every pipeline stage
// is lowered into a counter, and the stage's ranks are taken to have as many ops and
// dependency edges (they differ only in their peers). Throws as lower_step does.
struct StepSize {
  std::uint64_t ops = 0;
  std::uint64_t edges = 0;
  // A streamed run's measure (step_stream.hpp): every rank's largest piece of DP collectives
  // plus its largest piece of the rest, summed over ranks. At its peak a streamed run held
  // 0.59x (gpt3_175b) to 2.6x (resnet50) this many ops.
  std::uint64_t largest_pieces_ops = 0;
};
StepSize estimate_step_size(const WorkloadSpec& w, const LoweringOptions& options);

}  // namespace collsim::workload
