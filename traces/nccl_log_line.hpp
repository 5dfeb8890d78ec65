#pragma once
// One line of an NCCL INFO log, taken apart: who logged it (host, pid, cudaDev), when (if
// timestamped), and what: a call (COLL subsystem) or a communicator's init line.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace collsim::traces {

struct NcclCallLine {
  std::string op;                 // "AllReduce", "Send", ...
  std::uint64_t op_count = 0;
  std::uint64_t count = 0;
  std::uint32_t datatype = 0;
  std::uint32_t root = 0;         // Send/Recv: the peer
  std::string comm;               // the communicator's pointer, as printed
  std::string stream;             // empty when not printed
  std::uint32_t nranks = 0;       // 0 when not printed
};

struct NcclInitLine {
  std::string comm;
  std::uint32_t rank = 0;
  std::uint32_t nranks = 0;
  std::string comm_id;
};

struct NcclLine {
  std::string host;
  std::string pid;
  std::string device;             // cudaDev from the prefix
  std::optional<std::int64_t> time_ns;  // since 1970, when timestamped
  std::optional<NcclCallLine> call;
  std::optional<NcclInitLine> init;
};

// Nothing for lines that are not NCCL INFO calls or init lines (other output is allowed).
// Throws InputError (file, line, column) for a call or init line that cannot be read.
std::optional<NcclLine> parse_nccl_line(std::string_view text, const std::string& file, std::uint64_t line);

// Bytes per element of NCCL's datatype enum; nothing for an unknown one.
std::optional<std::uint32_t> nccl_datatype_bytes(std::uint32_t datatype);

}  // namespace collsim::traces
