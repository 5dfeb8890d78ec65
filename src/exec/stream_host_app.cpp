#include "stream_host_app.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace collsim::exec {

using goal::LocalOp;
using goal::OpKind;

StreamHostApp::StreamHostApp(OpWindows& windows, const Placement& placement, const PacketHostParams& params,
                             std::uint32_t host)
    : windows_(windows), placement_(placement), params_(params), host_(host), scale_up_(params.scale_up, host) {
  const auto& on = placement.ranks_on[host];
  if (on.size() > kMaxRanksPerHost)
    throw std::invalid_argument("a streamed packet run places at most " + std::to_string(kMaxRanksPerHost) +
                                " ranks on a host; host " + std::to_string(host) + " has " + std::to_string(on.size()));
  ranks_.resize(on.size());
  for (std::size_t s = 0; s < on.size(); ++s) ranks_[s].rank = on[s];
}

void StreamHostApp::start(net::Host& host) {
  for (std::uint32_t slot = 0; slot < ranks_.size(); ++slot)
    windows_.initially_ready(ranks_[slot].rank, [&](LocalOp op) { became_ready(slot, op); });
  drain(host);
}

void StreamHostApp::drain(net::Host& host) {
  if (draining_) return;
  draining_ = true;
  for (std::size_t k = 0; k < ready_.size(); ++k) run_ready(host, ready_[k].slot, ready_[k].op);
  ready_.clear();
  draining_ = false;
}

void StreamHostApp::run_ready(net::Host& host, std::uint32_t slot, LocalOp op) {
  const OpInfo& info = op_info(slot, op);
  if (info.kind != OpKind::Recv) {
    want_cpu(host, slot, op);
    return;
  }
  const goal::RankId peer = info.peer;
  const std::uint32_t tag = windows_.tag(ranks_[slot].rank, op);
  start_op(host, slot, op);
  if (auto m = ranks_[slot].match.post(peer, tag, op)) matched(host, slot, op, *m);
}

void StreamHostApp::want_cpu(net::Host& host, std::uint32_t slot, LocalOp op) {
  if (ranks_[slot].cpus.take(op_info(slot, op).cpu, op)) use_cpu(host, slot, op);
}

void StreamHostApp::use_cpu(net::Host& host, std::uint32_t slot, LocalOp op) {
  const OpInfo& info = op_info(slot, op);
  std::int64_t busy_ps = 0;
  switch (info.kind) {
    case OpKind::Calc:
      busy_ps = static_cast<std::int64_t>(info.size) * 1000;
      start_op(host, slot, op);
      break;
    case OpKind::Send:
      busy_ps = host_overhead_ps(params_, info.size);
      start_op(host, slot, op);
      break;
    case OpKind::Recv: busy_ps = host_overhead_ps(params_, ranks_[slot].recv_bytes.at(op)); break;
  }
  host.set_timer(pdes::SimTime::ps(busy_ps), TimerCookie{HostTimer::Cpu, slot, op}.encode());
}

void StreamHostApp::on_timer(net::Host& host, std::uint64_t cookie) {
  const auto [timer, slot, op] = TimerCookie::decode(cookie);
  if (timer != HostTimer::Cpu) return scale_up_timer(host, timer, slot, op);
  RankRuntime& rt = ranks_[slot];
  const std::uint8_t c = op_info(slot, op).cpu;
  switch (op_info(slot, op).kind) {
    case OpKind::Calc:
    case OpKind::Recv: finish_op(host, slot, op); break;
    case OpKind::Send: transmit(host, slot, op); break;
  }
  if (const std::optional<LocalOp> next = rt.cpus.pass(c)) use_cpu(host, slot, *next);
  drain(host);
}

void StreamHostApp::start_op(net::Host& host, std::uint32_t slot, LocalOp op) {
  windows_.start(ranks_[slot].rank, op, static_cast<std::uint64_t>(host.time().picoseconds()),
                 [&](LocalOp d) { became_ready(slot, d); });
}

void StreamHostApp::finish_op(net::Host& host, std::uint32_t slot, LocalOp op) {
  RankRuntime& rt = ranks_[slot];
  const std::int64_t now = host.time().picoseconds();
  rt.finish_ps = std::max(rt.finish_ps, now);
  ++rt.ops_done;
  const OpInfo info = op_info(slot, op);  // a copy: finishing may retire the op
  if (info.kind == OpKind::Send) {
    ++rt.messages;
    rt.bytes += info.size;
  } else if (info.kind == OpKind::Recv) {
    rt.recv_bytes.erase(op);
  }
  windows_.finish(rt.rank, op, static_cast<std::uint64_t>(now), [&](LocalOp d) { became_ready(slot, d); });
}

