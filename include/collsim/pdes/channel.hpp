#pragma once
// A one-way stream of deliveries from one LP to a handler of another, each arriving no
// earlier than the one sent before it (a link: packets leave one after another and take
// the same time to cross). When both LPs are on one rank, only the earliest pending delivery
// is in the event queue; the others wait in the channel, in order ("one pending event per
// busy resource"). A waiting delivery is stored once, as an event body in the engine's pool,
// and threaded into its channel's FIFO by the pool's links; when it reaches the
// head it enters the queue as it is, without a copy. Across ranks every delivery is an
// ordinary event.
//
// Each delivery keeps the key it would have had as an event of its own (the sender's origin
// and sequence number), so results are identical either way and on any number of ranks.

#include <concepts>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

#include "collsim/pdes/event_pool.hpp"
#include "collsim/pdes/logical_process.hpp"

namespace collsim::pdes {

class ChannelBase {
 public:
  virtual ~ChannelBase() = default;
  // The engine calls this when the head delivery is due.
  virtual void deliver_head() = 0;
  // The receiver's LogicalProcess::output_bound() for a waiting delivery (its body as the
  // channel stored it) handled at `at`.
  virtual SimTime output_bound(const EventBody& delivery, SimTime at) = 0;
};

namespace detail {
inline constexpr std::uint32_t kNoDelivery = EventPool::kNoSlot;  // the end of a channel's list of slots
// Where a local channel's deliveries wait: the engine's pool, threaded by the slots' links.
EventPool* channel_pool(Engine& engine);
// The channel's number in its engine (what a delivery's body names it by).
std::uint32_t register_channel(Engine& engine, ChannelBase* channel);
// Puts the stored delivery `ref` in the event queue: its channel's head is due.
void queue_delivery(Engine& engine, std::uint32_t ref);
LogicalProcess* local_lp(Engine& engine, LpId id);
// What a channel needs to hand deliveries over early (see Channel::deliver_head): the last
// time the run processes, and the engine's event count, which counts them as events still.
struct TakenEarly {
  SimTime horizon;
  std::uint64_t* events;
};
TakenEarly taken_early(Engine& engine);
}  // namespace detail

// A receiver that declares `bool take_early(const Payload&)` may be offered the deliveries
// waiting behind the one it has just handled, in order, before their time: it returns true
// if it took one (handled it as it would have at its time), false to stop the offer. The
// receiver must guarantee that nothing could tell the difference: what such a delivery
// changes is read by no event before the next delivery of this same channel that it refuses.
template <typename Receiver, typename Payload>
concept TakesEarly = requires(Receiver& r, const Payload& p) {
  { r.take_early(p) } -> std::same_as<bool>;
};

template <auto Method>
class Channel final : public ChannelBase {
  using Traits = detail::MethodTraits<Method>;
  using Receiver = typename Traits::Class;
  using Payload = typename Traits::Payload;
  static_assert(!std::is_void_v<Payload>, "a channel carries a payload");
  static_assert(std::is_trivially_copyable_v<Payload> && sizeof(Payload) <= kMaxPayloadBytes);

 public:
  // Binds the channel to its receiver; `local` says whether the receiver is on this rank
  // (LogicalProcess::is_local).
  void connect(LpId receiver, bool local) {
    receiver_id_ = receiver;
    local_ = local;
  }

  // Delivers `payload` to the receiver after `delay`; called from the sender's handler.
  void send(LogicalProcess& sender, SimTime delay, const Payload& payload, Priority priority = 0) {
    if (!local_) {
      sender.template schedule<Method>(receiver_id_, delay, payload, priority);
      return;
    }
    if (engine_ == nullptr) {
      engine_ = sender.engine_;
      id_ = detail::register_channel(*engine_, this);
      pool_ = detail::channel_pool(*engine_);
    }
    EventPool& pool = *pool_;
    const std::uint32_t ref = pool.allocate(sender.make_key(delay, priority));
    EventBody& body = pool[ref];
    body.target = receiver_id_;
    body.lp_class = id_;
    body.handler = kChannelHandler;
    std::memcpy(body.payload, &payload, sizeof payload);
    pool.link(ref) = detail::kNoDelivery;
    if (tail_ == detail::kNoDelivery) {
      head_ = ref;
      detail::queue_delivery(*engine_, ref);
    } else {
      pool.link(tail_) = ref;
    }
    tail_ = ref;
  }

  void deliver_head() override {
    EventPool& pool = *pool_;
    const std::uint32_t done = head_;
    // The receiver reads the delivery where it waited, and its slot is free only after that.
    const Payload& payload = stored(pool, done);
    head_ = pool.link(done);
    if (receiver_ == nullptr) receiver_ = static_cast<Receiver*>(detail::local_lp(*engine_, receiver_id_));
    if constexpr (TakesEarly<Receiver, Payload>) {
      (receiver_->*Method)(payload);
      pool.release(done);
      offer_early(pool);
      queue_head();
    } else {
      queue_head();
      (receiver_->*Method)(payload);
      pool.release(done);
    }
  }

  SimTime output_bound(const EventBody& delivery, SimTime at) override {
    if (receiver_ == nullptr) receiver_ = static_cast<Receiver*>(detail::local_lp(*engine_, receiver_id_));
    EventBody event = delivery;
    event.lp_class = detail::class_tag<Receiver>;
    event.handler = static_cast<std::uint32_t>(detail::index_in<Method>(typename Receiver::Handlers{}));
    return receiver_->output_bound(event, at);
  }

 private:
  void queue_head() {
    if (head_ == detail::kNoDelivery) {
      tail_ = detail::kNoDelivery;
    } else {
      detail::queue_delivery(*engine_, head_);
    }
  }

  void offer_early(EventPool& pool) {
    const detail::TakenEarly early = detail::taken_early(*engine_);
    while (head_ != detail::kNoDelivery && pool.key(head_).time <= early.horizon) {
      if (!receiver_->take_early(stored(pool, head_))) return;
      ++*early.events;
      const std::uint32_t taken = head_;
      head_ = pool.link(taken);
      pool.release(taken);
    }
  }

  // send() copied a Payload into the body's bytes, which (a trivially copyable type) made one
  // there: it is read in place, not copied out again.
  static const Payload& stored(EventPool& pool, std::uint32_t ref) {
    return *std::launder(reinterpret_cast<const Payload*>(pool[ref].payload));
  }

  std::uint32_t head_ = detail::kNoDelivery;
  std::uint32_t tail_ = detail::kNoDelivery;
  LpId receiver_id_ = kNoLp;
  std::uint32_t id_ = 0;
  bool local_ = false;
  Engine* engine_ = nullptr;
  Receiver* receiver_ = nullptr;
  EventPool* pool_ = nullptr;  // the engine's, once registered
};

}  // namespace collsim::pdes
