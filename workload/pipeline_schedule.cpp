#include "collsim/workload/pipeline_schedule.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace collsim::workload {

namespace {

// Megatron's interleaved order: micro-batches go in groups of `stages`; within the k-th
// forward, the chunk advances every `stages` passes; backward walks the chunks in reverse.
PipelineAction interleaved(std::uint64_t k, bool forward, std::uint32_t stages, std::uint32_t chunks) {
  const std::uint64_t group = k / (std::uint64_t{stages} * chunks);
  const auto in_group = static_cast<std::uint32_t>(k % stages);
  auto chunk = static_cast<std::uint32_t>((k / stages) % chunks);
  if (!forward) chunk = chunks - 1 - chunk;
  return {forward, static_cast<std::uint32_t>(group * stages + in_group), chunk};
}

}  // namespace

std::vector<PipelineAction> pipeline_actions(PipelineSchedule schedule, std::uint32_t stages, std::uint32_t stage,
                                             std::uint32_t micro_batches, std::uint32_t virtual_stages) {
  if (stages == 0 || stage >= stages || micro_batches == 0 || virtual_stages == 0)
    throw std::invalid_argument("pipeline: need stages > stage, micro-batches > 0 and virtual stages > 0");
  const std::uint32_t chunks = schedule == PipelineSchedule::Interleaved ? virtual_stages : 1;
  if (chunks > 1 && micro_batches % stages != 0)
    throw std::invalid_argument("the interleaved schedule needs the micro-batches (" + std::to_string(micro_batches) +
                                ") to be a multiple of the pipeline stages (" + std::to_string(stages) + ")");
  const std::uint64_t total = std::uint64_t{micro_batches} * chunks;
  // Warm-up forwards before the first backward: 1F1B fills the pipeline behind this stage;
  // interleaving also runs ahead by the other chunks of one group.
  std::uint64_t warmup = chunks == 1 ? stages - stage - 1 : (stages - stage - 1) * 2ull + (chunks - 1ull) * stages;
  warmup = std::min(warmup, total);
  auto fwd = [&](std::uint64_t k) {
    return chunks == 1 ? PipelineAction{true, static_cast<std::uint32_t>(k), 0} : interleaved(k, true, stages, chunks);
  };
  auto bwd = [&](std::uint64_t k) {
    return chunks == 1 ? PipelineAction{false, static_cast<std::uint32_t>(k), 0} : interleaved(k, false, stages, chunks);
  };
  std::vector<PipelineAction> out;
  out.reserve(2 * total);
  for (std::uint64_t k = 0; k < warmup; ++k) out.push_back(fwd(k));
  for (std::uint64_t i = 0; i < total - warmup; ++i) {
    out.push_back(fwd(warmup + i));
    out.push_back(bwd(i));
  }
  for (std::uint64_t k = total - warmup; k < total; ++k) out.push_back(bwd(k));
  return out;
}

}  // namespace collsim::workload
