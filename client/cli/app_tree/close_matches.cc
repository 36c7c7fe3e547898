// Edit distance and the choice of close names (close_matches.h).
#include "app_tree/close_matches.h"

#include <algorithm>

namespace spillway::cli {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic-programming table: a swap looks two rows back.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::vector<std::string> close_matches(std::string_view typed,
                                       const std::vector<std::string>& candidates) {
  const size_t allowed = typed.size() <= 5 ? 1 : typed.size() <= 8 ? 2 : 3;
  size_t best = allowed + 1;
  for (const std::string& candidate : candidates) {
    best = std::min(best, edit_distance(typed, candidate));
  }
  std::vector<std::string> out;
  if (best <= allowed) {
    for (const std::string& candidate : candidates) {
      if (edit_distance(typed, candidate) == best) out.push_back(candidate);
    }
    return out;
  }
  if (typed.size() < 3) return out;
  for (const std::string& candidate : candidates) {
    if (candidate.starts_with(typed)) out.push_back(candidate);
  }
  return out;
}

}  // namespace spillway::cli
