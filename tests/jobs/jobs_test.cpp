#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "collsim/common/input_error.hpp"
#include "collsim/goal/schedule_builder.hpp"
#include "collsim/jobs/gpu_assignment.hpp"
#include "collsim/jobs/job_merge.hpp"
#include "collsim/jobs/job_spec.hpp"
#include "collsim/jobs/shared_links.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::jobs {
namespace {

// Into this process's own folder, removed when the tests end (ctest runs several at once).
std::string write_file(const std::string& name, const std::string& text) {
  static const test_support::ScratchDir dir;
  return dir.write(name, text).string();
}

TEST(JobsFile, ReadsEveryKindOfJobAndRequest) {
  const JobsFile f = load_jobs_file(write_file("jobs.yaml", R"(topology: fat_tree_k8
jobs:
  - name: train
    workload: gpt3_1.3b
    gpus: {nodes: 0-1}
  - schedule: ring.goal
    gpus: [4, 5, 6]
    start: 2ms
  - collective: {coll: alltoall, bytes: 1MiB, algo: pairwise, channels: 2, repeat: 3}
    gpus: {policy: random, count: 8, seed: 5}
  - trace: [a.et, b.et]
)"));
  EXPECT_EQ(f.topology, "fat_tree_k8");
  ASSERT_EQ(f.jobs.size(), 4u);
  EXPECT_EQ(f.jobs[3].kind, JobKind::Trace);
  EXPECT_EQ(f.jobs[3].traces, (std::vector<std::string>{"a.et", "b.et"}));
  EXPECT_EQ(f.jobs[0].name, "train");
  EXPECT_EQ(f.jobs[0].kind, JobKind::Workload);
  EXPECT_EQ(f.jobs[0].gpus.policy, GpuPolicy::Nodes);
  EXPECT_EQ(f.jobs[0].gpus.last_node, 1u);
  EXPECT_EQ(f.jobs[1].name, "job1");
  EXPECT_EQ(f.jobs[1].gpus.hosts, (std::vector<std::uint32_t>{4, 5, 6}));
  EXPECT_EQ(f.jobs[1].start, SimTime::ms(2));
  EXPECT_EQ(f.jobs[2].collective.collective, collectives::Collective::AllToAll);
  EXPECT_EQ(f.jobs[2].collective.repeat, 3u);
  EXPECT_EQ(f.jobs[2].gpus.policy, GpuPolicy::Random);
  EXPECT_EQ(f.jobs[2].gpus.seed, 5u);
}

TEST(JobsFile, MistakesNameTheirLine) {
  auto line_of = [](const std::string& text) -> std::uint64_t {
    try {
      load_jobs_file(write_file("bad.yaml", text));
    } catch (const InputError& e) {
      return e.line();
    }
    return 0;
  };
  EXPECT_EQ(line_of("jobs:\n  - workload: a\n    schedule: b.goal\n"), 2u);            // two kinds
  EXPECT_EQ(line_of("jobs:\n  - workload: a\n    gpus: {policy: tight}\n"), 3u);         // unknown policy
  EXPECT_EQ(line_of("jobs:\n  - collective: {coll: allreduce}\n"), 2u);                // no bytes
  EXPECT_EQ(line_of("jobs:\n  - collective: {coll: allreduce, bytes: 1MiB}\n"), 2u);   // no GPUs
  EXPECT_EQ(line_of("jobs:\n  - workload: a\n    gpus: {nodes: 3-1}\n"), 3u);          // backwards
  EXPECT_EQ(line_of("jobs:\n  - workload: a\n    colour: red\n"), 3u);                 // unknown key
  EXPECT_EQ(line_of("jobs: []\n"), 1u);
}

// Two servers of four GPUs: h0..h3 on server 0, h4..h7 on server 1.
topo::Topology two_servers() {
  topo::Topology t;
  const auto sw = t.add_node("sw", topo::NodeKind::Switch);
  for (std::uint32_t h = 0; h < 8; ++h) {
    const auto n = t.add_node("h" + std::to_string(h), topo::NodeKind::Host, {}, h / 4);
    t.add_link(n, sw, Bandwidth::gbps(100), SimTime::ns(100));
  }
  return t;
}

JobSpec job(std::string name, GpuRequest g) {
  JobSpec j;
  j.name = std::move(name);
  j.gpus = std::move(g);
  return j;
}

TEST(GpuAssignment, ListsAndNodesFirstThenPolicies) {
  const topo::Topology t = two_servers();
  GpuRequest list{GpuPolicy::List, {5}, 0, 0, 0, 1};
  GpuRequest packed{GpuPolicy::Packed, {}, 0, 0, 3, 1};
  GpuRequest node{GpuPolicy::Nodes, {}, 0, 0, 0, 1};
  const auto a = assign_gpus({job("p", packed), job("l", list), job("n", node)}, {0, 0, 4}, t);
  EXPECT_EQ(a[1], (std::vector<std::uint32_t>{5}));
  EXPECT_EQ(a[2], (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(a[0], (std::vector<std::uint32_t>{4, 6, 7}));  // what is left, in order
}

TEST(GpuAssignment, SpreadTakesOnePerNodeInTurn) {
  const topo::Topology t = two_servers();
  const auto a = assign_gpus({job("s", {GpuPolicy::Spread, {}, 0, 0, 4, 1})}, {0}, t);
  EXPECT_EQ(a[0], (std::vector<std::uint32_t>{0, 4, 1, 5}));
}

TEST(GpuAssignment, RandomIsSeeded) {
  const topo::Topology t = two_servers();
  const auto a = assign_gpus({job("r", {GpuPolicy::Random, {}, 0, 0, 8, 7})}, {0}, t);
  const auto b = assign_gpus({job("r", {GpuPolicy::Random, {}, 0, 0, 8, 7})}, {0}, t);
  EXPECT_EQ(a, b);
  std::vector<std::uint32_t> sorted = a[0];
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(GpuAssignment, ConflictsAreErrorsNamingTheJobs) {
  const topo::Topology t = two_servers();
  auto message = [&](const std::vector<JobSpec>& jobs, const std::vector<std::uint32_t>& needed) -> std::string {
    try {
      assign_gpus(jobs, needed, t);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message({job("a", {GpuPolicy::List, {1, 2}, 0, 0, 0, 1}), job("b", {GpuPolicy::Nodes, {}, 0, 0, 0, 1})},
                    {0, 0})
                .find("jobs 'a' and 'b' both ask for GPU 1"),
            std::string::npos);
  EXPECT_NE(message({job("big", {GpuPolicy::Packed, {}, 0, 0, 9, 1})}, {0}).find("only 8 of"), std::string::npos);
  EXPECT_NE(message({job("far", {GpuPolicy::List, {8}, 0, 0, 0, 1})}, {0}).find("GPU 8, but"), std::string::npos);
  EXPECT_NE(message({job("w", {GpuPolicy::Nodes, {}, 0, 0, 0, 1})}, {16}).find("runs 16 ranks but is given 4"),
            std::string::npos);
  EXPECT_NE(message({job("n", {GpuPolicy::Nodes, {}, 1, 2, 0, 1})}, {0}).find("node 2"), std::string::npos);
}

goal::Schedule ping() {
  // Rank 0 sends 1 KiB to rank 1 after a 5 ns calc; rank 1 receives from any source.
  goal::ScheduleBuilder b(2);
  b.begin_rank(0);
  const auto c = b.add(goal::Op::calc(5));
  const auto s = b.add(goal::Op::send(1024, 1));
  b.add_requires(s, c);
  b.end_rank();
  b.begin_rank(1);
  b.add(goal::Op::recv(1024, goal::kAnySource));
  b.end_rank();
  return b.finish();
}

TEST(JobMerge, ShiftsRanksAndPeersAndWaitsForTheStart) {
  const goal::Schedule a = ping(), b = ping();
  const MergedJobs m = merge_jobs({&a, &b}, {SimTime::zero(), SimTime::us(3)});
  EXPECT_EQ(m.first_rank, (std::vector<goal::RankId>{0, 2, 4}));
  ASSERT_EQ(m.schedule.num_ranks(), 4u);
  // Job 0 unchanged.
  EXPECT_EQ(m.schedule.rank(0).num_ops(), 2u);
  EXPECT_EQ(m.schedule.rank(0).peer(1), 1u);
  // Job 1: a 3000 ns calc first, which the ops without prerequisites wait for.
  const goal::RankOps r2 = m.schedule.rank(2);
  ASSERT_EQ(r2.num_ops(), 3u);
  EXPECT_EQ(r2.kind(0), goal::OpKind::Calc);
  EXPECT_EQ(r2.size(0), 3000u);
  EXPECT_EQ(r2.peer(2), 3u);  // the send goes to job 1's rank 1, now rank 3
  EXPECT_EQ(std::vector<std::uint32_t>(r2.requires_of(1).begin(), r2.requires_of(1).end()),
            std::vector<std::uint32_t>{0});
  EXPECT_EQ(std::vector<std::uint32_t>(r2.requires_of(2).begin(), r2.requires_of(2).end()),
            std::vector<std::uint32_t>{1});
  const goal::RankOps r3 = m.schedule.rank(3);
  EXPECT_EQ(r3.peer(1), goal::kAnySource);  // a wildcard stays one: only its job sends to it
  EXPECT_THROW(merge_jobs({&a}, {SimTime::ps(1500)}), std::invalid_argument);
}

TEST(SharedLinks, OnlyDirectionsOfTwoJobsBusiestFirst) {
  // Slot 1 and 3 carry one job each; slot 2 (12 bytes) and slot 0 (11) are shared.
  const std::vector<std::vector<std::uint64_t>> bytes = {{10, 0, 6, 7}, {1, 9, 5, 0}, {0, 0, 1, 0}};
  const std::vector<SharedLink> s = shared_links(bytes, 5);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].slot, 2u);
  EXPECT_EQ(s[0].total, 12u);
  EXPECT_EQ(s[0].bytes_by_job, (std::vector<std::uint64_t>{6, 5, 1}));
  EXPECT_EQ(s[1].slot, 0u);
  EXPECT_EQ(shared_links(bytes, 1).size(), 1u);
  EXPECT_THROW(shared_links({{1, 2}, {1}}, 5), std::invalid_argument);
}

}  // namespace
}  // namespace collsim::jobs
