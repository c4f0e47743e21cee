#pragma once
#include "nestor/Analysis.h"
#include "nestor/Mapping.h"

#include "llvm/Support/Error.h"

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

/// The mapping model's configuration for an analysed file: `mapping:` of the
/// nearest .nestor.yaml, and ptxas's registers per kernel when nvcc is present
/// (--resource-usage, on by default). Fails on an unreadable configuration.
llvm::Expected<MappingConfig> mappingConfigFor(const AnalyzedTU &tu);
/// Adds ptxas's registers per kernel (or the reason there are none) to `cfg`
/// when the file has nested parallelism and --resource-usage is on.
void addResourceUsage(MappingConfig &cfg, const AnalyzedTU &tu);
} // namespace nestor::cli
