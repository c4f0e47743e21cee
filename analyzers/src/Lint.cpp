#include "nestor/Lint.h"
#include "nestor/Analysis.h"
#include "nestor/CrashRecovery.h"
#include "nestor/Rule.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>

namespace nestor {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {
llvm::StringRef lineOf(llvm::StringRef text, unsigned line) {
  unsigned current = 1;
  size_t start = 0;
  while (current < line) {
    size_t nl = text.find('\n', start);
    if (nl == llvm::StringRef::npos) return "";
    start = nl + 1;
    ++current;
  }
  size_t end = text.find('\n', start);
  return text.slice(start, end == llvm::StringRef::npos ? text.size() : end);
}

bool lineSuppresses(llvm::StringRef line, const std::string &rule) {
  size_t pos = 0;
  while ((pos = line.find("nestor-ignore(", pos)) != llvm::StringRef::npos) {
    size_t open = pos + strlen("nestor-ignore(");
    size_t close = line.find(')', open);
    if (close == llvm::StringRef::npos) return false;
    llvm::SmallVector<llvm::StringRef, 4> ids;
    line.slice(open, close).split(ids, ',');
    for (llvm::StringRef id : ids)
      if (id.trim() == rule || id.trim() == "*") return true;
    pos = close;
  }
  return false;
}
} // namespace

// The fingerprint's hash part: rule, path, the flagged line's text with runs
// of whitespace collapsed to one space.
static std::string fingerprintText(llvm::StringRef fileText, const Finding &f, const std::string &rel, unsigned occurrence) {
  std::string norm;
  for (char c : lineOf(fileText, f.span.begin.line).trim()) {
    if (llvm::isSpace(c)) {
      if (!norm.empty() && norm.back() != ' ') norm += ' ';
    } else {
      norm += c;
    }
  }
  uint64_t h = llvm::xxh3_64bits(f.ruleId + '\0' + rel + '\0' + norm);
  std::string hex = llvm::utohexstr(h, /*LowerCase=*/true);
  return std::string(16 - std::min<size_t>(16, hex.size()), '0') + hex + ":" + std::to_string(occurrence);
}

void addFingerprints(FileResult &r, const std::string &root) {
  r.fingerprints.clear();
  std::string text;
  if (auto buf = llvm::MemoryBuffer::getFile(r.file)) text = (*buf)->getBuffer().str();
  std::string rel = relativePath(r.file, root);
  std::map<std::string, unsigned> seen;
  for (const Finding &f : r.findings) {
    std::string base = fingerprintText(text, f, rel, 0);
    base.resize(base.size() - 2); // without ":0"
    unsigned n = seen[base]++;
    r.fingerprints.push_back(base + ":" + std::to_string(n));
  }
}

llvm::Expected<std::map<std::string, unsigned>> loadBaseline(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return llvm::createStringError("baseline %s: cannot read: %s", path.c_str(), buf.getError().message().c_str());
  auto v = llvm::json::parse((*buf)->getBuffer());
  if (!v) return llvm::createStringError("baseline %s: not JSON: %s", path.c_str(), llvm::toString(v.takeError()).c_str());
  std::map<std::string, unsigned> out;
  const Object *top = v->getAsObject();
  auto missing = [&](const char *what) {
    return llvm::createStringError("baseline %s: a %s without a Nestor fingerprint (write baselines with "
                                   "--write-baseline, or --format json|sarif of this version)",
                                   path.c_str(), what);
  };
  if (top && top->getArray("runs")) {
    for (const Value &run : *top->getArray("runs")) {
      const Object *ro = run.getAsObject();
      const Array *results = ro ? ro->getArray("results") : nullptr;
      if (!results) continue;
      for (const Value &res : *results) {
        const Object *o = res.getAsObject();
        const Object *fp = o ? o->getObject("partialFingerprints") : nullptr;
        auto s = fp ? fp->getString("nestor/v1") : std::nullopt;
        if (!s) return missing("SARIF result");
        ++out[s->str()];
      }
    }
    return out;
  }
  if (top && top->getArray("files")) {
    for (const Value &file : *top->getArray("files")) {
      const Object *fo = file.getAsObject();
      const Array *findings = fo ? fo->getArray("findings") : nullptr;
      if (!findings) continue;
      for (const Value &fv : *findings) {
        const Object *o = fv.getAsObject();
        auto s = o ? o->getString("fingerprint") : std::nullopt;
        if (!s) return missing("finding");
        ++out[s->str()];
      }
    }
    return out;
  }
  return llvm::createStringError("baseline %s: neither a SARIF log (\"runs\") nor a nestor lint JSON report (\"files\")",
                                 path.c_str());
}

bool isSuppressed(llvm::StringRef text, const Finding &f) {
  unsigned line = f.span.begin.line;
  if (line == 0) return false;
  if (lineSuppresses(lineOf(text, line), f.ruleId)) return true;
  return line > 1 && lineSuppresses(lineOf(text, line - 1), f.ruleId);
}

std::vector<Finding> runRules(const AnalyzedTU &tu, const Config &config) {
  std::vector<Finding> all;
  for (const Rule *r : allRules()) {
    if (!config.enabled(r->id())) continue;
    std::vector<Finding> found;
    std::string phase = std::string("running rule ") + r->id(); // where a crash is reported (CrashRecovery.h)
    AnalysisStep step(phase.c_str());
    r->check(tu, found);
    for (Finding &f : found) {
      f.severity = config.severityOf(r->id(), f.severity);
      if (f.span.file.empty()) f.span.file = tu.mainFile();
      if (!isSuppressed(tu.mainFileText(), f)) all.push_back(std::move(f));
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const Finding &a, const Finding &b) {
    if (a.span.begin.offset != b.span.begin.offset) return a.span.begin.offset < b.span.begin.offset;
    return a.ruleId < b.ruleId;
  });
  // A template kernel instantiated N times has its loops and launches in
  // the model N times, at one source location: one finding per place.
  std::vector<Finding> unique;
  for (Finding &f : all) {
    bool dup = false;
    for (const Finding &u : unique)
      if (u.ruleId == f.ruleId && u.span.file == f.span.file && u.span.begin.offset == f.span.begin.offset &&
          u.message == f.message)
        dup = true;
    if (!dup) unique.push_back(std::move(f));
  }
  return unique;
}

std::string formatText(const Finding &f, const std::string &path) {
  return path + ":" + std::to_string(f.span.begin.line) + ":" + std::to_string(f.span.begin.column) + ": " +
         spelling(f.severity) + ": " + f.message + " [" + f.ruleId + "]";
}

Value toJSON(const Finding &f, const std::string &path) {
  Object o{{"rule", f.ruleId},
           {"severity", spelling(f.severity)},
           {"message", f.message},
           {"file", path},
           {"line", f.span.begin.line},
           {"column", f.span.begin.column},
           {"end_line", f.span.end.line},
           {"end_column", f.span.end.column}};
  Array related;
  for (const auto &r : f.related)
    related.push_back(Object{{"message", r.message}, {"line", r.span.begin.line}, {"column", r.span.begin.column}});
  o["related"] = std::move(related);
  if (f.fix) {
    Array edits;
    for (const auto &e : f.fix->edits)
      edits.push_back(Object{{"line", e.span.begin.line},
                             {"column", e.span.begin.column},
                             {"end_line", e.span.end.line},
                             {"end_column", e.span.end.column},
                             {"new_text", e.newText}});
    o["fix"] = Object{{"title", f.fix->title}, {"edits", std::move(edits)}};
  }
  Object data;
  for (const auto &[k, v] : f.data) data[k] = v;
  o["data"] = std::move(data);
  return o;
}

std::string repositoryRoot(const std::string &from) {
  llvm::SmallString<256> dir(from);
  llvm::sys::fs::make_absolute(dir);
  llvm::sys::path::remove_dots(dir, true);
  if (!llvm::sys::fs::is_directory(dir)) llvm::sys::path::remove_filename(dir);
  for (llvm::SmallString<256> d = dir; !d.empty();) {
    llvm::SmallString<256> git(d);
    llvm::sys::path::append(git, ".git");
    if (llvm::sys::fs::exists(git)) return std::string(d);
    llvm::StringRef parent = llvm::sys::path::parent_path(d);
    if (parent == d) break;
    d = parent;
  }
  llvm::SmallString<256> cwd;
  llvm::sys::fs::current_path(cwd);
  return std::string(cwd);
}

std::string relativePath(const std::string &path, const std::string &root) {
  llvm::SmallString<256> abs(path);
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, true);
  llvm::StringRef p(abs);
  std::string r = root;
  if (!r.empty() && r.back() != '/') r += '/';
  if (p.starts_with(r)) return p.drop_front(r.size()).str();
  return p.str();
}

