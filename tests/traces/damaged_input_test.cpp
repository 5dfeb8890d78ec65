// Damaged input of every kind gives an InputError, never a crash, a hang or another exception:
// the unrolled ring's file with bytes overwritten or cut at many places (plain and gzip), and
// an NCCL log cut at every character of a call line. Run under the sanitizers, this is a small
// deterministic fuzz.

#include <gtest/gtest.h>

#include <random>

#include "collsim/common/input_error.hpp"
#include "collsim/traces/chakra_reader.hpp"
#include "collsim/traces/nccl_log_reader.hpp"
#include "collsim/traces/replay_lowering.hpp"
#include "traces/et_writer.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::traces {
namespace {

using namespace testing;

// Reads the rank file and lowers it as a one-rank program; returns whether it was refused.
bool refused(const std::string& path) {
  try {
    std::vector<ChakraRankTrace> ranks{read_chakra_file(path)};
    lower_replay(chakra_program(ranks, {}));
    return false;
  } catch (const InputError&) {
    return true;
  }
}

TEST(DamagedInput, OverwrittenOrCutChakraFilesAreRefusedOrRead) {
  test_support::ScratchDir dir;
  const std::string bytes =
      read_file(std::string(COLLSIM_TEST_DATA) + "/traces/chakra/custom_ring_allreduce_8npus_1MB/custom_allreduce.0.et");
  std::mt19937_64 random(42);
  int refusals = 0;
  for (int i = 0; i < 300; ++i) {
    std::string damaged = bytes;
    const int hits = 1 + static_cast<int>(random() % 4);
    for (int h = 0; h < hits; ++h) damaged[random() % damaged.size()] = static_cast<char>(random());
    if (i % 3 == 0) damaged.resize(random() % damaged.size());
    const std::string path = dir / ("d." + std::to_string(i) + ".et");
    write_file(path, i % 2 == 0 ? damaged : gzip(damaged));
    refusals += refused(path) ? 1 : 0;
  }
  // A peer out of range, a missing dependency or a cut node is refused; a changed name is not.
  EXPECT_GT(refusals, 0);
}

TEST(DamagedInput, NcclLogCutAnywhereIsRefusedOrRead) {
  test_support::ScratchDir dir;
  const std::string init = "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 busId 0 commId 0x9 - Init COMPLETE\n";
  const std::string line =
      "h:1:1 [0] NCCL INFO AllReduce: opCount 1f sendbuff 0x1 recvbuff 0x1 count 256 datatype 7 op 0 root 0 comm 0x1 "
      "[nranks=1] stream 0x2";
  for (std::size_t cut = 0; cut <= line.size(); ++cut) {
    write_file(dir / "cut.log", init + line.substr(0, cut) + "\n");
    try {
      read_nccl_logs({dir / "cut.log"});
    } catch (const InputError&) {
    }
  }
}

}  // namespace
}  // namespace collsim::traces