void StreamHostApp::transmit(net::Host& host, std::uint32_t slot, LocalOp op) {
  RankRuntime& rt = ranks_[slot];
  const OpInfo info = op_info(slot, op);
  const std::uint32_t tag = windows_.tag(rt.rank, op);
  const goal::RankId dst = info.peer;
  const std::uint32_t dst_host = placement_.host_of[dst];
  const std::uint32_t dst_slot = placement_.slot_of(dst);
  if (dst_host == host_) {
    // Ranks on one host exchange through memory: the message is there at once.
    finish_op(host, slot, op);
    arrive(host, dst_slot, rt.rank, tag, Arrival{rt.rank, Message::Eager, info.size, 0, 0});
    return;
  }
  const net::QueuePair qp = message_queue_pair(slot, dst, tag, info.nic);
  if (info.size <= params_.eager_limit_bytes) {
    const net::FlowId flow =
        host.start_flow(dst_host, info.size, 0, message_label(tag, Message::Eager, slot, dst_slot), info.nic, qp);
    sending_.emplace(flow, SendRef{slot, op});
  } else {
    const net::FlowId request = host.start_flow(dst_host, params_.control_bytes, 0,
                                                message_label(tag, Message::Request, slot, dst_slot), info.nic, qp);
    requests_.emplace(request, SendRef{slot, op});
  }
}

void StreamHostApp::arrive(net::Host& host, std::uint32_t slot, goal::RankId sender, std::uint32_t tag,
                           const Arrival& a) {
  if (auto recv = ranks_[slot].match.arrive(sender, tag, a)) matched(host, slot, *recv, a);
}

void StreamHostApp::matched(net::Host& host, std::uint32_t slot, LocalOp recv, const Arrival& a) {
  RankRuntime& rt = ranks_[slot];
  if (a.kind == Message::Eager) {
    rt.recv_bytes[recv] = a.bytes;
    want_cpu(host, slot, recv);
    return;
  }
  // A request: the size does not travel with it; the receive's own stands for it until the
  // data brings the real one (they are equal in every schedule the lowering makes).
  rt.recv_bytes[recv] = op_info(slot, recv).size;
  awaiting_data_[(std::uint64_t{a.src_host} << 32) | a.flow] = SendRef{slot, recv};
  const OpInfo& info = op_info(slot, recv);
  host.start_flow(a.src_host, params_.control_bytes, 0, rendezvous_label(a.flow, Message::ClearToSend), info.nic,
                  message_queue_pair(slot, a.sender, windows_.tag(rt.rank, recv), info.nic));
}

void StreamHostApp::on_delivered(net::Host& host, const net::FlowEnd& end) {
  const auto kind = static_cast<Message>(end.label.info >> 14);
  switch (kind) {
    case Message::Eager:
    case Message::Request: {
      const std::uint32_t from_slot = (end.label.info >> 7) & 0x7Fu;
      const std::uint32_t to_slot = end.label.info & 0x7Fu;
      const goal::RankId sender = placement_.ranks_on[end.src][from_slot];
      arrive(host, to_slot, sender, end.label.op, Arrival{sender, kind, end.bytes, end.src, end.flow});
      break;
    }
    case Message::ClearToSend: {
      // We are the sender: the label names our request.
      const auto it = requests_.find(end.label.op);
      const SendRef send = it->second;
      requests_.erase(it);
      send_data(host, send.slot, send.op, end.src, end.label.op);
      break;
    }
    case Message::Data: {
      const auto it = awaiting_data_.find((std::uint64_t{end.src} << 32) | end.label.op);
      const SendRef recv = it->second;
      awaiting_data_.erase(it);
      RankRuntime& rt = ranks_[recv.slot];
      if (scale_up_.reaches(end.src)) {
        // A notice: the data comes in over our port from now, after what it is taking in.
        const std::int64_t now = host.time().picoseconds();
        const std::int64_t in = scale_up_.arrive(now, rt.recv_bytes.at(recv.op));
        host.set_timer(pdes::SimTime::ps(in - now), TimerCookie{HostTimer::DataIn, recv.slot, recv.op}.encode());
        break;
      }
      rt.recv_bytes[recv.op] = end.bytes;
      want_cpu(host, recv.slot, recv.op);
      break;
    }
  }
  drain(host);
}

