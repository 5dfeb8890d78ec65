#pragma once
// The engine of one rank: its LPs, its pending events, and the loop that processes them in
// synchronous windows with the other ranks.
//
// A run is conservative: no rank ever has to undo work. At the end of each window every rank
// promises the earliest time at which it may send another rank anything (its *output bound*),
// and each rank's next window ends where the promises of the others begin. A rank's promise is
// the earliest of
//   - what its pending events may lead to: for each, LogicalProcess::output_bound() of the LP
//     it is for (by default its time plus the LP's distance in link latencies to another rank;
//     never sooner than the earliest pending time plus the lookahead, the smallest latency of
//     a cut link), and what the state of LPs with has_state_output() may lead to;
//   - what the events in flight between ranks may lead to: the earliest of them plus the
//     lookahead;
//   - what the others' sends may make it answer: their promises plus the lookahead.
// So where the model can tell that a rank's pending work stays inside it for a while (a host
// computing before it sends), windows reach that far instead of one lookahead. A promise a
// rank then breaks is an error, not a wrong result. With one rank there is a single window.
// Several engines may live in one process (each with its own transport); nothing is global.

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "collsim/pdes/event_pool.hpp"
#include "collsim/pdes/event_queue.hpp"
#include "collsim/pdes/timing_wheel.hpp"
#include "collsim/pdes/logical_process.hpp"
#include "collsim/pdes/partition.hpp"
#include "collsim/pdes/run_monitor.hpp"
#include "collsim/pdes/run_stats.hpp"
#include "collsim/pdes/transport.hpp"

