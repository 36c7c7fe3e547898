// The hidden __generate command (generate_command.h).
#include "app_tree/generate_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "app_tree/shell_completion.h"

namespace spillway::cli {

namespace {

constexpr std::string_view kUsage = "completion-bash|completion-zsh|man [FILE]";

// Writes beside `path` and renames over it, so an interrupted build never
// leaves a truncated page that a later build would take as up to date.
bool write_file(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) return false;
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  return !ec;
}

}  // namespace

std::optional<int> run_generate_command(const CLI::App& root, const ManPageText& text, int argc,
                                        char** argv) {
  if (argc < 2 || std::string_view(argv[1]) != "__generate") return std::nullopt;
  const std::string program = root.get_name();
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: %s __generate %s\n", program.c_str(), kUsage.data());
    return 2;
  }
  const std::string_view kind = argv[2];
  std::string content;
  if (kind == "completion-bash") {
    content = bash_completion(root);
  } else if (kind == "completion-zsh") {
    content = zsh_completion(root);
  } else if (kind == "man") {
    content = man_page(root, text);
  } else {
    std::fprintf(stderr, "%s __generate: unknown kind '%s' (%s)\n", program.c_str(), argv[2],
                 kUsage.data());
    return 2;
  }
  if (argc == 3) {
    std::fwrite(content.data(), 1, content.size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
  }
  if (!write_file(argv[3], content)) {
    std::fprintf(stderr, "%s __generate: cannot write %s\n", program.c_str(), argv[3]);
    return 1;
  }
  return 0;
}

}  // namespace spillway::cli
