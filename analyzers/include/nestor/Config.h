// .nestor.yaml: per-workspace configuration, parsed with llvm::yaml.
//
//   rules:
//     np-parallel-loop: note      # off | on | note | warning | error
//     dp-launch-in-loop: off
//   profile:                      # read by `nestor profile` (profiler issue)
//     build: "nvcc -O3 -rdc=true -arch=sm_90 {defines} {source} -o {exe} -lcudadevrt"
//     run: "{exe} --n 65536"
//     outputs: [out.bin]
//     check: ""
//     tolerance: 1e-6
//     repetitions: 20
//     timeout: 60
//   mapping:                      # the static mapping model (docs/mapping.md)
//     gpu: h100
//     sizes: { n: 65536, "spmv.cu:11": 12 }
//     weights: { coalescing: 10 }
//     pin: { placement: lanes }
#pragma once
#include "nestor/Finding.h"
#include "nestor/Mapping.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nestor {

struct RuleSetting {
  bool enabled = true;
  std::optional<Severity> severity;
};

struct ProfileConfig {
  std::string build, run, check;
  std::vector<std::string> outputs;
  double tolerance = 0;
  unsigned repetitions = 0;
  unsigned timeoutSeconds = 0;
};

struct Config {
  std::string path; ///< where it was read from ("" for defaults)
  std::map<std::string, RuleSetting> rules;
  ProfileConfig profile;
  MappingConfig mapping; ///< `mapping:` (docs/mapping.md)

  bool enabled(const std::string &rule) const;
  Severity severityOf(const std::string &rule, Severity fallback) const;
};

/// Parses configuration text; errors name the file, line and problem.
llvm::Expected<Config> parseConfig(llvm::StringRef text, llvm::StringRef path);
llvm::Expected<Config> loadConfig(const std::string &path);
/// .nestor.yaml in the directory of `file` or the nearest parent, if any.
std::optional<std::string> findConfigFor(const std::string &file);

} // namespace nestor
