#pragma once
// NCCL debug logs (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL) of all ranks of a job: one file or
// many, lines in any interleaving, with launcher prefixes ("0: ", "[1,0]<stdout>:") and
// NCCL's optional "[YYYY-MM-DD HH:MM:SS(.frac)] " timestamp.
//
// A device is (host, pid, cudaDev). Communicators come from the "Init COMPLETE" lines
// (comm pointer, rank, nranks, commId); calls name their communicator by its pointer. The
// calls of one communicator are matched across its ranks by opCount; Send/Recv pairs by
// their order per (communicator, sender, receiver). Global ranks are the ranks of a
// communicator spanning every device, or else the devices in (host, pid, cudaDev) order.

#include <string>
#include <vector>

#include "collsim/traces/replay_program.hpp"

namespace collsim::traces {

struct NcclLogOptions {
  // Turn the calls' timestamps into compute: a call cannot start before its rank's host
  // issued it (relative to the first call of the job).
  bool timestamps = true;
};

// Throws InputError with file and line for a call line that cannot be read, a call on a
// communicator without an init line, a communicator whose ranks are incomplete, a call some
// member never logged (unmatched opCount), or members disagreeing on a call.
ReplayProgram read_nccl_logs(const std::vector<std::string>& files, const NcclLogOptions& options = {});

}  // namespace collsim::traces
