#pragma once
// One nccl-tests run against the simulation: every size of the log lowered as NCCL would run
// it (size_lowering.hpp), simulated on the preset's packet-level fabric through a
// ScheduleSimulator, and compared with the log's time. Sizes above the packet budget are
// extrapolated from smaller ones. Shared by `validate` and `calibrate`.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collsim/common/sim_time.hpp"
#include "collsim/goal/schedule.hpp"
#include "collsim/topo/topology.hpp"
#include "collsim/validation/comparison.hpp"
#include "collsim/validation/nccl_tests_log.hpp"
#include "collsim/validation/run_facts.hpp"
#include "collsim/validation/run_setup.hpp"

namespace collsim::validation {

// How the fabric runs one size's schedule as NCCL's connections would: packets sized to its
// chunks, switch thresholds holding as many packets as at the default 4 KiB, every message
// on its NIC's rail (unless the user routes otherwise) and eager (NCCL's buffers are posted
// ahead).
struct FabricSettings {
  std::uint32_t mtu_bytes = 4096;
  std::uint32_t header_bytes = 64;
  std::uint64_t pfc_xoff_bytes = 0, pfc_xon_bytes = 0;
  std::uint64_t ecn_kmin_bytes = 0, ecn_kmax_bytes = 0;
};

// One schedule's simulation as validation needs it.
struct SimulatedSchedule {
  bool complete = true;
  SimTime makespan = SimTime::zero();
  std::uint64_t events = 0;
  // When not complete: ops done of all, and why (a PFC deadlock, the first blocked op...).
  std::uint64_t ops_completed = 0, ops_total = 0;
  std::string why_incomplete;
};

class ScheduleSimulator {
 public:
  virtual ~ScheduleSimulator() = default;
  // Simulates `schedule` on `topology` in packet mode. Nothing on a process that does not
  // receive the result (a parallel run's other ranks), which then compares no size.
  virtual std::optional<SimulatedSchedule> simulate(const topo::Topology& topology, const goal::Schedule& schedule,
                                                    const FabricSettings& fabric) = 0;
};

// The fabric settings of a size whose packets are `mtu` bytes, its switches holding at least
// `min_xoff_bytes` from one ingress before they pause it.
FabricSettings fabric_settings(std::uint32_t mtu, std::uint64_t min_xoff_bytes);

struct RunValidation {
  std::size_t run_index = 0;
  ValidationSetup setup;
  std::vector<Finding> findings;     // the log against nccl-tests' formulas
  std::vector<SizeComparison> sizes;
  std::vector<std::string> skipped;  // sizes not compared, and why
  ErrorSummary summary;
  PresetConsistency preset_check;
  double wall_s = 0;
};

// Hears each row of the log done (compared or skipped: rows = 1) and each simulation's events.
using ValidationProgress = std::function<void(std::uint64_t rows, std::uint64_t events)>;

// Throws OptionError for an algorithm the setup cannot run (naming --algo or --proto), and
// std::runtime_error for a simulation that did not complete.
RunValidation validate_run(const TestRun& run, std::size_t run_index, const ValidationSetup& setup,
                           const ValidationRequest& request, ScheduleSimulator& simulator,
                           const ValidationProgress& progress = {});

}  // namespace collsim::validation
