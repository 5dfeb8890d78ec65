#include "collsim/pdes_models/token_torus.hpp"

#include <deque>
#include <stdexcept>
#include <vector>

#include "collsim/pdes/engine.hpp"
#include "collsim/pdes_models/history_hash.hpp"

namespace collsim::pdes_models {

namespace {

using pdes::LpId;

struct Token {
  std::uint64_t id;
  std::uint32_t destination;  // router index of the destination host
  std::uint32_t hops;
  SimTime born;
};

// Events at the same time: a router first finishes the token it serves, then takes arrivals.
constexpr pdes::Priority kServiceDone = 0;
constexpr pdes::Priority kArrival = 1;

class Router final : public pdes::LogicalProcess {
 public:
  Router(const TokenTorusConfig& c, std::uint32_t index) : c_(c), index_(index) {}

  void on_token(const Token& t) {
    hash_ = mix_hash(mix_hash(hash_, static_cast<std::uint64_t>(now().picoseconds())), t.id);
    queue_.push_back(t);
    if (queue_.size() == 1) schedule<&Router::on_service_done>(id(), c_.service, kServiceDone);
  }

  void on_service_done();

  std::uint64_t hash() const { return hash_; }

  using Handlers = pdes::Handlers<&Router::on_token, &Router::on_service_done>;

 private:
  const TokenTorusConfig& c_;
  std::uint32_t index_;
  std::deque<Token> queue_;
  std::uint64_t hash_ = 0;
};

class Host final : public pdes::LogicalProcess {
 public:
  Host(const TokenTorusConfig& c, std::uint32_t router) : c_(c), router_(router) {}

  void start() override {
    for (std::uint32_t i = 0; i < c_.tokens_per_host; ++i) think();
  }

  void on_think() {
    const std::uint32_t routers = c_.width * c_.height;
    std::uint32_t dest = static_cast<std::uint32_t>(random().below(routers - 1));
    if (dest >= router_) ++dest;  // anyone but itself
    const Token t{(std::uint64_t{router_} << 32) | sent_++, dest, 0, now()};
    hash_ = mix_hash(hash_, t.id);
    schedule<&Router::on_token>(router_, SimTime::zero(), t, kArrival);
  }

  void on_delivered(const Token& t) {
    hash_ = mix_hash(mix_hash(mix_hash(hash_, t.id), t.hops), static_cast<std::uint64_t>((now() - t.born).picoseconds()));
    ++delivered_;
    hops_ += t.hops;
    think();
  }

  std::uint64_t hash() const { return mix_hash(hash_, delivered_); }
  std::uint64_t delivered() const { return delivered_; }
  std::uint64_t hops() const { return hops_; }

  using Handlers = pdes::Handlers<&Host::on_think, &Host::on_delivered>;

 private:
  void think() {
    const double wait = random().exponential(static_cast<double>(c_.mean_think.picoseconds()));
    schedule<&Host::on_think>(id(), SimTime::ps(static_cast<std::int64_t>(wait + 0.5)));
  }

  const TokenTorusConfig& c_;
  std::uint32_t router_;
  std::uint32_t sent_ = 0;
  std::uint64_t delivered_ = 0;
  std::uint64_t hops_ = 0;
  std::uint64_t hash_ = 0;
};

void Router::on_service_done() {
  Token t = queue_.front();
  queue_.pop_front();
  hash_ = mix_hash(hash_, t.id ^ 0x5e41ce);
  const std::uint32_t x = index_ % c_.width, y = index_ / c_.width;
  const std::uint32_t dx = t.destination % c_.width, dy = t.destination / c_.width;
  if (x == dx && y == dy) {
    schedule<&Host::on_delivered>(c_.width * c_.height + index_, SimTime::zero(), t, kArrival);
  } else {
    // Dimension order, the short way round each ring.
    auto step = [](std::uint32_t from, std::uint32_t to, std::uint32_t size) {
      const std::uint32_t forward = (to + size - from) % size;
      return forward <= size / 2 ? (from + 1) % size : (from + size - 1) % size;
    };
    std::uint32_t next;
    SimTime latency;
    if (x != dx) {
      next = y * c_.width + step(x, dx, c_.width);
      latency = c_.x_latency;
    } else {
      next = step(y, dy, c_.height) * c_.width + x;
      latency = c_.y_latency;
    }
    ++t.hops;
    schedule<&Router::on_token>(next, latency, t, kArrival);
  }
  if (!queue_.empty()) schedule<&Router::on_service_done>(id(), c_.service, kServiceDone);
}

}  // namespace

pdes::LpGraph token_torus_graph(const TokenTorusConfig& c) {
  const std::uint32_t routers = c.width * c.height;
  pdes::LpGraph g;
  g.num_lps = 2 * routers;
  g.weight.assign(g.num_lps, 1);
  for (std::uint32_t r = 0; r < routers; ++r) {
    const std::uint32_t x = r % c.width, y = r / c.width;
    if (c.width > 1) g.edges.push_back({r, y * c.width + (x + 1) % c.width, c.x_latency});
    if (c.height > 1) g.edges.push_back({r, ((y + 1) % c.height) * c.width + x, c.y_latency});
    g.edges.push_back({r, routers + r, SimTime::zero()});
    g.weight[r] = 3;  // routers see about three times the events of their host
  }
  return g;
}

TokenTorusResult run_token_torus(const TokenTorusConfig& c, pdes::Transport& transport) {
  if (c.width < 1 || c.height < 1 || c.width * c.height < 2) throw std::invalid_argument("the torus needs at least 2 routers");
  if (c.x_latency <= SimTime::zero() || c.y_latency <= SimTime::zero())
    throw std::invalid_argument("router links need a positive latency");
  const pdes::LpGraph graph = token_torus_graph(c);
  const pdes::Partition partition = pdes::make_partition(graph, transport.size(), c.partition, c.seed);
  pdes::Engine engine(graph, partition, transport, {c.seed, c.end, c.queue});
  const std::uint32_t routers = c.width * c.height;
  std::vector<Router*> my_routers;
  std::vector<Host*> my_hosts;
  for (LpId id : engine.local_lps()) {
    if (id < routers) {
      my_routers.push_back(&engine.emplace<Router>(id, c, id));
    } else {
      my_hosts.push_back(&engine.emplace<Host>(id, c, id - routers));
    }
  }
  TokenTorusResult result;
  result.stats = engine.run();
  std::vector<std::pair<LpId, std::uint64_t>> hashes;
  double totals[2] = {0, 0};
  for (const Router* r : my_routers) hashes.emplace_back(r->id(), r->hash());
  for (const Host* h : my_hosts) {
    hashes.emplace_back(h->id(), h->hash());
    totals[0] += static_cast<double>(h->delivered());
    totals[1] += static_cast<double>(h->hops());
  }
  result.checksum = combine_lp_hashes(hashes, transport);
  transport.sum_all(totals);
  result.delivered = static_cast<std::uint64_t>(totals[0]);
  result.mean_hops = totals[0] > 0 ? totals[1] / totals[0] : 0;
  return result;
}

}  // namespace collsim::pdes_models
