#include "gzip_data.hpp"

#include <zlib.h>

#include <cstdint>

#include "collsim/common/input_error.hpp"

namespace collsim::traces {

bool is_gzip(std::span<const unsigned char> data) { return data.size() >= 2 && data[0] == 0x1f && data[1] == 0x8b; }

std::vector<unsigned char> inflate_gzip(const std::string& file, std::span<const unsigned char> data) {
  std::vector<unsigned char> out;
  std::size_t consumed = 0;
  // One pass per gzip member: `gzip a b > c` concatenates members, and readers accept that.
  while (consumed < data.size()) {
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw InputError::in_file(file, "cannot initialise zlib");
    z.next_in = const_cast<Bytef*>(data.data() + consumed);
    z.avail_in = static_cast<uInt>(data.size() - consumed);
    int rc = Z_OK;
    while (rc == Z_OK) {
      const std::size_t before = out.size();
      out.resize(before + 256 * 1024);
      z.next_out = out.data() + before;
      z.avail_out = 256 * 1024;
      rc = inflate(&z, Z_NO_FLUSH);
      out.resize(out.size() - z.avail_out);
      if (rc == Z_BUF_ERROR && z.avail_in > 0) rc = Z_OK;  // only the output was full
    }
    const std::uint64_t at = consumed + z.total_in;
    const std::string why = z.msg != nullptr ? z.msg : "";
    inflateEnd(&z);
    if (rc == Z_BUF_ERROR)
      throw InputError::at_byte(file, at, "the gzip stream ends early (the file is truncated)");
    if (rc != Z_STREAM_END)
      throw InputError::at_byte(file, at, "corrupt gzip data" + (why.empty() ? std::string() : " (" + why + ")"));
    consumed = at;
  }
  return out;
}

}  // namespace collsim::traces
