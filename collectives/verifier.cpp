#include "collsim/collectives/verifier.hpp"

#include <algorithm>
#include <bit>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace collsim::collectives {
namespace {

constexpr std::uint32_t kNotMember = 0xFFFFFFFFu;

std::string op_text(const goal::Op& op) {
  switch (op.kind) {
    case goal::OpKind::Send:
      return "send " + std::to_string(op.size) + " b to " + std::to_string(op.peer) + " tag " + std::to_string(op.tag);
    case goal::OpKind::Recv:
      return "recv " + std::to_string(op.size) + " b from " + std::to_string(op.peer) + " tag " + std::to_string(op.tag);
    case goal::OpKind::Calc: return "calc " + std::to_string(op.size);
  }
  return "?";
}

struct VerifyFailure {
  std::string what;
};

[[noreturn]] void fail(std::string what) { throw VerifyFailure{std::move(what)}; }

// Contribution sets: one bit per group member, `words` 64-bit words per set.
class ContributionState {
 public:
  ContributionState(std::uint32_t members, std::uint64_t units, std::uint32_t n)
      : units_(units), words_((n + 63) / 64), present_(members * units, 0), bits_(members * units * words_, 0) {}

  std::uint32_t words() const { return words_; }
  bool present(std::uint32_t m, std::uint64_t u) const { return present_[m * units_ + u] != 0; }
  std::uint64_t* set(std::uint32_t m, std::uint64_t u) { return bits_.data() + (m * units_ + u) * words_; }
  const std::uint64_t* set(std::uint32_t m, std::uint64_t u) const { return bits_.data() + (m * units_ + u) * words_; }
  void hold(std::uint32_t m, std::uint64_t u, std::uint32_t contributor) {
    present_[m * units_ + u] = 1;
    set(m, u)[contributor / 64] |= std::uint64_t{1} << (contributor % 64);
  }
  void mark_present(std::uint32_t m, std::uint64_t u) { present_[m * units_ + u] = 1; }

 private:
  std::uint64_t units_;
  std::uint32_t words_;
  std::vector<std::uint8_t> present_;
  std::vector<std::uint64_t> bits_;
};

struct Message {
  std::uint64_t op;                  // global index of the send
  std::uint64_t size;
  std::vector<std::uint64_t> bits;   // per unit: words_ words
  std::uint64_t units;
};

// The first position where two unit lists differ, as (index, unit in a, unit in b); nothing
// when they are equal. Lists of different length differ at the shorter one's end.
struct UnitMismatch {
  std::uint64_t a, b;
  bool a_ended, b_ended;
};
std::optional<UnitMismatch> first_difference(std::span<const UnitRange> a, std::span<const UnitRange> b) {
  std::size_t ia = 0, ib = 0;
  std::uint64_t ua = a.empty() ? 0 : a[0].begin, ub = b.empty() ? 0 : b[0].begin;
  auto settle = [](std::span<const UnitRange> r, std::size_t& i, std::uint64_t& u) {
    while (i < r.size() && u >= r[i].end) {
      if (++i < r.size()) u = r[i].begin;
    }
  };
  for (;;) {
    settle(a, ia, ua);
    settle(b, ib, ub);
    const bool a_end = ia == a.size(), b_end = ib == b.size();
    if (a_end && b_end) return std::nullopt;
    if (a_end || b_end || ua != ub) return UnitMismatch{ua, ub, a_end, b_end};
    ++ua;
    ++ub;
  }
}

class AbstractRun {
 public:
  explicit AbstractRun(const AnnotatedSchedule& a)
      : a_(a), plan_(a.plan), s_(a.schedule), layout_(plan_), n_(plan_.n),
        state_(plan_.participants(), layout_.num_units(), plan_.n) {}

  void run() {
    index_members();
    check_annotations();
    check_connection_order();
    initialise();
    execute();
    check_postcondition();
  }

