// LogGOPSim's binary schedule (txt2bin's output), native little-endian and packed:
//
//   u64 magic = 4223
//   u32 num_ranks; u8 max_cpu; u8 max_nic
//   u64 jumptable[num_ranks][2]   start and end of each rank's section, counted from the
//                                 byte after the magic
//   per rank: u32 num_nodes; u32 num_roots; u32 roots[num_roots];
//             node[num_nodes] (39 bytes, below); u32 appendix[] (dependent node indices)
//
// The node lists the ops that wait for it ("dependents"), the reverse of the text's
// `requires` lines; the reader turns them back into per-op prerequisite lists.

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "byte_io.hpp"
#include "collsim/common/mapped_file.hpp"
#include "collsim/goal/binary_formats.hpp"
#include "collsim/goal/dependency_analysis.hpp"
#include "collsim/goal/schedule_builder.hpp"

namespace collsim::goal {

namespace {

constexpr std::uint64_t kHeaderBytes = 8 + 4 + 1 + 1;  // magic, num_ranks, max_cpu, max_nic
constexpr std::uint64_t kNodeBytes = 39;
// Field offsets inside a node.
constexpr std::uint64_t kDepCount = 0, kType = 4, kPeer = 5, kSize = 9, kTag = 17, kCpu = 21, kNic = 22,
                        kFinishCount = 23, kFinishIndex = 27, kStartCount = 31, kStartIndex = 35;

struct Section {
  std::uint64_t begin;  // absolute file offsets
  std::uint64_t end;
};

void read_rank(const detail::ByteReader& in, RankId rank, Section sec, std::uint32_t num_ranks,
               std::uint8_t max_cpu, std::uint8_t max_nic, ScheduleBuilder& builder,
               std::vector<std::uint32_t>& incoming) {
  const std::string where = "rank " + std::to_string(rank) + ": ";
  in.require(sec.begin, 8, where + "section header");
  const std::uint32_t num_nodes = in.load<std::uint32_t>(sec.begin);
  const std::uint32_t num_roots = in.load<std::uint32_t>(sec.begin + 4);
  const std::uint64_t roots_at = sec.begin + 8;
  const std::uint64_t nodes_at = roots_at + 4ull * num_roots;
  const std::uint64_t appendix_at = nodes_at + kNodeBytes * num_nodes;
  if (appendix_at > sec.end)
    in.fail(sec.begin, where + std::to_string(num_nodes) + " nodes and " + std::to_string(num_roots) +
                           " roots do not fit in the rank's section of " + std::to_string(sec.end - sec.begin) +
                           " bytes");
  in.require(sec.begin, sec.end - sec.begin, where + "section");
  const std::uint64_t appendix_len = (sec.end - appendix_at) / 4;
  if ((sec.end - appendix_at) % 4 != 0)
    in.fail(appendix_at, where + "dependents list is not a whole number of 4-byte entries");

  // Pass 1: the ops, and how many dependents each lists.
  builder.begin_rank(rank);
  incoming.assign(num_nodes, 0);
  std::uint64_t appendix_used = 0;
  for (std::uint32_t i = 0; i < num_nodes; ++i) {
    const std::uint64_t at = nodes_at + kNodeBytes * i;
    // Named only for an error: building the text for every node costs more than reading it.
    auto node = [&] { return where + "node " + std::to_string(i) + ": "; };
    const auto type = in.load<std::uint8_t>(at + kType);
    Op op;
    op.peer = in.load<std::uint32_t>(at + kPeer);
    op.size = in.load<std::uint64_t>(at + kSize);
    op.tag = in.load<std::uint32_t>(at + kTag);
    op.cpu = in.load<std::uint8_t>(at + kCpu);
    op.nic = in.load<std::uint8_t>(at + kNic);
    if (type == 1) {
      op.kind = OpKind::Send;
      if (op.peer >= num_ranks)
        in.fail(at + kPeer, node() + "send to rank " + std::to_string(op.peer) + ", but num_ranks is " + std::to_string(num_ranks));
    } else if (type == 2) {
      op.kind = OpKind::Recv;
      if (op.peer >= num_ranks && op.peer != kAnySource)
        in.fail(at + kPeer, node() + "recv from rank " + std::to_string(op.peer) + ", but num_ranks is " + std::to_string(num_ranks));
    } else if (type == 3) {
      // txt2bin writes zeros here; the fields mean nothing for a calc.
      op = Op::calc(op.size, op.cpu);
    } else {
      in.fail(at + kType, node() + "unknown op type " + std::to_string(type) + " (expected 1 send, 2 recv or 3 calc)");
    }
    if (op.size > kMaxSize) in.fail(at + kSize, node() + "size " + std::to_string(op.size) + " above 2^63-1");
    if (op.kind == OpKind::Calc && op.size > kMaxCalcNs)
      in.fail(at + kSize, node() + "calc of " + std::to_string(op.size) + " ns, past the end of simulated time (" +
                              std::to_string(kMaxCalcNs) + " ns)");
    if (op.cpu > max_cpu)
      in.fail(at + kCpu, node() + "cpu " + std::to_string(op.cpu) + " above the header's max_cpu " + std::to_string(max_cpu));
    if (op.nic > max_nic)
      in.fail(at + kNic, node() + "nic " + std::to_string(op.nic) + " above the header's max_nic " + std::to_string(max_nic));
    builder.add(op);
    for (const auto& [count_at, index_at] : {std::pair{kFinishCount, kFinishIndex}, std::pair{kStartCount, kStartIndex}}) {
      const std::uint64_t count = in.load<std::uint32_t>(at + count_at);
      const std::uint64_t index = in.load<std::uint32_t>(at + index_at);
      if (count > 0 && index + count > appendix_len)
        in.fail(at + index_at, node() + "dependents [" + std::to_string(index) + ", " + std::to_string(index + count) +
                                   ") run past the " + std::to_string(appendix_len) + " entries of the rank's list");
      appendix_used += count;
    }
  }
  if (appendix_used != appendix_len)
    in.fail(appendix_at, where + "the nodes use " + std::to_string(appendix_used) + " dependent entries, the section holds " +
                             std::to_string(appendix_len));

  // Pass 2: the edges, checked against each node's declared number of prerequisites.
  for (std::uint32_t i = 0; i < num_nodes; ++i) {
    const std::uint64_t at = nodes_at + kNodeBytes * i;
    for (const bool start : {false, true}) {
      const std::uint32_t count = in.load<std::uint32_t>(at + (start ? kStartCount : kFinishCount));
      const std::uint64_t index = in.load<std::uint32_t>(at + (start ? kStartIndex : kFinishIndex));
      for (std::uint32_t k = 0; k < count; ++k) {
        const std::uint64_t entry_at = appendix_at + 4 * (index + k);
        const std::uint32_t dependent = in.load<std::uint32_t>(entry_at);
        if (dependent >= num_nodes)
          in.fail(entry_at, where + "node " + std::to_string(i) + " lists dependent " + std::to_string(dependent) +
                                ", but the rank has " + std::to_string(num_nodes) + " nodes");
        ++incoming[dependent];
        if (start) {
          builder.add_irequires(dependent, i);
        } else {
          builder.add_requires(dependent, i);
        }
      }
    }
  }
  std::uint32_t roots_seen = 0;
  for (std::uint32_t i = 0; i < num_nodes; ++i) {
    const std::uint64_t at = nodes_at + kNodeBytes * i;
    const std::uint32_t declared = in.load<std::uint32_t>(at + kDepCount);
    if (declared != incoming[i])
      in.fail(at + kDepCount, where + "node " + std::to_string(i) + " declares " + std::to_string(declared) +
                                  " prerequisites, but " + std::to_string(incoming[i]) + " ops list it as their dependent");
    if (declared == 0) {
      const std::uint64_t root_at = roots_at + 4ull * roots_seen;
      if (roots_seen >= num_roots || in.load<std::uint32_t>(root_at) != i)
        in.fail(roots_seen >= num_roots ? roots_at : root_at,
                where + "the root list does not match the nodes without prerequisites (node " + std::to_string(i) + ")");
      ++roots_seen;
    }
  }
  if (roots_seen != num_roots)
    in.fail(roots_at, where + "the root list names " + std::to_string(num_roots) + " nodes, but " +
                          std::to_string(roots_seen) + " nodes have no prerequisites");
  builder.end_rank();

  const std::vector<CycleStep> cycle = find_dependency_cycle(builder.last_rank());
  if (!cycle.empty()) {
    std::string text;
    for (const CycleStep& s : cycle) text += "node " + std::to_string(s.op) + (s.start_dependency ? " irequires " : " requires ");
    text += "node " + std::to_string(cycle.front().op);
    in.fail(nodes_at + kNodeBytes * cycle.front().op, where + "dependency cycle: " + text);
  }
}

}  // namespace

namespace {

// What the ranks' section headers promise, to reserve the schedule's columns once instead of
// growing them (a copy of everything so far at each doubling, and twice the memory at the
// peak). Only a hint: sections that lie outside the file count nothing here, and are
// reported when read.
std::pair<std::uint64_t, std::uint64_t> promised_ops_and_edges(const detail::ByteReader& in, std::uint32_t num_ranks) {
  std::uint64_t ops = 0, edges = 0;
  for (RankId r = 0; r < num_ranks; ++r) {
    const std::uint64_t entry = kHeaderBytes + 16ull * r;
    const std::uint64_t start = in.load<std::uint64_t>(entry) + 8, end = in.load<std::uint64_t>(entry + 8) + 8;
    if (start > end || end > in.size() || end - start < 8) continue;
    const std::uint64_t nodes = in.load<std::uint32_t>(start), roots = in.load<std::uint32_t>(start + 4);
    const std::uint64_t appendix_at = start + 8 + 4 * roots + kNodeBytes * nodes;
    if (appendix_at > end) continue;
    ops += nodes;
    edges += (end - appendix_at) / 4;
  }
  return {ops, edges};
}

Schedule parse(std::span<const std::byte> bytes, const std::string& file_name, const MappedFile* file) {
  const detail::ByteReader in(bytes, file_name);
  const auto magic = in.read<std::uint64_t>(0, "the magic number");
  if (magic != kLogGOPSimMagic)
    in.fail(0, "not a LogGOPSim binary schedule: magic number " + std::to_string(magic) + ", expected 4223");
  const auto num_ranks = in.read<std::uint32_t>(8, "num_ranks");
  if (num_ranks == 0) in.fail(8, "num_ranks is 0");
  const auto max_cpu = in.read<std::uint8_t>(12, "max_cpu");
  const auto max_nic = in.read<std::uint8_t>(13, "max_nic");
  in.require(kHeaderBytes, 16ull * num_ranks, "the jump table of " + std::to_string(num_ranks) + " ranks");

  ScheduleBuilder builder(num_ranks);
  const auto [ops, edges] = promised_ops_and_edges(in, num_ranks);
  builder.reserve(ops, edges);
  std::vector<std::uint32_t> incoming;
  // A mapped file's sections read so far are given back every few MB: the file and the
  // schedule are never both in memory whole.
  constexpr std::uint64_t kDropEvery = 4u << 20;  // bytes
  std::uint64_t read_from = 0;
  for (RankId r = 0; r < num_ranks; ++r) {
    const std::uint64_t entry = kHeaderBytes + 16ull * r;
    const auto start = in.load<std::uint64_t>(entry);
    const auto end = in.load<std::uint64_t>(entry + 8);
    // Offsets count from the byte after the magic.
    if (start > end || end > in.size() - 8)
      in.fail(entry, "rank " + std::to_string(r) + ": section [" + std::to_string(start) + ", " + std::to_string(end) +
                         ") lies outside the file's " + std::to_string(in.size() - 8) + " bytes after the magic");
    read_rank(in, r, Section{start + 8, end + 8}, num_ranks, max_cpu, max_nic, builder, incoming);
    // txt2bin writes the sections in rank order; one out of order is only read again.
    if (file != nullptr && end + 8 >= read_from + kDropEvery) {
      file->drop_resident(bytes.subspan(read_from, end + 8 - read_from));
      read_from = end + 8;
    }
  }
  return builder.finish();
}

}  // namespace

Schedule parse_loggopsim_binary(std::span<const std::byte> bytes, const std::string& file_name) {
  return parse(bytes, file_name, nullptr);
}

Schedule read_loggopsim_binary_file(const std::string& path) {
  const MappedFile file(path, MappedFile::Access::InParts);
  return parse(file.bytes(), path, &file);
}

void write_loggopsim_binary(const Schedule& schedule, std::ostream& out) {
  const ScheduleColumns& a = schedule.columns();
  std::uint8_t max_cpu = 0;
  std::uint8_t max_nic = 0;
  for (std::uint64_t i = 0; i < schedule.num_ops(); ++i) {
    max_cpu = std::max(max_cpu, a.cpu[i]);
    max_nic = std::max(max_nic, a.nic[i]);
  }
  auto roots_of = [](const RankOps& rank) {
    std::uint32_t roots = 0;
    for (LocalOp i = 0; i < rank.num_ops(); ++i) roots += rank.requires_of(i).empty() && rank.irequires_of(i).empty();
    return roots;
  };

  detail::ByteWriter w(out);
  w.put<std::uint64_t>(kLogGOPSimMagic);
  w.put<std::uint32_t>(schedule.num_ranks());
  w.put<std::uint8_t>(max_cpu);
  w.put<std::uint8_t>(max_nic);
  std::uint64_t pos = kHeaderBytes - 8 + 16ull * schedule.num_ranks();
  for (RankId r = 0; r < schedule.num_ranks(); ++r) {
    const RankOps rank = schedule.rank(r);
    const std::uint64_t len = 8 + 4ull * roots_of(rank) + kNodeBytes * rank.num_ops() +
                              4 * (rank.num_requires() + rank.num_irequires());
    w.put<std::uint64_t>(pos);
    w.put<std::uint64_t>(pos + len);
    pos += len;
  }

  // Dependents of each op, finish-dependents then start-dependents, in op order.
  std::vector<std::uint32_t> count[2];
  std::vector<std::uint32_t> begin[2];
  std::vector<std::uint32_t> list[2];
  for (RankId r = 0; r < schedule.num_ranks(); ++r) {
    const RankOps rank = schedule.rank(r);
    const std::uint32_t n = rank.num_ops();
    for (int s = 0; s < 2; ++s) {
      count[s].assign(n, 0);
      for (LocalOp i = 0; i < n; ++i)
        for (std::uint32_t p : s ? rank.irequires_of(i) : rank.requires_of(i)) ++count[s][p];
      begin[s].assign(std::size_t{n} + 1, 0);
      for (LocalOp i = 0; i < n; ++i) begin[s][i + 1] = begin[s][i] + count[s][i];
      list[s].resize(begin[s][n]);
      std::vector<std::uint32_t> cursor(begin[s].begin(), begin[s].end() - 1);
      for (LocalOp i = 0; i < n; ++i)
        for (std::uint32_t p : s ? rank.irequires_of(i) : rank.requires_of(i)) list[s][cursor[p]++] = i;
    }
    w.put<std::uint32_t>(n);
    w.put<std::uint32_t>(roots_of(rank));
    for (LocalOp i = 0; i < n; ++i)
      if (rank.requires_of(i).empty() && rank.irequires_of(i).empty()) w.put<std::uint32_t>(i);
    std::uint32_t appendix = 0;
    for (LocalOp i = 0; i < n; ++i) {
      w.put<std::uint32_t>(static_cast<std::uint32_t>(rank.requires_of(i).size() + rank.irequires_of(i).size()));
      w.put<std::uint8_t>(static_cast<std::uint8_t>(rank.kind(i)));
      w.put<std::uint32_t>(rank.peer(i));
      w.put<std::uint64_t>(rank.size(i));
      w.put<std::uint32_t>(rank.tag(i));
      w.put<std::uint8_t>(rank.cpu(i));
      w.put<std::uint8_t>(rank.nic(i));
      for (int s = 0; s < 2; ++s) {
        w.put<std::uint32_t>(count[s][i]);
        w.put<std::uint32_t>(appendix);
        appendix += count[s][i];
      }
    }
    for (LocalOp i = 0; i < n; ++i)
      for (int s = 0; s < 2; ++s) w.put_bytes(list[s].data() + begin[s][i], 4ull * count[s][i]);
  }
}

void write_loggopsim_binary_file(const Schedule& schedule, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError::in_file(path, "cannot open for writing");
  write_loggopsim_binary(schedule, out);
  out.flush();
  if (!out) throw InputError::in_file(path, "write failed (disk full?)");
}

}  // namespace collsim::goal
