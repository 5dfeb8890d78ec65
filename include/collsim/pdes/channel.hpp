#pragma once
// A one-way stream of deliveries from one LP to a handler of another, each arriving no
// earlier than the one sent before it (a link: packets leave one after another and take
// the same time to cross). When both LPs are on one rank, only the earliest pending delivery
// is in the event queue; the others wait in the channel, in order ("one pending event per
// busy resource"). Across ranks every delivery is an ordinary event.
//
// Each delivery keeps the key it would have had as an event of its own (the sender's origin
// and sequence number), so results are identical either way and on any number of ranks.

#include <cstring>
#include <type_traits>

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
}  // namespace detail

template <auto Method>
class Channel final : public ChannelBase {
  using Traits = detail::MethodTraits<Method>;
  using Receiver = typename Traits::Class;
  using Payload = typename Traits::Payload;
  static_assert(!std::is_void_v<Payload>, "a channel carries a payload");

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
    const EventKey key = sender.make_key(delay, priority);
    if (pending_.empty()) detail::post_channel_head(*sender.engine_, key, receiver_id_, this);
    pending_.push_back({key, payload});
    engine_ = sender.engine_;
  }

  void deliver_head() override {
    const Entry head = pending_.front();
    pending_.pop_front();
    if (!pending_.empty()) detail::post_channel_head(*engine_, pending_.front().key, receiver_id_, this);
    if (receiver_ == nullptr) receiver_ = static_cast<Receiver*>(detail::local_lp(*engine_, receiver_id_));
    (receiver_->*Method)(head.payload);
  }

  std::size_t in_flight() const { return pending_.size(); }

 private:
  struct Entry {
    EventKey key;
    Payload payload;
  };
  // A ring that grows and never shrinks: no allocation per delivery.
  class Ring {
   public:
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    const Entry& front() const { return items_[head_]; }
    void push_back(const Entry& e) {
      if (size_ == items_.size()) grow();
      items_[(head_ + size_) & (items_.size() - 1)] = e;
      ++size_;
    }
    void pop_front() {
      head_ = (head_ + 1) & (items_.size() - 1);
      --size_;
    }

   private:
    void grow() {
      std::vector<Entry> bigger(items_.empty() ? 4 : items_.size() * 2);
      for (std::size_t i = 0; i < size_; ++i) bigger[i] = items_[(head_ + i) & (items_.size() - 1)];
      items_.swap(bigger);
      head_ = 0;
    }
    std::vector<Entry> items_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
  };

  Ring pending_;
  LpId receiver_id_ = kNoLp;
  bool local_ = false;
  Engine* engine_ = nullptr;
  Receiver* receiver_ = nullptr;
};

}  // namespace collsim::pdes
