#pragma once
// LogGOPS parameters that stand for a topology in the message-level mode: the latency and
// per-byte gap of a path between servers (L, G_ps) and inside one (L_intra, G_intra_ps),
// with no per-message host costs (collectives model NCCL's own as calcs).

#include <string>
#include <vector>

#include "collsim/topo/topology.hpp"

namespace collsim::cli {

// "name=value" settings for --loggops-set, to be applied before the user's own.
std::vector<std::string> loggops_settings_for(const topo::Topology& t);

}  // namespace collsim::cli
