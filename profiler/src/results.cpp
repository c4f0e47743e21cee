#include "nestor/profiler/results.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace nestor::profiler {
using nlohmann::json;

namespace {
constexpr std::pair<VariantStatus, const char*> kStatusNames[] = {
    {VariantStatus::Ok, "ok"},
    {VariantStatus::BuildFailed, "build_failed"},
    {VariantStatus::Crashed, "crashed"},
    {VariantStatus::Timeout, "timeout"},
    {VariantStatus::NonzeroExit, "nonzero_exit"},
    {VariantStatus::CudaError, "cuda_error"},
    {VariantStatus::OutputMismatch, "output_mismatch"},
    {VariantStatus::NoTimingData, "no_timing_data"},
    {VariantStatus::NotRun, "not_run"},
};

template <typename T> json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

// Field access with errors that name the path, so a truncated or foreign
// results file gives a clear message instead of a json exception.
const json& field(const json& object, const char* name, const std::string& where) {
  if (!object.is_object()) throw ResultsFormatError(where + " is not an object");
  auto it = object.find(name);
  if (it == object.end()) throw ResultsFormatError(where + "." + name + " is missing");
  return *it;
}
// An integer field must hold an integer that fits: nlohmann's get<int>() of
// 1e59 or get<size_t>() of -1 converts out of range, which is undefined for a
// double (found by fuzz_plan_results under UBSan) and silently wraps for an
// integer.
template <typename T> T checked_integer(const json& value, const std::string& what) {
  using limits = std::numeric_limits<T>;
  if (value.is_number_float()) {
    double d = value.get<double>();
    double bound = std::ldexp(1.0, limits::digits); // 2^31 for int, 2^64 for size_t: exact doubles
    if (!(d >= (limits::is_signed ? -bound : 0.0) && d < bound) || d != std::trunc(d))
      throw ResultsFormatError(what + " must be an integer in range, not " + value.dump());
    return static_cast<T>(d);
  }
  if (!value.is_number_integer()) throw ResultsFormatError(what + " has the wrong type (" + value.type_name() + ")");
  if (value.is_number_unsigned()) {
    auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(limits::max())) throw ResultsFormatError(what + " is out of range: " + value.dump());
    return static_cast<T>(u);
  }
  auto i = value.get<std::int64_t>();
  if ((limits::is_signed ? i < static_cast<std::int64_t>(limits::min()) : i < 0) ||
      (i > 0 && static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(limits::max())))
    throw ResultsFormatError(what + " is out of range: " + value.dump());
  return static_cast<T>(i);
}

template <typename T> T get(const json& object, const char* name, const std::string& where) {
  const json& value = field(object, name, where);
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return checked_integer<T>(value, where + "." + name);
  try {
    return value.get<T>();
  } catch (const json::exception&) {
    throw ResultsFormatError(where + "." + name + " has the wrong type (" + value.type_name() + ")");
  }
}
template <typename T> std::optional<T> get_optional(const json& object, const char* name, const std::string& where) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return std::nullopt;
  return get<T>(object, name, where);
}
} // namespace

const char* to_string(VariantStatus status) {
  for (auto& [value, name] : kStatusNames)
    if (value == status) return name;
  return "unknown";
}

VariantStatus variant_status_from_string(const std::string& text) {
  for (auto& [value, name] : kStatusNames)
    if (text == name) return value;
  throw std::invalid_argument("unknown variant status '" + text + "'");
}

json to_json(const VariantResult& v) {
  json j = {
      {"id", v.id},
      {"baseline", v.baseline},
      {"description", v.description},
      {"params", v.params.is_null() ? json::object() : v.params},
      {"status", to_string(v.status)},
      {"reason", v.reason},
      {"log_tail", v.log_tail},
      {"device", optional_json(v.device)},
      {"from_cache", v.from_cache},
      {"cache_key", v.cache_key},
      {"metrics", v.metrics.is_object() ? v.metrics : json(nullptr)},
      {"metrics_error", optional_json(v.metrics_error)},
  };
  if (v.timing) {
    const Timing& t = *v.timing;
    json clocks = json::array();
    for (auto& c : t.sm_clock_mhz) clocks.push_back(optional_json(c));
    j["timing"] = {
        {"unit", t.unit}, {"source", t.source}, {"activity_kind", optional_json(t.activity_kind)},
        {"median", t.median}, {"q1", t.q1}, {"q3", t.q3}, {"iqr", t.iqr()}, {"min", t.min}, {"max", t.max},
        {"mean", t.mean}, {"stdev", t.stdev}, {"relative_median_error", t.relative_median_error},
        {"count", t.samples.size()}, {"samples", t.samples}, {"sm_clock_mhz", clocks},
        {"warmup_runs", t.warmup_runs}, {"stop_reason", t.stop_reason},
    };
    if (!t.stop_detail.empty()) j["timing"]["stop_detail"] = t.stop_detail;
  } else {
    j["timing"] = nullptr;
  }
  return j;
}

