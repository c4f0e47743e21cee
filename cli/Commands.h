#pragma once
#include <optional>
#include <string>
#include <vector>

namespace nestor::cli {
/// Parses the command line (without the flags after `--`) and runs the
/// subcommand. Returns the process exit code.
int run(int argc, const char *const *argv, const std::optional<std::vector<std::string>> &compileFlags);

// Subcommands implemented in their own files.
int runRewrite(const std::optional<std::vector<std::string>> &compileFlags);
int runLsp();
int runProfile(const std::optional<std::vector<std::string>> &compileFlags);
} // namespace nestor::cli
