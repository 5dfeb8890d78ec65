#include "energy_output.hpp"

#include <iomanip>
#include <iostream>
#include <sstream>

#include "collsim/energy/power_model.hpp"
#include "collsim/workload/role_timeline.hpp"

namespace collsim::cli {

namespace {

// "41.2 kJ", "812 J", "3.1 MJ"
std::string joules(double j) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3);
  if (j >= 1e9) out << j / 1e9 << " GJ";
  else if (j >= 1e6) out << j / 1e6 << " MJ";
  else if (j >= 1e3) out << j / 1e3 << " kJ";
  else out << j << " J";
  return out.str();
}

std::string watts(double w) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3);
  if (w >= 1e6) out << w / 1e6 << " MW";
  else if (w >= 1e3) out << w / 1e3 << " kW";
  else out << w << " W";
  return out.str();
}

}  // namespace

std::vector<energy::GpuActivity> activity_from_ops(const goal::Schedule& schedule, const std::vector<exec::OpTime>& times,
                                                   const std::vector<std::uint32_t>& host_of) {
  workload::RoleTimelines timelines(schedule.num_ranks());
  for (const exec::OpTime& t : times) {
    const bool calc = schedule.rank(t.rank).kind(t.op) == goal::OpKind::Calc;
    if (t.start && t.end)
      timelines.add(t.rank, calc ? workload::OpRole::Compute : workload::OpRole::TP, *t.start, *t.end);
  }
  std::vector<energy::GpuActivity> out;
  for (goal::RankId r = 0; r < schedule.num_ranks(); ++r) {
    const workload::RankActivity a = timelines.activity(r);
    out.push_back({host_of[r], a.computing, a.communicating});
  }
  return out;
}

void add_energy_options(CLI::App& cmd, EnergyOptions& o, bool gpu_option) {
  if (gpu_option)
    cmd.add_option("--energy-gpu", o.gpu, "The GPUs' power preset for --energy (A100, H100, H200, B200)");
  cmd.add_flag("--energy", o.enabled,
               "Report the step's energy and carbon: GPUs by activity, NICs, optics, switches, NVSwitch, servers "
               "(figures: --power-set, --help-params)");
  cmd.add_option("--power-set", o.power_set, "A power figure, name=value (e.g. pue=1.1, gpu_idle_w=80); repeatable")
      ->type_name("NAME=VALUE");
  cmd.add_option("--train-steps", o.train_steps, "Steps of the training run whose energy and carbon --energy totals")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  cmd.add_flag_callback(
      "--help-power",
      [] {
        std::cout << "Power figures (--energy; --power-set name=value), defaults for an H100:\n"
                  << energy::power_parameters().help(energy::default_power_model("H100"))
                  << "GPU presets (from the workload's device): ";
        for (const std::string& d : energy::gpu_power_presets()) std::cout << d << ' ';
        std::cout << "\n";
        throw CLI::Success();
      },
      "List the power figures of --energy with their units and defaults");
}

energy::PowerModel power_model(const EnergyOptions& o, std::string_view device) {
  energy::PowerModel m = energy::default_power_model(device);
  bool gpu_given = energy::gpu_power_preset(device).has_value();
  for (const std::string& s : o.power_set) {
    const auto eq = s.find('=');
    if (eq == std::string::npos) throw CLI::ValidationError("--power-set", "'" + s + "': expected name=value");
    if (s.substr(0, eq) == "gpu_compute_w") gpu_given = true;
    try {
      energy::power_parameters().set(m, std::string_view(s).substr(0, eq), std::string_view(s).substr(eq + 1));
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--power-set", e.what());
    }
  }
  if (!gpu_given) {
    std::string known;
    for (const std::string& d : energy::gpu_power_presets()) known += (known.empty() ? "" : ", ") + d;
    if (device.empty())
      throw CLI::ValidationError("--energy", "which GPUs? give --energy-gpu (" + known +
                                                 ") or their figures with --power-set gpu_compute_w=..., gpu_comm_w=..., "
                                                 "gpu_idle_w=...");
    throw CLI::ValidationError("--energy", "no power figures for device '" + std::string(device) +
                                               "' (presets: " + known +
                                               "): give them with --power-set gpu_compute_w=..., gpu_comm_w=..., "
                                               "gpu_idle_w=...");
  }
  return m;
}

