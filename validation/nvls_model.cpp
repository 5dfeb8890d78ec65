#include "collsim/validation/nvls_model.hpp"

#include <algorithm>
#include <cmath>

namespace collsim::validation {

double nccl_nvls_efficiency(collectives::GpuArch arch) { return arch == collectives::GpuArch::Blackwell ? 0.74 : 0.85; }

Duration nvls_model_time(const SystemPreset& p, std::uint32_t ranks, std::uint32_t channels, std::uint64_t bytes,
                         std::uint32_t nodes, Duration inter_latency) {
  const double eff = nccl_nvls_efficiency(p.arch);
  const double per_channel = p.gpu_link_gbytes / std::max<std::uint32_t>(1, p.channels);
  const double ch = std::max<std::uint32_t>(1, channels);
  const double bus = ch * per_channel * eff * (ch - 1) / ch * 2.0;
  const double n = ranks;
  const double alg = bus * n / (2.0 * (n - 1));
  const Duration nvlink = Duration::us(25.0), net = Duration::us(20.9);
  const Duration latency =
      nodes <= 1 ? nvlink : nvlink + 2.0 * std::log2(static_cast<double>(nodes)) * (net + inter_latency);
  return latency + Duration::us(static_cast<double>(bytes) / (1000.0 * alg));
}

}  // namespace collsim::validation
