// One rank's Chakra execution trace as `collsim replay` reads it (varint-prefixed protobuf,
// plain or gzip), then lowered alone as a one-rank program. Bad input may only end in an
// InputError.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collsim/common/input_error.hpp"
#include "collsim/traces/chakra_reader.hpp"
#include "scratch_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace collsim;
  // The reader takes a path (and maps the file), as replay gives it.
  const std::string path = fuzz::write_scratch_file({reinterpret_cast<const char*>(data), size}, ".0.et");
  try {
    std::vector<traces::ChakraRankTrace> ranks{traces::read_chakra_file(path)};
    (void)traces::chakra_program(ranks, traces::CommGroups{});
  } catch (const InputError&) {
  }
  return 0;
}
