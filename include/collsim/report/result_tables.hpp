#pragma once
// What the report page shows from a collsim result file (`--hdf5`, README "HDF5 results"):
// the groups it holds, each optional.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collsim::report {

struct OpsTable {
  std::vector<std::uint32_t> rank;
  std::vector<std::uint8_t> kind;        // 1 send, 2 recv, 3 calc
  std::vector<std::int64_t> start_ps, end_ps;
  std::vector<std::uint8_t> role;        // empty when the file has no roles
  std::vector<std::string> role_names;
};

struct CollectivesTable {
  std::vector<std::uint32_t> rank, name;
  std::vector<std::int64_t> start_ps, end_ps;
  std::vector<std::string> names;
};

struct LinkSamplesTable {
  std::vector<std::string> from, to;     // per direction
  std::vector<std::int64_t> time_ps;     // per sample: its end
  std::int64_t interval_ps = 0;
  std::vector<double> utilisation;       // samples × directions, row-major
};

struct ResultTables {
  std::string file, command, version;
  std::optional<OpsTable> ops;
  std::optional<CollectivesTable> collectives;
  std::optional<LinkSamplesTable> samples;
  std::optional<std::vector<std::int64_t>> fct_ps;  // delivered flows only
};

// Throws collsim::InputError when the file is not a collsim result (no format attribute
// "collsim-results") or a group lacks a dataset the README promises.
ResultTables read_result_tables(const std::string& path);

}  // namespace collsim::report
