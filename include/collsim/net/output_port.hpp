#pragma once
// One direction of a link, at the device that sends on it: a FIFO per traffic class served
// in strict priority (class 0 first), the transmitter (busy until the current packet's
// last bit is on the wire), and the PFC pause state of each class set by the device at the
// other end.

#include <array>
#include <cstdint>

#include "collsim/common/units.hpp"
#include "collsim/net/packet.hpp"
#include "collsim/net/ring_queue.hpp"
#include "collsim/pdes/event.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::net {

inline constexpr std::size_t kMaxClasses = 8;

struct PortStats {
  // What every packet updates first, in one cache line of the port.
  std::uint64_t packets = 0;
  std::uint64_t bytes = 0;          // wire bytes sent
  SimTime busy;                     // time spent transmitting
  std::uint64_t max_queue_bytes = 0;
  std::uint64_t drops = 0;          // packets refused at this port's queue
  std::uint64_t ecn_marks = 0;
  std::uint64_t pauses_sent = 0;    // PFC pause frames sent upstream from this port's ingress
  std::uint64_t pauses_received = 0;
  std::uint64_t lost = 0;           // packets lost to the link being down (see LinkFault)
};

class alignas(64) OutputPort {
 public:
  // Where the wire goes.
  struct Wire {
    pdes::LpId peer = pdes::kNoLp;
    std::uint16_t peer_port = 0;    // the peer's port this link arrives on
    bool peer_is_host = false;
    Bandwidth bandwidth;
    SimTime latency;          // propagation, plus the peer's switching latency
  };

  void connect(const Wire& wire) { wire_ = wire; }
  // The link's speed from now on (see LinkChange).
  void set_bandwidth(Bandwidth bandwidth) {
    wire_.bandwidth = bandwidth;
    last_wire_bytes_ = 0;  // the cached serialisation time was at the old speed
  }
  const Wire& wire() const { return wire_; }
  // The link is down (see LinkFault): what is put on its wire is lost, and PFC pauses across
  // it lapse (nobody is left to lift them).
  bool down() const { return down_; }
  void set_down(bool down) {
    down_ = down;
    if (down) paused_ = 0;
  }

  bool idle(SimTime now) const { return busy_until_ <= now; }
  SimTime busy_until() const { return busy_until_; }
  // Occupies the transmitter for `wire_bytes` from `start` (now, or when the packet on the
  // wire has left); returns when the last bit leaves.
  SimTime transmit(SimTime start, std::uint32_t wire_bytes) {
    // Most packets on a port have the size of the one before.
    if (wire_bytes != last_wire_bytes_) {
      last_wire_bytes_ = wire_bytes;
      last_duration_ = SimTime::ps(wire_.bandwidth.serialization_ps(wire_bytes));
    }
    const SimTime duration = last_duration_;
    busy_until_ = start + duration;
    stats_.busy += duration;
    ++stats_.packets;
    stats_.bytes += wire_bytes;
    return busy_until_;
  }

  // A train of `packets` back-to-back packets of `packet_wire_bytes` each, each taking at least
  // `packet_time` (the time its bits take to arrive, when they come over a slower link);
  // returns when the last bit leaves.
  SimTime transmit_train(SimTime start, std::uint32_t packet_wire_bytes, std::uint32_t packets,
                               SimTime packet_time) {
    const SimTime duration = packet_time * packets;
    busy_until_ = start + duration;
    stats_.busy += duration;
    stats_.packets += packets;
    stats_.bytes += std::uint64_t{packet_wire_bytes} * packets;
    train_start_ = start;
    train_packet_time_ = packet_time;
    train_end_ = busy_until_;
    return busy_until_;
  }
  // Whether a train is on the wire with a packet boundary ahead before its end: a control
  // frame goes out there, between two of its packets, as it would between packets.
  bool mid_train(SimTime now) const {
    return busy_until_ == train_end_ && now >= train_start_ && next_boundary(now) < train_end_;
  }
  // Sends a frame of `wire_bytes` at the train's next packet boundary, delaying the rest of
  // the train by its time; returns when its last bit leaves.
  SimTime insert_into_train(SimTime now, std::uint32_t wire_bytes) {
    const SimTime at = next_boundary(now);
    const auto duration = SimTime::ps(wire_.bandwidth.serialization_ps(wire_bytes));
    busy_until_ += duration;
    train_end_ = busy_until_;
    stats_.busy += duration;
    ++stats_.packets;
    stats_.bytes += wire_bytes;
    return at + duration;
  }

