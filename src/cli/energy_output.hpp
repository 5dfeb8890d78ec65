#pragma once
// `--energy` on workload: the options, the power model they give, and the step's energy as
// JSON and as the human summary's lines.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "collsim/energy/step_energy.hpp"
#include "collsim/exec/execution.hpp"
#include "collsim/goal/schedule.hpp"

namespace collsim::cli {

struct EnergyOptions {
  bool enabled = false;
  std::string gpu;  // --energy-gpu, for commands whose schedule names no device
  std::vector<std::string> power_set;  // name=value
  std::uint64_t train_steps = 1;
};

// `gpu_option`: also --energy-gpu (run, replay: a schedule has no device).
void add_energy_options(CLI::App& cmd, EnergyOptions& o, bool gpu_option = false);

// The device's figures with --power-set applied. Throws CLI::ValidationError for a bad
// setting or a device without GPU figures that --power-set does not give.
energy::PowerModel power_model(const EnergyOptions& o, std::string_view device);

// Each rank's activity from its ops' times: calcs compute, sends and receives communicate.
// `host_of`: each rank's host.
std::vector<energy::GpuActivity> activity_from_ops(const goal::Schedule& schedule, const std::vector<exec::OpTime>& times,
                                                   const std::vector<std::uint32_t>& host_of);

nlohmann::json energy_json(const energy::StepEnergy& e, const energy::PowerModel& power, const EnergyOptions& o);
void print_energy(const energy::StepEnergy& e, const energy::PowerModel& power, const EnergyOptions& o);

}  // namespace collsim::cli
