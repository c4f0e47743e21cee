#include "LintInputs.h"

#include "nestor/Analysis.h"
#include "nestor/ProjectIndex.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

using namespace llvm;

namespace nestor::cli {

namespace {

bool hasGlobChars(StringRef s) { return s.find_first_of("*?[") != StringRef::npos; }

std::string absolute(StringRef p) {
  SmallString<256> abs(p);
  sys::fs::make_absolute(abs);
  sys::path::remove_dots(abs, true);
  return std::string(abs);
}

std::string cwd() {
  SmallString<256> d;
  sys::fs::current_path(d);
  return std::string(d);
}

// PATH relative to the working directory when it lies below it.
std::string relativeToCwd(const std::string &abs) {
  static const std::string here = cwd() + "/";
  if (StringRef(abs).starts_with(here)) return abs.substr(here.size());
  return abs;
}

void collectDir(StringRef dir, std::vector<std::string> &out, std::error_code &ec) {
  for (sys::fs::recursive_directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    if (it->type() == sys::fs::file_type::directory_file && name.starts_with(".")) {
      it.no_push();
      continue;
    }
    if (isCudaSourcePath(it->path())) out.push_back(it->path());
  }
}

struct Input {
  std::string path;
  bool named; ///< given by name, not found in a directory or by a glob
};

// Files, directories (recursively, .cu/.cuh) and globs. Missing inputs are
// returned as errors so every other file is still analysed.
void expandInputs(const std::vector<std::string> &inputs, std::vector<Input> &files, std::vector<std::string> &errors) {
  for (const std::string &in : inputs) {
    if (hasGlobChars(in)) {
      // The directory part before the first glob character is walked.
      size_t g = in.find_first_of("*?[");
      size_t slash = in.rfind('/', g);
      std::string base = slash == std::string::npos ? "." : in.substr(0, slash == 0 ? 1 : slash);
      auto pattern = GlobPattern::create(in);
      if (!pattern) {
        errors.push_back(in + ": invalid glob: " + toString(pattern.takeError()));
        continue;
      }
      std::vector<std::string> candidates;
      std::error_code ec;
      for (sys::fs::recursive_directory_iterator it(base, ec), end; it != end && !ec; it.increment(ec)) {
        std::string p = it->path();
        if (base == "." && StringRef(p).starts_with("./") && !StringRef(in).starts_with("./")) p = p.substr(2);
        if (it->type() != sys::fs::file_type::directory_file && pattern->match(p)) candidates.push_back(it->path());
      }
      if (candidates.empty()) errors.push_back(in + ": no files match");
      std::sort(candidates.begin(), candidates.end());
      for (auto &c : candidates) files.push_back({c, false});
      continue;
    }
    if (sys::fs::is_directory(in)) {
      std::vector<std::string> found;
      std::error_code ec;
      collectDir(in, found, ec);
      if (ec) errors.push_back(in + ": " + ec.message());
      std::sort(found.begin(), found.end());
      for (auto &f : found) files.push_back({f, false});
      continue;
    }
    files.push_back({in, true}); // checked (and reported) by the analysis
  }
}

} // namespace

LintInputs planLintInputs(const LintInputOptions &opts) {
  LintInputs r;
  std::vector<GlobPattern> excludes;
  for (const std::string &g : opts.excludes) {
    auto p = GlobPattern::create(g);
    if (!p) {
      r.errors.push_back("--exclude " + g + ": invalid glob: " + toString(p.takeError()));
      r.usageError = true;
      continue;
    }
    excludes.push_back(std::move(*p));
  }
  std::optional<Regex> headerFilter;
  if (opts.headerFilter) {
    headerFilter.emplace(*opts.headerFilter);
    std::string why;
    if (!headerFilter->isValid(why)) {
      r.errors.push_back("--header-filter " + *opts.headerFilter + ": invalid regular expression: " + why);
      r.usageError = true;
    }
  }
  if (r.usageError) return r;

  // A file is excluded when a pattern matches it, or a directory above it,
  // written relative to the working directory or absolute.
  auto excluded = [&](const std::string &abs) {
    if (excludes.empty()) return false;
    for (StringRef p = abs; !p.empty() && p != "/"; p = sys::path::parent_path(p)) {
      std::string rel = relativeToCwd(p.str());
      for (const GlobPattern &g : excludes)
        if (g.match(p) || g.match(rel)) return true;
    }
    return false;
  };
  auto headerMatches = [&](const std::string &abs) {
    return headerFilter && (headerFilter->match(abs) || headerFilter->match(relativeToCwd(abs)));
  };

  std::vector<std::string> dbFiles;
  std::set<std::string> inDb;
  if (!opts.databaseDir.empty()) {
    auto files = databaseFiles(opts.databaseDir);
    if (!files) {
      r.errors.push_back("-p " + opts.databaseDir + ": " + toString(files.takeError()));
      r.usageError = true;
      return r;
    }
    dbFiles = std::move(*files);
    inDb.insert(dbFiles.begin(), dbFiles.end());
  }

  std::optional<std::map<std::string, std::string>> includers;
  auto includerOf = [&](const std::string &abs) -> std::string {
    if (dbFiles.empty()) return "";
    if (!includers) includers = includersInDatabase(opts.databaseDir, opts.flags);
    auto it = includers->find(abs);
    return it == includers->end() ? "" : it->second;
  };

  std::set<std::string> taken;
  auto add = [&](const std::string &path, const std::string &abs, const std::string &inc) {
    if (!taken.insert(abs).second) return;
    r.targets.push_back({path, path, inc});
  };

  if (opts.paths.empty()) {
    // Exactly the database's CUDA translation units, in its order.
    for (const std::string &f : dbFiles) {
      if (!isCudaSourcePath(f)) continue;
      if (excluded(f)) {
        ++r.excluded;
        continue;
      }
      add(f, f, "");
      r.targets.back().display = relativeToCwd(f);
    }
    if (headerFilter) {
      if (!includers) includers = includersInDatabase(opts.databaseDir, opts.flags);
      for (const auto &[header, tu] : *includers) {
        if (inDb.count(header) || !isCudaSourcePath(header) || !headerMatches(header)) continue;
        if (excluded(header)) {
          ++r.excluded;
          continue;
        }
        add(header, header, tu);
        r.targets.back().display = relativeToCwd(header);
      }
    }
    return r;
  }

  std::vector<Input> files;
  expandInputs(opts.paths, files, r.errors);
  for (const Input &in : files) {
    std::string abs = absolute(in.path);
    if (excluded(abs)) {
      ++r.excluded;
      continue;
    }
    if (dbFiles.empty() || inDb.count(abs)) {
      add(in.path, abs, "");
      continue;
    }
    // Not in the database: a header, or a .cu a wrapper includes.
    if (in.named || headerMatches(abs)) {
      add(in.path, abs, includerOf(abs));
      continue;
    }
    ++r.notInDatabase;
  }
  return r;
}

} // namespace nestor::cli
