// One rank's Chakra execution trace as `collsim replay` reads it (varint-prefixed protobuf,
// plain or gzip), then lowered alone as a one-rank program. Bad input may only end in an
// InputError.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "collsim/common/input_error.hpp"
#include "collsim/traces/chakra_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace collsim;
  // The reader takes a path (and maps the file), as replay gives it.
  static const std::string path = "/tmp/collsim-fuzz-" + std::to_string(::getpid()) + ".0.et";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    std::vector<traces::ChakraRankTrace> ranks{traces::read_chakra_file(path)};
    (void)traces::chakra_program(ranks, traces::CommGroups{});
  } catch (const InputError&) {
  }
  return 0;
}
