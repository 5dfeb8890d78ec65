#pragma once
// A one-way stream of deliveries from one LP to a handler of another, each arriving no
// earlier than the one sent before it (a link: packets leave one after another and take
// the same time to cross). When both LPs are on one rank, only the earliest pending delivery
// is in the event queue; the others wait in the channel, in order ("one pending event per
// busy resource"), in slots of the engine's ChannelStore. Across ranks every delivery is an
// ordinary event.
//
// Each delivery keeps the key it would have had as an event of its own (the sender's origin
// and sequence number), so results are identical either way and on any number of ranks.

#include <cstring>
#include <type_traits>

#include "collsim/pdes/channel_store.hpp"
#include "collsim/pdes/logical_process.hpp"

namespace collsim::pdes {

class ChannelBase {
 public:
  virtual ~ChannelBase() = default;
  // The engine calls this when the head delivery is due.
  virtual void deliver_head() = 0;
};

namespace detail {
// Queues the head event of a local channel (the engine dispatches it to deliver_head()).
void post_channel_head(Engine& engine, const EventKey& key, LpId target, ChannelBase* channel);
LogicalProcess* local_lp(Engine& engine, LpId id);
ChannelStore& channel_store(Engine& engine);
}  // namespace detail

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
    engine_ = sender.engine_;
    ChannelStore& store = detail::channel_store(*engine_);
    const std::uint32_t slot = store.allocate();
    ChannelSlot& s = store[slot];
    s.key = sender.make_key(delay, priority);
    s.next = ChannelSlot::kNone;
    std::memcpy(s.payload, &payload, sizeof payload);
    if (tail_ == ChannelSlot::kNone) {
      head_ = slot;
      detail::post_channel_head(*engine_, s.key, receiver_id_, this);
    } else {
      store[tail_].next = slot;
    }
    tail_ = slot;
  }

  void deliver_head() override {
    ChannelStore& store = detail::channel_store(*engine_);
    ChannelSlot& s = store[head_];
    Payload payload;
    std::memcpy(&payload, s.payload, sizeof payload);
    const std::uint32_t done = head_;
    head_ = s.next;
    if (head_ == ChannelSlot::kNone) {
      tail_ = ChannelSlot::kNone;
    } else {
      detail::post_channel_head(*engine_, store[head_].key, receiver_id_, this);
    }
    store.release(done);
    if (receiver_ == nullptr) receiver_ = static_cast<Receiver*>(detail::local_lp(*engine_, receiver_id_));
    (receiver_->*Method)(payload);
  }

 private:
  std::uint32_t head_ = ChannelSlot::kNone;
  std::uint32_t tail_ = ChannelSlot::kNone;
  LpId receiver_id_ = kNoLp;
  bool local_ = false;
  Engine* engine_ = nullptr;
  Receiver* receiver_ = nullptr;
};

}  // namespace collsim::pdes
