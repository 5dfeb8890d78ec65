#pragma once
// Chakra execution traces (MLCommons; what ASTRA-sim replays): one file per rank,
// `<prefix>.<rank>.et`, plain or gzip, each a stream of varint-length-prefixed protobuf
// messages: a GlobalMetadata, then Nodes in any order.

#include <cstdint>
#include <string>
#include <vector>

#include "collsim/traces/comm_groups.hpp"
#include "collsim/traces/replay_program.hpp"

namespace collsim::traces {

enum class ChakraNodeType : std::uint8_t {
  Invalid = 0, Metadata = 1, MemLoad = 2, MemStore = 3, Comp = 4, CommSend = 5, CommRecv = 6, CommColl = 7
};

// The fields of a node replay uses, with every attribute writers spell differently resolved.
struct ChakraNode {
  std::uint64_t id = 0;
  std::string name;
  ChakraNodeType type = ChakraNodeType::Invalid;
  std::vector<std::uint64_t> data_deps;
  std::vector<std::uint64_t> ctrl_deps;
  std::uint64_t duration_micros = 0;
  bool is_cpu_op = false;
  bool has_comm_type = false;
  std::uint32_t comm_type = 0;   // Chakra's CollectiveCommType (0 ALL_REDUCE ... 9 BARRIER)
  bool has_comm_size = false;
  std::uint64_t comm_size = 0;   // bytes of the per-rank input buffer
  bool has_comm_src = false, has_comm_dst = false;
  std::uint32_t comm_src = 0, comm_dst = 0, comm_tag = 0;
  std::uint32_t root = 0;
  std::string pg_name;           // empty when absent
  bool has_num_ops = false, has_tensor_size = false;
  std::uint64_t num_ops = 0, tensor_size = 0;
  std::uint64_t offset = 0;      // byte offset of the node's length prefix (in the gzip's content)
};

struct ChakraRankTrace {
  std::string file;
  bool gzip = false;
  std::string version;           // GlobalMetadata.version, or its `schema` attribute
  std::vector<ChakraNode> nodes; // in file order
};

// Reads one rank's file. Throws InputError naming the file, the byte offset and the node for
// a truncated or corrupt stream, a bad gzip stream, or a trace of the schema before Oct 2023.
ChakraRankTrace read_chakra_file(const std::string& path);

// Rank files for the user's arguments: each is a file `<prefix>.<rank>.et`, a directory of
// such files, or a prefix. Returns them indexed by rank; ranks must be 0..N-1, each once.
std::vector<std::string> chakra_rank_files(const std::vector<std::string>& arguments);

// A roofline for COMP nodes: max(num_ops / flops, tensor_size / memory bandwidth). Off: the
// node's duration_micros.
struct ComputeModel {
  bool roofline = false;
  double flops_per_ns = 0.0;      // peak FLOP/ns (1 TFLOP/s = 1000)
  double bytes_per_ns = 0.0;      // memory bandwidth (1 GB/s = 1)
};

struct ChakraOptions {
  ComputeModel compute;
  // Also order on ctrl_deps. Off by default: PyTorch-derived traces use them to tie a kernel to
  // its enclosing host op (nesting, often a skipped node), not to what it waits for, and
  // ASTRA-sim replays on data_deps alone.
  bool ctrl_deps = false;
};

// All ranks' traces as one program: collectives matched across the members of their process
// group (the k-th collective of a group on one member is the k-th on every other).
ReplayProgram chakra_program(const std::vector<ChakraRankTrace>& ranks, const CommGroups& groups,
                             const ChakraOptions& options = {});

}  // namespace collsim::traces
