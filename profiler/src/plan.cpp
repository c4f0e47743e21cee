#include "nestor/profiler/plan.h"

#include <fstream>
#include <regex>
#include <set>

namespace nestor::profiler {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

void reject_unknown_keys(const json& object, std::initializer_list<const char*> known, const std::string& where) {
  std::set<std::string> allowed(known.begin(), known.end());
  for (auto& [key, value] : object.items())
    if (!allowed.count(key)) throw PlanError(where + ": unknown field '" + key + "'");
}

const json& require_object(const json& parent, const char* name, const std::string& where) {
  auto it = parent.find(name);
  if (it == parent.end()) throw PlanError(where + ": missing field '" + name + "'");
  if (!it->is_object()) throw PlanError(where + "." + name + " must be an object");
  return *it;
}

std::string require_string(const json& parent, const char* name, const std::string& where) {
  auto it = parent.find(name);
  if (it == parent.end()) throw PlanError(where + ": missing field '" + name + "'");
  if (!it->is_string() || it->get<std::string>().empty())
    throw PlanError(where + "." + name + " must be a non-empty string");
  return it->get<std::string>();
}

template <typename T> T optional_value(const json& parent, const char* name, T fallback, const std::string& where) {
  auto it = parent.find(name);
  if (it == parent.end()) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw PlanError(where + "." + name + " has the wrong type (" + it->type_name() + ")");
  }
}

double positive_number(const json& parent, const char* name, double fallback, const std::string& where) {
  auto it = parent.find(name);
  if (it == parent.end()) return fallback;
  if (!it->is_number() || it->get<double>() <= 0) throw PlanError(where + "." + name + " must be a positive number");
  return it->get<double>();
}

size_t count_value(const json& parent, const char* name, size_t fallback, size_t minimum, const std::string& where) {
  auto it = parent.find(name);
  if (it == parent.end()) return fallback;
  if (!it->is_number_integer() || it->get<long long>() < static_cast<long long>(minimum))
    throw PlanError(where + "." + name + " must be an integer >= " + std::to_string(minimum));
  return it->get<size_t>();
}

std::map<std::string, std::string> string_map(const json& parent, const char* name, const std::string& where) {
  std::map<std::string, std::string> out;
  auto it = parent.find(name);
  if (it == parent.end()) return out;
  if (!it->is_object()) throw PlanError(where + "." + name + " must be an object of strings");
  for (auto& [key, value] : it->items()) {
    if (value.is_string()) out[key] = value.get<std::string>();
    else if (value.is_number() || value.is_boolean()) out[key] = value.dump();
    else throw PlanError(where + "." + name + "." + key + " must be a string or number");
  }
  return out;
}

fs::path resolve(const fs::path& base, const std::string& path) {
  fs::path p(path);
  return (p.is_absolute() ? p : base / p).lexically_normal();
}

// Project-relative paths must stay inside the scratch copy.
void require_inside_project(const std::string& relative, const std::string& where) {
  fs::path p = fs::path(relative).lexically_normal();
  if (p.empty() || p.is_absolute() || *p.begin() == "..")
    throw PlanError(where + ": '" + relative + "' must be a path inside the project (relative, no '..')");
}

} // namespace

