#include "nestor/Config.h"
#include "nestor/Rule.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"

#include <algorithm>
#include <cmath>

namespace {
struct RawMapping {
  std::string gpu;
  std::optional<std::string> gpuParams;
  std::optional<unsigned> sms, threadsPerSm, registersPerThread;
  std::optional<double> defaultTrip, defaultThreads, skew, launchCost;
  std::optional<double> bandwidth, deviceLaunchUs, deviceLaunchLatencyUs, kernelUs, latencyUs, clockGhz;
  std::map<std::string, std::string> sizes, longest, weights, pin;
};
struct RawConfig {
  std::map<std::string, std::string> rules;
  nestor::ProfileConfig profile;
  RawMapping mapping;
};
} // namespace

namespace llvm::yaml {
template <> struct CustomMappingTraits<std::map<std::string, std::string>> {
  static void inputOne(IO &io, StringRef key, std::map<std::string, std::string> &m) {
    io.mapRequired(key.str().c_str(), m[key.str()]);
  }
  static void output(IO &io, std::map<std::string, std::string> &m) {
    for (auto &[k, v] : m) io.mapRequired(k.c_str(), v);
  }
};
template <> struct MappingTraits<nestor::ProfileConfig> {
  static void mapping(IO &io, nestor::ProfileConfig &p) {
    io.mapOptional("build", p.build);
    io.mapOptional("run", p.run);
    io.mapOptional("check", p.check);
    io.mapOptional("outputs", p.outputs);
    io.mapOptional("tolerance", p.tolerance);
    io.mapOptional("repetitions", p.repetitions);
    io.mapOptional("timeout", p.timeoutSeconds);
  }
};
template <> struct MappingTraits<RawMapping> {
  static void mapping(IO &io, RawMapping &m) {
    io.mapOptional("gpu", m.gpu);
    io.mapOptional("gpu_params", m.gpuParams);
    io.mapOptional("sms", m.sms);
    io.mapOptional("threads_per_sm", m.threadsPerSm);
    io.mapOptional("registers_per_thread", m.registersPerThread);
    io.mapOptional("default_trip", m.defaultTrip);
    io.mapOptional("default_threads", m.defaultThreads);
    io.mapOptional("skew", m.skew);
    io.mapOptional("launch_cost", m.launchCost);
    io.mapOptional("bandwidth_gbs", m.bandwidth);
    io.mapOptional("device_launch_us", m.deviceLaunchUs);
    io.mapOptional("device_launch_latency_us", m.deviceLaunchLatencyUs);
    io.mapOptional("kernel_us", m.kernelUs);
    io.mapOptional("latency_us", m.latencyUs);
    io.mapOptional("clock_ghz", m.clockGhz);
    io.mapOptional("sizes", m.sizes);
    io.mapOptional("longest", m.longest);
    io.mapOptional("weights", m.weights);
    io.mapOptional("pin", m.pin);
  }
};
template <> struct MappingTraits<RawConfig> {
  static void mapping(IO &io, RawConfig &c) {
    io.mapOptional("rules", c.rules);
    io.mapOptional("profile", c.profile);
    io.mapOptional("mapping", c.mapping);
  }
};
} // namespace llvm::yaml

