#include "collsim/traces/trace_format.hpp"

#include <filesystem>
#include <fstream>

#include "collsim/common/input_error.hpp"

namespace collsim::traces {

TraceFormat detect_trace_format(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A directory of rank files, or a prefix `<prefix>` of `<prefix>.<rank>.et`.
  if (fs::is_directory(path, ec) || !fs::exists(path, ec)) return TraceFormat::ChakraET;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError::in_file(path, "cannot open the trace");
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b)
    return TraceFormat::ChakraET;
  const std::string name = fs::path(path).filename().string();
  if (name.ends_with(".et") || name.ends_with(".et.gz")) return TraceFormat::ChakraET;
  if (head.find(" NCCL INFO ") != std::string::npos || head.find('\0') == std::string::npos) return TraceFormat::NcclLog;
  throw InputError::in_file(path, "neither a Chakra trace (<prefix>.<rank>.et, plain or gzip) nor an NCCL INFO log");
}

ReplayProgram read_traces(const std::vector<std::string>& paths, const TraceOptions& options) {
  if (paths.empty()) throw InputError::in_file("(none)", "no trace given");
  const TraceFormat format = detect_trace_format(paths.front());
  for (const std::string& p : paths)
    if (detect_trace_format(p) != format)
      throw InputError::in_file(p, std::string("is ") + (format == TraceFormat::ChakraET ? "an NCCL log" : "a Chakra trace") +
                                       " but " + paths.front() + " is not: give traces of one kind");
  if (format == TraceFormat::NcclLog) {
    if (!options.comm_groups.empty())
      throw InputError::in_file(options.comm_groups, "process-group files are for Chakra traces (NCCL logs name their communicators)");
    return read_nccl_logs(paths, options.nccl);
  }
  std::vector<ChakraRankTrace> ranks;
  for (const std::string& f : chakra_rank_files(paths)) ranks.push_back(read_chakra_file(f));
  if (options.symmetric_ranks != 0) {
    if (ranks.size() != 1)
      throw InputError::in_file(ranks.front().file, "the ranks of a symmetric replay run one rank's trace, but " +
                                                         std::to_string(ranks.size()) + " rank files were given");
    ranks.resize(options.symmetric_ranks, ranks.front());
  }
  CommGroups groups;
  if (!options.comm_groups.empty()) groups = load_comm_groups(options.comm_groups, static_cast<std::uint32_t>(ranks.size()));
  return chakra_program(ranks, groups, options.chakra);
}

}  // namespace collsim::traces
