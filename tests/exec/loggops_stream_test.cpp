// The LogGOPS mode on a schedule that arrives in pieces: hand-derived times, the same
// results as the whole schedule, ops leaving the window, and a stream that breaks its promise.

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "collsim/exec/loggops_simulator.hpp"
#include "collsim/exec/loggops_stream.hpp"
#include "collsim/goal/schedule_builder.hpp"

namespace collsim::exec {
namespace {

using goal::Op;
using goal::SchedulePiece;

// Pieces given in advance, per rank; counts how many were asked for.
class ListedStream final : public goal::ScheduleStream {
 public:
  explicit ListedStream(std::vector<std::vector<SchedulePiece>> pieces)
      : pieces_(std::move(pieces)), next_(pieces_.size(), 0) {}
  std::uint32_t num_ranks() const override { return static_cast<std::uint32_t>(pieces_.size()); }
  bool next_piece(goal::RankId r, SchedulePiece& piece) override {
    if (next_[r] == pieces_[r].size()) return false;
    piece = pieces_[r][next_[r]++];
    ++asked;
    return true;
  }
  int asked = 0;

 private:
  std::vector<std::vector<SchedulePiece>> pieces_;
  std::vector<std::size_t> next_;
};

SchedulePiece piece(std::vector<Op> ops, std::vector<std::pair<goal::LocalOp, goal::LocalOp>> requires_edges = {},
                    std::vector<std::uint8_t> labels = {}) {
  SchedulePiece p;
  p.ops = std::move(ops);
  p.requires_edges = std::move(requires_edges);
  p.labels = std::move(labels);
  return p;
}

LogGOPSParams hand_params() {
  LogGOPSParams p;
  p.L = 10;
  p.o = 1;
  p.g = 2;
  p.G = 1;
  p.O = 0;
  return p;
}

// Rank 0 computes 100 ns, then sends 11 bytes to rank 1, which then computes 50 ns; each
// rank's second op comes in a second piece.
std::vector<std::vector<SchedulePiece>> ping_pieces() {
  return {{piece({Op::calc(100)}, {}, {7}), piece({Op::send(11, 1, 5)}, {{1, 0}}, {8})},
          {piece({Op::recv(11, 0, 5)}, {}, {9}), piece({Op::calc(50)}, {{1, 0}}, {10})}};
}

TEST(LogGOPSStream, HandDerivedTimes) {
  ListedStream stream(ping_pieces());
  std::vector<std::tuple<goal::RankId, int, std::uint64_t, std::uint64_t>> seen;
  LogGOPSStreamOptions options;
  options.on_finished = [&](goal::RankId r, std::uint8_t label, std::uint64_t start, std::uint64_t end) {
    seen.emplace_back(r, label, start, end);
  };
  const LogGOPSStreamResult r = simulate_loggops_stream(stream, hand_params(), options);
  // Rank 0: calc [0, 100); the send starts at 100 (cpu free), busies the cpu until
  // 100 + o = 101 and is eager (11 <= S): done at 100. The message arrives at
  // 100 + o + L = 111, where rank 1 takes it: cpu busy until 111 + o + (11-1)G = 122; the
  // receive posted at 0 matches at 111. Rank 1's calc waits for its cpu: [122, 172).
  ASSERT_TRUE(r.run.complete);
  EXPECT_EQ(r.run.rank_finish, (std::vector<std::uint64_t>{101, 172}));
  EXPECT_EQ(r.run.makespan, 172u);
  EXPECT_EQ(r.run.makespan_rank, 1u);
  EXPECT_EQ(r.ops_total, 4u);
  EXPECT_EQ(r.run.ops_completed, 4u);
  EXPECT_EQ(r.run.messages, 1u);
  EXPECT_EQ(r.run.bytes, 11u);
  std::sort(seen.begin(), seen.end());
  const std::vector<std::tuple<goal::RankId, int, std::uint64_t, std::uint64_t>> expected = {
      {0, 7, 0, 100}, {0, 8, 100, 100}, {1, 9, 0, 111}, {1, 10, 122, 172}};
  EXPECT_EQ(seen, expected);
}

TEST(LogGOPSStream, SameAsTheWholeSchedule) {
  goal::ScheduleBuilder b(2);
  b.begin_rank(0);
  b.add(Op::calc(100));
  b.add(Op::send(11, 1, 5));
  b.add_requires(1, 0);
  b.end_rank();
  b.begin_rank(1);
  b.add(Op::recv(11, 0, 5));
  b.add(Op::calc(50));
  b.add_requires(1, 0);
  b.end_rank();
  const LogGOPSResult whole = simulate_loggops(b.finish(), hand_params());
  ListedStream stream(ping_pieces());
  const LogGOPSStreamResult streamed = simulate_loggops_stream(stream, hand_params());
  EXPECT_EQ(whole.rank_finish, streamed.run.rank_finish);
  EXPECT_EQ(whole.events, streamed.run.events);
  EXPECT_EQ(whole.loggopsim_events, streamed.run.loggopsim_events);
}

TEST(LogGOPSStream, ManyDependentsInAnyEdgeOrderAsTheWholeSchedule) {
  // Op 0 (a calc of 10 ns) is required by ops 1-20 and irequired by ops 21-28, more than an
  // op keeps itself (its dependents spill into chunks); ops 9-28 come in a second piece whose
  // edges are listed backwards. The calcs share 3 cpus, so every op's times depend on the
  // order in which op 0 releases them: it must be the whole schedule's, by op index.
  std::vector<Op> first_ops{Op::calc(10)}, second_ops;
  std::vector<std::pair<goal::LocalOp, goal::LocalOp>> first_requires, second_requires, second_irequires;
  for (goal::LocalOp i = 1; i <= 28; ++i) {
    const Op op = Op::calc(5 + i % 4, static_cast<std::uint8_t>(i % 3));
    (i <= 8 ? first_ops : second_ops).push_back(op);
    if (i <= 8) {
      first_requires.emplace_back(i, 0);
    } else if (i <= 20) {
      second_requires.emplace_back(i, 0);
    } else {
      second_irequires.emplace_back(i, 0);
    }
  }
  std::reverse(second_requires.begin(), second_requires.end());
  std::reverse(second_irequires.begin(), second_irequires.end());
  std::vector<std::uint8_t> first_labels, second_labels;
  for (std::uint8_t i = 0; i <= 8; ++i) first_labels.push_back(i);
  for (std::uint8_t i = 9; i <= 28; ++i) second_labels.push_back(i);
  SchedulePiece second = piece(second_ops, second_requires, second_labels);
  second.irequires_edges = second_irequires;
  ListedStream stream({{piece(first_ops, first_requires, first_labels), second}});
  std::vector<std::pair<std::uint64_t, std::uint64_t>> streamed(29);
  LogGOPSStreamOptions options;
  options.on_finished = [&](goal::RankId, std::uint8_t label, std::uint64_t start, std::uint64_t end) {
    streamed[label] = {start, end};
  };
  const LogGOPSStreamResult r = simulate_loggops_stream(stream, hand_params(), options);
  ASSERT_TRUE(r.run.complete);

  goal::ScheduleBuilder b(1);
  b.begin_rank(0);
  for (const Op& op : first_ops) b.add(op);
  for (const Op& op : second_ops) b.add(op);
  for (goal::LocalOp i = 1; i <= 20; ++i) b.add_requires(i, 0);
  for (goal::LocalOp i = 21; i <= 28; ++i) b.add_irequires(i, 0);
  b.end_rank();
  LogGOPSOptions whole_options;
  whole_options.record_op_times = true;
  const LogGOPSResult whole = simulate_loggops(b.finish(), hand_params(), whole_options);
  for (goal::LocalOp i = 0; i <= 28; ++i)
    EXPECT_EQ(streamed[i], std::make_pair(whole.op_start[i], whole.op_end[i])) << "op " << i;
  EXPECT_EQ(whole.rank_finish, r.run.rank_finish);
  EXPECT_EQ(whole.op_end[0], 10u);  // op 0 alone on cpu 0 at time 0
}

TEST(LogGOPSStream, AWindowThatGrewAndEmptiesGivesTheWholeSchedulesTimes) {
  // 300 calcs on 4 cpus after op 0 grow the window's ring past 256 slots; a chain of 600
  // calcs, one per piece, follows while they drain, so the ring shrinks with ops still in it.
  std::vector<Op> wide{Op::calc(1)};
  std::vector<std::pair<goal::LocalOp, goal::LocalOp>> wide_requires;
  for (goal::LocalOp i = 1; i <= 300; ++i) {
    wide.push_back(Op::calc(i % 7 + 1, static_cast<std::uint8_t>(i % 4)));
    wide_requires.emplace_back(i, 0);
  }
  std::vector<SchedulePiece> pieces{piece(wide, wide_requires)};
  goal::ScheduleBuilder b(1);
  b.begin_rank(0);
  for (const Op& op : wide) b.add(op);
  for (const auto& [d, p] : wide_requires) b.add_requires(d, p);
  for (goal::LocalOp i = 301; i <= 900; ++i) {
    pieces.push_back(piece({Op::calc(2, static_cast<std::uint8_t>(i % 2))}, {{i, i - 1}}));
    b.add(Op::calc(2, static_cast<std::uint8_t>(i % 2)));
    b.add_requires(i, i - 1);
  }
  b.end_rank();
  ListedStream stream({pieces});
  std::vector<std::uint64_t> ends;
  LogGOPSStreamOptions options;
  options.on_finished = [&](goal::RankId, std::uint8_t, std::uint64_t, std::uint64_t end) { ends.push_back(end); };
  const LogGOPSStreamResult r = simulate_loggops_stream(stream, hand_params(), options);
  ASSERT_TRUE(r.run.complete);
  LogGOPSOptions whole_options;
  whole_options.record_op_times = true;
  const LogGOPSResult whole = simulate_loggops(b.finish(), hand_params(), whole_options);
  std::vector<std::uint64_t> whole_ends = whole.op_end;
  std::sort(ends.begin(), ends.end());
  std::sort(whole_ends.begin(), whole_ends.end());
  EXPECT_EQ(ends, whole_ends);
  EXPECT_EQ(r.run.rank_finish, whole.rank_finish);
  EXPECT_GE(r.peak_live_ops, 300u);
}

TEST(LogGOPSStream, FinishedOpsLeaveTheWindow) {
  // 1000 calcs of 3 ns in a chain, one per piece: at most the running op and the piece
  // fetched ahead of it are held at once.
  std::vector<SchedulePiece> chain{piece({Op::calc(3)})};
  for (goal::LocalOp i = 1; i < 1000; ++i) chain.push_back(piece({Op::calc(3)}, {{i, i - 1}}));
  ListedStream stream({chain});
  const LogGOPSStreamResult r = simulate_loggops_stream(stream, hand_params());
  ASSERT_TRUE(r.run.complete);
  EXPECT_EQ(r.run.makespan, 3000u);
  EXPECT_EQ(r.ops_total, 1000u);
  EXPECT_LE(r.peak_live_ops, 2u);
  EXPECT_EQ(stream.asked, 1000);
}

TEST(LogGOPSStream, AnOpWithNothingToWaitForInALaterPieceIsRefused) {
  // The second calc could start at 0 in the whole schedule, but arrives only once the first
  // is ready: the stream broke its promise.
  ListedStream stream({{piece({Op::calc(10)}), piece({Op::calc(20)})}});
  EXPECT_THROW(simulate_loggops_stream(stream, hand_params()), StreamOrderError);
}

TEST(LogGOPSStream, WhatNeverRanIsCounted) {
  // A receive nobody sends to; the calc after it waits; the piece after that is never asked
  // for, but its three ops count as blocked too.
  ListedStream stream({{piece({Op::recv(8, 1, 0)}), piece({Op::calc(5)}, {{1, 0}}),
                        piece({Op::calc(1), Op::calc(1), Op::calc(1)}, {{2, 1}, {3, 2}, {4, 3}})},
                       {}});
  const LogGOPSStreamResult r = simulate_loggops_stream(stream, hand_params());
  EXPECT_FALSE(r.run.complete);
  EXPECT_EQ(r.run.num_blocked, 5u);
  EXPECT_EQ(r.ops_total, 5u);
  ASSERT_EQ(r.run.blocked.size(), 2u);
  EXPECT_EQ(r.run.blocked[0].reason, BlockReason::NoMatchingSend);
  EXPECT_EQ(r.run.blocked[1].reason, BlockReason::Prerequisites);
}

TEST(LogGOPSStream, BadPiecesAreRefused) {
  ListedStream to_nowhere({{piece({Op::send(8, 5, 0)})}});
  EXPECT_THROW(simulate_loggops_stream(to_nowhere, hand_params()), std::invalid_argument);
  ListedStream ahead({{piece({Op::calc(1)}, {{0, 3}})}});
  EXPECT_THROW(simulate_loggops_stream(ahead, hand_params()), std::invalid_argument);
}

}  // namespace
}  // namespace collsim::exec
