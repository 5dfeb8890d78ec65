#include "sample_results.hpp"

#include "collsim/goal/schedule_builder.hpp"

namespace collsim::out::test {

void make_sample_run(SampleRun& run) {
  // Rank 0 computes 500 ns, then sends 1250 B to rank 1, which receives and computes 100 ns.
  goal::ScheduleBuilder builder(2);
  builder.begin_rank(0);
  builder.add(goal::Op::calc(500));
  builder.add(goal::Op::send(1250, 1));
  builder.add_requires(1, 0);
  builder.end_rank();
  builder.begin_rank(1);
  builder.add(goal::Op::recv(1250, 0));
  builder.add(goal::Op::calc(100));
  builder.add_requires(1, 0);
  builder.end_rank();
  run.schedule = builder.finish();

  RunResults& r = run.results;
  r.attributes = {{"version", "0.1.0"}, {"command", "collsim run --ranks 2"}, {"configuration", "{\"seed\": 1}"}};
  r.schedule = &run.schedule;
  const auto ps = [](std::int64_t v) { return SimTime::ps(v); };
  r.op_times = {{0, 0, ps(0), ps(500'000)},
                {0, 1, ps(500'000), ps(1'500'000)},
                {1, 0, ps(0), ps(1'600'000)},
                {1, 1, ps(1'600'000), ps(1'700'000)}};
  // Global op order: rank 0's two ops, then rank 1's.
  r.op_role = {0, 1, 1, 0};
  r.role_names = {"compute", "dp"};

  r.links = {{"h0", "s0", 10'000'000'000}, {"s0", "h0", 10'000'000'000},
             {"s0", "h1", 40'000'000'000}, {"h1", "s0", 40'000'000'000}};
  // Two samples of 1 µs; the run ends at 1.7 µs, so the second covers only 0.7 µs.
  r.samples.interval_ps = 1'000'000;
  r.samples.time_ps = {1'000'000, 1'700'000};
  r.samples.bytes = {1250, 0, 2500, 0,
                     875, 0, 0, 64};
  r.samples.queue_bytes = {0, 0, 1000, 0,
                           0, 0, 0, 0};
  // Column sums of samples.bytes.
  r.link_bytes_total = {2125, 0, 2500, 64};

  r.flows = {{0, 1, 1250, ps(500'000), ps(1'600'000)}, {1, 0, 64, ps(1'500'000), std::nullopt}};
  r.collective_names = {"allreduce", "barrier"};
  r.collectives = {{0, 0, ps(500'000), ps(1'500'000)},
                   {1, 0, ps(0), ps(1'600'000)},
                   {1, 1, ps(1'600'000), std::nullopt}};
}

}  // namespace collsim::out::test
