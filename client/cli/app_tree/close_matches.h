// Which known names a mistyped one was probably meant to be, for "did you
// mean" hints: the names nearest by edit distance (a swap of two adjacent
// letters counts as one edit), or else those the typed text begins.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace spillway::cli {

// The number of single-letter insertions, deletions, substitutions and
// adjacent swaps that turn `a` into `b` (optimal string alignment distance).
size_t edit_distance(std::string_view a, std::string_view b);

// The candidates `typed` most likely meant, in the candidates' order: those
// at the smallest edit distance when it is small for the word's length (1
// edit up to 5 letters, 2 up to 8, 3 beyond), else those starting with
// `typed` when it has at least 3 letters; empty when nothing is close.
std::vector<std::string> close_matches(std::string_view typed,
                                       const std::vector<std::string>& candidates);

}  // namespace spillway::cli