const VariantSpec& Plan::baseline() const {
  for (auto& v : variants)
    if (v.baseline) return v;
  throw PlanError("plan has no baseline variant");
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string defines_to_flags(const std::map<std::string, std::string>& defines) {
  std::string out;
  for (auto& [name, value] : defines) {
    if (!out.empty()) out += ' ';
    out += shell_quote("-D" + name + (value.empty() ? "" : "=" + value));
  }
  return out;
}

std::string expand_template(const std::string& text, const std::map<std::string, std::string>& values,
                            const std::string& what) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    // ${VAR} is shell syntax and {{ is a literal brace, not placeholders.
    bool shell_or_escaped = i > 0 && (text[i - 1] == '$' || text[i - 1] == '{');
    if (text[i] == '{' && !shell_or_escaped) {
      size_t close = text.find('}', i);
      if (close != std::string::npos) {
        std::string name = text.substr(i + 1, close - i - 1);
        static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
        if (std::regex_match(name, identifier)) {
          auto it = values.find(name);
          if (it == values.end()) {
            std::string known;
            for (auto& [k, v] : values) known += (known.empty() ? "" : ", ") + ("{" + k + "}");
            throw PlanError(what + ": unknown placeholder {" + name + "} (known: " + known + ")");
          }
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    }
    out += text[i++];
  }
  return out;
}

Plan parse_plan(const json& j, const fs::path& plan_path) {
  if (!j.is_object()) throw PlanError("plan: the top level must be a JSON object");
  reject_unknown_keys(j, {"schema_version", "project_dir", "scratch_dir", "build", "run", "check", "timing", "metrics", "variants", "$schema", "comment"}, "plan");
  Plan plan;
  plan.path = plan_path;
  fs::path base = plan_path.has_parent_path() ? fs::absolute(plan_path).parent_path() : fs::current_path();

  auto version = j.find("schema_version");
  if (version == j.end() || !version->is_number_integer())
    throw PlanError("plan: missing integer field 'schema_version' (this runner reads version " +
                    std::to_string(kPlanSchemaVersion) + ")");
  if (version->get<long long>() != kPlanSchemaVersion) // get<int>() would wrap 2^32+1 to 1
    throw PlanError("plan: schema_version " + version->dump() + " is not supported (this runner reads version " +
                    std::to_string(kPlanSchemaVersion) + ")");

  plan.project_dir = resolve(base, require_string(j, "project_dir", "plan"));
  if (!fs::is_directory(plan.project_dir))
    throw PlanError("plan.project_dir: '" + plan.project_dir.string() + "' is not a directory");
  if (auto s = j.find("scratch_dir"); s != j.end()) {
    if (!s->is_string()) throw PlanError("plan.scratch_dir must be a string");
    plan.scratch_dir = resolve(base, s->get<std::string>());
  }

  const json& build = require_object(j, "build", "plan");
  reject_unknown_keys(build, {"command", "timeout_s"}, "plan.build");
  plan.build_command = require_string(build, "command", "plan.build");
  plan.build_timeout_s = positive_number(build, "timeout_s", plan.build_timeout_s, "plan.build");

  const json& run = require_object(j, "run", "plan");
  reject_unknown_keys(run, {"command", "timeout_s", "env"}, "plan.run");
  plan.run_command = require_string(run, "command", "plan.run");
  plan.run_timeout_s = positive_number(run, "timeout_s", plan.run_timeout_s, "plan.run");
  plan.run_env = string_map(run, "env", "plan.run");

  const json& check = require_object(j, "check", "plan");
  reject_unknown_keys(check, {"outputs", "format", "abs_tolerance", "rel_tolerance", "command"}, "plan.check");
  plan.check.outputs = optional_value<std::vector<std::string>>(check, "outputs", {}, "plan.check");
  for (auto& o : plan.check.outputs)
    if (o != "<stdout>") require_inside_project(o, "plan.check.outputs");
  plan.check.format = optional_value<std::string>(check, "format", "text", "plan.check");
  if (plan.check.format != "text" && plan.check.format != "f32" && plan.check.format != "f64" && plan.check.format != "bytes")
    throw PlanError("plan.check.format must be one of text, f32, f64, bytes (got '" + plan.check.format + "')");
  plan.check.abs_tolerance = optional_value<double>(check, "abs_tolerance", 0, "plan.check");
  plan.check.rel_tolerance = optional_value<double>(check, "rel_tolerance", 0, "plan.check");
  if (plan.check.abs_tolerance < 0 || plan.check.rel_tolerance < 0)
    throw PlanError("plan.check tolerances must not be negative");
  if (auto c = check.find("command"); c != check.end()) {
    if (!c->is_string() || c->get<std::string>().empty()) throw PlanError("plan.check.command must be a non-empty string");
    plan.check.command = c->get<std::string>();
  }
  if (plan.check.outputs.empty() && !plan.check.command)
    throw PlanError("plan.check: give 'outputs' to compare with the baseline or a check 'command'; "
                    "variants are never timed without a correctness check");

  if (auto t = j.find("timing"); t != j.end()) {
    if (!t->is_object()) throw PlanError("plan.timing must be an object");
    reject_unknown_keys(*t, {"mode", "serialize_kernels", "warmup_runs", "min_samples", "max_samples", "noise_target", "time_limit_s"}, "plan.timing");
    std::string mode = optional_value<std::string>(*t, "mode", "cupti", "plan.timing");
    if (mode == "cupti") plan.timing_mode = TimingMode::Cupti;
    else if (mode == "wall_clock") plan.timing_mode = TimingMode::WallClock;
    else throw PlanError("plan.timing.mode must be 'cupti' or 'wall_clock' (got '" + mode + "')");
    plan.serialize_kernels = optional_value<bool>(*t, "serialize_kernels", false, "plan.timing");
    plan.warmup_runs = count_value(*t, "warmup_runs", 1, 1, "plan.timing");
    plan.stopping.min_samples = count_value(*t, "min_samples", plan.stopping.min_samples, 1, "plan.timing");
    plan.stopping.max_samples = count_value(*t, "max_samples", plan.stopping.max_samples, 1, "plan.timing");
    if (plan.stopping.max_samples < plan.stopping.min_samples)
      throw PlanError("plan.timing.max_samples must be >= min_samples");
    plan.stopping.noise_target = positive_number(*t, "noise_target", plan.stopping.noise_target, "plan.timing");
    plan.stopping.time_limit_s = positive_number(*t, "time_limit_s", plan.stopping.time_limit_s, "plan.timing");
  }

  if (auto m = j.find("metrics"); m != j.end()) {
    if (!m->is_array()) throw PlanError("plan.metrics must be an array of metric names");
    for (auto& name : *m) {
      if (!name.is_string() || name.get<std::string>().empty()) throw PlanError("plan.metrics entries must be non-empty strings");
      plan.metrics.push_back(name.get<std::string>());
    }
  }

  auto variants = j.find("variants");
  if (variants == j.end() || !variants->is_array() || variants->empty())
    throw PlanError("plan.variants must be a non-empty array");
  std::set<std::string> ids;
  size_t baselines = 0;
  for (size_t i = 0; i < variants->size(); ++i) {
    const json& v = (*variants)[i];
    std::string where = "plan.variants[" + std::to_string(i) + "]";
    if (!v.is_object()) throw PlanError(where + " must be an object");
    reject_unknown_keys(v, {"id", "baseline", "description", "source", "files", "defines", "flags", "params"}, where);
    VariantSpec spec;
    spec.id = require_string(v, "id", where);
    if (!std::regex_match(spec.id, std::regex("[A-Za-z0-9_.+-]+")))
      throw PlanError(where + ".id '" + spec.id + "' may only contain letters, digits and _ . + -");
    where = "variant '" + spec.id + "'";
    if (!ids.insert(spec.id).second) throw PlanError("plan.variants: duplicate id '" + spec.id + "'");
    spec.baseline = optional_value<bool>(v, "baseline", false, where);
    baselines += spec.baseline;
    spec.description = optional_value<std::string>(v, "description", "", where);
    spec.source = require_string(v, "source", where);
    require_inside_project(spec.source, where + ".source");
    for (auto& [target, from] : string_map(v, "files", where)) {
      require_inside_project(target, where + ".files");
      // A variant's files come from the plan folder: a plan from another
      // machine may not make the runner copy (and build) files from elsewhere.
      fs::path rel = fs::path(from).lexically_normal();
      if (rel.empty() || rel.is_absolute() || *rel.begin() == "..")
        throw PlanError(where + ".files: '" + from + "' (for " + target +
                        ") must be a path inside the plan folder (relative, no '..')");
      fs::path resolved = resolve(base, from);
      if (!fs::is_regular_file(resolved))
        throw PlanError(where + ".files: '" + from + "' (for " + target + ") is not a readable file");
      spec.files[target] = resolved.string();
    }
    spec.defines = string_map(v, "defines", where);
    for (auto& [name, value] : spec.defines)
      if (!std::regex_match(name, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
        throw PlanError(where + ".defines: '" + name + "' is not a macro name");
    spec.flags = optional_value<std::string>(v, "flags", "", where);
    if (auto p = v.find("params"); p != v.end()) {
      if (!p->is_object()) throw PlanError(where + ".params must be an object");
      spec.params = *p;
    }
    if (!fs::exists(plan.project_dir / spec.source) && !spec.files.count(spec.source))
      throw PlanError(where + ".source: '" + spec.source + "' does not exist in the project");
    plan.variants.push_back(std::move(spec));
  }
  if (baselines != 1)
    throw PlanError("plan.variants: exactly one variant must have \"baseline\": true (found " + std::to_string(baselines) + ")");

  // Catch template typos before anything is built.
  const std::map<std::string, std::string> build_keys = {{"source", ""}, {"exe", ""}, {"defines", ""}, {"flags", ""}, {"workdir", ""}};
  expand_template(plan.build_command, build_keys, "plan.build.command");
  expand_template(plan.run_command, {{"exe", ""}, {"workdir", ""}}, "plan.run.command");
  if (plan.check.command)
    expand_template(*plan.check.command, {{"exe", ""}, {"workdir", ""}, {"baseline_workdir", ""}}, "plan.check.command");
  return plan;
}

Plan load_plan(const fs::path& plan_path) {
  std::ifstream in(plan_path);
  if (!in) throw PlanError("cannot read plan '" + plan_path.string() + "'");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number too large for a double
    // (1E999): both are JSON this reader cannot take (found by fuzz_plan_results).
    throw PlanError("plan '" + plan_path.string() + "' is not valid JSON: " + e.what());
  }
  return parse_plan(j, plan_path);
}

} // namespace nestor::profiler
