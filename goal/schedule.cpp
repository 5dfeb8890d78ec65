#include "collsim/goal/schedule.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace collsim::goal {

std::string_view to_string(OpKind kind) {
  switch (kind) {
    case OpKind::Send: return "send";
    case OpKind::Recv: return "recv";
    case OpKind::Calc: return "calc";
  }
  return "unknown";
}

Op RankOps::op(LocalOp i) const {
  return {kind(i), peer(i), tag(i), size(i), cpu(i), nic(i)};
}

namespace {

std::string at_op(std::uint32_t rank, std::uint64_t local) {
  return "rank " + std::to_string(rank) + " op " + std::to_string(local) + ": ";
}

std::optional<std::string> validate_begin(std::span<const std::uint64_t> begin, std::uint32_t num_ranks,
                                          std::uint64_t total, const char* name) {
  if (begin.size() != std::uint64_t{num_ranks} + 1)
    return std::string(name) + " has " + std::to_string(begin.size()) + " entries, expected num_ranks + 1";
  if (begin.front() != 0) return std::string(name) + " does not start at 0";
  for (std::uint32_t r = 0; r < num_ranks; ++r)
    if (begin[r + 1] < begin[r]) return std::string(name) + " decreases at rank " + std::to_string(r);
  if (begin.back() != total)
    return std::string(name) + " ends at " + std::to_string(begin.back()) + ", expected " + std::to_string(total);
  return std::nullopt;
}

// Whether n CSR rows over `edges` targets are well formed (offsets that never decrease, ops
// below n, each row ascending), in loops without a branch per entry that the compiler turns
// into vector code: reading a large .goalb checks every edge, and most files are valid.
bool rows_valid(const std::uint32_t* offset, std::uint64_t n, const std::uint32_t* target, std::uint64_t edges) {
  std::uint32_t bad = 0;
  for (std::uint64_t i = 0; i < n; ++i) bad |= static_cast<std::uint32_t>(offset[i + 1] < offset[i]);
  std::uint32_t largest = 0;
  for (std::uint64_t k = 0; k < edges; ++k) largest = std::max(largest, target[k]);
  if (bad != 0 || (edges > 0 && largest >= n)) return false;
  // A target below the one before it is allowed only where a row begins: count all such
  // descents in one flat pass, and, only if there are any, those at the rows' first entries.
  std::uint64_t descents = 0;
  for (std::uint64_t k = 1; k < edges; ++k) descents += static_cast<std::uint64_t>(target[k] < target[k - 1]);
  if (descents == 0) return true;
  std::uint64_t at_row_starts = 0;
  std::uint32_t previous_start = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t start = offset[i];
    if (start == previous_start || start >= offset[i + 1]) continue;  // counted, or an empty row
    at_row_starts += static_cast<std::uint64_t>(target[start] < target[start - 1]);
    previous_start = start;
  }
  return descents == at_row_starts;
}

// Whether ops [first, last) are well formed (see validate()), column by column in the same way.
bool ops_valid(const ScheduleColumns& a, std::uint64_t first, std::uint64_t last) {
  const auto* kind = reinterpret_cast<const std::uint8_t*>(a.kind.data());
  const std::uint32_t* peer = a.peer.data();
  const std::uint32_t* tag = a.tag.data();
  const std::uint8_t* nic = a.nic.data();
  const std::uint64_t* size = a.size.data();
  constexpr auto send = static_cast<std::uint8_t>(OpKind::Send), recv = static_cast<std::uint8_t>(OpKind::Recv),
                 calc = static_cast<std::uint8_t>(OpKind::Calc);
  static_assert(send == 1 && recv == 2 && calc == 3);
  std::uint8_t bad_kind = 0;
  for (std::uint64_t g = first; g < last; ++g) bad_kind |= static_cast<std::uint8_t>(kind[g] - 1u > 2u);
  std::uint64_t bad_size = 0;
  for (std::uint64_t g = first; g < last; ++g)
    bad_size |= (size[g] >> 63) | (static_cast<std::uint64_t>(kind[g] == calc) & static_cast<std::uint64_t>(size[g] > kMaxCalcNs));
  std::uint32_t bad_peer = 0;
  for (std::uint64_t g = first; g < last; ++g) {
    const std::uint32_t k = kind[g];
    const std::uint32_t p = peer[g];
    bad_peer |= static_cast<std::uint32_t>(k == send) & static_cast<std::uint32_t>(p >= a.num_ranks);
    bad_peer |= static_cast<std::uint32_t>(k == recv) & static_cast<std::uint32_t>(p >= a.num_ranks) &
                static_cast<std::uint32_t>(p != kAnySource);
    bad_peer |= static_cast<std::uint32_t>(k == calc) & static_cast<std::uint32_t>((p | tag[g] | nic[g]) != 0);
  }
  return bad_kind == 0 && bad_size == 0 && bad_peer == 0;
}

