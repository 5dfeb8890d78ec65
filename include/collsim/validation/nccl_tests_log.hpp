#pragma once
// An nccl-tests output file as read: one or more test runs, each with its header, device
// lines, result rows and footer (reference/nccl.md section 1). Everything the file printed is
// kept as printed; what is derived (ranks, collective) is computed by the functions below.
//
// The reader accepts every variant in validation/logs: the modern format (root column,
// #wrong counts), the old one (no root column, an `error` column with a float), launcher
// prefixes ("0: ", "[1,0]<stdout>:", "[0] "), NCCL INFO/WARN and MPI lines anywhere (also
// fused into a row, which is then rejoined), N/A columns, fragments (rows without header or
// footer, a last row cut short), several runs in one file, and summary tables of
// "size-label busbw" pairs. Anything that starts like a result row but cannot be read is an
// InputError naming file and line.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collsim/collectives/collective.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::validation {

enum class LogFormat : std::uint8_t {
  Modern,        // size count type redop root, then time algbw busbw #wrong twice
  Old,           // no root column; `error` holds the max abs error as a float
  SummaryTable,  // "1K 0.04" lines: a size label and an in-place busbw, nothing else
};
std::string_view to_string(LogFormat f);

struct Header {
  std::optional<std::string> tests_version;  // "2.18.3"
  std::optional<int> nccl_headers;           // version code, 22809 = 2.28.9
  std::optional<int> nccl_library;
  std::optional<std::string> nccl_version;   // "2.30.3+cuda13.0" (NCCL's own line or INFO)
  std::optional<std::string> program;        // "all_reduce_perf" (test starting line or command)
  std::optional<int> threads;                // nThread
  std::optional<int> gpus;                   // nGpus (per process)
  std::optional<std::uint64_t> min_bytes;
  std::optional<std::uint64_t> max_bytes;
  std::optional<std::string> step;           // "2(factor)" or "1048576(bytes)"
  std::optional<int> warmup_iters;
  std::optional<int> iters;
  std::optional<int> agg_iters;
  std::optional<int> validation;
  std::optional<int> graph;
  std::size_t line = 0;                      // of the "# nThread" line; 0: none
};

struct DeviceLine {
  int rank = 0;
  std::optional<int> group;  // absent in the old format
  long pid = 0;
  std::string host;
  int device = 0;
  std::string bus_id;        // "0000:1b:00" or "0x27" as printed
  std::string gpu;           // "NVIDIA H100 80GB HBM3"
  std::size_t line = 0;
};

// One half of a row (out-of-place or in-place).
struct Measurement {
  Duration time = Duration::zero();  // printed in microseconds
  double algbw = 0.0;       // GB/s as printed
  double busbw = 0.0;
  std::string time_text;    // as printed, for the precision of the consistency check
  std::string algbw_text;
  std::string busbw_text;
  std::optional<double> wrong;  // #wrong count (modern) or max abs error (old); absent: N/A or cut
  bool derived = false;     // summary tables: time and algbw computed from the printed busbw
};

struct ResultRow {
  std::uint64_t size = 0;
  std::uint64_t count = 0;
  std::string type;
  std::string redop;
  std::optional<int> root;  // absent in the old format
  std::optional<Measurement> out_of_place;
  std::optional<Measurement> in_place;
  std::size_t line = 0;
  bool rejoined = false;    // NCCL INFO lines were printed into the middle of this row
  bool truncated = false;   // the last column(s) are missing (a fragment)
};

struct Footer {
  std::optional<int> out_of_bounds;
  std::optional<bool> out_of_bounds_ok;
  std::optional<double> avg_busbw;
  std::optional<std::string> avg_busbw_text;
  std::size_t line = 0;     // of the "Avg bus bandwidth" line
};

// What NCCL's INFO lines said about the communicator, when the log has them.
struct NcclInfo {
  std::optional<int> coll_channels;
  std::optional<int> collnet_channels;
  std::optional<int> nvls_channels;
  std::optional<int> nodes;          // "nNodes N"
  std::optional<int> local_ranks;    // "localRanks N"
};

struct TestRun {
  LogFormat format = LogFormat::Modern;
  Header header;
  std::vector<DeviceLine> devices;
  std::vector<ResultRow> rows;
  Footer footer;
  NcclInfo info;
  std::vector<std::string> notes;        // comment lines that are none of the above
  std::optional<std::string> command;    // the command line that started it, if printed
  std::size_t first_line = 0, last_line = 0;
  bool devices_elided = false;           // "..." in place of some device lines
  bool columns_seen = false;             // the table's column header was read (a "..." after it elides rows)
};

struct LogFile {
  std::string path;
  std::vector<TestRun> runs;
};

// Throws collsim::InputError (file:line: what was expected) for malformed input, or when the
// file has no result row at all.
LogFile parse_nccl_tests_log(std::string_view text, const std::string& file_name);
LogFile read_nccl_tests_log(const std::string& path);

// nccl-tests' program name to the collective: "all_reduce_perf" -> Allreduce.
std::optional<collectives::Collective> collective_from_program(std::string_view program);

}  // namespace collsim::validation
