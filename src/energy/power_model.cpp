#include "collsim/energy/power_model.hpp"

#include <array>
#include <charconv>
#include <sstream>
#include <stdexcept>

namespace collsim::energy {

namespace {

struct GpuPreset {
  std::string_view device;
  GpuPower power;
};

// compute: the SXM board's TDP (A100 400 W, H100 and H200 700 W, HGX B200 1000 W). comm: half
// of it, as NCCL's kernels keep copy engines, NVLink and memory busy with few SMs. idle: 15 %
// of it, a CUDA context waiting. The last two are assumptions, not measurements.
constexpr std::array<GpuPreset, 4> kGpuPresets{{
    {"A100", {400, 200, 60}},
    {"H100", {700, 350, 105}},
    {"H200", {700, 350, 105}},
    {"B200", {1000, 500, 150}},
}};

double parse_real(std::string_view name, std::string_view text, double low, double high) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !(v >= low && v <= high)) {
    std::ostringstream expected;
    expected << "a number from " << low << " to " << high;
    throw std::invalid_argument("power parameter " + std::string(name) + " = '" + std::string(text) +
                                "': expected " + expected.str());
  }
  return v;
}

std::string format_real(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

Parameter<PowerModel> real(std::string name, std::string unit, std::string help, double PowerModel::*field,
                           double low, double high) {
  return {name, std::move(unit), std::move(help),
          [name, field, low, high](PowerModel& p, std::string_view v) { p.*field = parse_real(name, v, low, high); },
          [field](const PowerModel& p) { return format_real(p.*field); }};
}

Parameter<PowerModel> gpu(std::string name, std::string help, double GpuPower::*field) {
  return {name, "W", std::move(help),
          [name, field](PowerModel& p, std::string_view v) { p.gpu.*field = parse_real(name, v, 0, 1e5); },
          [field](const PowerModel& p) { return format_real(p.gpu.*field); }};
}

}  // namespace

std::optional<GpuPower> gpu_power_preset(std::string_view device) {
  for (const GpuPreset& p : kGpuPresets)
    if (p.device == device) return p.power;
  return std::nullopt;
}

std::vector<std::string> gpu_power_presets() {
  std::vector<std::string> out;
  for (const GpuPreset& p : kGpuPresets) out.emplace_back(p.device);
  return out;
}

PowerModel default_power_model(std::string_view device) {
  PowerModel m;
  m.gpu = gpu_power_preset(device).value_or(GpuPower{});
  m.nic_w = 24.9;                   // ConnectX-7 400G, typical, passive cables
  m.nic_pj_per_bit = 0;
  m.optics_pj_per_bit = 22.5;       // a 400G DR4 module, 9 W
  m.switch_static_pj_per_bit = 7;   // with switch_pj_per_bit, 10 pJ/bit at full load (~500 W at 51.2 Tb/s)
  m.switch_pj_per_bit = 3;
  m.nvswitch_port_w = 5.5;          // first-generation NVSwitch, < 100 W for 18 ports
  m.host_w = 0;
  m.pue = 1.56;                     // industry average, 2024
  m.carbon_g_per_kwh = 445;         // world average, 2024
  return m;
}

const ParameterTable<PowerModel>& power_parameters() {
  using P = PowerModel;
  static const ParameterTable<P> table(
      "power parameter",
      {gpu("gpu_compute_w", "a GPU running compute kernels", &GpuPower::compute_w),
       gpu("gpu_comm_w", "a GPU running only communication", &GpuPower::comm_w),
       gpu("gpu_idle_w", "a GPU waiting", &GpuPower::idle_w),
       real("nic_w", "W", "a NIC port on a network link, always on", &P::nic_w, 0, 1e4),
       real("nic_pj_per_bit", "pJ/bit", "a NIC, per bit sent or received", &P::nic_pj_per_bit, 0, 1e6),
       real("optics_pj_per_bit", "pJ/bit", "each end of a network link, times its line rate (0: copper)",
            &P::optics_pj_per_bit, 0, 1e6),
       real("switch_static_pj_per_bit", "pJ/bit", "a network switch port, times its line rate, always on",
            &P::switch_static_pj_per_bit, 0, 1e6),
       real("switch_pj_per_bit", "pJ/bit", "a network switch, per bit it forwards", &P::switch_pj_per_bit, 0, 1e6),
       real("nvswitch_port_w", "W", "an NVSwitch port, always on", &P::nvswitch_port_w, 0, 1e4),
       real("host_w", "W", "a server beyond its GPUs and NICs (CPUs, memory, fans)", &P::host_w, 0, 1e6),
       real("pue", "ratio", "power usage effectiveness: facility energy per IT energy", &P::pue, 1, 10),
       real("carbon_g_per_kwh", "g/kWh", "carbon intensity of the electricity, g CO2e per kWh", &P::carbon_g_per_kwh,
            0, 1e4)});
  return table;
}

}  // namespace collsim::energy
