#include "collsim/pdes/engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <queue>
#include <stdexcept>
#include <type_traits>

#include "collsim/logging/logging.hpp"
#include "collsim/pdes/channel.hpp"
#include "collsim/pdes/simulation_error.hpp"

namespace collsim::pdes {

namespace {
constexpr std::uint32_t kNotLocal = 0xFFFFFFFFu;
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
std::string lp_name(LpId lp) { return "LP " + std::to_string(lp); }

// Per LP, the shortest chain of link latencies to an LP another rank owns (infinity when none
// is reachable, or on one rank).
std::vector<SimTime> distances_to_other_ranks(const LpGraph& graph, const Partition& partition, std::uint32_t rank) {
  std::vector<SimTime> dist(graph.num_lps, SimTime::infinity());
  if (partition.num_ranks <= 1) return dist;
  bool any_other = false;
  for (LpId lp = 0; lp < graph.num_lps; ++lp) any_other = any_other || partition.owner[lp] != rank;
  if (!any_other) return dist;
  if (graph.any_to_any) {
    for (LpId lp = 0; lp < graph.num_lps; ++lp) dist[lp] = partition.owner[lp] == rank ? *graph.any_to_any : SimTime::zero();
  }
  std::vector<std::vector<std::pair<LpId, SimTime>>> next(graph.num_lps);
  for (const auto& e : graph.edges) {
    next[e.a].emplace_back(e.b, e.latency);
    next[e.b].emplace_back(e.a, e.latency);
  }
  using Item = std::pair<SimTime, LpId>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
  for (LpId lp = 0; lp < graph.num_lps; ++lp)
    if (partition.owner[lp] != rank) {
      dist[lp] = SimTime::zero();
      open.emplace(SimTime::zero(), lp);
    }
  while (!open.empty()) {
    const auto [d, lp] = open.top();
    open.pop();
    if (d > dist[lp]) continue;
    for (const auto& [to, latency] : next[lp]) {
      const SimTime via = d.saturating_add(latency);
      if (via < dist[to]) {
        dist[to] = via;
        open.emplace(via, to);
      }
    }
  }
  return dist;
}
}  // namespace

namespace detail {
void post(Engine& engine, const EventKey& key, const EventBody& body) { engine.post(key, body); }

EventPool* channel_pool(Engine& engine) { return &engine.pool_; }

std::uint32_t register_channel(Engine& engine, ChannelBase* channel) {
  // A delivery names its channel in EventBody::lp_class.
  if (engine.channels_.size() >= (std::size_t{1} << kLpClassBits))
    throw std::length_error("more than 2^" + std::to_string(kLpClassBits) + " channels carry events on one rank");
  engine.channels_.push_back(channel);
  return static_cast<std::uint32_t>(engine.channels_.size() - 1);
}

void queue_delivery(Engine& engine, std::uint32_t ref) { engine.queue_stored(ref); }

TakenEarly taken_early(Engine& engine) { return {engine.options_.end_time, &engine.stats_.events}; }

LogicalProcess* local_lp(Engine& engine, LpId id) { return &engine.lp(id); }
}  // namespace detail

bool LogicalProcess::is_local(LpId other) const { return engine_->owns(other); }

SimTime LogicalProcess::output_bound(const EventBody&, SimTime at) const { return at.saturating_add(distance_out_); }

void LogicalProcess::report_bad_delay(SimTime delay) const {
  if (delay < SimTime::zero())
    throw SimulationError(lp_name(id_) + " scheduled an event for t=" + format_duration(now() + delay) +
                          ", before its current time t=" + format_duration(now()) + " (negative delay)");
  throw SimulationError(lp_name(id_) + " at t=" + format_duration(now()) + " scheduled an event " +
                        format_duration(delay) + " later, past the end of simulated time (2^63-1 ps)");
}

Engine::Engine(const LpGraph& graph, Partition partition, Transport& transport, EngineOptions options)
    : partition_(std::move(partition)), transport_(transport), options_(options) {
  if (partition_.num_ranks != transport_.size())
    throw std::invalid_argument("the partition is for " + std::to_string(partition_.num_ranks) +
                                " ranks, the run has " + std::to_string(transport_.size()));
  check_partition(graph, partition_);
  lookahead_ = lookahead_of(graph, partition_);
  local_index_.assign(graph.num_lps, kNotLocal);
  const std::vector<SimTime> distances = distances_to_other_ranks(graph, partition_, rank());
  for (LpId id = 0; id < graph.num_lps; ++id) {
    if (partition_.owner[id] != rank()) continue;
    local_index_[id] = static_cast<std::uint32_t>(local_ids_.size());
    local_ids_.push_back(id);
    distance_out_.push_back(distances[id]);
  }
  outputs_.assign(transport_.size(), SimTime::infinity());
  lps_.resize(local_ids_.size());
  if (options_.queue != QueueKind::Wheel) other_queue_ = make_event_queue(options_.queue, pool_.keys());
  outbox_.resize(transport_.size());
  stats_.lps = local_ids_.size();
  logging::logger("pdes").debug("rank {} of {} owns {} of {} LPs; lookahead {}", rank(), transport_.size(),
                                local_ids_.size(), graph.num_lps, format_duration(lookahead_));
}

Engine::~Engine() = default;

void Engine::install(LpId id, std::unique_ptr<LogicalProcess> lp, const detail::Trampoline* handlers,
                     std::uint8_t handler_count, std::uint32_t class_tag) {
  if (!owns(id))
    throw std::invalid_argument(lp_name(id) + " is not owned by rank " + std::to_string(rank()) +
                                (id < local_index_.size() ? "" : " (no such LP)"));
  auto& slot = lps_[local_index_[id]];
  if (slot) throw std::invalid_argument(lp_name(id) + " is installed twice");
  lp->engine_ = this;
  lp->clock_ = &now_;
  lp->id_ = id;
  lp->distance_out_ = distance_out_[local_index_[id]];
  lp->random_ = RandomStream(options_.seed, id);
  lp->handlers_ = handlers;
  lp->handler_count_ = handler_count;
  lp->class_tag_ = class_tag;
  if (lp->has_state_output()) state_lps_.push_back(lp.get());
  slot = std::move(lp);
}

LogicalProcess& Engine::lp(LpId id) {
  if (!owns(id) || !lps_[local_index_[id]])
    throw std::invalid_argument(lp_name(id) + " is not installed on rank " + std::to_string(rank()));
  return *lps_[local_index_[id]];
}

void Engine::fail(const std::string& message) const { throw SimulationError(message); }

void Engine::post(const EventKey& key, const EventBody& body) {
  const LpId target = body.target;
  if (target < local_index_.size() && local_index_[target] != kNotLocal) [[likely]] {
    push_local(key, body);
    return;
  }
  post_elsewhere(key, body);
}

void Engine::post_elsewhere(const EventKey& key, const EventBody& body) {
  const LpId target = body.target;
  if (target >= local_index_.size())
    fail(lp_name(key.source()) + " scheduled an event for " + lp_name(target) + ", which does not exist");
  // The other ranks may already be past anything earlier than this rank promised them.
  if (key.time < promise_)
    fail(lp_name(key.source()) + " (rank " + std::to_string(rank()) + ") sent an event to " + lp_name(target) +
         " (rank " + std::to_string(partition_.owner[target]) + ") for t=" + format_duration(key.time) +
         ", before t=" + format_duration(promise_) + ", the earliest this rank promised the others (now t=" +
         format_duration(now_) + ", lookahead " + format_duration(lookahead_) +
         "): the delay is shorter than the latency declared between the two LPs, or the LP's output_bound() "
         "answered too late");
  outbox_[partition_.owner[target]].push_back({key, body});
  sent_min_ = std::min(sent_min_, key.time);
  ++stats_.remote_sent;
}

void Engine::push_local(const EventKey& key, const EventBody& body) { queue_entry(key, pool_.store(key, body)); }

void Engine::queue_stored(std::uint32_t ref) { queue_entry(pool_.key(ref), ref); }

void Engine::queue_entry(const EventKey& key, std::uint32_t ref) {
  const QueueEntry entry{key.time, QueueEntry::hint_of(key), ref};
  if (other_queue_) [[unlikely]] {
    other_queue_->push(entry);
    stats_.max_queue = std::max<std::uint64_t>(stats_.max_queue, other_queue_->size());
  } else {
    queue_.add(entry);
    stats_.max_queue = std::max<std::uint64_t>(stats_.max_queue, queue_.size());
  }
}

void Engine::prefetch_target(const EventBody& body) const {
  if (body.handler == kChannelHandler) {
    __builtin_prefetch(channels_[body.lp_class]);
  } else if (body.target < local_index_.size() && local_index_[body.target] != kNotLocal) {
    __builtin_prefetch(lps_[local_index_[body.target]].get());
  }
}

void Engine::dispatch(const QueueEntry& entry) {
  const EventBody& body = pool_[entry.ref];
  if (body.handler == kChannelHandler) {
    now_ = entry.time;
    running_ = body.target;
    // The channel reads the delivery's payload and releases its slot.
    channels_[body.lp_class]->deliver_head();
    ++stats_.events;
    return;
  }
  LogicalProcess& lp = *lps_[local_index_[body.target]];
  if (body.lp_class != lp.class_tag_ || body.handler >= lp.handler_count_)
    fail("event from " + lp_name(pool_.key(entry.ref).source()) + " for handler " + std::to_string(body.handler) + " of " +
         lp_name(body.target) + ", which is of another class: the event names a method of a different LP type");
  now_ = entry.time;
  running_ = body.target;
  lp.handlers_[body.handler](lp, body.payload);
  // Only now: the handler read its payload from the pool.
  pool_.release(entry.ref);
  ++stats_.events;
}

void Engine::receive(const std::vector<RemoteEvent>& inbox) {
  for (const RemoteEvent& ev : inbox) {
    if (ev.body.target >= local_index_.size() || local_index_[ev.body.target] == kNotLocal)
      fail("rank " + std::to_string(rank()) + " received an event for " + lp_name(ev.body.target) +
           ", which it does not own");
    if (ev.key.time < window_end_)
      fail("rank " + std::to_string(rank()) + " received an event for " + lp_name(ev.body.target) + " at t=" +
           format_duration(ev.key.time) + ", before the end of the window just processed (t=" +
           format_duration(window_end_) + ")");
    push_local(ev.key, ev.body);
  }
}

// How far ahead run() fetches event bodies: far enough for a miss to be over, near enough
// for the line to stay.
constexpr std::size_t kPrefetchDistance = 4;

// One rank reports progress every this many events: a few milliseconds of work.
constexpr std::uint64_t kProgressEvery = 1u << 15;

RunProgress Engine::progress_of(std::uint64_t events, std::uint64_t work_done) const {
  RunProgress p;
  p.sim_time = now_;
  p.events = events;
  p.work_done = work_done;
  p.wall_s = seconds_since(started_);
  return p;
}

void Engine::sample_before(SimTime t) {
  while (next_sample_ <= t) {
    const SimTime next = options_.sampler->sample(next_sample_);
    if (next <= next_sample_)
      fail("a sampler at t=" + format_duration(next_sample_) + " asked to sample next at t=" + format_duration(next) +
           ", which is not later");
    next_sample_ = next;
  }
}

// Only with one rank (see run()), whose numbers are the totals and which may take a
// collective point alone.
void Engine::report_local_progress() {
  next_progress_events_ = stats_.events + kProgressEvery;
  RunMonitor& monitor = *options_.monitor;
  monitor.on_progress(progress_of(stats_.events, monitor.work_done()));
  if (monitor.wants_collective_point()) monitor.on_collective_point();
}

SimTime Engine::bound_of(const QueueEntry& entry) {
  const EventBody& body = pool_[entry.ref];
  if (body.handler == kChannelHandler) return channels_[body.lp_class]->output_bound(body, entry.time);
  return lps_[local_index_[body.target]]->output_bound(body, entry.time);
}

SimTime Engine::output_bound(SimTime floor, SimTime cheap) {
  if (scans_to_skip_ > 0) {
    --scans_to_skip_;
    return cheap;
  }
  // Stops as soon as the answer cannot beat the cheap bound.
  SimTime bound = SimTime::infinity();
  const auto take = [&](const QueueEntry& e) {
    bound = std::min(bound, bound_of(e));
    return bound > cheap;
  };
  if (other_queue_) {
    other_queue_->visit(take);
  } else {
    queue_.for_each(take);
  }
  for (LogicalProcess* lp : state_lps_) {
    if (bound <= cheap) break;
    // Whatever it sends takes at least its distance to reach another rank.
    if (floor.saturating_add(lp->distance_out_) >= bound) continue;
    bound = std::min(bound, lp->state_output_bound(floor, bound));
  }
  if (bound <= cheap) {
    scan_backoff_ = std::min<std::uint32_t>(2 * scan_backoff_ + 1, 63);
    scans_to_skip_ = scan_backoff_;
    return cheap;
  }
  scan_backoff_ = 0;
  return bound;
}

SimTime Engine::horizon(SimTime sent) {
  // outputs_[q]: what q's own pending work may make it send. What it may send in answer to
  // another rank (to what that rank will send, or to what is in flight now) comes at least a
  // lookahead later, and longer chains only later still.
  SimTime first = SimTime::infinity(), second = SimTime::infinity();
  std::uint32_t first_rank = 0;
  for (std::uint32_t q = 0; q < outputs_.size(); ++q) {
    if (outputs_[q] < first) {
      second = first;
      first = outputs_[q];
      first_rank = q;
    } else if (outputs_[q] < second) {
      second = outputs_[q];
    }
  }
  const SimTime answer_to_flight = sent.saturating_add(lookahead_);
  const auto promise_of = [&](std::uint32_t q) {
    const SimTime others = q == first_rank ? second : first;
    return std::min({outputs_[q], answer_to_flight, others.saturating_add(lookahead_)});
  };
  promise_ = promise_of(rank());
  SimTime end = SimTime::infinity();
  for (std::uint32_t q = 0; q < outputs_.size(); ++q)
    if (q != rank()) end = std::min(end, promise_of(q));
  return end;
}

RunStats Engine::run() {
  for (std::size_t i = 0; i < lps_.size(); ++i)
    if (!lps_[i]) throw std::invalid_argument(lp_name(local_ids_[i]) + " is owned by rank " + std::to_string(rank()) +
                                              " but was never installed");
  if (options_.sampler && options_.first_sample <= SimTime::zero())
    throw std::invalid_argument("the first sampling instant must be positive");
  started_ = Clock::now();
  double sync_s = 0;
  std::uint64_t windows = 0;
  std::uint64_t critical_events = 0;
  std::uint64_t events_before_window = 0;
  now_ = SimTime::zero();
  window_end_ = SimTime::zero();
  next_sample_ = options_.sampler ? options_.first_sample : SimTime::infinity();
  RunMonitor* const monitor = options_.monitor;
  // Several ranks report at window boundaries, with totals; one rank has a single window.
  next_progress_events_ = monitor && transport_.size() == 1 ? kProgressEvery : ~0ull;
  // Piggybacked on each window's synchronisation: events, work done, collective wish. The
  // model's work is counted afresh (and progress reported) only every kProgressEvery events:
  // counting it walks every host, which in windows of a few events each cost more than them.
  std::uint64_t totals[3] = {};
  std::uint64_t work_done = 0, recount_at = 0, report_at = 0;
  const std::span<std::uint64_t> piggyback =
      monitor && transport_.size() > 1 ? std::span<std::uint64_t>(totals) : std::span<std::uint64_t>();
  for (auto& lp : lps_) {
    running_ = lp->id();
    lp->start();
  }
  const SimTime stop = options_.end_time.saturating_add(SimTime::ps(1));
  const bool parallel = transport_.size() > 1;
  promise_ = SimTime::zero();
  for (;;) {
    const SimTime pending = queue_empty() ? SimTime::infinity() : queue_top().time;
    WindowSummary mine;
    mine.next = std::min(pending, sent_min_);
    mine.events = stats_.events - events_before_window;
    mine.sent = sent_min_;
    // Everything this rank handles from now on is at or after the end of the window just
    // processed (window_end_): what was pending is, and the others promised as much.
    if (parallel) mine.output = output_bound(window_end_, pending.saturating_add(lookahead_));
    if (!piggyback.empty()) {
      if (stats_.events >= recount_at) {
        work_done = monitor->work_done();
        recount_at = stats_.events + kProgressEvery;
      }
      totals[0] = stats_.events;
      totals[1] = work_done;
      totals[2] = monitor->wants_collective_point() ? 1 : 0;
    }
    const auto sync_started = Clock::now();
    const WindowSummary agreed = transport_.exchange(outbox_, mine, inbox_, piggyback, outputs_);
    const SimTime global_next = agreed.next;
    sync_s += seconds_since(sync_started);
    critical_events += agreed.events;
    events_before_window = stats_.events;
    sent_min_ = SimTime::infinity();
    receive(inbox_);
    inbox_.clear();
    // The same totals on every rank: every rank reports after the same windows.
    if (!piggyback.empty() && (totals[2] > 0 || totals[0] >= report_at)) {
      if (totals[2] > 0) monitor->on_collective_point();
      report_at = totals[0] + kProgressEvery;
      RunProgress p = progress_of(totals[0], totals[1]);
      // Every rank has processed everything before the earliest pending event.
      if (!global_next.is_infinite()) p.sim_time = global_next;
      monitor->on_progress(p);
    }
    if (global_next.is_infinite() || global_next > options_.end_time) break;
    window_end_ = std::min(parallel ? horizon(agreed.sent) : global_next.saturating_add(lookahead_), stop);
    ++windows;
    COLLSIM_TRACE_LOG("pdes", "window {} up to t={}", windows, format_duration(window_end_));
    // The default queue's type is known here (its calls go direct); the others are virtual.
    const auto run_window = [&](auto& queue) {
      while (!queue.empty()) {
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(queue)>, TimingWheel>) {
          const QueueEntry entry = queue.peek();
          if (entry.time >= window_end_) break;
          if (entry.time >= next_sample_) {
            sample_before(entry.time);
            continue;  // a sampler may have scheduled: look again
          }
          // An event's body is a line of the pool written when it was scheduled, long gone from
          // the cache by its turn: ask for it a few events ahead.
          if (const QueueEntry* soon = queue.upcoming(kPrefetchDistance)) pool_.prefetch(soon->ref);
          // Nearer, its body has come: the object its handler runs on (the channel or the LP).
          if (const QueueEntry* next = queue.upcoming(kPrefetchDistance / 2)) prefetch_target(pool_[next->ref]);
          queue.pop_peeked();
          dispatch(entry);
        } else {
          const QueueEntry entry = queue.top();
          if (entry.time >= window_end_) break;
          if (entry.time >= next_sample_) sample_before(entry.time);
          queue.pop();
          dispatch(entry);
        }
        if (stats_.events >= next_progress_events_) report_local_progress();
      }
    };
    if (other_queue_) {
      run_window(*other_queue_);
    } else {
      run_window(queue_);
    }
  }
  running_ = kNoLp;
  for (auto& lp : lps_) lp->finish();
  logging::logger("pdes").debug(
      "rank {} done: {} events in {} window(s), last at t={}, {:.3f} s synchronising, at most {} events pending",
      rank(), stats_.events, windows, format_duration(now_), sync_s, stats_.max_queue);
  RunStats stats = collect(seconds_since(started_), sync_s, windows);
  stats.critical_events = critical_events;
  // The last sample closes the interval holding the last event of any rank.
  if (options_.sampler) {
    sample_before(stats.end_time);
    if (!next_sample_.is_infinite()) sample_before(next_sample_);
  }
  if (monitor) {
    std::uint64_t done[] = {monitor->work_done()};
    transport_.sum_integers(done);
    RunProgress p = progress_of(stats.events, done[0]);
    p.sim_time = stats.end_time;
    p.wall_s = stats.wall_s;
    monitor->on_finish(p);
  }
  return stats;
}

