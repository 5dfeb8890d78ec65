#pragma once
// The delay model of compute: a kernel's time from its FLOPs and the bytes it moves, over
// the GPU's peak and efficiency (and memory bandwidth, for a roofline), plus launch costs.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "collsim/workload/workload_spec.hpp"

namespace collsim::workload {

// One piece of compute between two communications.
struct ComputeCost {
  double flops = 0;
  double bytes = 0;     // moved to and from memory
  std::uint32_t kernels = 0;

  ComputeCost& operator+=(const ComputeCost& o) {
    flops += o.flops;
    bytes += o.bytes;
    kernels += o.kernels;
    return *this;
  }
  ComputeCost scaled(double f) const { return {flops * f, bytes * f, kernels}; }
};

// Nanoseconds, rounded up (a calc op's unit): max(FLOPs / (peak × efficiency), bytes /
// bandwidth) with the roofline, FLOPs / (peak × efficiency) without; plus kernels × launch.
std::uint64_t compute_ns(const DeviceSpec& device, DType dtype, const ComputeCost& cost);

// The GPU presets (A100, H100, H200, B200: dense tensor-core peaks from the vendors' data
// sheets, HBM bandwidth, a typical achieved efficiency and launch overhead).
std::optional<DeviceSpec> device_preset(std::string_view name);
std::vector<std::string_view> device_preset_names();

}  // namespace collsim::workload