  void enqueue(const Packet& p) {
    queues_[p.priority].packets.push_back(p);
    queues_[p.priority].bytes += p.wire_bytes;
    queued_bytes_ += p.wire_bytes;
    nonempty_ |= static_cast<std::uint8_t>(1u << p.priority);
    if (queued_bytes_ > stats_.max_queue_bytes) stats_.max_queue_bytes = queued_bytes_;
  }
  // The packet dequeue() would take next: the head of the highest unpaused class (has_sendable()).
  const Packet& front() const { return queues_[first_sendable_class()].packets.front(); }
  // Asks for front()'s lines ahead of its turn: a packet is read back long after it was
  // queued, and the read misses the cache.
  void prefetch_front() const {
    const auto* at = reinterpret_cast<const char*>(&front());
    __builtin_prefetch(at);
    __builtin_prefetch(at + sizeof(Packet) - 1);
  }
  // The first packet of the highest class that is not paused, removed; false if none.
  bool dequeue(Packet& out) {
    if (!has_sendable()) return false;
    const std::uint8_t c = first_sendable_class();
    ClassQueue& q = queues_[c];
    out = q.packets.front();
    q.packets.pop_front();
    if (q.packets.empty()) nonempty_ &= static_cast<std::uint8_t>(~(1u << c));
    q.bytes -= out.wire_bytes;
    queued_bytes_ -= out.wire_bytes;
    return true;
  }
  bool has_sendable() const { return (nonempty_ & ~paused_) != 0; }
  // Whether no class holds a packet, paused or not.
  bool empty() const { return nonempty_ == 0; }
  // A packet that crosses an idle, empty port at once, without being queued: it counts toward
  // the largest queue as if it had been queued and taken in the same instant.
  void pass_through(std::uint32_t wire_bytes) {
    if (wire_bytes > stats_.max_queue_bytes) stats_.max_queue_bytes = wire_bytes;
  }
  // Empties every class, paused or not, handing each packet to `each` (a link gone down).
  template <typename Each>
  void drain(Each&& each) {
    for (ClassQueue& q : queues_) {
      while (!q.packets.empty()) {
        const Packet p = q.packets.front();
        q.packets.pop_front();
        q.bytes -= p.wire_bytes;
        queued_bytes_ -= p.wire_bytes;
        each(p);
      }
    }
    nonempty_ = 0;
  }
  std::uint64_t queued_bytes() const { return queued_bytes_; }
  std::uint64_t class_bytes(std::uint8_t c) const { return queues_[c].bytes; }
  const RingQueue<Packet>& queue(std::uint8_t c) const { return queues_[c].packets; }

  void set_paused(std::uint8_t c, bool paused) {
    paused_ = static_cast<std::uint8_t>(paused ? paused_ | (1u << c) : paused_ & ~(1u << c));
  }
  bool paused(std::uint8_t c) const { return (paused_ >> c) & 1u; }

  // Whether a "transmitter free" event is already scheduled for this port.
  bool wakeup_pending() const { return wakeup_pending_; }
  void set_wakeup_pending(bool pending) { wakeup_pending_ = pending; }

  PortStats& stats() { return stats_; }
  const PortStats& stats() const { return stats_; }

 private:
  std::uint8_t first_sendable_class() const {
    return static_cast<std::uint8_t>(__builtin_ctz(static_cast<unsigned>(nonempty_ & ~paused_)));
  }
  // What every packet reads first, together in the port's first line: a port is reached
  // long after its last packet, and each further line it reads misses the cache. Then the
  // queues of classes 0 and 1 with their bytes (one line), and the counters every packet
  // updates at the head of the stats.
  SimTime busy_until_;
  std::uint64_t queued_bytes_ = 0;
  SimTime last_duration_;
  std::uint32_t last_wire_bytes_ = 0;
  std::uint8_t nonempty_ = 0;  // bit c: class c has packets
  std::uint8_t paused_ = 0;    // bit c: class c is paused by PFC
  bool down_ = false;
  bool wakeup_pending_ = false;
  Wire wire_;
  // The last train put on the wire (see transmit_train): its end is read whenever the
  // transmitter is busy.
  SimTime train_end_ = SimTime::ps(-1);
  struct ClassQueue {
    RingQueue<Packet> packets;
    std::uint64_t bytes = 0;
  };
  std::array<ClassQueue, kMaxClasses> queues_;
  PortStats stats_;
  SimTime train_start_;
  SimTime train_packet_time_;
  SimTime next_boundary(SimTime now) const {
    const std::int64_t into = (now - train_start_).picoseconds();
    const std::int64_t each = train_packet_time_.picoseconds();
    return train_start_ + SimTime::ps((into + each - 1) / each * each);
  }
};

}  // namespace collsim::net
