#pragma once
// The root attributes that tell readers (scripts/plot_results.py) a file is a collsim result,
// so that they can refuse any other HDF5 file with a clear message (internal to src/out).

#include <cstdint>

#include "hdf5_node.hpp"

namespace collsim::out {

inline constexpr const char* kFormatAttribute = "format";
inline constexpr const char* kFormatVersionAttribute = "format_version";
inline constexpr const char* kFormatName = "collsim-results";
// Goes up when a dataset changes meaning.
inline constexpr std::int64_t kFormatVersion = 1;

inline void write_format_marker(const h5::Node& root) {
  h5::set_attribute(root, kFormatAttribute, kFormatName);
  h5::set_attribute(root, kFormatVersionAttribute, kFormatVersion);
}

}  // namespace collsim::out
