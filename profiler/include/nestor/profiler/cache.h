// Results cache: append-only JSON lines, one record per measured variant,
// keyed by everything that can change a measurement.
#pragma once
#include "nestor/profiler/results.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace nestor::profiler {

std::string sha256_hex(const std::string& data);

// Hash of every regular file under `dir` (relative path + content, in path
// order): the "source hash" of a variant's scratch copy after its files were applied.
std::string hash_tree(const std::filesystem::path& dir);

struct CacheKeyInputs {
  std::string source_hash;
  std::string baseline_source_hash; // correctness is relative to the baseline
  std::string variant_id;
  nlohmann::json params = nlohmann::json::object();
  std::string flags;            // defines + flags as passed to the build
  std::string build_command;    // expanded
  std::string run_command;      // expanded
  std::string check;            // check spec, serialised
  std::string timing;           // timing mode and stopping rule, serialised
  std::string gpu;              // device name
  std::string driver_version;
  std::string cuda_version;
};

// The key is a SHA-256 over a canonical JSON of the inputs.
std::string cache_key(const CacheKeyInputs& inputs);

class ResultCache {
public:
  // Reads existing records (the last record of a key wins); lines that are not
  // valid records are skipped and counted, so a torn write never blocks a run.
  explicit ResultCache(std::filesystem::path path);
  std::optional<VariantResult> find(const std::string& key) const;
  void append(const std::string& key, const VariantResult& result); // thread-safe; throws on I/O error
  size_t skipped_lines() const { return skipped_; }
  const std::map<std::string, VariantResult>& entries() const { return entries_; }
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
  std::map<std::string, VariantResult> entries_;
  size_t skipped_ = 0;
};

} // namespace nestor::profiler
