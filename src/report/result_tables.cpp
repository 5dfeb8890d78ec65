#include "collsim/report/result_tables.hpp"

#include "collsim/common/input_error.hpp"
#include "collsim/report/hdf5_file.hpp"

namespace collsim::report {

namespace {

void same_rows(const Hdf5File& f, const std::string& group, std::size_t rows, std::size_t n, const std::string& dataset) {
  if (n != rows)
    throw InputError::in_file(f.path(), group + "/" + dataset + " has " + std::to_string(n) + " rows where " + group +
                                            " has " + std::to_string(rows));
}

OpsTable read_ops(const Hdf5File& f) {
  OpsTable t;
  t.rank = f.read<std::uint32_t>("/ops/rank");
  t.kind = f.read<std::uint8_t>("/ops/kind");
  t.start_ps = f.read<std::int64_t>("/ops/start_ps");
  t.end_ps = f.read<std::int64_t>("/ops/end_ps");
  same_rows(f, "/ops", t.rank.size(), t.kind.size(), "kind");
  same_rows(f, "/ops", t.rank.size(), t.start_ps.size(), "start_ps");
  same_rows(f, "/ops", t.rank.size(), t.end_ps.size(), "end_ps");
  if (f.exists("/ops/role")) {
    t.role = f.read<std::uint8_t>("/ops/role");
    t.role_names = f.strings_attribute("/ops/role", "names");
    same_rows(f, "/ops", t.rank.size(), t.role.size(), "role");
    for (std::uint8_t r : t.role)
      if (r >= t.role_names.size())
        throw InputError::in_file(f.path(), "/ops/role holds " + std::to_string(r) + " but names only " +
                                                std::to_string(t.role_names.size()) + " roles");
  }
  return t;
}

CollectivesTable read_collectives(const Hdf5File& f) {
  CollectivesTable t;
  t.rank = f.read<std::uint32_t>("/collectives/rank");
  t.name = f.read<std::uint32_t>("/collectives/name");
  t.start_ps = f.read<std::int64_t>("/collectives/start_ps");
  t.end_ps = f.read<std::int64_t>("/collectives/end_ps");
  t.names = f.strings_attribute("/collectives/name", "names");
  same_rows(f, "/collectives", t.rank.size(), t.name.size(), "name");
  same_rows(f, "/collectives", t.rank.size(), t.start_ps.size(), "start_ps");
  same_rows(f, "/collectives", t.rank.size(), t.end_ps.size(), "end_ps");
  for (std::uint32_t n : t.name)
    if (n >= t.names.size())
      throw InputError::in_file(f.path(), "/collectives/name holds " + std::to_string(n) + " but names only " +
                                              std::to_string(t.names.size()));
  return t;
}

LinkSamplesTable read_samples(const Hdf5File& f) {
  LinkSamplesTable t;
  t.from = f.read_strings("/links/from");
  t.to = f.read_strings("/links/to");
  t.time_ps = f.read<std::int64_t>("/samples/time_ps");
  t.interval_ps = f.int_attribute("/samples", "interval_ps");
  const std::vector<hsize_t> shape = f.shape("/samples/utilisation");
  if (shape.size() != 2 || shape[0] != t.time_ps.size() || shape[1] != t.from.size())
    throw InputError::in_file(f.path(), "/samples/utilisation is not samples x link directions (" +
                                            std::to_string(t.time_ps.size()) + " x " + std::to_string(t.from.size()) + ")");
  t.utilisation = f.read<double>("/samples/utilisation");
  return t;
}

}  // namespace

ResultTables read_result_tables(const std::string& path) {
  const Hdf5File f(path);
  if (!f.has_attribute("/", "format") || f.string_attribute("/", "format") != "collsim-results")
    throw InputError::in_file(path, "not a collsim result file (its root has no format attribute \"collsim-results\"; "
                                    "write one with --hdf5)");
  ResultTables t;
  t.file = path;
  if (f.has_attribute("/", "command")) t.command = f.string_attribute("/", "command");
  if (f.has_attribute("/", "version")) t.version = f.string_attribute("/", "version");
  if (f.exists("/ops")) t.ops = read_ops(f);
  if (f.exists("/collectives")) t.collectives = read_collectives(f);
  if (f.exists("/samples") && f.exists("/links")) t.samples = read_samples(f);
  if (f.exists("/flows")) {
    std::vector<std::int64_t> fct;
    for (std::int64_t v : f.read<std::int64_t>("/flows/fct_ps"))
      if (v >= 0) fct.push_back(v);
    t.fct_ps = std::move(fct);
  }
  return t;
}

}  // namespace collsim::report
