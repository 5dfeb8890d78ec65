#include "collsim/workload/compute_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace collsim::workload {

std::uint64_t compute_ns(const DeviceSpec& device, DType dtype, const ComputeCost& cost) {
  const double peak = device.peak_flops[static_cast<std::size_t>(dtype)];
  if (cost.flops > 0 && peak <= 0)
    throw std::invalid_argument("device " + device.name + " has no " + std::string(to_string(dtype)) + " peak FLOP/s");
  double seconds = cost.flops > 0 ? cost.flops / (peak * device.efficiency) : 0.0;
  if (device.roofline && device.memory_bytes_per_s > 0) seconds = std::max(seconds, cost.bytes / device.memory_bytes_per_s);
  const double kernel_launch_ns = static_cast<double>(device.kernel_launch.picoseconds()) / 1000;
  const double ns = seconds * 1e9 + cost.kernels * kernel_launch_ns;
  return static_cast<std::uint64_t>(std::ceil(ns - 1e-6));
}

namespace {

// Dense tensor-core peaks (no sparsity) per DType in the order FP32, TF32, BF16, FP16, FP8,
// and HBM bandwidth, from the vendors' data sheets for the SXM parts.
DeviceSpec make(std::string name, collectives::GpuArch arch, std::array<double, 5> tflops, double tb_per_s) {
  DeviceSpec d;
  d.name = std::move(name);
  for (std::size_t i = 0; i < tflops.size(); ++i) d.peak_flops[i] = tflops[i] * 1e12;
  d.memory_bytes_per_s = tb_per_s * 1e12;
  // What large transformer GEMMs reach in practice (Megatron-LM reports 50-60 % of peak
  // end to end); a kernel launch that the stream does not hide costs a few microseconds.
  d.efficiency = 0.6;
  d.kernel_launch = SimTime::us(2);
  d.arch = arch;
  return d;
}

const std::vector<DeviceSpec>& presets() {
  static const std::vector<DeviceSpec> all = {
      make("A100", collectives::GpuArch::Ampere, {19.5, 156, 312, 312, 0}, 2.039),
      make("H100", collectives::GpuArch::Hopper, {67, 494.5, 989, 989, 1979}, 3.35),
      make("H200", collectives::GpuArch::Hopper, {67, 494.5, 989, 989, 1979}, 4.8),
      make("B200", collectives::GpuArch::Blackwell, {80, 1100, 2250, 2250, 4500}, 8.0),
  };
  return all;
}

}  // namespace

std::optional<DeviceSpec> device_preset(std::string_view name) {
  for (const DeviceSpec& d : presets())
    if (d.name.size() == name.size() &&
        std::equal(name.begin(), name.end(), d.name.begin(), [](char a, char b) { return std::toupper(a) == b; }))
      return d;
  return std::nullopt;
}

std::vector<std::string_view> device_preset_names() {
  std::vector<std::string_view> names;
  for (const DeviceSpec& d : presets()) names.push_back(d.name);
  return names;
}

}  // namespace collsim::workload
