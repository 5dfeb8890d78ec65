#pragma once
// A GOAL schedule handed over piece by piece, rank by rank, so that a consumer can execute a
// schedule far larger than memory: it asks for a rank's next piece only when it nears the
// end of what it has, and forgets ops once they are done.
//
// A producer's promise (what lets a consumer run a stream exactly as the whole schedule):
// every op of a rank's second or later piece depends (requires or irequires) on some op of
// that piece or of the piece just before it; dependencies only point within the rank, to
// ops already handed over or to the same piece.

#include <cstdint>
#include <utility>
#include <vector>

#include "collsim/goal/op.hpp"

namespace collsim::goal {

struct SchedulePiece {
  std::vector<Op> ops;  // rank-local indices continue those of the rank's earlier pieces
  // One byte per op that the producer gives its ops and gets back with their times (the
  // workload lowering: what the op does, compute or which communication).
  std::vector<std::uint8_t> labels;
  // (dependent, prerequisite), rank-local; dependents are ops of this piece.
  std::vector<std::pair<LocalOp, LocalOp>> requires_edges, irequires_edges;

  void clear() {
    ops.clear();
    labels.clear();
    requires_edges.clear();
    irequires_edges.clear();
  }
};

class ScheduleStream {
 public:
  virtual ~ScheduleStream() = default;
  virtual std::uint32_t num_ranks() const = 0;
  // Fills `piece` (given empty) with rank r's next ops; false, with the piece left empty,
  // when the rank has no more.
  virtual bool next_piece(RankId r, SchedulePiece& piece) = 0;
  // Every rank that the ops of rank r's pieces not yet handed over may name as their peer
  // (more is allowed, in any order), in `peers`; false when the producer cannot tell. A
  // parallel run reads it to promise that a rank's future stays on its side of the partition.
  virtual bool later_peers(RankId /*r*/, std::vector<RankId>& /*peers*/) const { return false; }
  // Ranks of one class (1, 2, ...) run alike at the same time, such as the GPUs of a pipeline
  // stage in every data-parallel replica; 0: the producer cannot tell. A parallel run spreads
  // each class over its simulator ranks.
  virtual std::uint32_t busy_together(RankId /*r*/) const { return 0; }
};

}  // namespace collsim::goal
