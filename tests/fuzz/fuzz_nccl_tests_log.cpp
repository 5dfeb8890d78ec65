// nccl-tests output as `collsim validate` reads it: the parser, then what validate infers
// from each run (collective, ranks, nodes) and the check of every row against nccl-tests'
// formulas. Bad input may only end in an InputError.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collsim/common/input_error.hpp"
#include "collsim/validation/nccl_tests_log.hpp"
#include "collsim/validation/run_facts.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace collsim;
  try {
    validation::LogFile log =
        validation::parse_nccl_tests_log({reinterpret_cast<const char*>(data), size}, "fuzz.log");
    for (validation::TestRun& run : log.runs) {
      const validation::RunFacts facts = validation::infer_run_facts(run);
      if (!facts.collective || facts.ranks < 2) continue;
      validation::derive_summary_times(run, *facts.collective, facts.ranks);
      (void)validation::check_consistency(run, *facts.collective, facts.ranks);
    }
  } catch (const InputError&) {
  }
  return 0;
}
