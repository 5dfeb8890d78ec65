#pragma once
// Everything a run can record for later plotting, as one HDF5 file (`--hdf5 out.h5`). The
// layout (datasets, units, attributes) is documented in the README, section "HDF5 results".
// Every part is optional: a part left empty is not written.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collsim/common/sim_time.hpp"
#include "collsim/exec/execution.hpp"
#include "collsim/goal/op_span.hpp"
#include "collsim/goal/schedule.hpp"
#include "collsim/net/link_sampler.hpp"

namespace collsim::out {

// One direction of one link.
struct LinkDirection {
  std::string from;             // node names, as in the topology
  std::string to;
  std::uint64_t bandwidth_bps = 0;
};

// Link samples (see net::LinkSamples: T rows of D = links.size() columns, row-major) and
// message flows (see exec::MessageFlow) as the run produced them.
using LinkSamples = net::LinkSamples;
using FlowRecord = exec::MessageFlow;

// One rank's part of one collective (or one phase of a workload): from its first op's start to
// its last op's end, among the ops that started and ended (empty: none did).
struct CollectiveRecord {
  std::uint32_t rank = 0;
  std::uint32_t name = 0;    // index into RunResults::collective_names
  std::optional<SimTime> start;
  std::optional<SimTime> end;
};

struct RunResults {
  // Root attributes: at least "version", "command" and "configuration" (JSON text).
  std::map<std::string, std::string> attributes;

  // Per op (empty op_times: not written). op_role, when not empty, has one entry per op
  // of the schedule (global index) naming an entry of role_names ("compute", "tp", ...).
  const goal::Schedule* schedule = nullptr;
  std::vector<exec::OpTime> op_times;
  std::vector<std::uint8_t> op_role;
  std::vector<std::string> role_names;

  std::vector<LinkDirection> links;  // index 2·link + 0 for a → b, + 1 for b → a
  std::vector<std::uint64_t> link_bytes_total;  // per direction: wire bytes over the run
  LinkSamples samples;

  std::vector<FlowRecord> flows;
  std::vector<std::string> collective_names;
  std::vector<CollectiveRecord> collectives;
  // Per entry of `collectives`, its ops (may be empty: the trace then names no op by it).
  std::vector<goal::OpSpan> collective_ops;
};

// Throws std::runtime_error naming the file when HDF5 cannot write it.
void write_run_results_hdf5(const std::string& path, const RunResults& results);

}  // namespace collsim::out