 private:
  // --- naming -------------------------------------------------------------------------
  std::string rank_name(std::uint32_t participant) const {
    return (plan_.is_helper(participant) ? "helper rank " : "rank ") + std::to_string(plan_.rank_of(participant));
  }
  std::string op_name(goal::RankId rank, goal::LocalOp i) const {
    return "op " + std::to_string(i) + " (" + op_text(s_.rank(rank).op(i)) + ")";
  }
  std::string unit_name(std::uint64_t u) const {
    std::string text = "chunk " + std::to_string(u);
    if (layout_.num_units() > 1)
      text += " (slice " + std::to_string(layout_.slice_of(u)) + ", block " + std::to_string(layout_.block_of(u)) + ")";
    return text;
  }
  // "chunk 3 (slice 1, block 0)" or "chunks 3 (...) and 2 more" for an op's payload.
  std::string units_text(std::uint64_t g) const {
    std::uint64_t count = 0, first = 0;
    for (const UnitRange& ur : a_.annotations.units_of(g)) {
      if (count == 0 && ur.size() > 0) first = ur.begin;
      count += ur.size();
    }
    if (count == 0) return "no chunk";
    return count == 1 ? unit_name(first) : unit_name(first) + " and " + std::to_string(count - 1) + " more";
  }
  std::string members_text(const std::uint64_t* set) const {
    std::string text;
    std::uint32_t shown = 0, count = 0;
    for (std::uint32_t m = 0; m < n_; ++m) {
      if ((set[m / 64] >> (m % 64) & 1) == 0) continue;
      ++count;
      if (shown < 8) {
        text += (shown ? ", " : "") + std::to_string(plan_.group[m]);
        ++shown;
      }
    }
    if (count > shown) text += ", ... (" + std::to_string(count) + " in all)";
    return "{" + text + "}";
  }

  // --- set-up -------------------------------------------------------------------------
  void index_members() {
    member_.assign(s_.num_ranks(), kNotMember);
    for (std::uint32_t m = 0; m < plan_.participants(); ++m) member_[plan_.rank_of(m)] = m;
  }

  void check_annotations() {
    const Annotations& an = a_.annotations;
    if (an.action.size() != s_.num_ops() || an.units_begin.size() != s_.num_ops() + 1)
      fail("the annotations describe " + std::to_string(an.action.size()) + " ops but the schedule has " +
           std::to_string(s_.num_ops()));
    const std::uint64_t units = layout_.num_units();
    for (goal::RankId r = 0; r < s_.num_ranks(); ++r) {
      const goal::RankOps ops = s_.rank(r);
      if (ops.num_ops() > 0 && member_[r] == kNotMember)
        fail("rank " + std::to_string(r) + " is not in the group but has " + std::to_string(ops.num_ops()) + " ops");
      for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
        const std::uint64_t g = ops.first_global_op() + i;
        const goal::OpKind kind = ops.kind(i);
        for (const UnitRange& ur : an.units_of(g))
          if (ur.begin > ur.end || ur.end > units)
            fail("rank " + std::to_string(r) + " " + op_name(r, i) + " names chunks [" + std::to_string(ur.begin) +
                 ", " + std::to_string(ur.end) + ") but the collective has " + std::to_string(units));
        if (kind == goal::OpKind::Recv && an.action[g] == DataAction::None)
          fail("rank " + std::to_string(r) + " " + op_name(r, i) + " does not say what it does with the data");
        if (kind != goal::OpKind::Calc) {
          if (ops.peer(i) == goal::kAnySource || ops.tag(i) == goal::kAnyTag)
            fail("rank " + std::to_string(r) + " " + op_name(r, i) + " uses a wildcard, which the verifier cannot match");
          if (ops.peer(i) >= s_.num_ranks() || member_[ops.peer(i)] == kNotMember)
            fail("rank " + std::to_string(r) + " " + op_name(r, i) + " talks to rank " + std::to_string(ops.peer(i)) +
                 ", which is not in the group");
        }
      }
    }
  }

  // Does op `later` transitively depend (requires or irequires) on op `earlier`?
  bool ordered_after(const goal::RankOps& ops, goal::LocalOp later, goal::LocalOp earlier) {
    ++stamp_;
    if (visited_.size() < ops.num_ops()) visited_.assign(ops.num_ops(), 0);
    std::vector<goal::LocalOp>& stack = dfs_stack_;
    stack.assign(1, later);
    while (!stack.empty()) {
      const goal::LocalOp op = stack.back();
      stack.pop_back();
      for (auto row : {ops.requires_of(op), ops.irequires_of(op)})
        for (std::uint32_t p : row) {
          if (p == earlier) return true;
          if (visited_[p] == stamp_) continue;
          visited_[p] = stamp_;
          stack.push_back(p);
        }
    }
    return false;
  }

