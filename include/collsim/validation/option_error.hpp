#pragma once
// A value the user chose (or left to be inferred) that a validation cannot run with, naming
// the command-line option that supplies it, so that the CLI reports it against that option.

#include <stdexcept>
#include <string>

namespace collsim::validation {

class OptionError : public std::invalid_argument {
 public:
  // what(): "OPTION: MESSAGE", as the command line prints an invalid option.
  OptionError(std::string option, std::string message)
      : std::invalid_argument(option + ": " + message), option_(std::move(option)), message_(std::move(message)) {}
  const std::string& option() const { return option_; }
  const std::string& message() const { return message_; }

 private:
  std::string option_;
  std::string message_;
};

}  // namespace collsim::validation
