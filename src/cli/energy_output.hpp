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

namespace collsim::cli {

struct EnergyOptions {
  bool enabled = false;
  std::vector<std::string> power_set;  // name=value
  std::uint64_t train_steps = 1;
};

void add_energy_options(CLI::App& cmd, EnergyOptions& o);

// The device's figures with --power-set applied. Throws CLI::ValidationError for a bad
// setting or a device without GPU figures that --power-set does not give.
energy::PowerModel power_model(const EnergyOptions& o, std::string_view device);

nlohmann::json energy_json(const energy::StepEnergy& e, const energy::PowerModel& power, const EnergyOptions& o);
void print_energy(const energy::StepEnergy& e, const energy::PowerModel& power, const EnergyOptions& o);

}  // namespace collsim::cli
