#pragma once
// gzip content of a file, inflated in memory (zlib; concatenated members allowed).

#include <span>
#include <string>
#include <vector>

namespace collsim::traces {

// Starts with the gzip magic 1f 8b.
bool is_gzip(std::span<const unsigned char> data);

// Throws InputError naming `file` and the compressed byte offset where the stream is corrupt
// or ends early.
std::vector<unsigned char> inflate_gzip(const std::string& file, std::span<const unsigned char> data);

}  // namespace collsim::traces
