#pragma once
// The packet-level simulation that `validate` and `calibrate` run each size on: the command's
// fabric options with the validation's settings over them, on every rank of the parallel job.

#include "collsim/validation/run_validation.hpp"
#include "parallel_context.hpp"
#include "schedule_simulation.hpp"

namespace collsim::cli {

class PacketValidationSimulator final : public validation::ScheduleSimulator {
 public:
  // `base`: the command's simulation options (its --fabric-set, --routing, observation).
  PacketValidationSimulator(const SimulationCliOptions& base, ParallelContext& parallel)
      : base_(base), parallel_(parallel) {}
  std::optional<validation::SimulatedSchedule> simulate(const topo::Topology& topology, const goal::Schedule& schedule,
                                                        const validation::FabricSettings& fabric) override;

 private:
  const SimulationCliOptions& base_;
  ParallelContext& parallel_;
};

}  // namespace collsim::cli
