#include "parallel_context.hpp"

#include <cstdlib>
#include <iostream>
#include <string_view>

namespace collsim::cli {

namespace {
bool launched_by_mpi() {
  if (const char* force = std::getenv("COLLSIM_MPI")) return std::string_view(force) == "1";
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID"})
    if (std::getenv(var) != nullptr) return true;
  return false;
}
}  // namespace

ParallelContext::ParallelContext() {
  if (launched_by_mpi()) {
    session_.emplace(nullptr, nullptr);
    transport_ = session_->size() > 1 ? pdes::make_mpi_transport() : pdes::make_local_transport();
  } else {
    transport_ = pdes::make_local_transport();
  }
}

ParallelContext::~ParallelContext() { transport_.reset(); }

void ParallelContext::fail(const std::string& message) {
  if (transport_->size() > 1) {
    std::cerr << "collsim: error on rank " << transport_->rank() << ": " << message << std::endl;
    pdes::MpiSession::abort(1);
  }
  std::cerr << "collsim: error: " << message << std::endl;
  std::exit(1);
}

}  // namespace collsim::cli