// One rank's CSR rows: offsets start at 0, never decrease, end at the rank's edge count,
// and every row lists existing ops in ascending order.
std::optional<std::string> validate_rows(const ScheduleColumns& a, std::span<const std::uint32_t> offset,
                                         std::span<const std::uint32_t> target,
                                         std::span<const std::uint64_t> begin, std::uint32_t r,
                                         const char* name) {
  const std::uint64_t first = a.op_begin[r] + r;
  const std::uint64_t n = a.op_begin[r + 1] - a.op_begin[r];
  const std::uint64_t edges = begin[r + 1] - begin[r];
  if (offset[first] != 0) return "rank " + std::to_string(r) + ": " + name + " offsets do not start at 0";
  if (offset[first + n] != edges)
    return "rank " + std::to_string(r) + ": " + name + " offsets end at " + std::to_string(offset[first + n]) +
           ", expected " + std::to_string(edges);
  if (rows_valid(offset.data() + first, n, target.data() + begin[r], edges)) return std::nullopt;
  // Find the first fault, to name it.
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t lo = offset[first + i];
    const std::uint32_t hi = offset[first + i + 1];
    if (hi < lo) return at_op(r, i) + name + " offsets decrease";
    if (hi > edges) return at_op(r, i) + name + " offsets run past the rank's " + std::to_string(edges) + " edges";
    const std::uint32_t* row = target.data() + begin[r] + lo;
    for (std::uint32_t k = 0; k < hi - lo; ++k) {
      if (row[k] >= n)
        return at_op(r, i) + name + " op " + std::to_string(row[k]) + ", but the rank has " +
               std::to_string(n) + " ops";
      if (k > 0 && row[k] < row[k - 1]) return at_op(r, i) + name + " list is not sorted";
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> validate(const ScheduleColumns& a) { return validate(a, {}); }

std::optional<std::string> validate(const ScheduleColumns& a,
                                    const std::function<void(std::uint32_t first, std::uint32_t end)>& checked) {
  constexpr std::uint64_t kReportEvery = 1u << 14;  // ops: some 500 KB, within a core's L2
  if (a.num_ranks == 0) return std::string("num_ranks is 0");
  const std::uint64_t n = a.kind.size();
  if (a.cpu.size() != n || a.nic.size() != n || a.peer.size() != n || a.tag.size() != n || a.size.size() != n)
    return std::string("op columns have different lengths");
  if (auto e = validate_begin(a.op_begin, a.num_ranks, n, "op_begin")) return e;
  if (auto e = validate_begin(a.requires_begin, a.num_ranks, a.requires_target.size(), "requires_begin")) return e;
  if (auto e = validate_begin(a.irequires_begin, a.num_ranks, a.irequires_target.size(), "irequires_begin"))
    return e;
  if (a.requires_offset.size() != n + a.num_ranks || a.irequires_offset.size() != n + a.num_ranks)
    return std::string("dependency offsets must have num_ops + num_ranks entries");
  std::uint32_t unreported = 0;
  for (std::uint32_t r = 0; r < a.num_ranks; ++r) {
    if (checked && a.op_begin[r] - a.op_begin[unreported] >= kReportEvery) {
      checked(unreported, r);
      unreported = r;
    }
    if (a.op_begin[r + 1] - a.op_begin[r] > 0xFFFFFFFFull)
      return "rank " + std::to_string(r) + " has more than 2^32-1 ops";
    if (auto e = validate_rows(a, a.requires_offset, a.requires_target, a.requires_begin, r, "requires")) return e;
    if (auto e = validate_rows(a, a.irequires_offset, a.irequires_target, a.irequires_begin, r, "irequires"))
      return e;
    if (ops_valid(a, a.op_begin[r], a.op_begin[r + 1])) continue;
    // Find the first fault, to name it.
    for (std::uint64_t g = a.op_begin[r]; g < a.op_begin[r + 1]; ++g) {
      const std::uint64_t i = g - a.op_begin[r];
      if (a.size[g] > kMaxSize) return at_op(r, i) + "size above 2^63-1";
      switch (a.kind[g]) {
        case OpKind::Send:
          if (a.peer[g] >= a.num_ranks) return at_op(r, i) + "send to rank " + std::to_string(a.peer[g]) + " >= num_ranks";
          break;
        case OpKind::Recv:
          if (a.peer[g] >= a.num_ranks && a.peer[g] != kAnySource)
            return at_op(r, i) + "recv from rank " + std::to_string(a.peer[g]) + " >= num_ranks";
          break;
        case OpKind::Calc:
          if (a.peer[g] != 0 || a.tag[g] != 0 || a.nic[g] != 0) return at_op(r, i) + "calc with a peer, tag or nic";
          if (a.size[g] > kMaxCalcNs) return at_op(r, i) + "calc past the end of simulated time (2^63-1 ps)";
          break;
        default:
          return at_op(r, i) + "unknown op kind " + std::to_string(static_cast<unsigned>(a.kind[g]));
      }
    }
  }
  if (checked) checked(unreported, a.num_ranks);
  return std::nullopt;
}

ScheduleColumns columns_of(const ScheduleArrays& a) {
  ScheduleColumns c;
  c.num_ranks = a.num_ranks;
  for_each_column_pair(c, a, [](auto& view, const auto& column) { view = column; });
  return c;
}

ScheduleArrays copy_columns(const ScheduleColumns& c) {
  ScheduleArrays a;
  a.num_ranks = c.num_ranks;
  for_each_column_pair(a, c, [](auto& column, const auto& view) { column.assign(view.begin(), view.end()); });
  return a;
}

bool ScheduleColumns::operator==(const ScheduleColumns& o) const {
  bool equal = num_ranks == o.num_ranks;
  for_each_column_pair(*this, o, [&](const auto& x, const auto& y) {
    equal = equal && x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size_bytes()) == 0);
  });
  return equal;
}