  // Consecutive sends (receives) of one rank to (from) one peer with one tag must be ordered
  // by dependencies, so that MPI matching pairs them the same way however time unfolds.
  void check_connection_order() {
    for (goal::RankId r = 0; r < s_.num_ranks(); ++r) {
      const goal::RankOps ops = s_.rank(r);
      visited_.assign(ops.num_ops(), 0);
      stamp_ = 0;
      std::map<std::tuple<goal::OpKind, std::uint32_t, std::uint32_t>, goal::LocalOp> last;
      for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
        if (ops.kind(i) == goal::OpKind::Calc) continue;
        auto [it, fresh] = last.try_emplace({ops.kind(i), ops.peer(i), ops.tag(i)}, i);
        if (fresh) continue;
        if (!ordered_after(ops, i, it->second))
          fail("rank " + std::to_string(r) + " " + op_name(r, i) + " does not depend on " + op_name(r, it->second) +
               ", so which message it matches depends on timing");
        it->second = i;
      }
    }
  }

  void initialise() {
    const std::uint64_t units = layout_.num_units();
    for (std::uint64_t u = 0; u < units; ++u) {
      const std::uint64_t block = layout_.block_of(u);
      switch (plan_.collective) {
        case Collective::Allreduce:
        case Collective::Reduce:
        case Collective::ReduceScatter:
          for (std::uint32_t m = 0; m < n_; ++m) state_.hold(m, u, m);
          break;
        case Collective::Broadcast: state_.hold(plan_.root, u, plan_.root); break;
        case Collective::Allgather:
        case Collective::SendRecv:
        case Collective::Barrier: state_.hold(static_cast<std::uint32_t>(block), u, static_cast<std::uint32_t>(block)); break;
        case Collective::AllToAll: {
          const auto source = static_cast<std::uint32_t>(block / n_);
          state_.hold(source, u, source);
          break;
        }
      }
    }
  }

  // --- abstract execution ---------------------------------------------------------------
  void execute() {
    const std::uint64_t total = s_.num_ops();
    waiting_requires_.assign(total, 0);
    waiting_irequires_.assign(total, 0);
    finished_.assign(total, 0);
    // Reverse edges, global indices.
    std::vector<std::uint64_t> req_count(total + 1, 0), ireq_count(total + 1, 0);
    for (goal::RankId r = 0; r < s_.num_ranks(); ++r) {
      const goal::RankOps ops = s_.rank(r);
      for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
        const std::uint64_t g = ops.first_global_op() + i;
        waiting_requires_[g] = static_cast<std::uint32_t>(ops.requires_of(i).size());
        waiting_irequires_[g] = static_cast<std::uint32_t>(ops.irequires_of(i).size());
        for (std::uint32_t p : ops.requires_of(i)) ++req_count[ops.first_global_op() + p + 1];
        for (std::uint32_t p : ops.irequires_of(i)) ++ireq_count[ops.first_global_op() + p + 1];
      }
    }
    for (std::uint64_t g = 0; g < total; ++g) {
      req_count[g + 1] += req_count[g];
      ireq_count[g + 1] += ireq_count[g];
    }
    after_finish_begin_ = req_count;
    after_start_begin_ = ireq_count;
    after_finish_.resize(req_count[total]);
    after_start_.resize(ireq_count[total]);
    for (goal::RankId r = 0; r < s_.num_ranks(); ++r) {
      const goal::RankOps ops = s_.rank(r);
      for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
        const std::uint64_t g = ops.first_global_op() + i;
        for (std::uint32_t p : ops.requires_of(i)) after_finish_[req_count[ops.first_global_op() + p]++] = g;
        for (std::uint32_t p : ops.irequires_of(i)) after_start_[ireq_count[ops.first_global_op() + p]++] = g;
      }
    }
    rank_of_.resize(total);
    for (goal::RankId r = 0; r < s_.num_ranks(); ++r)
      for (std::uint64_t g = s_.columns().op_begin[r]; g < s_.columns().op_begin[r + 1]; ++g) rank_of_[g] = r;

    for (std::uint64_t g = 0; g < total; ++g)
      if (waiting_requires_[g] == 0 && waiting_irequires_[g] == 0) ready_.push_back(g);
    while (!ready_.empty()) {
      const std::uint64_t g = ready_.front();
      ready_.pop_front();
      start(g);
    }
    report_stuck();
  }

  void start(std::uint64_t g) {
    for (std::uint64_t k = after_start_begin_[g]; k < after_start_begin_[g + 1]; ++k) release_irequires(after_start_[k]);
    const goal::RankId r = rank_of_[g];
    const goal::LocalOp i = static_cast<goal::LocalOp>(g - s_.columns().op_begin[r]);
    const goal::RankOps ops = s_.rank(r);
    switch (ops.kind(i)) {
      case goal::OpKind::Calc: finish(g); break;
      case goal::OpKind::Send: {
        Connection& c = connections_[{r, ops.peer(i), ops.tag(i)}];
        c.sends.push_back(snapshot(g, r, i));
        finish(g);  // eager: the data was read when the send started
        match(c);
        break;
      }
      case goal::OpKind::Recv: {
        Connection& c = connections_[{ops.peer(i), r, ops.tag(i)}];
        c.recvs.push_back(g);
        match(c);
        break;
      }
    }
  }

  Message snapshot(std::uint64_t g, goal::RankId r, goal::LocalOp i) {
    const std::uint32_t m = member_[r];
    Message msg{g, s_.rank(r).size(i), {}, 0};
    const std::uint32_t w = state_.words();
    for (const UnitRange& ur : a_.annotations.units_of(g))
      for (std::uint64_t u = ur.begin; u < ur.end; ++u) {
        if (!state_.present(m, u))
          fail(rank_name(m) + " " + op_name(r, i) + " sends " + unit_name(u) + ", which it does not hold yet");
        msg.bits.insert(msg.bits.end(), state_.set(m, u), state_.set(m, u) + w);
        ++msg.units;
      }
    return msg;
  }

  struct Connection {
    std::deque<Message> sends;
    std::deque<std::uint64_t> recvs;
  };

  void match(Connection& c) {
    while (!c.sends.empty() && !c.recvs.empty()) {
      Message msg = std::move(c.sends.front());
      c.sends.pop_front();
      const std::uint64_t g = c.recvs.front();
      c.recvs.pop_front();
      deliver(msg, g);
      finish(g);
    }
  }

  void deliver(const Message& msg, std::uint64_t g) {
    const goal::RankId r = rank_of_[g];
    const goal::LocalOp i = static_cast<goal::LocalOp>(g - s_.columns().op_begin[r]);
    const goal::RankId sr = rank_of_[msg.op];
    const goal::LocalOp si = static_cast<goal::LocalOp>(msg.op - s_.columns().op_begin[sr]);
    const std::uint32_t m = member_[r];
    const std::string where = rank_name(m) + " " + op_name(r, i) + ", matched by rank " + std::to_string(sr) + " " +
                              op_name(sr, si);
    if (msg.size != s_.rank(r).size(i)) fail(where + ": the sizes differ");
    if (auto d = first_difference(a_.annotations.units_of(g), a_.annotations.units_of(msg.op))) {
      if (d->a_ended) fail(where + ": the send carries more chunks than the receive expects (" + unit_name(d->b) + ")");
      if (d->b_ended) fail(where + ": the receive expects " + unit_name(d->a) + ", which the send does not carry");
      fail(where + ": the receive expects " + unit_name(d->a) + " but the send carries " + unit_name(d->b));
    }
    const DataAction action = a_.annotations.action[g];
    const std::uint32_t w = state_.words();
    std::uint64_t k = 0;
    for (const UnitRange& ur : a_.annotations.units_of(g))
      for (std::uint64_t u = ur.begin; u < ur.end; ++u, ++k) {
        const std::uint64_t* in = msg.bits.data() + k * w;
        std::uint64_t* local = state_.set(m, u);
        switch (action) {
          case DataAction::Copy:
          case DataAction::None: std::copy(in, in + w, local); break;
          case DataAction::Reduce:
            // A helper's accumulator starts empty: its first contribution needs nothing held.
            if (!state_.present(m, u) && !plan_.is_helper(m))
              fail(where + ": reduces into " + unit_name(u) + ", which the receiver does not hold");
            for (std::uint32_t j = 0; j < w; ++j)
              if (const std::uint64_t twice = local[j] & in[j]; twice != 0) {
                const auto who = static_cast<std::uint32_t>(j * 64 + static_cast<std::uint32_t>(std::countr_zero(twice)));
                fail(where + ": " + unit_name(u) + " would count the contribution of rank " +
                     std::to_string(plan_.group[who]) + " twice (it holds " + members_text(local) + ", receives " +
                     members_text(in) + ")");
              }
            for (std::uint32_t j = 0; j < w; ++j) local[j] |= in[j];
            break;
          case DataAction::Merge:
            for (std::uint32_t j = 0; j < w; ++j) local[j] |= in[j];
            break;
        }
        state_.mark_present(m, u);
      }
  }

  void finish(std::uint64_t g) {
    finished_[g] = 1;
    for (std::uint64_t k = after_finish_begin_[g]; k < after_finish_begin_[g + 1]; ++k) {
      const std::uint64_t d = after_finish_[k];
      if (--waiting_requires_[d] == 0 && waiting_irequires_[d] == 0) ready_.push_back(d);
    }
  }

  void release_irequires(std::uint64_t d) {
    if (--waiting_irequires_[d] == 0 && waiting_requires_[d] == 0) ready_.push_back(d);
  }

  void report_stuck() {
    for (const auto& [key, c] : connections_) {
      const auto& [from, to, tag] = key;
      if (!c.recvs.empty()) {
        const std::uint64_t g = c.recvs.front();
        const goal::LocalOp i = static_cast<goal::LocalOp>(g - s_.columns().op_begin[to]);
        fail("rank " + std::to_string(to) + " " + op_name(to, i) + " is never matched: rank " + std::to_string(from) +
             " sends no further message with tag " + std::to_string(tag) + " to it (it expected " + units_text(g) + ")");
      }
      if (!c.sends.empty()) {
        const std::uint64_t g = c.sends.front().op;
        const goal::LocalOp i = static_cast<goal::LocalOp>(g - s_.columns().op_begin[from]);
        fail("rank " + std::to_string(from) + " " + op_name(from, i) + " is never received: rank " +
             std::to_string(to) + " posts no further receive with tag " + std::to_string(tag) + " from it (it carries " +
             units_text(g) + ")");
      }
    }
    for (std::uint64_t g = 0; g < finished_.size(); ++g) {
      if (finished_[g]) continue;
      const goal::RankId r = rank_of_[g];
      const goal::LocalOp i = static_cast<goal::LocalOp>(g - s_.columns().op_begin[r]);
      fail("rank " + std::to_string(r) + " " + op_name(r, i) +
           " never runs: it waits for ops that never finish (a dependency cycle or a deadlock)");
    }
  }

  // --- the postcondition -------------------------------------------------------------------
  void expect_all(std::uint32_t m, std::uint64_t u) const {
    if (!state_.present(m, u)) fail(rank_name(m) + " " + unit_name(u) + ": missing at the end");
    const std::uint64_t* set = state_.set(m, u);
    for (std::uint32_t c = 0; c < n_; ++c)
      if ((set[c / 64] >> (c % 64) & 1) == 0)
        fail(rank_name(m) + " " + unit_name(u) + ": the contribution of rank " + std::to_string(plan_.group[c]) +
             " is missing (it holds " + members_text(set) + ")");
  }

  void expect_only(std::uint32_t m, std::uint64_t u, std::uint32_t origin) const {
    if (!state_.present(m, u)) fail(rank_name(m) + " " + unit_name(u) + ": missing at the end");
    const std::uint64_t* set = state_.set(m, u);
    for (std::uint32_t j = 0; j < state_.words(); ++j) {
      const std::uint64_t want = origin / 64 == j ? std::uint64_t{1} << (origin % 64) : 0;
      if (set[j] != want)
        fail(rank_name(m) + " " + unit_name(u) + ": holds data from " + members_text(set) + " instead of rank " +
             std::to_string(plan_.group[origin]) + "'s");
    }
  }

  void check_postcondition() const {
    const std::uint64_t units = layout_.num_units();
    for (std::uint64_t u = 0; u < units; ++u) {
      const std::uint64_t block = layout_.block_of(u);
      switch (plan_.collective) {
        case Collective::Allreduce:
          for (std::uint32_t m = 0; m < n_; ++m) expect_all(m, u);
          break;
        case Collective::ReduceScatter: expect_all(static_cast<std::uint32_t>(block), u); break;
        case Collective::Reduce: expect_all(plan_.root, u); break;
        case Collective::Broadcast:
          for (std::uint32_t m = 0; m < n_; ++m) expect_only(m, u, plan_.root);
          break;
        case Collective::Allgather:
        case Collective::Barrier:
          for (std::uint32_t m = 0; m < n_; ++m) expect_only(m, u, static_cast<std::uint32_t>(block));
          break;
        case Collective::AllToAll:
          expect_only(static_cast<std::uint32_t>(block % n_), u, static_cast<std::uint32_t>(block / n_));
          break;
        case Collective::SendRecv:
          expect_only(static_cast<std::uint32_t>((block + 1) % n_), u, static_cast<std::uint32_t>(block));
          break;
      }
    }
  }

  const AnnotatedSchedule& a_;
  const Plan& plan_;
  const goal::Schedule& s_;
  UnitLayout layout_;
  std::uint32_t n_;
  ContributionState state_;
  std::vector<std::uint32_t> member_;
  std::vector<std::uint32_t> visited_;
  std::uint32_t stamp_ = 0;
  std::vector<goal::LocalOp> dfs_stack_;

  std::vector<std::uint32_t> waiting_requires_, waiting_irequires_;
  std::vector<std::uint8_t> finished_;
  std::vector<std::uint64_t> after_finish_begin_, after_finish_, after_start_begin_, after_start_;
  std::vector<goal::RankId> rank_of_;
  std::deque<std::uint64_t> ready_;
  std::map<std::tuple<goal::RankId, goal::RankId, std::uint32_t>, Connection> connections_;
};