namespace nestor {

const char *spelling(Severity s) {
  switch (s) {
  case Severity::Note: return "note";
  case Severity::Warning: return "warning";
  case Severity::Error: return "error";
  }
  return "warning";
}

std::optional<Severity> parseSeverity(const std::string &s) {
  if (s == "note" || s == "info") return Severity::Note;
  if (s == "warning") return Severity::Warning;
  if (s == "error") return Severity::Error;
  return std::nullopt;
}

bool Config::enabled(const std::string &rule) const {
  auto it = rules.find(rule);
  return it == rules.end() || it->second.enabled;
}

Severity Config::severityOf(const std::string &rule, Severity fallback) const {
  auto it = rules.find(rule);
  return it != rules.end() && it->second.severity ? *it->second.severity : fallback;
}

namespace {
llvm::Error mappingError(llvm::StringRef path, const std::string &what) {
  return llvm::createStringError("%s: mapping: %s", path.str().c_str(), what.c_str());
}

std::optional<double> number(const std::string &s) {
  double v;
  if (llvm::StringRef(s).trim().getAsDouble(v) || !std::isfinite(v)) return std::nullopt;
  return v;
}

llvm::Error readMapping(const RawMapping &raw, llvm::StringRef path, MappingConfig &out) {
  if (!raw.gpu.empty()) {
    auto g = gpuTargetNamed(raw.gpu);
    if (!g) return mappingError(path, "unknown gpu '" + raw.gpu + "' (h100, h200, gh200, a100, l40s, v100, t4; or give sms and threads_per_sm)");
    out.gpu = *g;
  }
  // The GPU's figures measured on it (nestor-gpu-probe), over the preset and
  // under the keys given here: gpu_params names the file (relative to this
  // file's directory), else .nestor/gpu-params.json beside it when present.
  std::string dir = path.empty() ? std::string() : llvm::sys::path::parent_path(path).str();
  auto besideConfig = [&](const std::string &file) {
    if (file.empty() || llvm::sys::path::is_absolute(file) || dir.empty()) return file;
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, file);
    return std::string(p);
  };
  std::string params;
  if (raw.gpuParams) {
    if (raw.gpuParams->empty()) return mappingError(path, "gpu_params must name a file");
    params = besideConfig(*raw.gpuParams);
  } else if (!dir.empty()) {
    std::string fallback = besideConfig(nestor::kDefaultGpuParamsPath);
    if (llvm::sys::fs::exists(fallback)) params = fallback;
  }
  if (!params.empty()) {
    if (auto e = nestor::applyGpuParams(params, out.gpu)) return mappingError(path, llvm::toString(std::move(e)));
    out.gpuParamsFile = params;
  }
  if (raw.sms) {
    if (*raw.sms == 0) return mappingError(path, "sms must be at least 1");
    out.gpu.sms = *raw.sms;
  }
  if (raw.threadsPerSm) {
    if (*raw.threadsPerSm < 32) return mappingError(path, "threads_per_sm must be at least 32");
    out.gpu.threadsPerSm = *raw.threadsPerSm;
  }
  auto positive = [&](const std::optional<double> &v, const char *name, double &dst) -> llvm::Error {
    if (!v) return llvm::Error::success();
    if (!(*v > 0)) return mappingError(path, std::string(name) + " must be a positive number");
    dst = *v;
    return llvm::Error::success();
  };
  if (auto e = positive(raw.defaultTrip, "default_trip", out.defaultTrip)) return e;
  if (auto e = positive(raw.defaultThreads, "default_threads", out.defaultThreads)) return e;
  if (auto e = positive(raw.launchCost, "launch_cost", out.launchCost)) return e;
  // The cost model's physical figures of the GPU (docs/mapping.md, "Estimated time").
  if (auto e = positive(raw.bandwidth, "bandwidth_gbs", out.gpu.bandwidthGBs)) return e;
  if (auto e = positive(raw.deviceLaunchUs, "device_launch_us", out.gpu.deviceLaunchUs)) return e;
  if (auto e = positive(raw.deviceLaunchLatencyUs, "device_launch_latency_us", out.gpu.deviceLaunchLatencyUs)) return e;
  if (auto e = positive(raw.kernelUs, "kernel_us", out.gpu.kernelUs)) return e;
  if (auto e = positive(raw.latencyUs, "latency_us", out.gpu.latencyUs)) return e;
  if (auto e = positive(raw.clockGhz, "clock_ghz", out.gpu.clockGhz)) return e;
  if (raw.skew) {
    if (*raw.skew < 0) return mappingError(path, "skew must be >= 0");
    out.skew = *raw.skew;
  }
  if (raw.registersPerThread) {
    if (*raw.registersPerThread == 0 || *raw.registersPerThread > 255)
      return mappingError(path, "registers_per_thread must be 1..255");
    out.registersPerThread = *raw.registersPerThread;
  }
  for (auto &[name, text] : raw.sizes) {
    auto v = number(text);
    if (!v || *v < 0) return mappingError(path, "sizes: '" + name + "' must be a non-negative number, got '" + text + "'");
    out.sizes[name] = *v;
  }
  for (auto &[name, text] : raw.longest) {
    auto v = number(text);
    if (!v || *v < 1) return mappingError(path, "longest: '" + name + "' must be a number of at least 1, got '" + text + "'");
    out.longest[name] = *v;
  }
  std::map<std::string, double *> weights{{"coalescing", &out.weights.coalescing}, {"parallelism", &out.weights.parallelism},
                                          {"utilisation", &out.weights.utilisation}, {"balance", &out.weights.balance},
                                          {"combine", &out.weights.combine}, {"launches", &out.weights.launches},
                                          {"block_size", &out.weights.blockSize}};
  for (auto &[name, text] : raw.weights) {
    auto it = weights.find(name);
    if (it == weights.end())
      return mappingError(path, "unknown weight '" + name + "' (coalescing, parallelism, utilisation, balance, combine, launches, block_size)");
    auto v = number(text);
    if (!v || *v < 0) return mappingError(path, "weight '" + name + "' must be a non-negative number, got '" + text + "'");
    *it->second = *v;
  }
  for (auto &[name, text] : raw.pin) {
    if (name == "placement") {
      static const char *known[] = {"sequential", "y", "lanes", "warp-tasks", "child-grid", "threshold", "coarsened", "aggregated"};
      if (std::find(std::begin(known), std::end(known), text) == std::end(known))
        return mappingError(path, "pin: unknown placement '" + text + "' (sequential, y, lanes, warp-tasks; launches: child-grid, threshold, coarsened, aggregated)");
      out.pinPlacement = text;
      continue;
    }
    std::optional<unsigned> *dst = name == "slaves" ? &out.pinSlaves : name == "span" ? &out.pinSpan : name == "split" ? &out.pinSplit : nullptr;
    if (!dst) return mappingError(path, "pin: unknown key '" + name + "' (placement, slaves, span, split)");
    auto v = number(text);
    if (!v || *v < 1 || *v != std::floor(*v) || *v > 1024)
      return mappingError(path, "pin: '" + name + "' must be a whole number from 1 to 1024, got '" + text + "'");
    *dst = unsigned(*v);
  }
  return llvm::Error::success();
}
} // namespace

