#pragma once
// What NCCL's tuning model needs to know about the machine: the GPU generation and the
// bandwidth one channel gets inside a node and across nodes.

#include <cstdint>
#include <optional>
#include <string_view>

namespace collsim::collectives {

enum class GpuArch : std::uint8_t { Volta, Ampere, Hopper, Blackwell };
std::string_view to_string(GpuArch a);
std::optional<GpuArch> gpu_arch_from_name(std::string_view name);

struct SystemModel {
  GpuArch arch = GpuArch::Ampere;
  // GB/s one channel reaches, as NCCL's topology search finds it (graph bw per channel).
  double intra_gbytes_per_s = 20.0;  // one NVLink3 link
  double inter_gbytes_per_s = 12.0;  // NCCL's NET_BW (100 Gb/s); 24 for a 200G NIC
  // Extra inter-node latency from the topology search (graph latencyInter), µs.
  double inter_latency_us = 0.0;
};

}  // namespace collsim::collectives
