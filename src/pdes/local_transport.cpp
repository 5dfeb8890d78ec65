#include <cstring>

#include "collsim/pdes/transport.hpp"

namespace collsim::pdes {

namespace {

// One rank owns every LP, so nothing is ever sent; windows are whatever the engine asks.
class LocalTransport final : public Transport {
 public:
  std::uint32_t rank() const override { return 0; }
  std::uint32_t size() const override { return 1; }
  WindowSummary exchange(std::vector<std::vector<RemoteEvent>>& outbox, WindowSummary mine,
                         std::vector<RemoteEvent>& inbox, std::span<std::uint64_t>,
                         std::span<SimTime> outputs) override {
    if (!outputs.empty()) outputs[0] = mine.output;
    for (auto& batch : outbox) {
      inbox.insert(inbox.end(), batch.begin(), batch.end());
      batch.clear();
    }
    return mine;
  }
  std::vector<std::byte> gather(std::span<const std::byte> mine) override { return {mine.begin(), mine.end()}; }
  void max_all(std::span<double>) override {}
  void sum_all(std::span<double>) override {}
  void max_integers(std::span<std::int64_t>) override {}
  void sum_integers(std::span<std::uint64_t>) override {}
};

}  // namespace

std::unique_ptr<Transport> make_local_transport() { return std::make_unique<LocalTransport>(); }

}  // namespace collsim::pdes
