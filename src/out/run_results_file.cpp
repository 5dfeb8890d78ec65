#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "collsim/out/run_results.hpp"
#include "hdf5_node.hpp"
#include "ops_group.hpp"
#include "result_format.hpp"
#include "samples_group.hpp"

namespace collsim::out {
namespace {

// Everything that can be wrong with the results themselves is found before the file is
// created, so that a bad call never truncates an existing file.
void check(const RunResults& r) {
  for (const char* reserved : {kFormatAttribute, kFormatVersionAttribute}) {
    if (r.attributes.contains(reserved))
      throw std::invalid_argument(std::string("attribute '") + reserved + "' is reserved for the file format");
  }
  if (!r.op_times.empty() && r.schedule == nullptr)
    throw std::invalid_argument("op times need RunResults::schedule for their kinds, peers and sizes");
  if (!r.link_bytes_total.empty() && r.link_bytes_total.size() != r.links.size())
    throw std::invalid_argument("link_bytes_total has " + std::to_string(r.link_bytes_total.size()) +
                                " entries for " + std::to_string(r.links.size()) + " link directions");
  check_samples(r.samples, r.links);
  for (const FlowRecord& f : r.flows) {
    if (f.end && *f.end < f.start)
      throw std::invalid_argument("a flow from host " + std::to_string(f.src_host) + " to " +
                                  std::to_string(f.dst_host) + " ends before it starts");
  }
  for (const CollectiveRecord& c : r.collectives) {
    if (c.name >= r.collective_names.size())
      throw std::invalid_argument("collective name " + std::to_string(c.name) + " is not in collective_names (" +
                                  std::to_string(r.collective_names.size()) + " names)");
  }
}

// `field`: a member of Record, or what to write of one.
template <typename Record, typename Field>
h5::Node write(const h5::Node& group, const char* name, const std::vector<Record>& records, Field field,
               const char* units = nullptr) {
  std::vector<std::decay_t<std::invoke_result_t<Field, const Record&>>> column;
  column.reserve(records.size());
  for (const Record& r : records) column.push_back(std::invoke(field, r));
  h5::Node set = h5::write_column(group, name, column);
  if (units != nullptr) h5::set_attribute(set, "units", units);
  return set;
}

void write_links(const h5::Node& root, const RunResults& r) {
  const h5::Node links = root.create_group("links");
  write(links, "bandwidth_bps", r.links, &LinkDirection::bandwidth_bps, "bit/s");
  std::vector<std::string> names;
  for (const LinkDirection& l : r.links) names.push_back(l.from);
  h5::write_strings(links, "from", names);
  names.clear();
  for (const LinkDirection& l : r.links) names.push_back(l.to);
  h5::write_strings(links, "to", names);
  if (!r.link_bytes_total.empty())
    h5::set_attribute(h5::write_column(links, "bytes", r.link_bytes_total), "units", "bytes (wire bytes over the run)");
}

void write_flows(const h5::Node& root, const std::vector<FlowRecord>& flows) {
  const h5::Node group = root.create_group("flows");
  write(group, "src_host", flows, &FlowRecord::src_host);
  write(group, "dst_host", flows, &FlowRecord::dst_host);
  write(group, "bytes", flows, &FlowRecord::bytes, "bytes");
  write(group, "start_ps", flows, [](const FlowRecord& f) { return f.start.picoseconds(); }, "ps");
  write(group, "end_ps", flows, [](const FlowRecord& f) { return exec::picoseconds_or_never(f.end); },
        "ps (-1: never delivered)");
  write(group, "fct_ps", flows, [](const FlowRecord& f) {
    return exec::picoseconds_or_never(f.end ? std::optional(*f.end - f.start) : std::nullopt);
  }, "ps (-1: never delivered)");
}

void write_collectives(const h5::Node& root, const RunResults& r) {
  const h5::Node group = root.create_group("collectives");
  write(group, "rank", r.collectives, &CollectiveRecord::rank);
  // The names hang on the column as an attribute, so that every dataset of the group has one
  // row per record and pandas takes the group as one table.
  h5::set_attribute(write(group, "name", r.collectives, &CollectiveRecord::name), "names", r.collective_names);
  write(group, "start_ps", r.collectives, [](const CollectiveRecord& c) { return exec::picoseconds_or_never(c.start); },
        "ps (-1: never started)");
  write(group, "end_ps", r.collectives, [](const CollectiveRecord& c) { return exec::picoseconds_or_never(c.end); },
        "ps (-1: never ended)");
}

void write_parts(const h5::Node& file, const RunResults& r) {
  write_format_marker(file);
  for (const auto& [name, value] : r.attributes) h5::set_attribute(file, name, value);
  if (!r.op_times.empty()) write_ops_group(file, *r.schedule, r.op_times, r.op_role, r.role_names);
  if (!r.links.empty()) write_links(file, r);
  if (!r.samples.time_ps.empty()) write_samples_group(file, r.samples, r.links);
  if (!r.flows.empty()) write_flows(file, r.flows);
  if (!r.collectives.empty()) write_collectives(file, r);
  if (H5Fflush(file.id(), H5F_SCOPE_GLOBAL) < 0) file.fail("flush");
}

}  // namespace

void write_run_results_hdf5(const std::string& path, const RunResults& results) {
  check(results);
  const h5::QuietErrors quiet;
  std::optional<h5::Node> file(h5::Node::create_file(path));
  try {
    write_parts(*file, results);
  } catch (...) {
    // A half-written file would look like a result; leave none.
    file.reset();
    std::remove(path.c_str());
    throw;
  }
}

}  // namespace collsim::out
