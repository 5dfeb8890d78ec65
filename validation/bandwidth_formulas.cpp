#include "collsim/validation/bandwidth_formulas.hpp"

#include <cmath>

namespace collsim::validation {

double busbw_factor(collectives::Collective c, std::uint32_t n) {
  const double nn = n == 0 ? 1.0 : static_cast<double>(n);
  switch (c) {
    case collectives::Collective::Allreduce: return 2.0 * (nn - 1.0) / nn;
    case collectives::Collective::Allgather:
    case collectives::Collective::ReduceScatter:
    case collectives::Collective::AllToAll: return (nn - 1.0) / nn;
    case collectives::Collective::Broadcast:
    case collectives::Collective::Reduce:
    case collectives::Collective::SendRecv:
    case collectives::Collective::Barrier: return 1.0;
  }
  return 1.0;
}

// Bytes per microsecond over 1e3 is GB/s.
double algbw_gbps(std::uint64_t bytes, Duration time) {
  return time > Duration::zero() ? static_cast<double>(bytes) / time.microseconds() / 1e3 : 0.0;
}

double busbw_gbps(collectives::Collective c, std::uint32_t n, std::uint64_t bytes, Duration time) {
  return algbw_gbps(bytes, time) * busbw_factor(c, n);
}

Duration time_from_busbw(collectives::Collective c, std::uint32_t n, std::uint64_t bytes, double busbw) {
  return Duration::us(busbw > 0 ? static_cast<double>(bytes) * busbw_factor(c, n) / busbw / 1e3 : 0.0);
}

std::optional<std::uint32_t> ranks_from_ratio(collectives::Collective c, double ratio) {
  double n = 0;
  if (c == collectives::Collective::Allreduce) {
    if (ratio >= 2.0 || ratio < 1.0) return std::nullopt;  // 2(n-1)/n is in [1, 2) for n >= 2
    n = 2.0 / (2.0 - ratio);
  } else if (c == collectives::Collective::Allgather || c == collectives::Collective::ReduceScatter ||
             c == collectives::Collective::AllToAll) {
    if (ratio >= 1.0 || ratio < 0.5) return std::nullopt;
    n = 1.0 / (1.0 - ratio);
  } else {
    return std::nullopt;
  }
  if (!std::isfinite(n) || n > 1e6) return std::nullopt;
  return static_cast<std::uint32_t>(std::lround(n));
}

std::optional<std::uint32_t> element_bytes(std::string_view t) {
  if (t == "int8" || t == "uint8" || t == "char" || t == "fp8_e4m3" || t == "fp8_e5m2" || t == "f8e4m3" ||
      t == "f8e5m2")
    return 1;
  if (t == "half" || t == "bfloat16" || t == "float16" || t == "bf16") return 2;
  if (t == "float" || t == "int32" || t == "uint32" || t == "int") return 4;
  if (t == "double" || t == "int64" || t == "uint64") return 8;
  return std::nullopt;
}

std::uint64_t expected_count(collectives::Collective c, std::uint32_t n, std::uint64_t size, std::uint32_t elt) {
  const std::uint64_t elements = elt == 0 ? 0 : size / elt;
  switch (c) {
    case collectives::Collective::Allgather:
    case collectives::Collective::ReduceScatter:
    case collectives::Collective::AllToAll: return n == 0 ? 0 : elements / n;
    default: return elements;
  }
}

}  // namespace collsim::validation
