#pragma once
// GOAL text: the language LogGOPSim's txt2bin reads (see README, "File formats").

#include <iosfwd>
#include <string>
#include <string_view>

#include "collsim/goal/schedule.hpp"

namespace collsim::goal {

// Parses GOAL text. `file_name` only labels error messages. Throws collsim::InputError
// ("file:line:column: expected ..., found ...") on anything txt2bin would reject and on
// what it would silently get wrong (unknown or duplicate labels, dependency cycles, ranks
// out of range or out of order, numbers that overflow their field).
Schedule parse_goal_text(std::string_view text, const std::string& file_name);
Schedule read_goal_text_file(const std::string& path);

// Writes text that txt2bin accepts and that parses back to an identical schedule. Ops
// that take part in a dependency are labelled l<index within the rank>.
void write_goal_text(const Schedule& schedule, std::ostream& out);
void write_goal_text_file(const Schedule& schedule, const std::string& path);

}  // namespace collsim::goal
