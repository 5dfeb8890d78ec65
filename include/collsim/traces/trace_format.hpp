#pragma once
// Which reader a trace needs, by content: gzip data, or a `.et` file, is a Chakra trace; text
// with "NCCL INFO" lines is an NCCL log.

#include <string>
#include <vector>

#include "collsim/traces/chakra_reader.hpp"
#include "collsim/traces/nccl_log_reader.hpp"
#include "collsim/traces/replay_program.hpp"

namespace collsim::traces {

enum class TraceFormat { ChakraET, NcclLog };

// `path`: a file, a directory of .et files, or a Chakra prefix. Throws InputError when the
// file cannot be read or is neither format.
TraceFormat detect_trace_format(const std::string& path);

struct TraceOptions {
  std::string comm_groups;        // Chakra: the process-group JSON file, if any
  // Chakra: one rank's trace run by this many ranks alike (published sets often hold one
  // rank's file of a symmetric job); 0: the ranks are the files.
  std::uint32_t symmetric_ranks = 0;
  ChakraOptions chakra;
  NcclLogOptions nccl;
};

// Reads all arguments (which must all be of one format) into one program.
ReplayProgram read_traces(const std::vector<std::string>& paths, const TraceOptions& options = {});

}  // namespace collsim::traces
