#pragma once
// What an algorithm writes to: the ops of one group member, with what data each message
// carries. Algorithms emit rank by rank (the ops of a rank depend only on its place in the
// group), so a schedule of any size streams into a ScheduleBuilder, a counter or a recorder
// for the verifier without a second copy.

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collsim/collectives/spec.hpp"
#include "collsim/collectives/unit_layout.hpp"
#include "collsim/goal/op.hpp"

namespace collsim::collectives {

// What the receiver does with the units a message brings.
enum class DataAction : std::uint8_t {
  None,    // sends and calcs
  Copy,    // overwrite the local units
  Reduce,  // combine into the local units; every contribution must arrive exactly once
  Merge,   // set union, duplicates allowed (barrier arrivals)
};
std::string_view to_string(DataAction a);

struct Payload {
  DataAction action = DataAction::None;
  std::span<const UnitRange> units;  // sends and recvs: the units, in message order
};

// Receives one rank's ops, in order. Indices are rank-local (goal::LocalOp).
class RankSink {
 public:
  virtual ~RankSink() = default;
  virtual goal::LocalOp add(const goal::Op& op, const Payload& payload) = 0;
  virtual void add_requires(goal::LocalOp dependent, goal::LocalOp prerequisite) = 0;
  virtual void add_irequires(goal::LocalOp dependent, goal::LocalOp prerequisite) = 0;
};

// "No op": a dependency on it is ignored, so that `prev` before the first step needs no branch.
inline constexpr goal::LocalOp kNoOp = 0xFFFFFFFFu;

// A list of ops to depend on, passed by value at the call; kNoOp entries are skipped.
class Deps {
 public:
  Deps() = default;
  Deps(goal::LocalOp op) : one_(op), ops_(&one_, 1) {}  // NOLINT: implicit, one dependency
  Deps(std::initializer_list<goal::LocalOp> ops) : ops_(ops.begin(), ops.size()) {}
  Deps(std::span<const goal::LocalOp> ops) : ops_(ops) {}  // NOLINT
  Deps(const std::vector<goal::LocalOp>& ops) : ops_(ops) {}  // NOLINT
  Deps(const Deps& other) : one_(other.one_), ops_(other.ops_.data() == &other.one_ ? std::span<const goal::LocalOp>(&one_, 1) : other.ops_) {}
  Deps& operator=(const Deps&) = delete;
  auto begin() const { return ops_.begin(); }
  auto end() const { return ops_.end(); }
  bool empty() const;  // no op other than kNoOp

 private:
  goal::LocalOp one_ = kNoOp;
  std::span<const goal::LocalOp> ops_;
};

class RankEmitter {
 public:
  // `entry`: ops already in `sink` that the collective must wait for (e.g. the compute that
  // produced its input). They are joined by a launch calc per channel.
  RankEmitter(const Plan& plan, std::uint32_t me, RankSink& sink, std::span<const goal::LocalOp> entry = {});

  const Plan& plan() const { return plan_; }
  const UnitLayout& layout() const { return layout_; }
  std::uint32_t me() const { return me_; }
  std::uint32_t n() const { return plan_.n; }

  // A message of `units` to group member `to` on `channel`. Its size is the units' bytes on
  // the wire of the plan's protocol. Sends on one connection (peer, channel) start in
  // order and at most max_in_flight are unfinished.
  goal::LocalOp send(std::uint32_t to, std::uint32_t channel, std::span<const UnitRange> units, Deps after = {});
  goal::LocalOp send(std::uint32_t to, std::uint32_t channel, UnitRange units, Deps after = {});
  // The matching receive. Returns the op after which the data is usable: the reduction's
  // calc for DataAction::Reduce (when reductions cost time), else the receive itself.
  // `after_start`: ops that must have started (not finished) first, e.g. the send of the
  // data this receive overwrites: waiting for that send to finish would deadlock two
  // partners exchanging by rendezvous.
  goal::LocalOp recv(std::uint32_t from, std::uint32_t channel, std::span<const UnitRange> units, DataAction action,
                     Deps after = {}, Deps after_start = {});
  goal::LocalOp recv(std::uint32_t from, std::uint32_t channel, UnitRange units, DataAction action, Deps after = {},
                     Deps after_start = {});
  // Local work on the channel's cpu.
  goal::LocalOp calc(SimTime duration, std::uint32_t channel, Deps after = {});

  // The ops of this collective nothing else in it waits for: what later work depends on.
  std::vector<goal::LocalOp> finish();

  std::uint64_t ops_emitted() const { return has_dependent_.size(); }

 private:
  struct Connection {
    goal::LocalOp last = kNoOp;             // previous op of this kind on the connection
    std::vector<goal::LocalOp> window;      // sends: the last max_in_flight sends, as a ring
    std::uint64_t count = 0;
  };
  goal::LocalOp add(const goal::Op& op, const Payload& payload, std::uint32_t channel, Deps after,
                    Deps after_start = {});
  void depend(goal::LocalOp dependent, goal::LocalOp prerequisite);
  goal::LocalOp launch(std::uint32_t channel);
  Connection& connection(goal::OpKind kind, std::uint32_t peer, std::uint32_t channel);
  goal::Op message(goal::OpKind kind, std::uint32_t peer, std::uint32_t channel, std::uint64_t data_bytes) const;
  // The NIC a message of this channel goes through (Plan::nic_of_rank).
  std::uint32_t nic(std::uint32_t channel) const;

  const Plan& plan_;
  UnitLayout layout_;
  std::uint32_t me_;
  RankSink& sink_;
  std::span<const goal::LocalOp> entry_;
  goal::LocalOp first_ = kNoOp;                 // first op this emitter added
  std::vector<std::uint8_t> has_dependent_;     // per op since first_
  std::vector<goal::LocalOp> launch_;           // per channel, kNoOp until used
  std::unordered_map<std::uint64_t, Connection> connections_;
};

}  // namespace collsim::collectives
