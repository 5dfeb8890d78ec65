#pragma once
// Which GPU plays which part. By default (order tp-dp-pp) rank = tp_index + TP × (dp_index +
// DP × stage): a TP group is consecutive ranks (one node, under linear placement), DP groups
// stride by TP, pipeline stages are the outermost blocks (Megatron's default order); another
// order permutes the strides. EP groups are blocks of EP consecutive DP indices; the
// expert-data-parallel group joins equal EP indices.

#include <cstdint>
#include <vector>

#include "collsim/goal/op.hpp"
#include "collsim/workload/workload_spec.hpp"

namespace collsim::workload {

struct RankCoordinates {
  std::uint32_t tp = 0, dp = 0, stage = 0;
};

class ParallelLayout {
 public:
  explicit ParallelLayout(const ParallelSpec& p);

  std::uint32_t world() const { return p_.tp * p_.dp * p_.pp; }
  RankCoordinates coordinates(goal::RankId rank) const;
  goal::RankId rank(RankCoordinates c) const;

  // The groups `rank` belongs to, as schedule ranks in group order.
  std::vector<goal::RankId> tp_group(goal::RankId rank) const;
  std::vector<goal::RankId> dp_group(goal::RankId rank) const;
  std::vector<goal::RankId> ep_group(goal::RankId rank) const;
  std::vector<goal::RankId> expert_dp_group(goal::RankId rank) const;
  // The same TP and DP indices on another stage.
  goal::RankId on_stage(goal::RankId rank, std::uint32_t stage) const;

 private:
  std::uint32_t stride(Dimension d) const;
  ParallelSpec p_;
};

}  // namespace collsim::workload
