#pragma once
// The order in which a pipeline stage runs its forward and backward passes: 1F1B, and
// Megatron's interleaved 1F1B with several model chunks per stage.

#include <cstdint>
#include <vector>

#include "collsim/workload/workload_spec.hpp"

namespace collsim::workload {

struct PipelineAction {
  bool forward = true;
  std::uint32_t micro_batch = 0;
  std::uint32_t chunk = 0;  // model chunk on this stage, 0..virtual_stages-1
  bool operator==(const PipelineAction&) const = default;
};

// Every forward and backward of every micro-batch and chunk exactly once, in run order.
// Interleaving needs micro_batches to be a multiple of stages (as in Megatron); throws
// std::invalid_argument otherwise.
std::vector<PipelineAction> pipeline_actions(PipelineSchedule schedule, std::uint32_t stages, std::uint32_t stage,
                                             std::uint32_t micro_batches, std::uint32_t virtual_stages);

}  // namespace collsim::workload
