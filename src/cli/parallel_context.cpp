#include "parallel_context.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string_view>
#include <utility>

#include "collsim/logging/logging.hpp"

namespace collsim::cli {

namespace {
bool launched_by_mpi() {
  if (const char* force = std::getenv("COLLSIM_MPI")) return std::string_view(force) == "1";
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID"})
    if (std::getenv(var) != nullptr) return true;
  return false;
}

std::optional<std::uint32_t> number_in(const char* var) {
  const char* text = std::getenv(var);
  if (text == nullptr) return std::nullopt;
  std::uint32_t value = 0;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, value);
  if (ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

// After MPI_Init the rank is certain: lines must carry it even if launch_ranks() did not know
// the launcher.
void align_logging(const pdes::Transport& transport) {
  logging::Config config = logging::current_config();
  const auto rank = static_cast<std::uint32_t>(transport.rank());
  const auto size = static_cast<std::uint32_t>(transport.size());
  if (config.rank == rank && config.ranks == size) return;
  config.rank = rank;
  config.ranks = size;
  logging::configure(config);
}
}  // namespace

LaunchRanks launch_ranks() {
  constexpr std::pair<const char*, const char*> kLaunchers[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"PMI_RANK", "PMI_SIZE"}, {"SLURM_PROCID", "SLURM_NTASKS"}};
  for (const auto& [rank_var, size_var] : kLaunchers) {
    const auto rank = number_in(rank_var);
    const auto size = number_in(size_var);
    if (rank && size && *rank < *size) return {*rank, *size};
  }
  return {};
}

ParallelContext::ParallelContext() {
  if (launched_by_mpi()) {
    session_.emplace(nullptr, nullptr);
    transport_ = session_->size() > 1 ? pdes::make_mpi_transport() : pdes::make_local_transport();
    align_logging(*transport_);
  } else {
    transport_ = pdes::make_local_transport();
  }
}

ParallelContext::~ParallelContext() { transport_.reset(); }

void ParallelContext::fail(const std::string& message, int status) {
  // stderr shows the message in its own format below; the log file should have it too.
  logging::note_in_file("cli", spdlog::level::err, message);
  if (transport_->size() > 1) {
    std::cerr << "collsim: error on rank " << transport_->rank() << ": " << message << std::endl;
    pdes::MpiSession::abort(status);
  }
  std::cerr << "collsim: error: " << message << std::endl;
  std::exit(status);
}

}  // namespace collsim::cli