json to_json(const Results& r) {
  json gpus = json::array();
  for (auto& g : r.environment.gpus) gpus.push_back({{"index", g.index}, {"name", g.name}});
  json variants = json::array();
  for (auto& v : r.variants) variants.push_back(to_json(v));
  const Recommendation& rec = r.recommendation;
  return {
      {"schema_version", r.schema_version},
      {"tool", r.tool},
      {"plan", r.plan},
      {"generated_at", r.generated_at},
      {"timing_mode", r.timing_mode},
      {"environment",
       {{"gpus", gpus},
        {"driver_version", optional_json(r.environment.driver_version)},
        {"cuda_driver_api_version", optional_json(r.environment.cuda_driver_api_version)},
        {"devices_assumed", r.environment.devices_assumed},
        {"hostname", r.environment.hostname}}},
      {"variants", variants},
      {"recommendation",
       {{"decision", rec.decision},
        {"variant", optional_json(rec.variant)},
        {"speedup", optional_json(rec.speedup)},
        {"criterion", rec.criterion},
        {"reason", rec.reason}}},
  };
}

VariantResult variant_from_json(const json& j) {
  const std::string where = "variant";
  VariantResult v;
  v.id = get<std::string>(j, "id", where);
  const std::string w = "variant '" + v.id + "'";
  v.baseline = get<bool>(j, "baseline", w);
  v.description = get_optional<std::string>(j, "description", w).value_or("");
  if (auto it = j.find("params"); it != j.end() && it->is_object()) v.params = *it;
  try {
    v.status = variant_status_from_string(get<std::string>(j, "status", w));
  } catch (const std::invalid_argument& e) {
    throw ResultsFormatError(w + ": " + e.what());
  }
  v.reason = get_optional<std::string>(j, "reason", w).value_or("");
  v.log_tail = get_optional<std::string>(j, "log_tail", w).value_or("");
  v.device = get_optional<int>(j, "device", w);
  v.from_cache = get_optional<bool>(j, "from_cache", w).value_or(false);
  v.cache_key = get_optional<std::string>(j, "cache_key", w).value_or("");
  if (auto it = j.find("metrics"); it != j.end() && it->is_object()) v.metrics = *it;
  v.metrics_error = get_optional<std::string>(j, "metrics_error", w);
  if (auto it = j.find("timing"); it != j.end() && !it->is_null()) {
    const std::string tw = w + ".timing";
    Timing t;
    t.unit = get<std::string>(*it, "unit", tw);
    t.source = get<std::string>(*it, "source", tw);
    t.activity_kind = get_optional<std::string>(*it, "activity_kind", tw);
    t.samples = get<std::vector<double>>(*it, "samples", tw);
    const json& clocks = field(*it, "sm_clock_mhz", tw);
    if (!clocks.is_array()) throw ResultsFormatError(tw + ".sm_clock_mhz must be an array");
    for (auto& c : clocks) {
      if (!c.is_null() && !c.is_number()) throw ResultsFormatError(tw + ".sm_clock_mhz holds a " + c.type_name());
      t.sm_clock_mhz.push_back(c.is_null() ? std::nullopt : std::optional<double>(c.get<double>()));
    }
    t.median = get<double>(*it, "median", tw);
    t.q1 = get<double>(*it, "q1", tw);
    t.q3 = get<double>(*it, "q3", tw);
    t.min = get<double>(*it, "min", tw);
    t.max = get<double>(*it, "max", tw);
    t.mean = get<double>(*it, "mean", tw);
    t.stdev = get<double>(*it, "stdev", tw);
    t.relative_median_error = get_optional<double>(*it, "relative_median_error", tw).value_or(0);
    t.warmup_runs = get<size_t>(*it, "warmup_runs", tw);
    t.stop_reason = get<std::string>(*it, "stop_reason", tw);
    t.stop_detail = get_optional<std::string>(*it, "stop_detail", tw).value_or("");
    v.timing = t;
  }
  return v;
}

Results results_from_json(const json& j) {
  Results r;
  r.schema_version = get<int>(j, "schema_version", "results");
  if (r.schema_version != kResultsSchemaVersion)
    throw ResultsFormatError("results schema_version " + std::to_string(r.schema_version) + " is not supported (expected " +
                             std::to_string(kResultsSchemaVersion) + ")");
  r.tool = get<std::string>(j, "tool", "results");
  r.plan = get<std::string>(j, "plan", "results");
  r.generated_at = get<std::string>(j, "generated_at", "results");
  r.timing_mode = get<std::string>(j, "timing_mode", "results");
  const json& env = field(j, "environment", "results");
  for (auto& g : field(env, "gpus", "results.environment"))
    r.environment.gpus.push_back({get<int>(g, "index", "gpu"), get<std::string>(g, "name", "gpu")});
  r.environment.driver_version = get_optional<std::string>(env, "driver_version", "results.environment");
  r.environment.cuda_driver_api_version = get_optional<int>(env, "cuda_driver_api_version", "results.environment");
  r.environment.devices_assumed = get<bool>(env, "devices_assumed", "results.environment");
  r.environment.hostname = get_optional<std::string>(env, "hostname", "results.environment").value_or("");
  const json& variants = field(j, "variants", "results");
  if (!variants.is_array()) throw ResultsFormatError("results.variants is not an array");
  for (auto& v : variants) r.variants.push_back(variant_from_json(v));
  const json& rec = field(j, "recommendation", "results");
  r.recommendation.decision = get<std::string>(rec, "decision", "results.recommendation");
  r.recommendation.variant = get_optional<std::string>(rec, "variant", "results.recommendation");
  r.recommendation.speedup = get_optional<double>(rec, "speedup", "results.recommendation");
  r.recommendation.criterion = get<std::string>(rec, "criterion", "results.recommendation");
  r.recommendation.reason = get<std::string>(rec, "reason", "results.recommendation");
  return r;
}

} // namespace nestor::profiler
