#include "collsim/workload/workload_spec.hpp"

#include <stdexcept>
#include <string>

namespace collsim::workload {

namespace {

constexpr std::string_view kDTypeNames[] = {"fp32", "tf32", "bf16", "fp16", "fp8"};

[[noreturn]] void invalid(const std::string& what) { throw std::invalid_argument(what); }

std::string num(std::uint64_t v) { return std::to_string(v); }

void validate_transformer(const WorkloadSpec& w, const TransformerSpec& m) {
  const ParallelSpec& p = w.parallel;
  if (m.layers == 0 || m.hidden == 0 || m.heads == 0 || m.seq == 0 || m.vocab == 0)
    invalid("model: layers, hidden, heads, seq and vocab must all be positive");
  if (m.hidden % m.heads != 0)
    invalid("model: hidden (" + num(m.hidden) + ") is not a multiple of heads (" + num(m.heads) + ")");
  if (m.heads % p.tp != 0)
    invalid("parallelism: TP = " + num(p.tp) + " does not divide the " + num(m.heads) + " attention heads");
  const std::uint32_t kv = m.kv_heads ? m.kv_heads : m.heads;
  if (m.heads % kv != 0) invalid("model: heads (" + num(m.heads) + ") is not a multiple of kv_heads (" + num(kv) + ")");
  if (kv % p.tp != 0 && p.tp % kv != 0)
    invalid("parallelism: TP = " + num(p.tp) + " and the " + num(kv) + " key/value heads do not divide one another");
  if (p.sp && m.seq % p.tp != 0)
    invalid("parallelism: sequence parallelism splits the sequence (" + num(m.seq) + ") over TP = " + num(p.tp) +
            ", which does not divide it");
  if (m.experts == 0) {
    if (p.ep > 1) invalid("parallelism: EP = " + num(p.ep) + " needs a mixture-of-experts model (model.moe)");
    return;
  }
  if (m.top_k == 0 || m.top_k > m.experts)
    invalid("model: moe top_k must be from 1 to the " + num(m.experts) + " experts, found " + num(m.top_k));
  if (m.moe_every == 0) invalid("model: moe every must be at least 1");
  if (m.experts % p.ep != 0)
    invalid("parallelism: EP = " + num(p.ep) + " does not divide the " + num(m.experts) + " experts");
}

}  // namespace

std::uint32_t bytes_of(DType t) {
  switch (t) {
    case DType::FP32:
    case DType::TF32: return 4;
    case DType::BF16:
    case DType::FP16: return 2;
    case DType::FP8: return 1;
  }
  return 4;
}

std::optional<FastForward> parse_fast_forward(std::string_view text) {
  if (text == "off") return FastForward{};
  FastForward f;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    // contended is steady with more: naming both is naming steady twice.
    bool* flag = part == "steady" || part == "contended" ? &f.steady : part == "collectives" ? &f.collectives : nullptr;
    if (!flag || *flag) return std::nullopt;  // unknown, or named twice
    *flag = true;
    if (part == "contended") f.contended = true;
    if (comma == std::string_view::npos) return f;
    text.remove_prefix(comma + 1);
  }
}

std::string_view to_string(DType t) { return kDTypeNames[static_cast<std::size_t>(t)]; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kDTypeNames); ++i)
    if (kDTypeNames[i] == name) return static_cast<DType>(i);
  return std::nullopt;
}

std::string_view to_string(PipelineSchedule s) { return s == PipelineSchedule::OneFOneB ? "1f1b" : "interleaved"; }

std::string_view to_string(DpSharding s) {
  switch (s) {
    case DpSharding::None: return "none";
    case DpSharding::Zero1: return "zero1";
    case DpSharding::Zero2: return "zero2";
    case DpSharding::Zero3: return "zero3";
  }
  return "none";
}

std::string_view to_string(Dimension d) {
  switch (d) {
    case Dimension::TP: return "tp";
    case Dimension::PP: return "pp";
    case Dimension::DP: return "dp";
    case Dimension::EP: return "ep";
  }
  return "?";
}

void validate(const WorkloadSpec& w) {
  const ParallelSpec& p = w.parallel;
  if (p.tp == 0 || p.pp == 0 || p.dp == 0 || p.ep == 0 || p.virtual_stages == 0)
    invalid("parallelism: tp, pp, dp, ep and virtual_stages must be at least 1");
  if (p.dp % p.ep != 0)
    invalid("parallelism: EP = " + num(p.ep) + " must divide DP = " + num(p.dp) + " (experts are spread over data-parallel ranks)");
  if (w.training.micro_batch == 0 || w.training.global_batch == 0)
    invalid("training: global_batch and micro_batch must be positive");
  if (w.training.global_batch % (w.training.micro_batch * p.dp) != 0)
    invalid("training: global_batch (" + num(w.training.global_batch) + ") is not a multiple of micro_batch × DP (" +
            num(w.training.micro_batch) + " × " + num(p.dp) + ")");
  const std::uint32_t chunks = p.schedule == PipelineSchedule::Interleaved ? p.virtual_stages : 1;
  if (p.schedule == PipelineSchedule::Interleaved && (p.pp < 2 || p.virtual_stages < 2))
    invalid("parallelism: the interleaved schedule needs pp >= 2 and virtual_stages >= 2");
  if (p.schedule == PipelineSchedule::Interleaved && w.micro_batches() % p.pp != 0)
    invalid("parallelism: the interleaved schedule needs the micro-batches per iteration (" + num(w.micro_batches()) +
            ") to be a multiple of PP = " + num(p.pp));
  if (w.cluster.gpus != 0 && w.cluster.gpus != w.world())
    invalid("cluster: " + num(w.cluster.gpus) + " GPUs, but TP × PP × DP = " + num(p.tp) + " × " + num(p.pp) + " × " +
            num(p.dp) + " = " + num(w.world()));
  if (w.comm.channels == 0 || w.comm.channels > 16) invalid("comm: channels must be from 1 to 16");
  if (p.bucket_bytes == 0) invalid("parallelism: dp_bucket must be positive");
  const bool transformer = w.model.transformer.has_value();
  if (transformer == !w.model.layers.empty())
    invalid("model: give either a transformer (layers, hidden, ...) or an explicit layer list, not both");
  const std::uint64_t layers = transformer ? w.model.transformer->layers : w.model.layers.size();
  if (layers < std::uint64_t{p.pp} * chunks)
    invalid("parallelism: " + num(std::uint64_t{p.pp} * chunks) + " pipeline stages (PP = " + num(p.pp) +
            (chunks > 1 ? " × " + num(chunks) + " virtual" : std::string()) + ") but only " + num(layers) + " layers");
  if (transformer) {
    validate_transformer(w, *w.model.transformer);
  } else {
    if (p.tp > 1) invalid("parallelism: TP = " + num(p.tp) + " needs a transformer model; explicit layers split only by PP and DP");
    if (p.sp) invalid("parallelism: sequence parallelism needs a transformer model");
    if (p.ep > 1) invalid("parallelism: EP needs a mixture-of-experts transformer");
  }
  if (w.device.efficiency <= 0 || w.device.efficiency > 1) invalid("device: efficiency must be in (0, 1]");
}

}  // namespace collsim::workload