void StreamHostApp::send_data(net::Host& host, std::uint32_t slot, LocalOp op, std::uint32_t dst_host,
                              net::FlowId request) {
  const OpInfo& info = op_info(slot, op);
  const std::uint32_t tag = windows_.tag(ranks_[slot].rank, op);
  if (!scale_up_.reaches(dst_host)) {
    const net::FlowId flow = host.start_flow(dst_host, info.size, 0, rendezvous_label(request, Message::Data),
                                             info.nic, message_queue_pair(slot, info.peer, tag, info.nic));
    sending_.emplace(flow, SendRef{slot, op});
    return;
  }
  // The notice goes as the data starts leaving; its flow must name the request, which the
  // cookie cannot carry: it is kept until then.
  const std::int64_t now = host.time().picoseconds();
  const ScaleUpPort::Departure d = scale_up_.depart(now, info.size);
  host.set_timer(pdes::SimTime::ps(d.done_ps - now), TimerCookie{HostTimer::SendDone, slot, op}.encode());
  notices_.emplace(std::uint64_t{slot} << 32 | op, request);
  if (d.start_ps == now) {
    scale_up_timer(host, HostTimer::NoticeStart, slot, op);
  } else {
    host.set_timer(pdes::SimTime::ps(d.start_ps - now), TimerCookie{HostTimer::NoticeStart, slot, op}.encode());
  }
}

void StreamHostApp::scale_up_timer(net::Host& host, HostTimer t, std::uint32_t slot, LocalOp op) {
  switch (t) {
    case HostTimer::NoticeStart: {
      const OpInfo& info = op_info(slot, op);
      const auto it = notices_.find(std::uint64_t{slot} << 32 | op);
      const net::FlowId request = it->second;
      notices_.erase(it);
      host.start_flow(placement_.host_of[info.peer], params_.control_bytes, 0,
                      rendezvous_label(request, Message::Data), info.nic,
                      message_queue_pair(slot, info.peer, windows_.tag(ranks_[slot].rank, op), info.nic));
      return;
    }
    case HostTimer::SendDone: finish_op(host, slot, op); break;
    case HostTimer::DataIn: want_cpu(host, slot, op); break;
    case HostTimer::Cpu: return;
  }
  drain(host);
}

void StreamHostApp::on_acked(net::Host& host, const net::FlowEnd& end) {
  const auto kind = static_cast<Message>(end.label.info >> 14);
  if (kind != Message::Eager && kind != Message::Data) return;
  if (kind == Message::Data && scale_up_.reaches(end.dst)) return;  // a notice: SendDone finishes the send
  const auto it = sending_.find(end.flow);
  const SendRef send = it->second;
  sending_.erase(it);
  finish_op(host, send.slot, send.op);
  drain(host);
}

// --- after the run ------------------------------------------------------------------------

std::uint64_t StreamHostApp::ops_done() const {
  std::uint64_t n = 0;
  for (const RankRuntime& rt : ranks_) n += rt.ops_done;
  return n;
}

void StreamHostApp::summarise(std::vector<RankSummary>& out) const {
  for (const RankRuntime& rt : ranks_) {
    out.push_back({rt.rank, windows_.drained(rt.rank) ? 1u : 0u, rt.finish_ps, rt.ops_done, rt.messages, rt.bytes});
  }
}

void StreamHostApp::report_leftovers(std::vector<std::string>& blocked, std::vector<std::string>& unmatched) {
  for (const RankRuntime& rt : ranks_) {
    windows_.for_each_unfinished(rt.rank, [&](LocalOp i, const OpWindows::LiveOp& o) {
      const goal::Op op{o.info.kind, o.info.peer, o.tag, o.info.size, o.info.cpu, o.info.nic};
      std::string why;
      switch (o.state) {
        case OpState::Waiting: why = "waits for its prerequisites"; break;
        case OpState::Ready: why = "waits for cpu " + std::to_string(o.info.cpu); break;
        case OpState::Started:
          why = o.info.kind == OpKind::Recv   ? (rt.recv_bytes.contains(i) ? "matched; waits for the data or the cpu"
                                                                           : "posted; no matching message arrived")
                : o.info.kind == OpKind::Send ? "waits for clear-to-send or for its data to be acknowledged"
                                              : "running";
          break;
        case OpState::Finished: break;
      }
      blocked.push_back("rank " + std::to_string(rt.rank) + " " + describe_op(i, op) + ": " + why);
    });
    if (const std::uint64_t never = windows_.skip_rest(rt.rank))
      blocked.push_back("rank " + std::to_string(rt.rank) + ": " + std::to_string(never) +
                        " more op(s) never reached (their prerequisites never finished)");
    rt.match.for_each_unexpected([&](std::uint32_t source, std::uint32_t tag, const Arrival& a) {
      unmatched.push_back("rank " + std::to_string(rt.rank) + ": message from rank " + std::to_string(source) +
                          " tag " + std::to_string(tag) + " (" +
                          (a.kind == Message::Eager ? std::to_string(a.bytes) + " bytes, eager" : std::string("rendezvous")) +
                          ") was never received");
    });
  }
}

}  // namespace collsim::exec