Schedule Schedule::adopt(ScheduleArrays arrays) {
  auto owned = std::make_shared<const ScheduleArrays>(std::move(arrays));
  const ScheduleColumns columns = columns_of(*owned);
  return Schedule(columns, std::move(owned));
}

namespace {
Schedule valid_or_throw(std::variant<Schedule, std::string> checked) {
  if (auto* e = std::get_if<std::string>(&checked)) throw std::invalid_argument("invalid schedule: " + *e);
  return std::move(std::get<Schedule>(checked));
}
}  // namespace

Schedule Schedule::from_arrays(ScheduleArrays arrays) { return valid_or_throw(checked(std::move(arrays))); }

Schedule Schedule::from_columns(const ScheduleColumns& columns, std::shared_ptr<const void> owner) {
  return valid_or_throw(checked(columns, std::move(owner)));
}

std::variant<Schedule, std::string> Schedule::checked(ScheduleArrays arrays) {
  if (auto e = validate(arrays)) return std::move(*e);
  return adopt(std::move(arrays));
}

std::variant<Schedule, std::string> Schedule::checked(const ScheduleColumns& columns,
                                                      std::shared_ptr<const void> owner) {
  if (auto e = validate(columns)) return std::move(*e);
  return Schedule(columns, std::move(owner));
}

std::variant<Schedule, std::string> Schedule::checked(const ScheduleColumns& columns,
                                                      std::shared_ptr<const MappedFile> file,
                                                      const std::function<void(RankId first, RankId end)>& checked) {
  // The checked pages stay mapped: a reader that copies the ranks it needs finds them in
  // memory and gives them back as it goes (drop_resident).
  Schedule schedule(columns, std::shared_ptr<const void>(file));
  schedule.file_ = std::move(file);
  if (auto e = validate(columns, checked)) return std::move(*e);
  return schedule;
}

void Schedule::drop_resident(RankId first, RankId end) const {
  if (!file_ || first >= end) return;
  const std::uint64_t op0 = c_.op_begin[first], op1 = c_.op_begin[end];
  auto drop = [&](const auto& column, std::uint64_t from, std::uint64_t to) {
    file_->drop_resident(std::as_bytes(column.subspan(from, to - from)));
  };
  drop(c_.kind, op0, op1);
  drop(c_.cpu, op0, op1);
  drop(c_.nic, op0, op1);
  drop(c_.peer, op0, op1);
  drop(c_.tag, op0, op1);
  drop(c_.size, op0, op1);
  drop(c_.requires_offset, op0 + first, op1 + end);
  drop(c_.irequires_offset, op0 + first, op1 + end);
  drop(c_.requires_target, c_.requires_begin[first], c_.requires_begin[end]);
  drop(c_.irequires_target, c_.irequires_begin[first], c_.irequires_begin[end]);
}

std::size_t Schedule::memory_bytes() const {
  std::size_t bytes = 0;
  for_each_column(c_, [&](const auto& column) { bytes += column.size_bytes(); });
  return bytes;
}

}  // namespace collsim::goal
