// NCCL_DEBUG=INFO logs as `collsim replay` reads them: line parsing, communicators, and the
// matching of calls across ranks. The reader takes files, so each input is written to one.
// Bad input may only end in an InputError.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "collsim/common/input_error.hpp"
#include "collsim/traces/nccl_log_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace collsim;
  // One file per fuzzing process, rewritten for every input and removed after it is read:
  // libFuzzer may leave through _exit, where no destructor runs.
  static const std::string path = "/tmp/collsim_fuzz_nccl_" + std::to_string(::getpid()) + ".log";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    (void)traces::read_nccl_logs({path});
  } catch (const InputError&) {
  }
  std::remove(path.c_str());
  return 0;
}
