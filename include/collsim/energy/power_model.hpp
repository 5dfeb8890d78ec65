#pragma once
// How much power each part of a training cluster draws: a GPU by what it is doing (computing,
// communicating, idle), NICs, optics and switches by a static part and a part per bit they
// move, NVSwitch ports, an optional overhead per server, and the facility around them (PUE)
// with the carbon intensity of its electricity. The defaults and where they come from are in
// the README ("Energy and carbon of a step").

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collsim/common/parameter_table.hpp"

namespace collsim::energy {

struct GpuPower {
  double compute_w = 0;  // running compute kernels (the board's TDP)
  double comm_w = 0;     // only communication kernels (copy engines, NVLink, a few SMs)
  double idle_w = 0;     // a CUDA context waiting
};

struct PowerModel {
  GpuPower gpu;
  double nic_w = 0;                       // per NIC port (a host's port on a network link), always on
  double nic_pj_per_bit = 0;              // per bit a NIC sends or receives
  double optics_pj_per_bit = 0;           // per end of a network link, times its line rate: always on
  double switch_static_pj_per_bit = 0;    // per network-switch port, times its line rate: always on
  double switch_pj_per_bit = 0;           // per bit a network switch forwards
  double nvswitch_port_w = 0;             // per NVSwitch port, always on
  double host_w = 0;                      // per server, beyond its GPUs and NICs (CPUs, memory, fans)
  double pue = 1.0;                       // facility energy / IT energy
  double carbon_g_per_kwh = 0;            // grid carbon intensity, g CO2e per kWh
};

// The GPU figures of a device preset name ("A100", "H100", "H200", "B200"); nothing for others.
std::optional<GpuPower> gpu_power_preset(std::string_view device);
std::vector<std::string> gpu_power_presets();

// Every figure but the GPU's, at its default; the GPU's from gpu_power_preset(device), or zero.
PowerModel default_power_model(std::string_view device);

// The figures by name (gpu_compute_w, nic_w, pue, ...), for --power-set and --help-params.
const ParameterTable<PowerModel>& power_parameters();

}  // namespace collsim::energy