RunStats Engine::collect(double wall_s, double sync_s, std::uint64_t windows) {
  stats_.wall_s = wall_s;
  stats_.sync_s = sync_s;
  stats_.stored_events = pool_.capacity();
  RunStats run;
  run.ranks = transport_.size();
  run.windows = windows;
  run.lookahead = lookahead_;
  std::uint64_t counts[] = {stats_.events, stats_.remote_sent};
  transport_.sum_integers(counts);
  std::int64_t latest[] = {static_cast<std::int64_t>(stats_.events), now_.picoseconds()};
  transport_.max_integers(latest);
  double seconds[] = {wall_s, sync_s};
  transport_.sum_all(seconds);
  double slowest[] = {wall_s};
  transport_.max_all(slowest);
  run.events = counts[0];
  run.remote_events = counts[1];
  run.wall_s = slowest[0];
  run.end_time = SimTime::ps(latest[1]);
  run.events_per_s = run.wall_s > 0 ? static_cast<double>(run.events) / run.wall_s : 0;
  run.sync_fraction = seconds[0] > 0 ? seconds[1] / seconds[0] : 0;
  const double mean = static_cast<double>(run.events) / run.ranks;
  run.imbalance = mean > 0 ? static_cast<double>(latest[0]) / mean : 1;
  run.per_rank = gather_values(transport_, std::span<const RankStats>(&stats_, 1));
  return run;
}

}  // namespace collsim::pdes
