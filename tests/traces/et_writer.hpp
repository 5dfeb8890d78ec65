#pragma once
// Writing Chakra files in tests: well-formed ones from protobuf messages, and the broken
// ones (truncated, bad gzip, old schema) the reader must refuse.

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "chakra_et.pb.h"

namespace collsim::traces::testing {

namespace pb = ChakraProtoMsg;

inline void append_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline void append_message(std::string& out, const google::protobuf::Message& m) {
  const std::string bytes = m.SerializeAsString();
  append_varint(out, bytes.size());
  out += bytes;
}

inline pb::AttributeProto int_attr(const std::string& name, std::int64_t v) {
  pb::AttributeProto a;
  a.set_name(name);
  a.set_int64_val(v);
  return a;
}

inline pb::Node coll_node(std::uint64_t id, std::int64_t comm_type, std::int64_t bytes, const std::string& pg = "") {
  pb::Node n;
  n.set_id(id);
  n.set_name("coll" + std::to_string(id));
  n.set_type(pb::COMM_COLL_NODE);
  *n.add_attr() = int_attr("comm_type", comm_type);
  *n.add_attr() = int_attr("comm_size", bytes);
  if (!pg.empty()) {
    pb::AttributeProto a;
    a.set_name("pg_name");
    a.set_string_val(pg);
    *n.add_attr() = a;
  }
  return n;
}

inline std::string trace_bytes(const std::vector<pb::Node>& nodes, const std::string& version = "0.0.4") {
  std::string out;
  pb::GlobalMetadata meta;
  meta.set_version(version);
  append_message(out, meta);
  for (const pb::Node& n : nodes) append_message(out, n);
  return out;
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string gzip(const std::string& bytes) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, bytes.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace collsim::traces::testing
