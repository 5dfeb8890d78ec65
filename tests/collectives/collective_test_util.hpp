#pragma once
// Shared by the collectives tests: generate, verify, and break schedules on purpose.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "collsim/collectives/generate.hpp"
#include "collsim/collectives/spec.hpp"
#include "collsim/collectives/verifier.hpp"

namespace collsim::collectives::testing {

// The rank counts every algorithm must handle.
inline const std::vector<std::uint32_t> kRankCounts = {1, 2, 3, 4, 5, 7, 8, 16, 33, 64};

inline CollectiveSpec spec_of(Collective c, const std::string& algorithm, std::uint32_t ranks, std::uint64_t bytes) {
  CollectiveSpec spec;
  spec.collective = c;
  spec.algorithm = algorithm;
  spec.num_ranks = ranks;
  spec.bytes = bytes;
  return spec;
}

inline VerifyReport generate_and_verify(const CollectiveSpec& spec) {
  return verify(generate_annotated(spec));
}

// Per rank: the sends (or receives) and their bytes.
struct RankTraffic {
  std::vector<std::uint64_t> messages, bytes;
};
inline RankTraffic traffic_of(const goal::Schedule& s, goal::OpKind kind = goal::OpKind::Send) {
  RankTraffic t{std::vector<std::uint64_t>(s.num_ranks(), 0), std::vector<std::uint64_t>(s.num_ranks(), 0)};
  for (goal::RankId r = 0; r < s.num_ranks(); ++r) {
    const goal::RankOps ops = s.rank(r);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
      if (ops.kind(i) == kind) {
        ++t.messages[r];
        t.bytes[r] += ops.size(i);
      }
  }
  return t;
}

// The peers of rank r's ops of one kind, in order.
inline std::vector<goal::RankId> peers_of(const goal::Schedule& s, goal::RankId r, goal::OpKind kind) {
  std::vector<goal::RankId> peers;
  const goal::RankOps ops = s.rank(r);
  for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
    if (ops.kind(i) == kind) peers.push_back(ops.peer(i));
  return peers;
}

// ceil(log2 n), 0 for n <= 1: the rounds of Bruck, dissemination and binomial trees.
inline std::uint32_t ceil_log2(std::uint32_t n) {
  std::uint32_t k = 0;
  while ((std::uint64_t{1} << k) < n) ++k;
  return k;
}

// A sink that passes everything to a RecordingSink but lets a test rewrite one op on one
// rank: the way to build deliberately broken schedules from correct ones.
class TamperingSink final : public RankSink {
 public:
  using Tamper = std::function<void(goal::Op&, Payload&, std::vector<UnitRange>&)>;
  TamperingSink(RankSink& inner, goal::LocalOp victim, Tamper tamper)
      : inner_(inner), victim_(victim), tamper_(std::move(tamper)) {}
  goal::LocalOp add(const goal::Op& op, const Payload& payload) override {
    if (seen_++ != victim_) return inner_.add(op, payload);
    goal::Op changed = op;
    Payload p = payload;
    std::vector<UnitRange> units(payload.units.begin(), payload.units.end());
    tamper_(changed, p, units);
    p.units = units;
    return inner_.add(changed, p);
  }
  void add_requires(goal::LocalOp d, goal::LocalOp p) override { inner_.add_requires(d, p); }
  void add_irequires(goal::LocalOp d, goal::LocalOp p) override { inner_.add_irequires(d, p); }

 private:
  RankSink& inner_;
  goal::LocalOp victim_;
  Tamper tamper_;
  goal::LocalOp seen_ = 0;
};

// The plan's schedule with op `victim` of schedule rank `rank` rewritten by `tamper`.
inline AnnotatedSchedule tampered(const Plan& plan, goal::RankId rank, goal::LocalOp victim,
                                  const TamperingSink::Tamper& tamper) {
  AnnotatedSchedule out{plan, {}, {}};
  goal::ScheduleBuilder builder(plan.num_ranks);
  RecordingSink recorder(builder, out.annotations);
  for (goal::RankId r = 0; r < plan.num_ranks; ++r) {
    builder.begin_rank(r);
    std::uint32_t member = 0;
    while (member < plan.n && plan.group[member] != r) ++member;
    if (member < plan.n) {
      if (r == rank) {
        TamperingSink sink(recorder, victim, tamper);
        emit_member(plan, member, sink);
      } else {
        emit_member(plan, member, recorder);
      }
    }
    builder.end_rank();
  }
  out.schedule = builder.finish();
  return out;
}

// A tampering that drops an op: it becomes a calc of no time carrying nothing.
inline void drop(goal::Op& op, Payload& payload, std::vector<UnitRange>& units) {
  op = goal::Op::calc(0);
  payload = Payload{};
  units.clear();
}

// The verifier failed, and its error contains every one of `parts`.
inline void expect_error(const VerifyReport& r, std::initializer_list<std::string_view> parts) {
  ASSERT_FALSE(r.ok);
  for (std::string_view part : parts) {
    EXPECT_NE(r.error.find(part), std::string::npos) << "'" << part << "' in: " << r.error;
  }
}

// Index of the `nth` op of `kind` on schedule rank `rank`.
inline goal::LocalOp nth_op(const goal::Schedule& s, goal::RankId rank, goal::OpKind kind, std::uint32_t nth) {
  const goal::RankOps ops = s.rank(rank);
  for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
    if (ops.kind(i) == kind && nth-- == 0) return i;
  ADD_FAILURE() << "rank " << rank << " has too few ops of that kind";
  return 0;
}

}  // namespace collsim::collectives::testing
