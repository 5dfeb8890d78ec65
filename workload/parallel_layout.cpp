#include "collsim/workload/parallel_layout.hpp"

namespace collsim::workload {

ParallelLayout::ParallelLayout(const ParallelSpec& p) : p_(p) {}

RankCoordinates ParallelLayout::coordinates(goal::RankId rank) const {
  return {rank % p_.tp, (rank / p_.tp) % p_.dp, rank / (p_.tp * p_.dp)};
}

goal::RankId ParallelLayout::rank(RankCoordinates c) const { return c.tp + p_.tp * (c.dp + p_.dp * c.stage); }

std::vector<goal::RankId> ParallelLayout::tp_group(goal::RankId r) const {
  RankCoordinates c = coordinates(r);
  std::vector<goal::RankId> g;
  for (c.tp = 0; c.tp < p_.tp; ++c.tp) g.push_back(rank(c));
  return g;
}

std::vector<goal::RankId> ParallelLayout::dp_group(goal::RankId r) const {
  RankCoordinates c = coordinates(r);
  std::vector<goal::RankId> g;
  for (c.dp = 0; c.dp < p_.dp; ++c.dp) g.push_back(rank(c));
  return g;
}

std::vector<goal::RankId> ParallelLayout::ep_group(goal::RankId r) const {
  RankCoordinates c = coordinates(r);
  const std::uint32_t first = c.dp / p_.ep * p_.ep;
  std::vector<goal::RankId> g;
  for (c.dp = first; c.dp < first + p_.ep; ++c.dp) g.push_back(rank(c));
  return g;
}

std::vector<goal::RankId> ParallelLayout::expert_dp_group(goal::RankId r) const {
  RankCoordinates c = coordinates(r);
  const std::uint32_t offset = c.dp % p_.ep;
  std::vector<goal::RankId> g;
  for (c.dp = offset; c.dp < p_.dp; c.dp += p_.ep) g.push_back(rank(c));
  return g;
}

goal::RankId ParallelLayout::on_stage(goal::RankId r, std::uint32_t stage) const {
  RankCoordinates c = coordinates(r);
  c.stage = stage;
  return rank(c);
}

}  // namespace collsim::workload
