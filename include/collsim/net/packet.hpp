#pragma once
// A packet on the wire: a plain 56-byte value, carried inline in events so that it crosses
// ranks by copying. Data and control packets share the layout.

#include <cstdint>

#include "collsim/net/message.hpp"
#include "collsim/pdes/event.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::net {

enum class PacketKind : std::uint8_t {
  Data,   // `seq`: packet number in the flow; `bytes`: payload carried
  Ack,    // `seq`: cumulative, every packet below it arrived
  Nack,   // `seq`: the first missing packet (go-back-N from there)
  Cnp,    // congestion notification (DCQCN), receiver to sender
  Pause,  // PFC pause/resume of `priority` toward the upstream port; `seq` 1 = pause, 0 = resume
};

namespace packet_flag {
inline constexpr std::uint8_t kEcnCapable = 1;  // the sender's transport reacts to marks
inline constexpr std::uint8_t kEcnMarked = 2;   // congestion experienced (CE)
inline constexpr std::uint8_t kEcnEcho = 4;     // on an ACK: the data packet it acknowledges was marked
inline constexpr std::uint8_t kLast = 8;        // last packet of its flow
// The sender's window is full with this packet: acknowledge it at once (InfiniBand's AckReq),
// or a receiver that coalesces ACKs would wait for packets the sender cannot send.
inline constexpr std::uint8_t kAckRequest = 16;
// Steady-state fast-forward: a data packet that waited behind others at a switch port (set
// there), and its echo on the ACK that covers it. Its flow is not alone on its path, and
// sends packet by packet until it settles again.
inline constexpr std::uint8_t kQueued = 32;
inline constexpr std::uint8_t kQueuedEcho = 64;
// Trains through queues: the sender reads nothing from ACKs but the one that completes its
// flow (it neither adapts its rate nor keeps a window, and the fabric loses nothing), so the
// receiver acknowledges the last packet only. An ACK crossing the fabric per train was about
// a third of the events of a training step, carrying nothing the sender would use.
inline constexpr std::uint8_t kAckLastOnly = 128;
}  // namespace packet_flag

struct Packet {
  FlowId flow = 0;
  HostIndex src = 0;
  HostIndex dst = 0;
  std::uint32_t seq = 0;
  std::uint32_t bytes = 0;       // payload (of every packet of a train, see FabricParams::train_bytes)
  std::uint32_t wire_bytes = 0;  // payload + headers: what occupies links and buffers
  PacketKind kind = PacketKind::Data;
  std::uint8_t flags = 0;
  std::uint8_t priority = 0;     // traffic class, 0 = highest
  std::uint8_t hops = 0;
  std::uint32_t entropy = 0;     // hashed by ECMP; per flow, or per packet when spraying
  std::uint16_t via = 0;         // Valiant/UGAL: the intermediate router's switch index + 1, 0 = none
  std::uint16_t in_port = 0;     // set by the sending port: the receiver's port it arrives on
  MessageHeader header;          // data packets: their message's header, for the receiver's application
  SimTime sent;            // when its sender put it on the wire (echoed by ACKs)
};
static_assert(sizeof(Packet) == 56);
static_assert(sizeof(Packet) <= pdes::kMaxPayloadBytes);

}  // namespace collsim::net
