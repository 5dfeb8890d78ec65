#pragma once
// Readers that take a path, as the CLI gives them, get the fuzzer's input through one file per
// process in /tmp (scripts/fuzz.sh removes them at the end).

#include <unistd.h>

#include <fstream>
#include <string>
#include <string_view>

namespace collsim::fuzz {

// Overwrites /tmp/collsim-fuzz-<pid><suffix> with `bytes` and returns its path.
inline std::string write_scratch_file(std::string_view bytes, std::string_view suffix) {
  const std::string path = "/tmp/collsim-fuzz-" + std::to_string(::getpid()) + std::string(suffix);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

}  // namespace collsim::fuzz
