#pragma once
// A small run's results made by hand, for the writer's tests and for the plot script's test.
// The numbers are chosen so that every derived value is easy to check by hand (see the .cpp).

#include <string>

#include "collsim/goal/schedule.hpp"
#include "collsim/out/run_results.hpp"

namespace collsim::out::test {

struct SampleRun {
  goal::Schedule schedule;
  RunResults results;  // results.schedule points at schedule: do not copy a SampleRun
};

// Fills `run` in place (RunResults::schedule must point into the caller's object).
void make_sample_run(SampleRun& run);

}  // namespace collsim::out::test
