#include <algorithm>
#include <charconv>
#include <fstream>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "collsim/common/input_error.hpp"
#include "collsim/goal/text_format.hpp"

namespace collsim::goal {

namespace {

// Appends to a large buffer and hands it to the stream in big pieces: the writer is
// as hot as the parser when converting 10^8-op schedules.
class TextOut {
 public:
  explicit TextOut(std::ostream& out) : out_(out) { buf_.reserve(kFlushAt + 256); }
  ~TextOut() { flush(); }
  TextOut(const TextOut&) = delete;
  TextOut& operator=(const TextOut&) = delete;

  TextOut& operator<<(std::string_view s) {
    buf_.append(s);
    if (buf_.size() >= kFlushAt) flush();
    return *this;
  }
  TextOut& operator<<(std::uint64_t v) {
    char tmp[24];
    const auto res = std::to_chars(tmp, tmp + sizeof tmp, v);
    return *this << std::string_view(tmp, static_cast<std::size_t>(res.ptr - tmp));
  }
  void flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  static constexpr std::size_t kFlushAt = 1 << 20;
  std::ostream& out_;
  std::string buf_;
};

void write_label(TextOut& out, LocalOp op) { out << "l" << std::uint64_t{op}; }

void write_op(TextOut& out, const RankOps& rank, LocalOp i, bool labelled) {
  if (labelled) {
    write_label(out, i);
    out << ": ";
  }
  const OpKind kind = rank.kind(i);
  out << to_string(kind) << " " << rank.size(i);
  if (kind != OpKind::Calc) {
    out << "b " << (kind == OpKind::Send ? "to " : "from ");
    if (rank.peer(i) == kAnySource) {
      out << "-1";
    } else {
      out << std::uint64_t{rank.peer(i)};
    }
    if (rank.tag(i) == kAnyTag) {
      out << " tag -1";
    } else if (rank.tag(i) != 0) {
      out << " tag " << std::uint64_t{rank.tag(i)};
    }
  }
  if (rank.cpu(i) != 0) out << " cpu " << std::uint64_t{rank.cpu(i)};
  if (rank.nic(i) != 0) out << " nic " << std::uint64_t{rank.nic(i)};
  out << "\n";
}

void write_dependency(TextOut& out, LocalOp dependent, LocalOp prerequisite, bool start_dependency) {
  write_label(out, dependent);
  out << (start_dependency ? " irequires " : " requires ");
  write_label(out, prerequisite);
  out << "\n";
}

void write_rank(TextOut& out, const RankOps& rank, std::vector<bool>& labelled,
                std::vector<std::tuple<LocalOp, LocalOp, bool>>& later) {
  const std::uint32_t n = rank.num_ops();
  labelled.assign(n, false);
  later.clear();
  for (LocalOp i = 0; i < n; ++i) {
    for (int start = 0; start < 2; ++start) {
      for (std::uint32_t p : start ? rank.irequires_of(i) : rank.requires_of(i)) {
        labelled[i] = true;
        labelled[p] = true;
        // A dependency line must follow both ops it names.
        if (p > i) later.emplace_back(p, i, start != 0);
      }
    }
  }
  std::stable_sort(later.begin(), later.end(),
                   [](const auto& x, const auto& y) { return std::get<0>(x) < std::get<0>(y); });

  out << "rank " << std::uint64_t{rank.rank()} << " {\n";
  auto next_later = later.begin();
  for (LocalOp i = 0; i < n; ++i) {
    write_op(out, rank, i, labelled[i]);
    for (std::uint32_t p : rank.requires_of(i))
      if (p <= i) write_dependency(out, i, p, false);
    for (std::uint32_t p : rank.irequires_of(i))
      if (p <= i) write_dependency(out, i, p, true);
    for (; next_later != later.end() && std::get<0>(*next_later) == i; ++next_later)
      write_dependency(out, std::get<1>(*next_later), i, std::get<2>(*next_later));
  }
  out << "}\n";
}

}  // namespace

void write_goal_text(const Schedule& schedule, std::ostream& out) {
  TextOut text(out);
  text << "num_ranks " << std::uint64_t{schedule.num_ranks()} << "\n";
  std::vector<bool> labelled;
  std::vector<std::tuple<LocalOp, LocalOp, bool>> later;
  for (RankId r = 0; r < schedule.num_ranks(); ++r) {
    text << "\n";
    write_rank(text, schedule.rank(r), labelled, later);
  }
}

void write_goal_text_file(const Schedule& schedule, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError::in_file(path, "cannot open for writing");
  write_goal_text(schedule, out);
  out.flush();
  if (!out) throw InputError::in_file(path, "write failed (disk full?)");
}

}  // namespace collsim::goal
