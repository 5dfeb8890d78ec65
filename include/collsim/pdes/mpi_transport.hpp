#pragma once
// Transport over MPI. MpiSession initialises MPI for the program's lifetime; models and
// the engine never call MPI themselves.

#include <memory>

#include "collsim/pdes/transport.hpp"

namespace collsim::pdes {

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const;
  int size() const;
  // Ends every rank of the job: for errors on one rank, so that the others never wait forever.
  [[noreturn]] static void abort(int code);
};

// Over MPI_COMM_WORLD (duplicated). The session must outlive it.
std::unique_ptr<Transport> make_mpi_transport();

}  // namespace collsim::pdes
