#pragma once
// Small schedules and streams the executor tests share: one message between two ranks, and a
// whole schedule handed over in pieces.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "collsim/goal/schedule.hpp"
#include "collsim/goal/schedule_builder.hpp"
#include "collsim/goal/schedule_stream.hpp"

namespace collsim::exec::testing {

// Rank 0 sends `bytes` to rank 1, whose receive is posted at 0.
inline goal::Schedule one_message(std::uint64_t bytes) {
  goal::ScheduleBuilder b(2);
  b.begin_rank(0);
  b.add(goal::Op::send(bytes, 1));
  b.end_rank();
  b.begin_rank(1);
  b.add(goal::Op::recv(bytes, 0));
  b.end_rank();
  return b.finish();
}

// A whole schedule handed over in pieces of at most `piece_ops` ops per rank, in index order.
// Only schedules where that keeps the stream's promise (every op of a later piece depends on
// one of its own piece or of the one before) may be cut: others go with one piece per rank.
class PiecesOf final : public goal::ScheduleStream {
 public:
  PiecesOf(const goal::Schedule& s, std::uint32_t piece_ops) : s_(s), piece_ops_(piece_ops), next_(s.num_ranks(), 0) {}
  std::uint32_t num_ranks() const override { return s_.num_ranks(); }
  bool next_piece(goal::RankId r, goal::SchedulePiece& piece) override {
    const goal::RankOps ops = s_.rank(r);
    const goal::LocalOp first = next_[r];
    if (first >= ops.num_ops()) return false;
    const goal::LocalOp end = std::min<goal::LocalOp>(ops.num_ops(), first + piece_ops_);
    for (goal::LocalOp i = first; i < end; ++i) {
      piece.ops.push_back(ops.op(i));
      piece.labels.push_back(static_cast<std::uint8_t>(i % 7));
      for (std::uint32_t p : ops.requires_of(i)) piece.requires_edges.emplace_back(i, p);
      for (std::uint32_t p : ops.irequires_of(i)) piece.irequires_edges.emplace_back(i, p);
    }
    next_[r] = end;
    ++pieces_;
    return true;
  }
  std::uint32_t pieces() const { return pieces_; }

 private:
  const goal::Schedule& s_;
  std::uint32_t piece_ops_;
  std::vector<goal::LocalOp> next_;
  std::uint32_t pieces_ = 0;
};

}  // namespace collsim::exec::testing
