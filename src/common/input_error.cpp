#include "collsim/common/input_error.hpp"

#include <utility>

namespace collsim {

InputError::InputError(std::string message, std::string file, std::uint64_t line,
                       std::uint64_t column, std::string detail)
    : std::runtime_error(std::move(message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      detail_(std::move(detail)) {}

InputError InputError::at_text(const std::string& file, std::uint64_t line, std::uint64_t column,
                               const std::string& detail) {
  std::string message = file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + detail;
  return InputError(std::move(message), file, line, column, detail);
}

InputError InputError::at_byte(const std::string& file, std::uint64_t offset, const std::string& detail) {
  std::string message = file + ": byte " + std::to_string(offset) + ": " + detail;
  return InputError(std::move(message), file, 0, 0, detail);
}

InputError InputError::in_file(const std::string& file, const std::string& detail) {
  return InputError(file + ": " + detail, file, 0, 0, detail);
}

}  // namespace collsim
