#pragma once
// An error in something a user gave us (a file, a flag). The message always says where:
// "file:line:column: ..." for text, "file: byte N: ..." for binary input.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace collsim {

class InputError : public std::runtime_error {
 public:
  // Text input: line and column are 1-based.
  static InputError at_text(const std::string& file, std::uint64_t line, std::uint64_t column,
                            const std::string& detail);
  // Binary input: offset counts bytes from the start of the file.
  static InputError at_byte(const std::string& file, std::uint64_t offset, const std::string& detail);
  // The whole file (cannot open it, wrong kind of file).
  static InputError in_file(const std::string& file, const std::string& detail);

  const std::string& file() const { return file_; }
  std::uint64_t line() const { return line_; }      // 0 when not a text position
  std::uint64_t column() const { return column_; }  // 0 when not a text position
  const std::string& detail() const { return detail_; }

 private:
  InputError(std::string message, std::string file, std::uint64_t line, std::uint64_t column,
             std::string detail);
  std::string file_;
  std::uint64_t line_;
  std::uint64_t column_;
  std::string detail_;
};

}  // namespace collsim
