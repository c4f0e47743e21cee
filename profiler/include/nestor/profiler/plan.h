// The plan that `nestor profile` writes and nestor-runner executes.
// Schema: docs/profiler-plan.schema.json, described in docs/profiler.md.
#pragma once
#include "nestor/profiler/stats.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace nestor::profiler {

inline constexpr int kPlanSchemaVersion = 1;

class PlanError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class TimingMode { Cupti, WallClock };

struct CheckSpec {
  // Files (relative to the variant's work dir) compared with the baseline's;
  // "<stdout>" stands for the program's standard output.
  std::vector<std::string> outputs;
  // "text": whitespace/comma separated tokens, numbers compared within the
  // tolerance, other tokens exactly; "f32"/"f64": raw little-endian arrays;
  // "bytes": exact. Exact comparison when both tolerances are 0.
  std::string format = "text";
  double abs_tolerance = 0;
  double rel_tolerance = 0;
  // Optional command; exit 0 means the variant's outputs are correct.
  // Placeholders: {workdir}, {baseline_workdir}, {exe}.
  std::optional<std::string> command;
};

struct VariantSpec {
  std::string id;
  bool baseline = false;
  std::string description;
  std::string source;                         // relative to the project; substituted for {source}
  std::map<std::string, std::string> files;   // project-relative path -> file (absolute or plan-relative) copied over it
  std::map<std::string, std::string> defines; // -DNAME=value, substituted for {defines}
  std::string flags;                          // substituted for {flags}
  nlohmann::json params = nlohmann::json::object(); // rewrite parameters, recorded in results and cache keys
};

struct Plan {
  int schema_version = kPlanSchemaVersion;
  std::filesystem::path path;        // where the plan was read from
  std::filesystem::path project_dir; // copied once per variant; never modified
  std::optional<std::filesystem::path> scratch_dir;
  std::string build_command;         // placeholders {source} {exe} {defines} {flags} {workdir}
  double build_timeout_s = 600;
  std::string run_command;           // placeholders {exe} {workdir}
  double run_timeout_s = 120;
  std::map<std::string, std::string> run_env;
  CheckSpec check;
  TimingMode timing_mode = TimingMode::Cupti;
  bool serialize_kernels = false; // CUPTI_ACTIVITY_KIND_KERNEL: needed to include CDP children
  size_t warmup_runs = 1;
  StoppingRule stopping;
  std::vector<std::string> metrics; // empty: no metrics run
  std::vector<VariantSpec> variants;

  const VariantSpec& baseline() const;
};

// Parses and validates a plan; relative paths are resolved against
// `plan_path`'s directory. Throws PlanError naming the field at fault.
Plan parse_plan(const nlohmann::json& j, const std::filesystem::path& plan_path);
Plan load_plan(const std::filesystem::path& plan_path);

// Replaces {name} placeholders; unknown placeholders are an error (a typo in a
// template must not silently produce a broken command). `${VAR}` (shell) and
// `{{` are left as they are.
std::string expand_template(const std::string& text, const std::map<std::string, std::string>& values,
                            const std::string& what);

std::string defines_to_flags(const std::map<std::string, std::string>& defines);
std::string shell_quote(const std::string& text);

} // namespace nestor::profiler