nlohmann::json energy_json(const energy::StepEnergy& e, const energy::PowerModel& power, const EnergyOptions& o) {
  const energy::Footprint f = energy::footprint(e, power, o.train_steps);
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, value] : energy::power_parameters().values(power)) params[name] = std::stod(value);
  return {{"energy",
           {{"step_ps", e.step.picoseconds()},
            {"it_j", e.it_j()},
            {"facility_j", f.facility_j},
            {"average_w", f.average_w},
            {"gpu_compute_j", e.gpu_compute_j},
            {"gpu_comm_j", e.gpu_comm_j},
            {"gpu_idle_j", e.gpu_idle_j},
            {"per_gpu_min_j", e.per_gpu_min_j},
            {"per_gpu_max_j", e.per_gpu_max_j},
            {"nic_j", e.nic_j},
            {"optics_j", e.optics_j},
            {"switch_static_j", e.switch_static_j},
            {"switch_traffic_j", e.switch_traffic_j},
            {"nvswitch_j", e.nvswitch_j},
            {"host_j", e.host_j},
            {"counted",
             {{"gpus", e.gpus},
              {"nics", e.nics},
              {"network_links", e.network_links},
              {"switch_ports", e.switch_ports},
              {"nvswitch_ports", e.nvswitch_ports},
              {"servers", e.servers}}},
            {"co2e_g", f.co2e_g},
            {"train_steps", o.train_steps},
            {"run_kwh", f.run_kwh},
            {"run_co2e_kg", f.run_co2e_kg},
            {"power", params}}}};
}

void print_energy(const energy::StepEnergy& e, const energy::PowerModel& power, const EnergyOptions& o) {
  const energy::Footprint f = energy::footprint(e, power, o.train_steps);
  const std::ios::fmtflags flags = std::cout.flags();
  const std::streamsize precision = std::cout.precision();
  std::cout << std::defaultfloat << std::setprecision(6);
  std::cout << "energy        " << joules(e.it_j()) << " per step in IT, " << joules(f.facility_j)
            << " at the facility (PUE " << power.pue << "), " << watts(f.average_w) << " on average\n"
            << "  GPUs        " << joules(e.gpu_j()) << ": computing " << joules(e.gpu_compute_j) << ", communicating "
            << joules(e.gpu_comm_j) << ", idle " << joules(e.gpu_idle_j) << " (" << e.gpus << " GPUs, "
            << joules(e.per_gpu_min_j) << " to " << joules(e.per_gpu_max_j) << " each)\n"
            << "  network     " << joules(e.network_j()) << ": NICs " << joules(e.nic_j) << " (" << e.nics
            << "), optics " << joules(e.optics_j) << " (" << e.network_links << " links), switches "
            << joules(e.switch_static_j + e.switch_traffic_j) << " (" << e.switch_ports << " ports; traffic "
            << joules(e.switch_traffic_j) << "), NVSwitch " << joules(e.nvswitch_j) << " (" << e.nvswitch_ports
            << " ports)\n"
            << "  servers     " << joules(e.host_j) << " (" << e.servers << " at host_w " << power.host_w << " W)\n"
            << "carbon        " << f.co2e_g << " g CO2e per step at " << power.carbon_g_per_kwh << " g/kWh; "
            << o.train_steps << " step(s): " << f.run_kwh << " kWh, " << f.run_co2e_kg << " kg CO2e\n";
  std::cout.flags(flags);
  std::cout.precision(precision);
}

}  // namespace collsim::cli
