#include "goal_host_app.hpp"

#include <algorithm>
#include <cmath>

namespace collsim::exec {

using goal::LocalOp;
using goal::OpKind;

GoalHostApp::GoalHostApp(const goal::Schedule& schedule, const Placement& placement, const PacketHostParams& params,
                         std::uint32_t host, bool record_op_times, bool record_flows)
    : schedule_(schedule),
      placement_(placement),
      params_(params),
      host_(host),
      record_(record_op_times),
      record_flows_(record_flows),
      scale_up_(params.scale_up, host) {
  const auto& on = placement.ranks_on[host];
  ranks_.reserve(on.size());
  for (goal::RankId r : on) {
    RankRuntime& rt = ranks_.emplace_back(schedule, r);
    rt.matched.assign(rt.ops.num_ops(), 0);
    rt.recv_bytes.assign(rt.ops.num_ops(), 0);
    if (record_) {
      rt.start_ps.assign(rt.ops.num_ops(), -1);
      rt.end_ps.assign(rt.ops.num_ops(), -1);
    }
  }
}

void GoalHostApp::start(net::Host& host) {
  for (std::uint32_t slot = 0; slot < ranks_.size(); ++slot)
    ranks_[slot].deps.for_initially_ready([&](LocalOp op) { became_ready(slot, op); });
  drain(host);
}

// Ready ops are handled here, not from inside the callbacks that made them ready, so that long
// chains of ops starting at the same instant do not recurse.
void GoalHostApp::drain(net::Host& host) {
  if (draining_) return;
  draining_ = true;
  for (std::size_t k = 0; k < ready_.size(); ++k) run_ready(host, ready_[k].slot, ready_[k].op);
  ready_.clear();
  draining_ = false;
}

void GoalHostApp::run_ready(net::Host& host, std::uint32_t slot, LocalOp op) {
  RankRuntime& rt = ranks_[slot];
  if (rt.ops.kind(op) != OpKind::Recv) {
    want_cpu(host, slot, op);
    return;
  }
  // Posting a receive costs nothing; the cpu is charged when its message has arrived.
  start_op(host, slot, op);
  if (auto m = rt.match.post(rt.ops.peer(op), rt.ops.tag(op), op)) matched(host, slot, op, *m);
}

void GoalHostApp::want_cpu(net::Host& host, std::uint32_t slot, LocalOp op) {
  RankRuntime& rt = ranks_[slot];
  if (rt.cpus.take(rt.ops.cpu(op), op)) use_cpu(host, slot, op);
}

void GoalHostApp::use_cpu(net::Host& host, std::uint32_t slot, LocalOp op) {
  RankRuntime& rt = ranks_[slot];
  std::int64_t busy_ps = 0;
  switch (rt.ops.kind(op)) {
    case OpKind::Calc:
      start_op(host, slot, op);
      busy_ps = static_cast<std::int64_t>(rt.ops.size(op)) * 1000;
      break;
    case OpKind::Send:
      start_op(host, slot, op);
      busy_ps = host_overhead_ps(params_, rt.ops.size(op));
      break;
    case OpKind::Recv: busy_ps = host_overhead_ps(params_, rt.recv_bytes[op]); break;
  }
  host.set_timer(pdes::SimTime::ps(busy_ps), TimerCookie{HostTimer::Cpu, slot, op}.encode());
}

void GoalHostApp::on_timer(net::Host& host, std::uint64_t cookie) {
  const auto [timer, slot, op] = TimerCookie::decode(cookie);
  if (timer != HostTimer::Cpu) return scale_up_timer(host, timer, slot, op);
  RankRuntime& rt = ranks_[slot];
  switch (rt.ops.kind(op)) {
    case OpKind::Calc:
    case OpKind::Recv: finish_op(host, slot, op); break;
    case OpKind::Send: transmit(host, slot, op); break;
  }
  if (const std::optional<LocalOp> next = rt.cpus.pass(rt.ops.cpu(op))) use_cpu(host, slot, *next);
  drain(host);
}

void GoalHostApp::start_op(net::Host& host, std::uint32_t slot, LocalOp op) {
  RankRuntime& rt = ranks_[slot];
  if (record_) rt.start_ps[op] = host.time().picoseconds();
  rt.deps.start(op, [&](LocalOp d) { became_ready(slot, d); });
}

void GoalHostApp::finish_op(net::Host& host, std::uint32_t slot, LocalOp op) {
  RankRuntime& rt = ranks_[slot];
  const std::int64_t now = host.time().picoseconds();
  if (record_) rt.end_ps[op] = now;
  rt.finish_ps = std::max(rt.finish_ps, now);
  ++rt.ops_done;
  if (rt.ops.kind(op) == OpKind::Send) {
    ++rt.messages;
    rt.bytes += rt.ops.size(op);
  }
  rt.deps.finish(op, [&](LocalOp d) { became_ready(slot, d); });
}

void GoalHostApp::transmit(net::Host& host, std::uint32_t slot, LocalOp op) {
  RankRuntime& rt = ranks_[slot];
  const goal::RankId dst = rt.ops.peer(op);
  const std::uint64_t size = rt.ops.size(op);
  const std::uint32_t dst_host = placement_.host_of[dst];
  if (dst_host == host_) {
    // Ranks on one host exchange through memory: the message is there at once.
    finish_op(host, slot, op);
    arrive(host, placement_.slot_of(dst), Arrival{rt.rank, op, Message::Eager});
    return;
  }
  const net::QueuePair qp = message_queue_pair(slot, dst, rt.ops.tag(op), rt.ops.nic(op));
  if (size <= params_.eager_limit_bytes) {
    host.start_flow(dst_host, size, 0, label(op, Message::Eager, slot), rt.ops.nic(op), qp);
  } else {
    host.start_flow(dst_host, params_.control_bytes, 0, label(op, Message::Request, slot), rt.ops.nic(op), qp);
  }
}

void GoalHostApp::arrive(net::Host& host, std::uint32_t slot, const Arrival& a) {
  RankRuntime& rt = ranks_[slot];
  const goal::RankOps sender = schedule_.rank(a.sender);
  if (auto recv = rt.match.arrive(a.sender, sender.tag(a.send_op), a)) matched(host, slot, *recv, a);
}

void GoalHostApp::matched(net::Host& host, std::uint32_t slot, LocalOp recv, const Arrival& a) {
  RankRuntime& rt = ranks_[slot];
  rt.matched[recv] = 1;
  rt.recv_bytes[recv] = schedule_.rank(a.sender).size(a.send_op);
  if (a.kind == Message::Eager) {
    want_cpu(host, slot, recv);
    return;
  }
  // A rendezvous request: answer clear-to-send; the data will name the same send.
  rt.awaiting_data[(std::uint64_t{a.sender} << 32) | a.send_op] = recv;
  host.start_flow(placement_.host_of[a.sender], params_.control_bytes, 0,
                  label(a.send_op, Message::ClearToSend, placement_.slot_of(a.sender)), rt.ops.nic(recv),
                  message_queue_pair(slot, a.sender, schedule_.rank(a.sender).tag(a.send_op), rt.ops.nic(recv)));
}

void GoalHostApp::on_delivered(net::Host& host, const net::FlowEnd& end) {
  const auto kind = static_cast<Message>(end.label.info >> 14);
  if (record_flows_ && (kind == Message::Eager || kind == Message::Data))
    flow_arrivals_.push_back({end.src, end.flow, end.end.picoseconds()});
  const std::uint32_t src_slot = end.label.info & 0x3FFFu;
  const LocalOp op = end.label.op;
  switch (kind) {
    case Message::Eager:
    case Message::Request: {
      const goal::RankId sender = placement_.ranks_on[end.src][src_slot];
      arrive(host, placement_.slot_of(schedule_.rank(sender).peer(op)), Arrival{sender, op, kind});
      break;
    }
    case Message::ClearToSend:
      send_data(host, src_slot, op, end.src);  // we are the sender: the label names our own slot
      break;
    case Message::Data: {
      const goal::RankId sender = placement_.ranks_on[end.src][src_slot];
      const std::uint32_t slot = placement_.slot_of(schedule_.rank(sender).peer(op));
      RankRuntime& rt = ranks_[slot];
      const auto it = rt.awaiting_data.find((std::uint64_t{sender} << 32) | op);
      const LocalOp recv = it->second;
      rt.awaiting_data.erase(it);
      if (scale_up_.reaches(end.src)) {
        // A notice: the data comes in over our port from now, after what it is taking in.
        const std::int64_t now = host.time().picoseconds();
        const std::int64_t in = scale_up_.arrive(now, rt.recv_bytes[recv]);
        host.set_timer(pdes::SimTime::ps(in - now), TimerCookie{HostTimer::DataIn, slot, recv}.encode());
        break;
      }
      want_cpu(host, slot, recv);
      break;
    }
  }
  drain(host);
}

void GoalHostApp::send_data(net::Host& host, std::uint32_t slot, LocalOp op, std::uint32_t dst_host) {
  const RankRuntime& rt = ranks_[slot];
  if (!scale_up_.reaches(dst_host)) {
    host.start_flow(dst_host, rt.ops.size(op), 0, label(op, Message::Data, slot), rt.ops.nic(op),
                    message_queue_pair(slot, rt.ops.peer(op), rt.ops.tag(op), rt.ops.nic(op)));
    return;
  }
  // The notice goes as the data starts leaving.
  const std::int64_t now = host.time().picoseconds();
  const ScaleUpPort::Departure d = scale_up_.depart(now, rt.ops.size(op));
  host.set_timer(pdes::SimTime::ps(d.done_ps - now), TimerCookie{HostTimer::SendDone, slot, op}.encode());
  if (d.start_ps == now) {
    scale_up_timer(host, HostTimer::NoticeStart, slot, op);
  } else {
    host.set_timer(pdes::SimTime::ps(d.start_ps - now), TimerCookie{HostTimer::NoticeStart, slot, op}.encode());
  }
}

void GoalHostApp::scale_up_timer(net::Host& host, HostTimer t, std::uint32_t slot, LocalOp op) {
  const RankRuntime& rt = ranks_[slot];
  switch (t) {
    case HostTimer::NoticeStart: {
      const std::uint32_t dst_host = placement_.host_of[rt.ops.peer(op)];
      host.start_flow(dst_host, params_.control_bytes, 0, label(op, Message::Data, slot), rt.ops.nic(op),
                      message_queue_pair(slot, rt.ops.peer(op), rt.ops.tag(op), rt.ops.nic(op)));
      return;
    }
    case HostTimer::SendDone: finish_op(host, slot, op); break;
    case HostTimer::DataIn: want_cpu(host, slot, op); break;
    case HostTimer::Cpu: return;
  }
  drain(host);
}

void GoalHostApp::on_acked(net::Host& host, const net::FlowEnd& end) {
  const auto kind = static_cast<Message>(end.label.info >> 14);
  if (kind != Message::Eager && kind != Message::Data) return;
  if (kind == Message::Data && scale_up_.reaches(end.dst)) return;  // a notice: SendDone finishes the send
  if (record_flows_) flow_starts_.push_back({end.src, end.dst, end.flow, end.bytes, end.start.picoseconds()});
  finish_op(host, end.label.info & 0x3FFFu, end.label.op);
  drain(host);
}

// --- after the run ------------------------------------------------------------------------

std::uint64_t GoalHostApp::ops_done() const {
  std::uint64_t n = 0;
  for (const RankRuntime& rt : ranks_) n += rt.ops_done;
  return n;
}

void GoalHostApp::summarise(std::vector<RankSummary>& out) const {
  for (const RankRuntime& rt : ranks_)
    out.push_back({rt.rank, rt.deps.unfinished() == 0 ? 1u : 0u, rt.finish_ps, rt.ops_done, rt.messages, rt.bytes});
}

std::string GoalHostApp::waits_for(const RankRuntime& rt, LocalOp op) const {
  switch (rt.deps.state(op)) {
    case OpState::Waiting: {
      std::string text = "waits for";
      int shown = 0;
      for (std::uint32_t p : rt.ops.requires_of(op))
        if (rt.deps.state(p) != OpState::Finished && shown++ < 4) text += " op " + std::to_string(p) + " to finish,";
      for (std::uint32_t p : rt.ops.irequires_of(op))
        if ((rt.deps.state(p) == OpState::Waiting || rt.deps.state(p) == OpState::Ready) && shown++ < 4)
          text += " op " + std::to_string(p) + " to start,";
      text.pop_back();
      return text;
    }
    case OpState::Ready: return "waits for cpu " + std::to_string(rt.ops.cpu(op));
    case OpState::Started:
      if (rt.ops.kind(op) == OpKind::Recv) {
        if (!rt.matched[op]) return "posted; no matching message arrived";
        return "matched; waits for the data or the cpu";
      }
      if (rt.ops.kind(op) == OpKind::Send)
        return rt.ops.size(op) > params_.eager_limit_bytes ? "waits for clear-to-send or for its data to be acknowledged"
                                                           : "waits for its data to be acknowledged";
      return "running";
    case OpState::Finished: return "finished";
  }
  return "?";
}

void GoalHostApp::report_leftovers(std::vector<std::string>& blocked, std::vector<std::string>& unmatched) const {
  for (const RankRuntime& rt : ranks_) {
    if (rt.deps.unfinished() > 0)
      for (LocalOp i = 0; i < rt.ops.num_ops(); ++i)
        if (rt.deps.state(i) != OpState::Finished)
          blocked.push_back("rank " + std::to_string(rt.rank) + " " + describe_op(i, rt.ops.op(i)) + ": " +
                            waits_for(rt, i));
    rt.match.for_each_unexpected([&](std::uint32_t source, std::uint32_t tag, const Arrival& a) {
      unmatched.push_back("rank " + std::to_string(rt.rank) + ": message from rank " + std::to_string(source) + " tag " +
                          std::to_string(tag) + " (" + describe_op(a.send_op, schedule_.rank(a.sender).op(a.send_op)) +
                          " of rank " + std::to_string(a.sender) + ") was never received");
    });
  }
}

void GoalHostApp::append_op_times(std::vector<OpTime>& out) const {
  if (!record_) return;
  for (const RankRuntime& rt : ranks_)
    for (LocalOp i = 0; i < rt.ops.num_ops(); ++i) out.push_back({rt.rank, i, rt.start_ps[i], rt.end_ps[i]});
}

}  // namespace collsim::exec