void add_traffic(const goal::Schedule& s, VerifyReport& report) {
  report.ops = s.num_ops();
  for (goal::RankId r = 0; r < s.num_ranks(); ++r) {
    const goal::RankOps ops = s.rank(r);
    std::uint64_t messages = 0, bytes = 0;
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
      if (ops.kind(i) == goal::OpKind::Send) {
        ++messages;
        bytes += ops.size(i);
      }
    report.messages += messages;
    report.bytes_total += bytes;
    report.messages_per_rank_max = std::max(report.messages_per_rank_max, messages);
    report.bytes_per_rank_max = std::max(report.bytes_per_rank_max, bytes);
  }
}

}  // namespace

VerifyReport count_traffic(const goal::Schedule& schedule) {
  VerifyReport report;
  add_traffic(schedule, report);
  return report;
}

VerifyReport verify(const AnnotatedSchedule& annotated, const VerifyLimits& limits) {
  VerifyReport report = count_traffic(annotated.schedule);
  const Plan& plan = annotated.plan;
  const UnitLayout layout(plan);
  const long double state = static_cast<long double>(plan.n) * static_cast<long double>(layout.num_units()) *
                            (8.0L * ((plan.n + 63) / 64) + 1.0L);
  if (state > static_cast<long double>(limits.max_state_bytes)) {
    report.error = "verifying needs " + std::to_string(static_cast<std::uint64_t>(state / (1 << 20))) +
                   " MiB of abstract state (" + std::to_string(plan.n) + " ranks x " +
                   std::to_string(layout.num_units()) + " chunks), above the limit of " +
                   std::to_string(limits.max_state_bytes >> 20) + " MiB; use fewer ranks, channels or a larger chunk";
    return report;
  }
  try {
    AbstractRun(annotated).run();
    report.ok = true;
  } catch (const VerifyFailure& f) {
    report.error = f.what;
  }
  return report;
}

}  // namespace collsim::collectives
