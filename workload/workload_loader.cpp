// The workload YAML reader. Each section is a map whose keys are checked against what it
// allows, so a typo is an error with its line rather than a silently ignored setting.

#include "collsim/workload/workload_loader.hpp"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "collsim/common/input_error.hpp"
#include "collsim/config/yaml_map.hpp"
#include "collsim/logging/logging.hpp"
#include "collsim/workload/compute_model.hpp"

namespace collsim::workload {

namespace {

using namespace config;

// The GPU of a workload file that names none.
constexpr std::string_view kDefaultDevice = "H100";

constexpr std::string_view kTopKeys[] = {"name", "model", "training", "parallelism", "comm", "device", "cluster"};
constexpr std::string_view kModelKeys[] = {"name", "dtype", "layers", "hidden", "ffn", "heads", "kv_heads",
                                           "seq",  "vocab", "mlp",    "moe",    "layer_list"};
constexpr std::string_view kMoeKeys[] = {"experts", "top_k", "every"};
constexpr std::string_view kLayerKeys[] = {"name", "flops", "params", "activation_bytes", "memory_bytes", "repeat"};
constexpr std::string_view kTrainingKeys[] = {"global_batch", "micro_batch", "recompute"};
constexpr std::string_view kParallelKeys[] = {"tp",   "sp", "pp",        "schedule",  "virtual_stages",
                                              "dp",   "ep", "zero",      "dp_bucket", "grad_dtype", "order"};
constexpr std::string_view kCommKeys[] = {"allreduce", "allgather", "reduce_scatter", "alltoall",
                                          "channels",  "chunk",     "protocol",       "launch", "step", "reduce_bandwidth"};
constexpr std::string_view kDeviceKeys[] = {"preset", "peak_tflops", "efficiency", "memory_bandwidth", "kernel_launch",
                                            "roofline"};
constexpr std::string_view kClusterKeys[] = {"topology", "network", "fidelity", "fast_forward", "gpus"};
constexpr std::string_view kTransformerOnly[] = {"layers", "hidden", "ffn", "heads", "kv_heads", "seq", "vocab", "mlp", "moe"};

DType read_dtype(const Reader& r, const Field& f) {
  const std::string s = read_string(r, f);
  const auto t = dtype_from_name(s);
  if (!t) r.fail(f.value, "key '" + f.key + "': expected fp32, tf32, bf16, fp16 or fp8, found '" + s + "'");
  return *t;
}

std::uint64_t read_large_count(const Reader& r, const Field& f) {
  const double v = read_nonnegative(r, f);
  if (v != std::floor(v) || v >= 9.2e18)
    r.fail(f.value, "key '" + f.key + "': expected a whole number, found '" + f.value.Scalar() + "'");
  return static_cast<std::uint64_t>(v);
}

std::uint32_t read_positive(const Reader& r, const Field& f) {
  const std::uint32_t v = read_count(r, f);
  if (v == 0) r.fail(f.value, "key '" + f.key + "': expected a whole number of at least 1, found 0");
  return v;
}

// Layers are lowered one by one for every micro-batch: a million of them is a typo, and
// would run out of memory rather than say so.
constexpr std::uint32_t kMaxLayers = 100'000;

std::uint32_t read_layer_count(const Reader& r, const Field& f) {
  const std::uint32_t v = read_positive(r, f);
  if (v > kMaxLayers)
    r.fail(f.value, "key '" + f.key + "': at most " + std::to_string(kMaxLayers) + " layers, found " + std::to_string(v));
  return v;
}

void read_moe(const Reader& r, const Field& f, TransformerSpec& t) {
  const Map m(r, f.value, "'moe'", "a map such as {experts: 8, top_k: 2}");
  m.allow_only(kMoeKeys, {}, "");
  t.experts = read_positive(r, m.require("experts", ""));
  t.top_k = read_positive(r, m.require("top_k", ""));
  if (const Field* e = m.find("every")) t.moe_every = read_positive(r, *e);
  if (t.top_k > t.experts) r.fail(f.value, "'moe': top_k (" + std::to_string(t.top_k) + ") exceeds the experts");
}

void read_layer_list(const Reader& r, const Field& f, std::vector<ExplicitLayer>& out) {
  if (!f.value.IsSequence() || f.value.size() == 0)
    r.fail(f.value, "key 'layer_list': expected a list of layers such as [{name: conv1, flops: 2.4e8, params: 9408, activation_bytes: 1.6e6}]");
  std::size_t index = 0;
  for (const YAML::Node& n : f.value) {
    ++index;
    const Map m(r, n, "layer " + std::to_string(index) + " of 'layer_list'", "a map with name, flops, params, activation_bytes");
    m.allow_only(kLayerKeys, {}, "");
    ExplicitLayer l;
    l.name = m.find("name") ? read_string(r, *m.find("name")) : "layer" + std::to_string(index);
    l.forward_flops = read_nonnegative(r, m.require("flops", "forward FLOPs per sample"));
    l.params = read_large_count(r, m.require("params", "parameter count"));
    l.activation_bytes = read_large_count(r, m.require("activation_bytes", "output bytes per sample"));
    if (const Field* mb = m.find("memory_bytes")) l.memory_bytes = read_large_count(r, *mb);
    const std::uint32_t repeat = m.find("repeat") ? read_layer_count(r, *m.find("repeat")) : 1;
    if (out.size() + repeat > kMaxLayers)
      r.fail(m.find("repeat") ? m.find("repeat")->value : f.value,
             "the layer list has more than " + std::to_string(kMaxLayers) + " layers");
    for (std::uint32_t i = 0; i < repeat; ++i) {
      out.push_back(l);
      if (repeat > 1) out.back().name += "." + std::to_string(i);
    }
  }
}

ModelSpec read_model(const Reader& r, const Field& f) {
  const Map m(r, f.value, "'model'", "a map describing the model");
  m.allow_only(kModelKeys, {}, "");
  ModelSpec model;
  if (const Field* n = m.find("name")) model.name = read_string(r, *n);
  if (const Field* d = m.find("dtype")) model.dtype = read_dtype(r, *d);
  if (const Field* list = m.find("layer_list")) {
    for (std::string_view k : kTransformerOnly)
      if (const Field* extra = m.find(k))
        r.fail(extra->key_node, "key '" + extra->key + "' describes a transformer; an explicit 'layer_list' model takes none");
    read_layer_list(r, *list, model.layers);
    return model;
  }
  TransformerSpec t;
  const std::string why = "a transformer needs it (or give an explicit 'layer_list')";
  t.layers = read_layer_count(r, m.require("layers", why));
  t.hidden = read_positive(r, m.require("hidden", why));
  t.heads = read_positive(r, m.require("heads", why));
  t.seq = read_positive(r, m.require("seq", why));
  t.vocab = read_positive(r, m.require("vocab", why));
  if (const Field* x = m.find("ffn")) t.ffn = read_positive(r, *x);
  if (const Field* x = m.find("kv_heads")) t.kv_heads = read_positive(r, *x);
  if (const Field* x = m.find("mlp")) {
    const std::string s = read_string(r, *x);
    if (s == "gelu") {
      t.mlp = MlpKind::Gelu;
    } else if (s == "swiglu") {
      t.mlp = MlpKind::SwiGlu;
    } else {
      r.fail(x->value, "key 'mlp': expected gelu or swiglu, found '" + s + "'");
    }
  }
  if (const Field* x = m.find("moe")) read_moe(r, *x, t);
  model.transformer = t;
  return model;
}

TrainingSpec read_training(const Reader& r, const Field& f) {
  const Map m(r, f.value, "'training'", "a map such as {global_batch: 1536, micro_batch: 1}");
  m.allow_only(kTrainingKeys, {}, "");
  TrainingSpec t;
  if (const Field* x = m.find("global_batch")) t.global_batch = read_positive(r, *x);
  if (const Field* x = m.find("micro_batch")) t.micro_batch = read_positive(r, *x);
  if (const Field* x = m.find("recompute")) t.recompute = read_bool(r, *x);
  return t;
}

ParallelSpec read_parallel(const Reader& r, const Field& f) {
  const Map m(r, f.value, "'parallelism'", "a map such as {tp: 8, pp: 8, dp: 16}");
  m.allow_only(kParallelKeys, {}, "");
  ParallelSpec p;
  if (const Field* x = m.find("tp")) p.tp = read_positive(r, *x);
  if (const Field* x = m.find("sp")) p.sp = read_bool(r, *x);
  if (const Field* x = m.find("pp")) p.pp = read_positive(r, *x);
  if (const Field* x = m.find("dp")) p.dp = read_positive(r, *x);
  if (const Field* x = m.find("ep")) p.ep = read_positive(r, *x);
  if (const Field* x = m.find("virtual_stages")) p.virtual_stages = read_positive(r, *x);
  if (const Field* x = m.find("schedule")) {
    const std::string s = read_string(r, *x);
    if (s == "1f1b") {
      p.schedule = PipelineSchedule::OneFOneB;
    } else if (s == "interleaved") {
      p.schedule = PipelineSchedule::Interleaved;
      if (!m.find("virtual_stages")) p.virtual_stages = 2;
    } else {
      r.fail(x->value, "key 'schedule': expected 1f1b or interleaved, found '" + s + "'");
    }
  }
  if (const Field* x = m.find("zero")) {
    const std::uint32_t z = read_count(r, *x);
    if (z > 3) r.fail(x->value, "key 'zero': expected 0 (plain all-reduce), 1, 2 or 3, found " + std::to_string(z));
    p.zero = static_cast<DpSharding>(z);
  }
  if (const Field* x = m.find("dp_bucket")) p.bucket_bytes = read_bytes(r, *x);
  if (const Field* x = m.find("grad_dtype")) p.grad_dtype = read_dtype(r, *x);
  if (const Field* x = m.find("order")) {
    const std::string s = read_string(r, *x);
    bool ok = s.size() == 8 && s[2] == '-' && s[5] == '-';
    std::array<bool, 3> seen{};
    for (std::size_t i = 0; ok && i < 3; ++i) {
      const std::string d = s.substr(3 * i, 2);
      const Dimension dim = d == "tp" ? Dimension::TP : d == "dp" ? Dimension::DP : Dimension::PP;
      const std::size_t k = d == "tp" ? 0 : d == "dp" ? 1 : 2;
      ok = (d == "tp" || d == "dp" || d == "pp") && !seen[k];
      seen[k] = true;
      p.order[i] = dim;
    }
    if (!ok) r.fail(x->value, "key 'order': expected tp, dp and pp joined by '-', fastest first (e.g. tp-dp-pp), found '" + s + "'");
  }
  return p;
}

// A collective's latencies in whole nanoseconds, as --launch-ns and --step-ns give them: a
// fraction of one is dropped.
SimTime read_ns(const Reader& r, const Field& f) { return SimTime::ns(read_duration(r, f).picoseconds() / 1000); }

CommSpec read_comm(const Reader& r, const Field& f) {
  const Map m(r, f.value, "'comm'", "a map such as {allreduce: ring, channels: 2}");
  m.allow_only(kCommKeys, {}, "");
  CommSpec c;
  if (const Field* x = m.find("allreduce")) c.allreduce = read_string(r, *x);
  if (const Field* x = m.find("allgather")) c.allgather = read_string(r, *x);
  if (const Field* x = m.find("reduce_scatter")) c.reduce_scatter = read_string(r, *x);
  if (const Field* x = m.find("alltoall")) c.alltoall = read_string(r, *x);
  if (const Field* x = m.find("channels")) c.channels = read_positive(r, *x);
  if (const Field* x = m.find("chunk")) c.chunk_bytes = read_bytes(r, *x);
  if (const Field* x = m.find("protocol")) {
    const std::string s = read_string(r, *x);
    const auto p = collectives::protocol_from_name(s);
    if (!p) r.fail(x->value, "key 'protocol': expected auto, LL, LL128 or Simple, found '" + s + "'");
    c.protocol = *p;
  }
  if (const Field* x = m.find("launch")) c.launch = read_ns(r, *x);
  if (const Field* x = m.find("step")) c.step = read_ns(r, *x);
  if (const Field* x = m.find("reduce_bandwidth")) {
    const std::string v = scalar(r, *x, "a bandwidth such as 200GB/s, or 0 for free reductions");
    c.reduce_bytes_per_ns = v == "0" ? 0.0 : static_cast<double>(read_bandwidth(r, *x).bps()) / 8e9;
  }
  return c;
}

// A peak in tera-FLOP/s ("312", "989.4").
double read_tflops(const Reader& r, const Field& f) {
  const double v = read_nonnegative(r, f);
  if (v <= 0) r.fail(f.value, "key '" + f.key + "': expected a peak above 0 in TFLOP/s");
  return v * 1e12;
}

DeviceSpec read_device(const Reader& r, const Field& f) {
  const Map m(r, f.value, "'device'", "a map such as {preset: H100, efficiency: 0.55}");
  m.allow_only(kDeviceKeys, {}, "");
  DeviceSpec d;
  d.name = "custom";
  if (const Field* x = m.find("preset")) {
    const std::string s = read_string(r, *x);
    const auto p = device_preset(s);
    if (!p) {
      std::vector<std::string_view> names = device_preset_names();
      r.fail(x->value, "key 'preset': unknown GPU '" + s + "' (" + join(names) + ")");
    }
    d = *p;
  } else if (!m.find("peak_tflops")) {
    m.require("preset", "or 'peak_tflops' and 'memory_bandwidth' for a custom device");
  }
  if (const Field* x = m.find("peak_tflops")) {
    const Map peaks(r, x->value, "'peak_tflops'", "a map such as {bf16: 989, fp8: 1979}");
    for (const Field& pf : peaks.fields()) {
      const auto t = dtype_from_name(pf.key);
      if (!t) r.fail(pf.key_node, "unknown data type '" + pf.key + "' in 'peak_tflops' (fp32, tf32, bf16, fp16, fp8)");
      d.peak_flops[static_cast<std::size_t>(*t)] = read_tflops(r, pf);
    }
  }
  if (const Field* x = m.find("efficiency")) {
    d.efficiency = read_nonnegative(r, *x);
    if (d.efficiency <= 0 || d.efficiency > 1) r.fail(x->value, "key 'efficiency': expected a fraction in (0, 1]");
  }
  if (const Field* x = m.find("memory_bandwidth")) d.memory_bytes_per_s = static_cast<double>(read_bandwidth(r, *x).bps()) / 8;
  if (const Field* x = m.find("kernel_launch")) d.kernel_launch = read_duration(r, *x);
  if (const Field* x = m.find("roofline")) d.roofline = read_bool(r, *x);
  return d;
}

ClusterSpec read_cluster(const Reader& r, const Field& f) {
  const Map m(r, f.value, "'cluster'", "a map such as {topology: dgx_a100_pod}");
  m.allow_only(kClusterKeys, {}, "");
  ClusterSpec c;
  if (const Field* x = m.find("topology")) c.topology = read_string(r, *x);
  if (const Field* x = m.find("gpus")) c.gpus = read_positive(r, *x);
  if (const Field* x = m.find("network")) {
    c.network = read_string(r, *x);
    if (c.network != "packet" && c.network != "flow" && c.network != "loggops")
      r.fail(x->value, "key 'network': expected packet, flow or loggops, found '" + c.network + "'");
  }
  if (const Field* x = m.find("fidelity")) {
    c.fidelity = read_string(r, *x);
    c.fidelity_line = static_cast<std::uint64_t>(x->value.Mark().line) + 1;
    c.fidelity_column = static_cast<std::uint64_t>(x->value.Mark().column) + 1;
  }
  if (const Field* x = m.find("fast_forward")) {
    c.fast_forward = read_string(r, *x);
    if (!parse_fast_forward(c.fast_forward))
      r.fail(x->value, "key 'fast_forward': expected " + std::string(kFastForwardValues) + ", found '" +
                           c.fast_forward + "'");
  }
  return c;
}

}  // namespace

WorkloadSpec load_workload(const std::string& path) {
  const YAML::Node root = parse_file(path);
  const Reader r(path);
  const Map top(r, root, "the workload", "a map with model, training, parallelism, device");
  top.allow_only(kTopKeys, {}, "");
  WorkloadSpec w;
  w.source = path;
  w.name = top.find("name") ? read_string(r, *top.find("name")) : std::filesystem::path(path).stem().string();
  w.model = read_model(r, top.require("model", ""));
  if (w.model.name.empty()) w.model.name = w.name;
  if (const Field* x = top.find("training")) w.training = read_training(r, *x);
  if (const Field* x = top.find("parallelism")) w.parallel = read_parallel(r, *x);
  // Without a global batch, a step is one micro-batch per data-parallel replica.
  if (w.training.global_batch == 0) w.training.global_batch = w.training.micro_batch * w.parallel.dp;
  if (const Field* x = top.find("comm")) w.comm = read_comm(r, *x);
  if (const Field* x = top.find("device")) w.device = read_device(r, *x);
  else w.device = *device_preset(kDefaultDevice);
  if (const Field* x = top.find("cluster")) w.cluster = read_cluster(r, *x);
  try {
    validate(w);
  } catch (const std::invalid_argument& e) {
    // The message starts with the section at fault ("parallelism: TP = 3 does not ...").
    const std::string message = e.what();
    const Field* section = top.find(message.substr(0, message.find(':')));
    const YAML::Mark mark = section ? section->key_node.Mark() : root.Mark();
    throw InputError::at_text(path, mark.line < 0 ? 1 : static_cast<std::uint64_t>(mark.line) + 1,
                              mark.column < 0 ? 1 : static_cast<std::uint64_t>(mark.column) + 1, message);
  }
  logging::logger("workload").debug("read workload '{}' from {} (model '{}')", w.name, path, w.model.name);
  return w;
}

}  // namespace collsim::workload
