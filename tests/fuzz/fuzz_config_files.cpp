// The YAML files a user writes: topologies, system files, calibrations and workloads. The
// first byte picks the reader (scripts/fuzz.sh prefixes each seed with its reader's byte),
// the rest is the file. Bad input may only end in an InputError.
//
// Inputs with an integer above 4096 are skipped: the readers accept topologies of up to 16 M
// nodes, which take seconds and gigabytes to build and would only make the fuzzer time out;
// those limits have their own unit tests.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "collsim/common/input_error.hpp"
#include "collsim/topo/loader.hpp"
#include "collsim/validation/model_parameters.hpp"
#include "collsim/validation/system_file.hpp"
#include "collsim/workload/workload_loader.hpp"
#include "scratch_file.hpp"

namespace {

// An integer part above 4096 or an exponent (the digits after a decimal point do not count).
bool has_large_number(std::string_view text) {
  std::uint64_t value = 0;
  bool fraction = false;
  char previous = ' ';
  for (char ch : text) {
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      if (previous == 'e' || previous == 'E' || previous == '+') return true;  // 1e9, 1e+9
      if (!std::isdigit(static_cast<unsigned char>(previous))) fraction = previous == '.';
      if (!fraction) {
        value = value * 10 + static_cast<std::uint64_t>(ch - '0');
        if (value > 4096) return true;
      }
    } else {
      value = 0;
    }
    previous = ch;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace collsim;
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (has_large_number(text)) return 0;
  try {
    switch (data[0] % 4) {
      case 0: (void)topo::parse_topology(std::string(text), "fuzz.yaml"); break;
      case 1: (void)validation::read_system_file(fuzz::write_scratch_file(text, ".yaml")); break;
      case 2: (void)validation::read_calibration(fuzz::write_scratch_file(text, ".yaml")); break;
      default: (void)workload::load_workload(fuzz::write_scratch_file(text, ".yaml")); break;
    }
  } catch (const InputError&) {
  }
  return 0;
}
