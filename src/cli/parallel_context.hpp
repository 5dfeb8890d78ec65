#pragma once
// The ranks a command runs on: MPI when started by mpirun/srun (or COLLSIM_MPI=1), a single
// local rank otherwise, so that plain runs pay nothing for MPI.

#include <CLI/Error.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "collsim/pdes/mpi_transport.hpp"
#include "collsim/pdes/transport.hpp"

namespace collsim::cli {

// This process's rank and the job's size as the launcher (mpirun, srun) tells them in the
// environment, before MPI_Init; {0, 1} when not launched as a parallel job.
struct LaunchRanks {
  std::uint32_t rank = 0;
  std::uint32_t size = 1;
};
LaunchRanks launch_ranks();

class ParallelContext {
 public:
  ParallelContext();
  ~ParallelContext();
  ParallelContext(const ParallelContext&) = delete;
  ParallelContext& operator=(const ParallelContext&) = delete;

  pdes::Transport& transport() { return *transport_; }
  bool is_root() const { return transport_->rank() == 0; }
  bool uses_mpi() const { return session_.has_value(); }

  // Runs `body`; an exception on any rank prints the error and ends every rank (a parallel
  // job must never wait forever for a rank that failed). Returns the exit code.
  template <typename Body>
  int guarded(Body&& body) {
    try {
      body();
      return 0;
    } catch (const CLI::ParseError& e) {
      fail(e.what(), kUsageError);  // an option's value found unusable once the run began
    } catch (const std::exception& e) {
      fail(e.what(), 1);
    }
  }

  // The exit status of a usage error (README, "Errors and exit status").
  static constexpr int kUsageError = 64;

 private:
  [[noreturn]] void fail(const std::string& message, int status);
  std::optional<pdes::MpiSession> session_;
  std::unique_ptr<pdes::Transport> transport_;
};

}  // namespace collsim::cli
