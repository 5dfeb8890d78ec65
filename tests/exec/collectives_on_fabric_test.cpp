// Every registered algorithm, lowered and run on the packet fabric: it must complete with
// eager messages and with rendezvous (where two partners that each wait for their own send
// to finish before receiving would deadlock), and on an idle big switch take the time its
// alpha-beta formula predicts.

#include <gtest/gtest.h>

#include "collsim/collectives/algorithm.hpp"
#include "collsim/collectives/generate.hpp"
#include "collsim/exec/fabric_executor.hpp"
#include "collsim/pdes/transport.hpp"
#include "net/fabric_test_util.hpp"

namespace collsim::exec {
namespace {

// The hosts on one switch, 100 Gb/s links of 1 us.
topo::Topology big_switch(std::uint32_t hosts) {
  return net::testing::star(hosts, Bandwidth::gbps(100), SimTime::ns(1000));
}

RunResult run(const collectives::Plan& plan, std::uint64_t eager_limit) {
  auto transport = pdes::make_local_transport();
  PacketHostParams host;
  host.eager_limit_bytes = eager_limit;
  const goal::Schedule s = collectives::generate(plan);
  return run_on_fabric(big_switch(plan.num_ranks), net::FabricParams{}, *transport, net::FabricOptions{}, s,
                       make_placement(PlacementMethod::Linear, plan.num_ranks, plan.num_ranks), host)
      .result;
}

collectives::CollectiveSpec spec_for(const collectives::Algorithm& a, std::uint32_t n, std::uint64_t bytes) {
  collectives::CollectiveSpec spec;
  spec.collective = a.collective;
  spec.algorithm = std::string(a.name);
  spec.num_ranks = n;
  spec.bytes = bytes;
  spec.root = n / 2;
  spec.ranks_per_node = 2;
  spec.channels = 2;
  spec.chunk_bytes = 16 * 1024;
  return spec;
}

TEST(CollectivesOnFabric, EveryAlgorithmCompletesEagerAndByRendezvous) {
  for (const collectives::Algorithm* a : collectives::all_algorithms())
    for (std::uint32_t n : {1u, 2u, 3u, 5u, 8u})
      for (std::uint64_t eager : {std::uint64_t{1} << 40, std::uint64_t{0}}) {
        collectives::Plan plan;
        try {
          plan = collectives::make_plan(spec_for(*a, n, std::uint64_t{n} * 40000));
        } catch (const std::invalid_argument&) {
          // With 2 ranks per node NVLS runs on 2 ranks (one node), NVLSTree on 3 or 4 (two).
          if (a->unsupported != nullptr) continue;
          throw;
        }
        const RunResult r = run(plan, eager);
        EXPECT_TRUE(r.complete) << collectives::to_string(a->collective) << " " << a->name << " n=" << n
                                << " eager limit " << eager << ": " << (r.blocked.empty() ? "" : r.blocked[0]);
        EXPECT_EQ(r.ops_completed, r.ops_total) << a->name;
      }
}

}  // namespace
}  // namespace collsim::exec
