#include "collsim/validation/nvls_model.hpp"

#include <algorithm>
#include <cmath>

namespace collsim::validation {

double nccl_nvls_efficiency(collectives::GpuArch arch) { return arch == collectives::GpuArch::Blackwell ? 0.74 : 0.85; }

double nvls_model_time_us(const SystemPreset& p, std::uint32_t ranks, std::uint32_t channels, std::uint64_t bytes,
                          std::uint32_t nodes, double inter_latency_us) {
  const double eff = nccl_nvls_efficiency(p.arch);
  const double per_channel = p.gpu_link_gbytes / std::max<std::uint32_t>(1, p.channels);
  const double ch = std::max<std::uint32_t>(1, channels);
  const double bus = ch * per_channel * eff * (ch - 1) / ch * 2.0;
  const double n = ranks;
  const double alg = bus * n / (2.0 * (n - 1));
  const double latency = nodes <= 1 ? 25.0 : 25.0 + 2.0 * std::log2(static_cast<double>(nodes)) * (20.9 + inter_latency_us);
  return latency + static_cast<double>(bytes) / (1000.0 * alg);
}

}  // namespace collsim::validation