static const char *sarifLevel(Severity s) {
  switch (s) {
  case Severity::Note: return "note";
  case Severity::Warning: return "warning";
  case Severity::Error: return "error";
  }
  return "warning";
}

static std::string uriEscape(llvm::StringRef path) {
  std::string out;
  for (char c : path) {
    if (llvm::isAlnum(c) || llvm::StringRef("/-._~").contains(c)) out += c;
    else {
      char buf[4];
      snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      out += buf;
    }
  }
  return out;
}

Value toSarif(const std::vector<FileResult> &results, const std::string &root) {
  Array rules;
  std::map<std::string, int64_t> ruleIndex;
  for (const Rule *r : allRules()) {
    ruleIndex[r->id()] = int64_t(rules.size());
    rules.push_back(Object{{"id", r->id()},
                           {"name", r->id()},
                           {"shortDescription", Object{{"text", r->summary()}}},
                           {"fullDescription", Object{{"text", r->description()}}},
                           {"help", Object{{"text", std::string(r->description()) + " See docs/rules/" + r->id() + ".md."}}},
                           {"helpUri", ruleDocUrl(r->id())},
                           {"defaultConfiguration", Object{{"level", sarifLevel(r->defaultSeverity())}}}});
  }
  Array sarifResults, notifications;
  for (const FileResult &fr : results) {
    std::string rel = relativePath(fr.file, root);
    if (fr.error) {
      notifications.push_back(Object{{"level", "error"}, {"message", Object{{"text", *fr.error}}}});
      continue;
    }
    std::string text;
    if (fr.fingerprints.size() != fr.findings.size())
      if (auto buf = llvm::MemoryBuffer::getFile(fr.file)) text = (*buf)->getBuffer().str();
    for (const Finding &f : fr.findings) {
      auto loc = [&](const SourceSpan &s) {
        Object region{{"startLine", std::max(1u, s.begin.line)}, {"startColumn", std::max(1u, s.begin.column)}};
        if (s.end.line >= s.begin.line && s.end.line > 0) {
          region["endLine"] = s.end.line;
          region["endColumn"] = std::max(1u, s.end.column);
        }
        return Object{{"physicalLocation",
                       Object{{"artifactLocation", Object{{"uri", uriEscape(rel)}, {"uriBaseId", "SRCROOT"}}},
                              {"region", std::move(region)}}}};
      };
      Array locations;
      locations.push_back(loc(f.span));
      Array related;
      int64_t relId = 1;
      for (const auto &r : f.related) {
        Object rl = loc(r.span);
        rl["id"] = relId++;
        rl["message"] = Object{{"text", r.message}};
        related.push_back(std::move(rl));
      }
      // Fingerprint: rule, file and the text of the line, so it survives edits elsewhere.
      size_t index = size_t(&f - fr.findings.data());
      std::string fingerprint = index < fr.fingerprints.size() ? fr.fingerprints[index] : fingerprintText(text, f, rel, 0);
      Object res{{"ruleId", f.ruleId},
                 {"ruleIndex", ruleIndex[f.ruleId]},
                 {"level", sarifLevel(f.severity)},
                 {"message", Object{{"text", f.message}}},
                 {"locations", std::move(locations)},
                 {"partialFingerprints", Object{{"nestor/v1", fingerprint}}}};
      if (!related.empty()) res["relatedLocations"] = std::move(related);
      sarifResults.push_back(std::move(res));
    }
  }
  std::string rootUri = "file://" + uriEscape(root) + (llvm::StringRef(root).ends_with("/") ? "" : "/");
  Object invocation{{"executionSuccessful", true}};
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = std::move(notifications);
  Object run{{"tool", Object{{"driver", Object{{"name", "nestor"},
                                               {"version", NESTOR_VERSION},
                                               {"informationUri", "https://github.com/nestor-cuda/nestor"},
                                               {"rules", std::move(rules)}}}}},
             {"originalUriBaseIds", Object{{"SRCROOT", Object{{"uri", rootUri}}}}},
             {"invocations", Array{std::move(invocation)}},
             {"results", std::move(sarifResults)}};
  return Object{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                {"version", "2.1.0"},
                {"runs", Array{std::move(run)}}};
}

} // namespace nestor
