#include "collsim/workload/parallel_layout.hpp"

namespace collsim::workload {

ParallelLayout::ParallelLayout(const ParallelSpec& p) : p_(p) {}

std::uint32_t ParallelLayout::stride(Dimension d) const {
  std::uint32_t s = 1;
  for (Dimension o : p_.order) {
    if (o == d) return s;
    s *= o == Dimension::TP ? p_.tp : o == Dimension::DP ? p_.dp : p_.pp;
  }
  return s;
}

RankCoordinates ParallelLayout::coordinates(goal::RankId rank) const {
  return {rank / stride(Dimension::TP) % p_.tp, rank / stride(Dimension::DP) % p_.dp,
          rank / stride(Dimension::PP) % p_.pp};
}

goal::RankId ParallelLayout::rank(RankCoordinates c) const {
  return c.tp * stride(Dimension::TP) + c.dp * stride(Dimension::DP) + c.stage * stride(Dimension::PP);
}

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
