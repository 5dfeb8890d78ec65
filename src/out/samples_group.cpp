#include "samples_group.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace collsim::out {
namespace {

void check_matrix(const char* name, const std::vector<std::uint64_t>& values, std::uint64_t rows, std::uint64_t cols) {
  if (values.size() != rows * cols)
    throw std::invalid_argument(std::string("samples.") + name + " has " + std::to_string(values.size()) +
                                " values for " + std::to_string(rows) + " samples × " + std::to_string(cols) +
                                " link directions");
}

// The time sample k covers: its interval, or less when the run ended inside it (the last
// sample is stamped with the end of the run).
std::int64_t duration_of(const LinkSamples& samples, std::size_t k) {
  const std::int64_t previous = k == 0 ? 0 : samples.time_ps[k - 1];
  return std::min(samples.interval_ps, samples.time_ps[k] - previous);
}

}  // namespace

double utilisation(std::uint64_t bytes, std::uint64_t bandwidth_bps, std::int64_t duration_ps) {
  if (bandwidth_bps == 0 || duration_ps <= 0) return std::numeric_limits<double>::quiet_NaN();
  // bits / (bits per second × seconds), with seconds = ps · 1e-12 folded into the numerator.
  return static_cast<double>(bytes) * 8e12 / (static_cast<double>(bandwidth_bps) * static_cast<double>(duration_ps));
}

void check_samples(const LinkSamples& samples, const std::vector<LinkDirection>& links) {
  const std::uint64_t rows = samples.time_ps.size();
  if (rows == 0) return;
  if (samples.interval_ps <= 0)
    throw std::invalid_argument("samples.interval_ps must be positive, not " + std::to_string(samples.interval_ps));
  if (links.empty()) throw std::invalid_argument("link samples need RunResults::links to name their columns");
  for (std::size_t k = 0; k < rows; ++k) {
    if (samples.time_ps[k] <= (k == 0 ? 0 : samples.time_ps[k - 1]))
      throw std::invalid_argument("samples.time_ps[" + std::to_string(k) + "] = " + std::to_string(samples.time_ps[k]) +
                                  " is not after the previous sample");
  }
  check_matrix("bytes", samples.bytes, rows, links.size());
  if (!samples.queue_bytes.empty()) check_matrix("queue_bytes", samples.queue_bytes, rows, links.size());
}

void write_samples_group(const h5::Node& root, const LinkSamples& samples, const std::vector<LinkDirection>& links) {
  const std::uint64_t rows = samples.time_ps.size();
  const std::uint64_t cols = links.size();
  const h5::Node group = root.create_group("samples");
  h5::set_attribute(group, "interval_ps", samples.interval_ps);
  h5::set_attribute(h5::write_column(group, "time_ps", samples.time_ps), "units", "ps (end of the sample)");

  h5::Matrix bytes(group, "bytes", H5T_NATIVE_UINT64, rows, cols);
  bytes.write_rows(0, rows, samples.bytes.data());
  h5::set_attribute(bytes.node(), "units", "bytes");

  // Computed a block of rows at a time so that a large run does not need a second full matrix.
  h5::Matrix share(group, "utilisation", H5T_NATIVE_DOUBLE, rows, cols);
  const std::uint64_t block = std::max<std::uint64_t>(1, (std::uint64_t{1} << 20) / cols);
  std::vector<double> values;
  for (std::uint64_t first = 0; first < rows; first += block) {
    const std::uint64_t count = std::min(block, rows - first);
    values.clear();
    for (std::uint64_t k = first; k < first + count; ++k) {
      const std::int64_t duration = duration_of(samples, k);
      for (std::uint64_t d = 0; d < cols; ++d)
        values.push_back(utilisation(samples.bytes[k * cols + d], links[d].bandwidth_bps, duration));
    }
    share.write_rows(first, count, values.data());
  }
  h5::set_attribute(share.node(), "units", "fraction of the line rate (1 = busy all the sample)");

  if (samples.queue_bytes.empty()) return;
  h5::Matrix queue(group, "queue_bytes", H5T_NATIVE_UINT64, rows, cols);
  queue.write_rows(0, rows, samples.queue_bytes.data());
  h5::set_attribute(queue.node(), "units", "bytes (queued at the sample's end)");
}

}  // namespace collsim::out
