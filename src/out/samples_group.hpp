#pragma once
// The /samples group (internal to src/out): per link direction over time, bytes sent, the
// utilisation they amount to, and the bytes queued.

#include <cstdint>
#include <vector>

#include "collsim/out/run_results.hpp"
#include "hdf5_node.hpp"

namespace collsim::out {

// Throws std::invalid_argument when the samples do not match `links` or their times are not
// increasing. Samples with no time stamps are fine (nothing to write).
void check_samples(const LinkSamples& samples, const std::vector<LinkDirection>& links);

// Writes /samples; call check_samples first.
void write_samples_group(const h5::Node& root, const LinkSamples& samples, const std::vector<LinkDirection>& links);

// Fraction of the line rate that `bytes` sent in `duration_ps` on a `bandwidth_bps` link is
// (1 = the link was busy all the time); NaN when the bandwidth is unknown (0).
double utilisation(std::uint64_t bytes, std::uint64_t bandwidth_bps, std::int64_t duration_ps);

}  // namespace collsim::out
