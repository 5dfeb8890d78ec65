#pragma once
// "Did you mean": the known word closest to a misspelled one, for error messages about
// subcommands, options and keys.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace collsim {

// Insertions, deletions, substitutions and swaps of two neighbouring characters that turn
// `a` into `b` (optimal string alignment distance).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, if it is near enough to be a misspelling of it: at most a
// third of the word's length in edits (at least 1, at most 3). "" when none is.
std::string closest_word(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace collsim
