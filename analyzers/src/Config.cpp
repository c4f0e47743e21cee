#include "nestor/Config.h"
#include "nestor/Rule.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"

namespace {
struct RawConfig {
  std::map<std::string, std::string> rules;
  nestor::ProfileConfig profile;
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
template <> struct MappingTraits<RawConfig> {
  static void mapping(IO &io, RawConfig &c) {
    io.mapOptional("rules", c.rules);
    io.mapOptional("profile", c.profile);
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
