#pragma once
// What the MPI module (mpi_plugin.cpp, built as libcollsim_mpi.so) gives the program that
// loads it (mpi_transport.cpp): one table of functions, found by the C name below, so that
// the program needs neither MPI's headers nor its libraries.

#include "collsim/pdes/transport.hpp"

namespace collsim::pdes {

// Raised whenever the table changes, so that a stale module is refused rather than misread.
inline constexpr int kMpiPluginVersion = 1;

struct MpiPluginApi {
  int version;
  void (*init)(int* argc, char*** argv);  // MPI_Init unless already initialised
  void (*finalize)();                     // MPI_Finalize unless already finalised
  int (*world_rank)();
  int (*world_size)();
  void (*abort_job)(int code);  // MPI_Abort over the whole job; never returns
  Transport* (*make_transport)();  // over a duplicate of MPI_COMM_WORLD; the caller deletes it
};

// The module's one exported symbol.
inline constexpr const char* kMpiPluginEntry = "collsim_mpi_plugin";

}  // namespace collsim::pdes
