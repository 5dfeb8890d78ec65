#pragma once
// A logical process: a device of the model (a host, a switch) with its own state, clock
// view, random stream and event counter. LPs interact only through events.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "collsim/pdes/event.hpp"
#include "collsim/pdes/handler.hpp"
#include "collsim/pdes/random_stream.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::pdes {

class Engine;
template <auto Method>
class Channel;

namespace detail {
// Implemented by the engine; the single path from a model to the event queue.
void post(Engine& engine, const EventKey& key, const EventBody& body);
}  // namespace detail

class LogicalProcess {
 public:
  virtual ~LogicalProcess() = default;
  LogicalProcess() = default;
  LogicalProcess(const LogicalProcess&) = delete;
  LogicalProcess& operator=(const LogicalProcess&) = delete;

  LpId id() const { return id_; }

  // Called once before the first event, at time 0, in LP id order within a rank: the place
  // to schedule initial events.
  virtual void start() {}
  // Called once when the run ends.
  virtual void finish() {}

  // What conservative synchronisation asks of an LP when a run has several ranks (see
  // Engine: each rank promises the others the earliest time it may send them anything).
  //
  // The earliest time an event for another rank's LP could follow, on this rank, from this LP
  // handling `event` at `at`. The default, `at` plus the shortest chain of link latencies from
  // this LP to another rank's, is always right. An LP may answer infinity for an event whose
  // consequences some LP's state_output_bound() covers instead (a host's schedule covers what
  // the messages inside its server lead to).
  virtual SimTime output_bound(const EventBody& event, SimTime at) const;
  // The earliest time an event for another rank could follow from the state of this LP (what
  // it will do after events that output_bound() answered infinity for), given that no event
  // on this rank is handled before `floor` from now on. `cap`: the caller needs to know only
  // whether the answer is below it; anything at least `cap` may be returned. Only LPs that
  // answer has_state_output() are asked.
  virtual SimTime state_output_bound(SimTime /*floor*/, SimTime cap) const { return cap; }
  virtual bool has_state_output() const { return false; }

 protected:
  SimTime now() const { return *clock_; }
  RandomStream& random() { return random_; }
  // The shortest chain of link latencies from this LP to an LP of another rank (infinity on
  // one rank): no event this LP sends can reach another rank sooner.
  SimTime distance_to_other_ranks() const { return distance_out_; }
  // Whether LP `other` runs on this rank (after the LP was installed).
  bool is_local(LpId other) const;

  // Calls Method on LP `target` at now() + delay. A target on another rank must be at least
  // the engine's lookahead away; a negative delay, or one past the end of simulated time
  // (2^63 - 1 ps), is an error.
  template <auto Method, typename Payload>
  void schedule(LpId target, SimTime delay, const Payload& payload, Priority priority = 0) {
    using Traits = detail::MethodTraits<Method>;
    static_assert(std::is_same_v<typename Traits::Payload, Payload>, "payload type differs from the handler's");
    static_assert(std::is_trivially_copyable_v<Payload>, "event payloads are copied as bytes");
    static_assert(sizeof(Payload) <= kMaxPayloadBytes, "payload larger than kMaxPayloadBytes");
    EventBody body = make_body<Method>(target);
    std::memcpy(body.payload, &payload, sizeof(Payload));
    post(delay, priority, body);
  }
  template <auto Method>
  void schedule(LpId target, SimTime delay, Priority priority = 0) {
    static_assert(std::is_void_v<typename detail::MethodTraits<Method>::Payload>, "this handler takes a payload");
    EventBody body = make_body<Method>(target);
    post(delay, priority, body);
  }

 private:
  friend class Engine;
  template <auto Method>
  friend class Channel;

  // The key of an event `delay` from now, using up one sequence number.
  EventKey make_key(SimTime delay, Priority priority) {
    if (delay < SimTime::zero() || delay > SimTime::infinity() - now()) report_bad_delay(delay);
    return EventKey{now() + delay, EventKey::make_origin(priority, id_), next_sequence_++};
  }

  template <auto Method>
  static EventBody make_body(LpId target) {
    using Class = typename detail::MethodTraits<Method>::Class;
    static_assert(HasHandlers<Class>, "the target class has no `using Handlers = pdes::Handlers<...>`");
    constexpr int index = detail::index_in<Method>(typename Class::Handlers{});
    static_assert(index >= 0, "the method is not in its class's Handlers list");
    EventBody body;
    body.target = target;
    body.lp_class = detail::class_tag<Class>;
    body.handler = static_cast<std::uint32_t>(index);
    return body;
  }
  void post(SimTime delay, Priority priority, const EventBody& body) {
    // make_key checks that now() + delay does not overflow the 63 bits of simulated time.
    detail::post(*engine_, make_key(delay, priority), body);
  }
  [[noreturn]] void report_bad_delay(SimTime delay) const;

  Engine* engine_ = nullptr;
  const SimTime* clock_ = nullptr;  // the engine's current time
  LpId id_ = kNoLp;
  SimTime distance_out_ = SimTime::infinity();
  std::uint64_t next_sequence_ = 0;
  RandomStream random_;
  const detail::Trampoline* handlers_ = nullptr;
  std::uint32_t class_tag_ = 0;
  std::uint8_t handler_count_ = 0;
};

}  // namespace collsim::pdes
