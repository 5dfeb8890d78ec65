// Reading one rank's Chakra file: bytes (inflated if gzip) -> length-prefixed messages ->
// the node fields replay uses.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <regex>

#include <google/protobuf/unknown_field_set.h>

#include "chakra_et.pb.h"
#include "collsim/common/input_error.hpp"
#include "collsim/logging/logging.hpp"
#include "collsim/traces/chakra_reader.hpp"
#include "gzip_data.hpp"

namespace collsim::traces {
namespace {

namespace pb = ChakraProtoMsg;

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError::in_file(path, "cannot open the file");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Integer attributes: writers use any integer member (int64 in ASTRA-sim's microbenchmarks,
// int32 or uint64 elsewhere), and sometimes a bool, a double or a string holding a number.
std::optional<std::uint64_t> integer_value(const pb::AttributeProto& a) {
  using V = pb::AttributeProto;
  auto non_negative = [](std::int64_t v) -> std::optional<std::uint64_t> {
    if (v < 0) return std::nullopt;
    return static_cast<std::uint64_t>(v);
  };
  switch (a.value_case()) {
    case V::kInt32Val: return non_negative(a.int32_val());
    case V::kInt64Val: return non_negative(a.int64_val());
    case V::kUint32Val: return a.uint32_val();
    case V::kUint64Val: return a.uint64_val();
    case V::kSint32Val: return non_negative(a.sint32_val());
    case V::kSint64Val: return non_negative(a.sint64_val());
    case V::kFixed32Val: return a.fixed32_val();
    case V::kFixed64Val: return a.fixed64_val();
    case V::kSfixed32Val: return non_negative(a.sfixed32_val());
    case V::kSfixed64Val: return non_negative(a.sfixed64_val());
    case V::kBoolVal: return a.bool_val() ? 1 : 0;
    case V::kDoubleVal:
    case V::kFloatVal: {
      const double d = a.value_case() == V::kDoubleVal ? a.double_val() : a.float_val();
      if (!(d >= 0) || d > 9.2e18 || d != static_cast<double>(static_cast<std::uint64_t>(d))) return std::nullopt;
      return static_cast<std::uint64_t>(d);
    }
    case V::kStringVal: {
      const std::string& s = a.string_val();
      if (s.empty() || s.size() > 19 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
      return std::stoull(s);
    }
    default: return std::nullopt;
  }
}

std::string value_text(const pb::AttributeProto& a) {
  if (a.value_case() == pb::AttributeProto::kStringVal) return a.string_val();
  if (const auto v = integer_value(a)) return std::to_string(*v);
  return {};
}

const google::protobuf::UnknownFieldSet& unknown_fields(const google::protobuf::Message& m) {
  return m.GetReflection()->GetUnknownFields(m);
}

std::string describe_unknown(const google::protobuf::UnknownFieldSet& u) {
  std::string text;
  for (int i = 0; i < u.field_count() && i < 4; ++i) {
    static constexpr const char* kWire[] = {"varint", "fixed64", "length-delimited", "group", "fixed32"};
    const auto type = static_cast<int>(u.field(i).type());
    text += (i == 0 ? "" : ", ") + std::string("field ") + std::to_string(u.field(i).number()) + " (" +
            (type >= 0 && type < 5 ? kWire[type] : "?") + ")";
  }
  return text;
}

bool has_unknown_fields(const pb::Node& n) {
  if (!unknown_fields(n).empty()) return true;
  return std::any_of(n.attr().begin(), n.attr().end(), [](const pb::AttributeProto& a) { return !unknown_fields(a).empty(); });
}

constexpr const char* kOldSchema =
    "this trace was written with the Chakra schema from before Oct 2023, which uses other field numbers; "
    "convert it with a current Chakra (chakra_converter) and try again";

class StreamReader {
 public:
  StreamReader(std::string file, std::span<const unsigned char> data, bool gzip)
      : file_(std::move(file)), data_(data), gzip_(gzip) {}

  bool at_end() const { return pos_ >= data_.size(); }
  std::uint64_t position() const { return pos_; }

  // The next message's bytes; `what` names it for errors ("node #3 (after node id 7)").
  std::span<const unsigned char> next(const std::string& what) {
    const std::uint64_t start = pos_;
    std::uint64_t length = 0;
    for (int shift = 0;; shift += 7) {
      if (pos_ >= data_.size())
        fail(start, "the file ends inside the length prefix of " + what + " (the file is truncated)");
      if (shift > 28) fail(start, "the length prefix of " + what + " is longer than a varint32 (corrupt file)");
      const unsigned char b = data_[pos_++];
      length |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
    }
    if (length > std::numeric_limits<int>::max())
      fail(start, what + " claims " + std::to_string(length) + " bytes, more than a protobuf message can hold (corrupt file)");
    const std::uint64_t left = data_.size() - pos_;
    if (length > left)
      fail(start, what + " claims " + std::to_string(length) + " bytes but only " + std::to_string(left) +
                      " remain (the file is truncated)");
    const auto message = data_.subspan(pos_, length);
    pos_ += length;
    return message;
  }

  [[noreturn]] void fail(std::uint64_t offset, const std::string& detail) const {
    throw InputError::at_byte(file_, offset, detail + (gzip_ ? " [offset in the decompressed data]" : ""));
  }

 private:
  std::string file_;
  std::span<const unsigned char> data_;
  bool gzip_;
  std::uint64_t pos_ = 0;
};

ChakraNode node_fields(const pb::Node& n, std::uint64_t offset) {
  ChakraNode node;
  node.id = n.id();
  node.name = n.name();
  node.type = static_cast<ChakraNodeType>(n.type());
  node.data_deps.assign(n.data_deps().begin(), n.data_deps().end());
  node.ctrl_deps.assign(n.ctrl_deps().begin(), n.ctrl_deps().end());
  node.duration_micros = n.duration_micros();
  node.offset = offset;
  for (const pb::AttributeProto& a : n.attr()) {
    const std::string& key = a.name();
    const auto v = integer_value(a);
    if (key == "is_cpu_op") {
      node.is_cpu_op = v.value_or(0) != 0;
    } else if (key == "comm_type" && v) {
      node.has_comm_type = true;
      node.comm_type = static_cast<std::uint32_t>(std::min<std::uint64_t>(*v, 0xFFFFFFFFu));
    } else if (key == "comm_size" && v) {
      node.has_comm_size = true;
      node.comm_size = *v;
    } else if (key == "comm_src" && v) {
      node.has_comm_src = true;
      node.comm_src = static_cast<std::uint32_t>(std::min<std::uint64_t>(*v, 0xFFFFFFFFu));
    } else if (key == "comm_dst" && v) {
      node.has_comm_dst = true;
      node.comm_dst = static_cast<std::uint32_t>(std::min<std::uint64_t>(*v, 0xFFFFFFFFu));
    } else if (key == "comm_tag" && v) {
      node.comm_tag = static_cast<std::uint32_t>(std::min<std::uint64_t>(*v, 0xFFFFFFFEu));
    } else if (key == "root" && v) {
      node.root = static_cast<std::uint32_t>(std::min<std::uint64_t>(*v, 0xFFFFFFFFu));
    } else if (key == "pg_name") {
      node.pg_name = value_text(a);
    } else if (key == "num_ops" && v) {
      node.has_num_ops = true;
      node.num_ops = *v;
    } else if (key == "tensor_size" && v) {
      node.has_tensor_size = true;
      node.tensor_size = *v;
    }
  }
  return node;
}

std::string node_label(std::uint64_t index, const pb::Node& n) {
  return "node #" + std::to_string(index) + " (id " + std::to_string(n.id()) + (n.name().empty() ? "" : " '" + n.name() + "'") + ")";
}

}  // namespace

ChakraRankTrace read_chakra_file(const std::string& path) {
  const std::vector<unsigned char> raw = read_bytes(path);
  ChakraRankTrace trace;
  trace.file = path;
  trace.gzip = is_gzip(raw);
  std::vector<unsigned char> inflated;
  if (trace.gzip) inflated = inflate_gzip(path, raw);
  const std::span<const unsigned char> data = trace.gzip ? std::span<const unsigned char>(inflated) : raw;
  if (data.empty()) throw InputError::in_file(path, "the file is empty (a Chakra trace starts with a GlobalMetadata)");

  StreamReader stream(path, data, trace.gzip);
  const auto first = stream.next("the GlobalMetadata (the first message)");
  pb::GlobalMetadata meta;
  const bool meta_ok = meta.ParseFromArray(first.data(), static_cast<int>(first.size()));
  if (!meta_ok || !unknown_fields(meta).empty()) {
    pb::Node as_node;
    if (as_node.ParseFromArray(first.data(), static_cast<int>(first.size())))
      stream.fail(0, std::string("the first message is not a GlobalMetadata but a node (") +
                         describe_unknown(unknown_fields(meta)) + "); " + kOldSchema);
    stream.fail(0, "the first message is not a GlobalMetadata (corrupt file, or not a Chakra trace)");
  }
  trace.version = meta.version();
  for (const pb::AttributeProto& a : meta.attr())
    if (a.name() == "schema" && trace.version.empty()) trace.version = value_text(a);

  std::uint64_t index = 0;
  std::string last = "none";
  while (!stream.at_end()) {
    const std::uint64_t offset = stream.position();
    const std::string what = "node #" + std::to_string(index) + " (after node id " + last + ")";
    const auto bytes = stream.next(what);
    pb::Node n;
    if (!n.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      stream.fail(offset, what + " is not a valid Chakra node (corrupt file)");
    if (has_unknown_fields(n)) {
      const google::protobuf::Message* holder = &n;
      for (const pb::AttributeProto& a : n.attr())
        if (unknown_fields(n).empty() && !unknown_fields(a).empty()) holder = &a;
      const auto& u = unknown_fields(*holder);
      stream.fail(offset, node_label(index, n) + " has fields the Oct 2023 schema does not define (" + describe_unknown(u) +
                              "); " + kOldSchema);
    }
    if (n.type() < pb::INVALID_NODE || n.type() > pb::COMM_COLL_NODE)
      stream.fail(offset, node_label(index, n) + " has unknown node type " + std::to_string(n.type()));
    trace.nodes.push_back(node_fields(n, offset));
    last = std::to_string(n.id());
    ++index;
  }
  logging::logger("traces").debug("read {}: {} Chakra node(s), schema '{}'{}", path, trace.nodes.size(), trace.version,
                                  trace.gzip ? ", gzip" : "");
  return trace;
}

std::vector<std::string> chakra_rank_files(const std::vector<std::string>& arguments) {
  namespace fs = std::filesystem;
  static const std::regex kRankFile(R"(^(.*)\.([0-9]+)\.et(\.gz)?$)");
  std::vector<std::string> candidates;
  for (const std::string& arg : arguments) {
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& e : fs::directory_iterator(arg))
        if (e.is_regular_file() && std::regex_match(e.path().filename().string(), kRankFile)) in_dir.push_back(e.path().string());
      if (in_dir.empty()) throw InputError::in_file(arg, "the directory has no Chakra rank files (<prefix>.<rank>.et)");
      candidates.insert(candidates.end(), in_dir.begin(), in_dir.end());
    } else if (fs::is_regular_file(arg, ec)) {
      candidates.push_back(arg);
    } else {
      // A prefix: <arg>.<rank>.et for every rank present.
      const fs::path p(arg);
      const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
      const std::string stem = p.filename().string();
      std::vector<std::string> found;
      if (fs::is_directory(dir, ec))
        for (const auto& e : fs::directory_iterator(dir)) {
          std::smatch m;
          const std::string name = e.path().filename().string();
          if (std::regex_match(name, m, kRankFile) && m[1].str() == stem) found.push_back(e.path().string());
        }
      if (found.empty()) throw InputError::in_file(arg, "no such file, directory or trace prefix (<prefix>.<rank>.et)");
      candidates.insert(candidates.end(), found.begin(), found.end());
    }
  }
  std::map<std::uint64_t, std::string> by_rank;
  for (const std::string& file : candidates) {
    std::smatch m;
    const std::string name = std::filesystem::path(file).filename().string();
    if (!std::regex_match(name, m, kRankFile))
      throw InputError::in_file(file, "a Chakra trace file must be named <prefix>.<rank>.et (or .et.gz)");
    if (m[2].str().size() > 7) throw InputError::in_file(file, "rank number too large");
    const std::uint64_t rank = std::stoull(m[2].str());
    const auto [it, inserted] = by_rank.emplace(rank, file);
    if (!inserted && it->second != file)
      throw InputError::in_file(file, "rank " + std::to_string(rank) + " is also given by " + it->second);
  }
  std::vector<std::string> files;
  for (const auto& [rank, file] : by_rank) {
    if (rank != files.size())
      throw InputError::in_file(file, "rank " + std::to_string(files.size()) +
                                          " has no trace file (ranks must be 0..N-1; this file is rank " +
                                          std::to_string(rank) + ")");
    files.push_back(file);
  }
  return files;
}

}  // namespace collsim::traces
