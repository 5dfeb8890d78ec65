#include "collsim/pdes_models/phold.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "collsim/pdes/engine.hpp"
#include "collsim/pdes_models/history_hash.hpp"

namespace collsim::pdes_models {

namespace {

using pdes::LpId;

struct PholdMessage {
  LpId sender;
  std::uint32_t sender_count;  // events the sender had sent before this one
};

class PholdLp final : public pdes::LogicalProcess {
 public:
  explicit PholdLp(const PholdConfig& config) : config_(config) {}

  void start() override {
    for (std::uint32_t i = 0; i < config_.events_per_lp; ++i) send(id());
  }

  void on_event(const PholdMessage& m) {
    hash_ = mix_hash(mix_hash(mix_hash(hash_, static_cast<std::uint64_t>(now().picoseconds())), m.sender), m.sender_count);
    ++received_;
    send(random().uniform() < config_.remote ? static_cast<LpId>(random().below(config_.lps)) : id());
  }

  std::uint64_t hash() const { return mix_hash(hash_, received_); }

  using Handlers = pdes::Handlers<&PholdLp::on_event>;

 private:
  void send(LpId to) {
    const double extra = random().exponential(static_cast<double>(config_.mean_delay.picoseconds()));
    schedule<&PholdLp::on_event>(to, config_.lookahead + SimTime::ps(static_cast<std::int64_t>(extra + 0.5)),
                                 PholdMessage{id(), sent_++});
  }

  const PholdConfig& config_;
  std::uint64_t hash_ = 0;
  std::uint64_t received_ = 0;
  std::uint32_t sent_ = 0;
};

}  // namespace

PholdResult run_phold(const PholdConfig& config, pdes::Transport& transport) {
  if (config.lps == 0) throw std::invalid_argument("PHOLD needs at least one LP");
  if (!(config.remote >= 0 && config.remote <= 1)) throw std::invalid_argument("--remote must be within [0, 1]");
  if (config.lookahead <= SimTime::zero() && transport.size() > 1)
    throw std::invalid_argument("PHOLD on several ranks needs a positive lookahead");
  if (config.mean_delay < SimTime::zero()) throw std::invalid_argument("the mean delay must not be negative");

  pdes::LpGraph graph;
  graph.num_lps = config.lps;
  graph.any_to_any = config.lookahead;
  const pdes::Partition partition = pdes::make_partition(graph, transport.size(), config.partition, config.seed);
  pdes::Engine engine(graph, partition, transport, {config.seed, config.end, config.queue});
  std::vector<PholdLp*> mine;
  for (LpId id : engine.local_lps()) mine.push_back(&engine.emplace<PholdLp>(id, config));

  PholdResult result;
  result.stats = engine.run();
  std::vector<std::pair<LpId, std::uint64_t>> hashes;
  for (const PholdLp* lp : mine) hashes.emplace_back(lp->id(), lp->hash());
  result.checksum = combine_lp_hashes(hashes, transport);
  return result;
}

}  // namespace collsim::pdes_models