llvm::Expected<Config> parseConfig(llvm::StringRef text, llvm::StringRef path) {
  RawConfig raw;
  std::string firstError;
  llvm::SourceMgr::DiagHandlerTy handler = [](const llvm::SMDiagnostic &d, void *ctx) {
    auto *out = static_cast<std::string *>(ctx);
    if (out->empty())
      *out = "line " + std::to_string(d.getLineNo()) + ": " + d.getMessage().str();
  };
  llvm::yaml::Input in(text, nullptr, handler, &firstError);
  if (!text.trim().empty()) in >> raw;
  if (in.error() || !firstError.empty())
    return llvm::createStringError("%s: invalid configuration: %s", path.str().c_str(),
                                   firstError.empty() ? in.error().message().c_str() : firstError.c_str());
  Config c;
  c.path = path.str();
  c.profile = raw.profile;
  if (auto err = readMapping(raw.mapping, path, c.mapping)) return std::move(err);
  for (auto &[id, value] : raw.rules) {
    if (!findRule(id))
      return llvm::createStringError("%s: unknown rule '%s' under 'rules'", path.str().c_str(), id.c_str());
    RuleSetting s;
    if (value == "off" || value == "false" || value == "disabled") s.enabled = false;
    else if (value == "on" || value == "true" || value == "enabled") s.enabled = true;
    else if (auto sev = parseSeverity(value)) s.severity = sev;
    else
      return llvm::createStringError("%s: rule '%s': expected off, on, note, warning or error, got '%s'",
                                     path.str().c_str(), id.c_str(), value.c_str());
    c.rules[id] = s;
  }
  return c;
}

llvm::Expected<Config> loadConfig(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return llvm::createStringError("%s: cannot read configuration: %s", path.c_str(), buf.getError().message().c_str());
  return parseConfig((*buf)->getBuffer(), path);
}

std::optional<std::string> findConfigFor(const std::string &file) {
  llvm::SmallString<256> dir(file);
  llvm::sys::fs::make_absolute(dir);
  if (!llvm::sys::fs::is_directory(dir)) llvm::sys::path::remove_filename(dir);
  while (!dir.empty()) {
    llvm::SmallString<256> candidate(dir);
    llvm::sys::path::append(candidate, ".nestor.yaml");
    if (llvm::sys::fs::exists(candidate)) return std::string(candidate);
    llvm::StringRef parent = llvm::sys::path::parent_path(dir);
    if (parent == dir) break;
    dir = parent;
  }
  return std::nullopt;
}

} // namespace nestor
