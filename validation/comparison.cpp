#include "collsim/validation/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace collsim::validation {

namespace {

template <class T>
T median_of(std::vector<T> v, T if_empty) {
  if (v.empty()) return if_empty;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

double median(std::vector<double> v, double if_empty) { return median_of(std::move(v), if_empty); }
Duration median(std::vector<Duration> v) { return median_of(std::move(v), Duration::zero()); }

double busbw_error(Duration measured, Duration simulated) {
  return simulated > Duration::zero() ? measured / simulated - 1.0 : 0.0;
}

ErrorSummary summarize(const std::vector<SizeComparison>& sizes) {
  std::vector<double> large, small, large_signed;
  for (const SizeComparison& s : sizes) {
    (s.bytes >= kLargeSizeBytes ? large : small).push_back(std::fabs(s.error));
    if (s.bytes >= kLargeSizeBytes) large_signed.push_back(s.error);
  }
  ErrorSummary e;
  e.large_sizes = large.size();
  e.small_sizes = small.size();
  e.median_abs_large = median(large, -1);
  e.median_abs_small = median(small, -1);
  e.max_abs_large = large.empty() ? -1 : *std::max_element(large.begin(), large.end());
  e.max_abs_small = small.empty() ? -1 : *std::max_element(small.begin(), small.end());
  e.median_signed_large = large_signed.empty() ? 0 : median(large_signed);
  return e;
}

PresetConsistency check_against_preset(const std::vector<SizeComparison>& sizes, double fraction) {
  std::vector<double> ratios;  // measured busbw / simulated busbw
  for (const SizeComparison& s : sizes)
    if (s.bytes >= kLargeSizeBytes && s.simulated_busbw > 0) ratios.push_back(s.measured_busbw / s.simulated_busbw);
  PresetConsistency c;
  if (ratios.empty()) return c;
  std::sort(ratios.begin(), ratios.end());
  const double m = ratios[ratios.size() / 2];
  if (m < fraction) {
    char b[256];
    std::snprintf(b, sizeof b,
                  "measured busbw is %.0f%% of what the preset's hardware gives (median over %zu sizes >= 1 MiB): "
                  "misconfigured, or not this system",
                  100 * m, ratios.size());
    c.consistent = false;
    c.reason = b;
  }
  return c;
}

}  // namespace collsim::validation
