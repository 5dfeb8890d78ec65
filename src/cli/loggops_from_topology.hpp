#pragma once
// LogGOPS parameters that stand for a topology in the message-level mode: the latency and
// per-byte gap of a path between servers (L, G_ps) and inside one (L_intra, G_intra_ps),
// with no per-message host costs (collectives model NCCL's own as calcs).

#include <string>
#include <vector>

#include "collsim/exec/execution.hpp"
#include "collsim/net/fabric_params.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::cli {

// "name=value" settings for --loggops-set, to be applied before the user's own.
std::vector<std::string> loggops_settings_for(const topo::Topology& t);

// The packet mode's --scale-up message: the path inside a server (its latency and
// bottleneck rate, from the first host to the second) with the fabric's packet sizes; off
// (hosts_per_server 0) for a topology without multi-host servers.
exec::ScaleUpMessages scale_up_messages(const topo::Topology& t, const net::FabricParams& fabric);

}  // namespace collsim::cli