namespace collsim::pdes {

class ChannelBase;
namespace detail {
EventPool* channel_pool(Engine& engine);
std::uint32_t register_channel(Engine& engine, ChannelBase* channel);
void queue_delivery(Engine& engine, std::uint32_t ref);
struct TakenEarly;
TakenEarly taken_early(Engine& engine);
}

struct EngineOptions {
  std::uint64_t seed = 1;
  // Events later than this are not processed.
  SimTime end_time = SimTime::infinity();
  QueueKind queue = QueueKind::Wheel;
  // Optional observers, not owned; they must outlive run().
  RunMonitor* monitor = nullptr;
  TimeSampler* sampler = nullptr;
  SimTime first_sample = SimTime::infinity();  // with a sampler: must be positive
};

class Engine {
 public:
  // `graph` and `partition` must be the same on every rank. Throws std::invalid_argument if
  // the partition cuts a link of zero or negative latency.
  Engine(const LpGraph& graph, Partition partition, Transport& transport, EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  std::uint32_t rank() const { return transport_.rank(); }
  std::uint32_t num_ranks() const { return transport_.size(); }
  bool owns(LpId lp) const { return lp < partition_.owner.size() && partition_.owner[lp] == rank(); }
  // LPs this rank owns, in id order.
  std::span<const LpId> local_lps() const { return local_ids_; }
  SimTime lookahead() const { return lookahead_; }
  SimTime now() const { return now_; }
  const Partition& partition() const { return partition_; }
  Transport& transport() { return transport_; }

  // Installs the LP with id `id`, which this rank must own. Every owned LP must be installed
  // before run().
  template <typename T, typename... Args>
  T& emplace(LpId id, Args&&... args) {
    static_assert(std::is_base_of_v<LogicalProcess, T>);
    static_assert(HasHandlers<T>, "an LP class needs `using Handlers = pdes::Handlers<...>`");
    auto lp = std::make_unique<T>(std::forward<Args>(args)...);
    T& ref = *lp;
    install(id, std::move(lp), detail::table_of(typename T::Handlers{}), detail::count_of(typename T::Handlers{}),
            detail::class_tag<T>);
    return ref;
  }
  // The installed LP with this id, owned by this rank.
  LogicalProcess& lp(LpId id);

  // Runs to the end (no events left anywhere, or end_time). Collective over all ranks.
  // Statistics are complete on rank 0.
  RunStats run();

 private:
  friend void detail::post(Engine&, const EventKey&, const EventBody&);
  friend EventPool* detail::channel_pool(Engine&);
  friend std::uint32_t detail::register_channel(Engine&, ChannelBase*);
  friend void detail::queue_delivery(Engine&, std::uint32_t);
  friend detail::TakenEarly detail::taken_early(Engine&);
  void install(LpId id, std::unique_ptr<LogicalProcess> lp, const detail::Trampoline* handlers,
               std::uint8_t handler_count, std::uint32_t class_tag);
  void post(const EventKey& key, const EventBody& body);
  // post()'s rare paths, out of line so that the local one saves few registers: an event for
  // another rank, or for an LP that does not exist.
  [[gnu::noinline]] void post_elsewhere(const EventKey& key, const EventBody& body);
  // The steps of every event, inlined where engine.cpp uses them (a call's saving and
  // restoring of registers was a tenth of the engine's own instructions per event).
  [[gnu::always_inline]] inline void push_local(const EventKey& key, const EventBody& body);
  // Queues the event already stored in pool slot `ref`.
  [[gnu::always_inline]] inline void queue_stored(std::uint32_t ref);
  // Queues the event in pool slot `ref`, whose key is `key`.
  [[gnu::always_inline]] inline void queue_entry(const EventKey& key, std::uint32_t ref);
  void prefetch_target(const EventBody& body) const;
  [[gnu::always_inline]] inline void dispatch(const QueueEntry& entry);
  // The default timing wheel is called directly; another queue kind goes through the interface.
  bool queue_empty() const { return other_queue_ ? other_queue_->empty() : queue_.empty(); }
  const QueueEntry& queue_top() const { return other_queue_ ? other_queue_->top() : queue_.top(); }
  std::size_t queue_size() const { return other_queue_ ? other_queue_->size() : queue_.size(); }
  void receive(const std::vector<RemoteEvent>& inbox);
  // This rank's promise at the end of a window (see above): nothing it handles from now on is
  // earlier than `floor`. `cheap` (the earliest pending time plus the lookahead) always holds;
  // the events and states are read only when that has lately been worth it.
  SimTime output_bound(SimTime floor, SimTime cheap);
  SimTime bound_of(const QueueEntry& entry);
  // Where this rank's next window ends, from every rank's promise and the earliest event in
  // flight between ranks; sets promise_.
  SimTime horizon(SimTime sent);
  // Observers: called from the loop only when their next point is due.
  void sample_before(SimTime t);
  void report_local_progress();
  RunProgress progress_of(std::uint64_t events, std::uint64_t work_done) const;
  [[noreturn]] void fail(const std::string& message) const;
  RunStats collect(double wall_s, double sync_s, std::uint64_t windows);

  Partition partition_;
  Transport& transport_;
  EngineOptions options_;
  SimTime lookahead_;

  std::vector<LpId> local_ids_;
  std::vector<std::uint32_t> local_index_;  // per LP id: index in lps_, or kNotLocal
  std::vector<std::unique_ptr<LogicalProcess>> lps_;

  EventPool pool_;
  // Local channels, by number (their waiting deliveries are linked through the pool).
  std::vector<ChannelBase*> channels_;
  TimingWheel queue_{pool_.keys()};  // the default, called directly
  std::unique_ptr<EventQueue> other_queue_;

  SimTime now_ = SimTime::zero();
  SimTime window_end_ = SimTime::zero();  // events from other ranks must not be earlier than this
  SimTime promise_ = SimTime::zero();     // events for other ranks must not be earlier than this
  std::vector<SimTime> outputs_;          // every rank's promise, as agreed after a window
  std::vector<LogicalProcess*> state_lps_;  // local LPs with has_state_output()
  // Reading the pending events costs; after a read that found nothing beyond the cheap bound,
  // the next few windows take the cheap bound (twice as many each time, up to a limit).
  std::uint32_t scans_to_skip_ = 0, scan_backoff_ = 0;
  std::vector<SimTime> distance_out_;     // per local LP (by index in lps_)
  SimTime sent_min_ = SimTime::infinity();
  LpId running_ = kNoLp;                  // LP whose handler runs
  std::vector<std::vector<RemoteEvent>> outbox_;
  std::vector<RemoteEvent> inbox_;
  RankStats stats_;
  SimTime next_sample_ = SimTime::infinity();
  std::uint64_t next_progress_events_ = ~0ull;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace collsim::pdes
