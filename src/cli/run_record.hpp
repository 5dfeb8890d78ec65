#pragma once
// The HDF5 record of a run (--hdf5): what the run measured, put together with what the
// command knows about its schedule (which ops form which collective, what role each op has).

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collsim/exec/fabric_executor.hpp"
#include "collsim/goal/op_span.hpp"
#include "collsim/goal/schedule.hpp"
#include "collsim/out/run_results.hpp"
#include "collsim/topo/topology.hpp"
#include "fabric_options.hpp"
#include "observe_options.hpp"

namespace collsim::cli {

struct ScheduleAnnotations {
  std::vector<goal::OpSpan> spans;  // one rank's part of one collective each
  std::vector<std::string> span_names;
  std::vector<std::uint8_t> op_role;  // per global op, into role_names; may be empty
  std::vector<std::string> role_names;
};

// The command line as given, for the record.
void remember_invocation(int argc, char** argv);
const std::string& invocation();

// Every link direction of the topology, in the order of Fabric::link_bytes() (2·link + 0 for
// a → b, + 1 for b → a).
std::vector<out::LinkDirection> link_directions(const topo::Topology& topology);

// The fabric and sampling options every packet-mode record lists in its configuration; a
// command adds its own keys.
nlohmann::json fabric_configuration(const FabricCliOptions& fabric, const ObserveCliOptions& observe);

// The root attributes every record carries: version, command line, and `configuration` as
// JSON text.
void record_identity(out::RunResults& results, const nlohmann::json& configuration);

// `topology` is null in loggops mode (no links). `configuration` goes in as JSON text.
out::RunResults results_of(const topo::Topology* topology, const goal::Schedule& schedule, const exec::SimulationRun& run,
                           const ScheduleAnnotations& annotations, const nlohmann::json& configuration);

// Start and end of each span, from the op times (-1 where none of its ops started or ended).
std::vector<out::CollectiveRecord> collective_records(const goal::Schedule& schedule,
                                                      const std::vector<exec::OpTime>& times,
                                                      const std::vector<goal::OpSpan>& spans);

}  // namespace collsim::cli
