#pragma once
// What a user sees of a run while it runs: a progress line on a terminal (plain lines every
// few seconds otherwise), and on request the live status endpoint. Installed into the engine
// as its monitor; only the root rank prints or serves, the others join the collective
// measurements of links.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collsim/common/memory_budget.hpp"
#include "collsim/pdes/run_monitor.hpp"
#include "collsim/status/run_status.hpp"
#include "collsim/out/run_results.hpp"
#include "collsim/topo/topology.hpp"
#include "observe_options.hpp"

namespace collsim::status {
class StatusServer;
}

namespace collsim::cli {

class RunWatch final : public pdes::RunMonitor {
 public:
  // `work_name` names what work_done counts ("ops", "flows"), of which there are `work_total`
  // (0: unknown; `estimated`: about that many, shown with a ~). `topology` (may be null) names
  // the links of /links/top. Starts the status endpoint on the root rank when asked, and says
  // where on stderr.
  RunWatch(const ObserveCliOptions& options, bool is_root, std::uint32_t ranks, const topo::Topology* topology,
           std::string work_name, std::uint64_t work_total, bool estimated = false);
  // Marks the run failed if an exception is on its way out, keeps serving for --status-linger,
  // then stops the endpoint.
  ~RunWatch() override;
  RunWatch(const RunWatch&) = delete;
  RunWatch& operator=(const RunWatch&) = delete;

  void on_progress(const pdes::RunProgress& p) override;
  bool wants_collective_point() override;
  void on_collective_point() override;
  void on_finish(const pdes::RunProgress& p) override;
  // For work that does not go through one engine run (a validation sweep of many small
  // simulations): `work` more done, `events` more processed; finish() ends the line.
  void advance(std::uint64_t work, std::uint64_t events);
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  void publish(const pdes::RunProgress& p, const char* state);
  void print(const pdes::RunProgress& p, bool last);
  pdes::RunProgress swept_;  // what advance() added up
  Clock::time_point started_ = Clock::now();

  common::MemoryGuard memory_;
  Clock::time_point last_memory_check_{};  // the first progress call checks
  ObserveCliOptions options_;
  bool is_root_;
  std::uint32_t ranks_;
  const topo::Topology* topology_;
  std::vector<out::LinkDirection> directions_;  // of topology_, when the endpoint may ask for links
  std::string work_name_;
  std::uint64_t work_total_;
  bool estimated_;
  bool tty_;
  double print_every_s_;
  int exceptions_at_start_;
  status::StatusBoard board_;
  std::unique_ptr<status::StatusServer> server_;
  pdes::RunProgress last_;
  Clock::time_point last_print_{};
  Clock::time_point last_publish_{};
  Clock::time_point last_links_{};
  bool printed_line_ = false;
  bool finished_ = false;
};

}  // namespace collsim::cli
