// `nestor rewrite FILE --at LINE[:COL] --apply a[,b...] [--param k=v]... [-i | -o OUT | --diff]`
//
// Rewrites compose in the order given (threshold -> coarsen -> aggregate is
// the thesis' order): after each one the result is analysed again and the
// same target (the n-th launch of the child in its parent, or the n-th loop
// of the function) is looked up in the new text. That logic is
// composeRewrites() (nestor/planner/Compose.h), shared with `nestor profile`.
#include "Commands.h"
#include "MultiFileWrite.h"
#include "Options.h"

#include "nestor/Analysis.h"
#include "nestor/Config.h"
#include "nestor/MappingAdvisor.h"
#include "nestor/ProjectIndex.h"
#include "nestor/Rewrite.h"
#include "nestor/RefusalText.h"
#include "nestor/planner/Compose.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace nestor::cli {

cl::opt<std::string> RewriteAt("at", cl::desc("LINE[:COL] of the loop, its pragma, or the launch"), cl::sub(RewriteCmd));
cl::opt<std::string> RewriteApply("apply", cl::desc("Rewrites to apply, comma-separated, in order"), cl::sub(RewriteCmd));
cl::opt<std::string> RewriteOutput("o", cl::desc("Write the result to this file (atomically)"), cl::value_desc("file"),
                                   cl::sub(RewriteCmd));
cl::list<std::string> RewriteParams("param", cl::desc("name=value parameter of a rewrite"), cl::sub(RewriteCmd));
cl::opt<bool> RewriteInPlace("i", cl::desc("Rewrite the file in place (atomically)"), cl::sub(RewriteCmd));
cl::opt<bool> RewriteDiff("diff", cl::desc("Print a unified diff instead of the file"), cl::sub(RewriteCmd));
cl::opt<bool> RewriteList("list", cl::desc("List the rewrites that apply at --at, and why the others do not"),
                          cl::sub(RewriteCmd));
cl::opt<bool> RewriteVerbose("verbose", cl::desc("With --list: one line per variant, with its estimate and why"),
                             cl::sub(RewriteCmd));

namespace {

std::string location(const std::string &file, const SourceSpan &s) {
  // A blocker in a header is at the header's line.
  const std::string in = !s.file.empty() && sys::path::filename(s.file) != sys::path::filename(file) ? s.file : file;
  return s.valid() ? in + ":" + std::to_string(s.begin.line) + ":" + std::to_string(s.begin.column) : file;
}

int printDiff(const std::string &file, const std::string &before, const std::string &after) {
  SmallString<128> a, b;
  int fa, fb;
  if (sys::fs::createTemporaryFile("nestor-before", "cu", fa, a) || sys::fs::createTemporaryFile("nestor-after", "cu", fb, b)) {
    errs() << "nestor rewrite: cannot create temporary files for --diff\n";
    return 2;
  }
  { raw_fd_ostream o(fa, true); o << before; }
  { raw_fd_ostream o(fb, true); o << after; }
  auto diff = sys::findProgramByName("diff");
  if (!diff) {
    errs() << "nestor rewrite: --diff needs the 'diff' program on PATH\n";
    return 2;
  }
  std::string la = "--label=" + file, lb = "--label=" + file + " (rewritten)";
  std::vector<StringRef> argv{*diff, "-u", la, lb, a, b};
  int rc = sys::ExecuteAndWait(*diff, argv);
  sys::fs::remove(a);
  sys::fs::remove(b);
  return rc == 0 || rc == 1 ? 0 : 2;
}

// A rewrite that changes several files: --diff prints each file's diff, -i
// writes them all or none; the file alone (stdout, -o) would be half of it.
int writeProjectRewrite(const AnalyzedTU &tu, ProjectIndex &project, const FileReplacements &files) {
  std::map<std::string, FileChange> changes;
  for (const auto &[path, reps] : files) {
    std::string before;
    if (path == tu.mainFile()) {
      before = tu.mainFileText().str();
    } else {
      std::shared_ptr<const AnalyzedTU> unit = project.unit(path);
      if (!unit) {
        errs() << "nestor rewrite: " << path << ": cannot be read again\n";
        return 2;
      }
      before = unit->mainFileText().str();
    }
    auto after = clang::tooling::applyAllReplacements(before, reps);
    if (!after) {
      errs() << "nestor rewrite: " << path << ": " << toString(after.takeError()) << "\n";
      return 1;
    }
    changes[path] = {before, *after};
  }
  if (RewriteDiff) {
    int rc = 0;
    for (const auto &[path, c] : changes) rc = std::max(rc, printDiff(path, c.before, c.after));
    return rc;
  }
  if (RewriteInPlace) {
    if (auto err = writeFilesAllOrNone(changes)) {
      errs() << "nestor rewrite: " << toString(std::move(err)) << "\n";
      return 2;
    }
    for (const auto &[path, c] : changes) outs() << "rewrote " << path << "\n";
    return 0;
  }
  std::string names;
  for (const auto &[path, c] : changes) names += " " + path;
  errs() << "nestor rewrite: the rewrite changes " << changes.size() << " files (" << names.substr(1)
         << "): use -i to write them all, or --diff\n";
  return 2;
}

} // namespace

int runRewrite(const std::optional<std::vector<std::string>> &compileFlags) {
  if (Inputs.size() != 1) {
    errs() << "nestor rewrite: give exactly one file\n";
    return 2;
  }
  const std::string file = Inputs.front();
  if (RewriteAt.empty()) {
    errs() << "nestor rewrite: --at LINE is required\n";
    return 2;
  }
  unsigned line = 0;
  if (StringRef(RewriteAt).split(':').first.getAsInteger(10, line) || line == 0) {
    errs() << "nestor rewrite: --at expects LINE or LINE:COL, got '" << RewriteAt << "'\n";
    return 2;
  }
  if (int(RewriteInPlace) + int(!RewriteOutput.empty()) + int(RewriteDiff) > 1) {
    errs() << "nestor rewrite: -i, -o and --diff exclude each other\n";
    return 2;
  }
  nestor::RewriteParams given;
  for (const std::string &p : RewriteParams) {
    auto [k, v] = StringRef(p).split('=');
    if (k.empty() || v.empty()) {
      errs() << "nestor rewrite: --param expects name=value, got '" << p << "'\n";
      return 2;
    }
    given[k.str()] = v.str();
  }

  AnalysisOptions opts;
  if (!BuildPath.empty()) opts.flags.compileCommandsDir = BuildPath.getValue();
  opts.flags.userFlags = compileFlags;
  opts.flags.gpuArch = GpuArch;
  // With the project's compile database (-p), its launch index
  // (ProjectIndex.h): a kernel launched from another translation unit is
  // rewritten with those launches, and every file it changes is written. A
  // database found upwards gives the flags only: indexing a whole project
  // is what -p asks for.
  std::unique_ptr<ProjectIndex> project;
  if (opts.flags.compileCommandsDir) {
    project = std::make_unique<ProjectIndex>(*opts.flags.compileCommandsDir, opts.flags);
    if (project->error().empty()) opts.project = project.get();
  }
  auto tu = analyzeFile(file, opts);
  if (!tu) {
    errs() << "error: " << toString(tu.takeError()) << "\n";
    return 2;
  }

  if (RewriteList) {
    // One ranking of every rewrite variant at the line by the cost model's
    // estimated time (docs/mapping.md), with "keep the original" when nothing
    // is estimated to beat it by 25%: per target kind (loop, launch) found there.
    auto mappingConfig = mappingConfigFor(**tu);
    if (!mappingConfig) {
      errs() << "error: " << toString(mappingConfig.takeError()) << "\n";
      return 2;
    }
    std::vector<std::string> missing;
    for (RewriteTarget::Kind kind : {RewriteTarget::Kind::Loop, RewriteTarget::Kind::Launch}) {
      bool any = false;
      for (const Rewrite *r : allRewrites()) any |= r->targetKind() == kind;
      if (!any) continue;
      auto target = targetAtLine((*tu)->model(), kind, line);
      const char *what = kind == RewriteTarget::Kind::Loop ? "loop" : "launch";
      if (!target) {
        missing.push_back(std::string("no ") + what + " at line " + std::to_string(line));
        continue;
      }
      OfferRanking ranking = rankOffers(**tu, *mappingConfig, *target);
      outs() << what << " at line " << line << ":\n" << offerListText(ranking, RewriteVerbose);
    }
    for (const std::string &m : missing) outs() << m << "\n";
    return 0;
  }

  if (RewriteApply.empty()) {
    errs() << "nestor rewrite: --apply NAME[,NAME...] is required (see --list)\n";
    return 2;
  }
  SmallVector<StringRef, 4> names;
  StringRef(RewriteApply).split(names, ',', -1, false);
  std::vector<const Rewrite *> chain;
  for (StringRef n : names) {
    const Rewrite *r = findRewrite(n.trim().str());
    if (!r) {
      std::string known;
      for (const Rewrite *k : allRewrites()) known += std::string(known.empty() ? "" : ", ") + k->id();
      errs() << "nestor rewrite: unknown rewrite '" << n << "' (known: " << known << ")\n";
      return 2;
    }
    chain.push_back(r);
  }

  // One rewrite whose edits reach other files (launches in the project):
  // applied here, every file written all or none. Only a file with a kernel
  // launched from another translation unit can need that; any other goes
  // straight to the one path below, so its rewrite is applied once, not twice.
  const auto &kernels = (*tu)->model().kernels;
  bool launchedElsewhere =
      std::any_of(kernels.begin(), kernels.end(), [](const Kernel &k) { return !k.externalLaunches.empty(); });
  if (chain.size() == 1 && opts.project && launchedElsewhere) {
    if (auto target = targetAtLine((*tu)->model(), chain[0]->targetKind(), line)) {
      auto resolved = resolveParams(*chain[0], given);
      if (!resolved) {
        errs() << "nestor rewrite: " << toString(resolved.takeError()) << "\n";
        return 2;
      }
      if (chain[0]->prepare(**tu, *target, *resolved).applies) {
        auto files = chain[0]->applyAcrossFiles(**tu, *target, *resolved);
        if (!files) {
          errs() << "nestor rewrite: " << chain[0]->id() << ": " << toString(files.takeError()) << "\n";
          return 1;
        }
        if (files->size() > 1) return writeProjectRewrite(**tu, *project, *files);
      }
    }
  }

  std::vector<ComposeStep> steps;
  for (const Rewrite *r : chain) steps.push_back({r, given});
  auto composed = composeRewrites(
      **tu, opts, steps, [line](const FileModel &m, RewriteTarget::Kind kind) { return targetAtLine(m, kind, line); });
  if (!composed) {
    int rc = 1;
    llvm::handleAllErrors(composed.takeError(), [&](const ComposeError &e) {
      using Kind = ComposeError::Kind;
      switch (e.kind) {
      case Kind::NoTarget:
        errs() << "nestor rewrite: " << e.rewriteId << ": no "
               << (chain[e.step]->targetKind() == RewriteTarget::Kind::Loop ? "loop" : "kernel launch") << " at " << file
               << ":" << line << "\n";
        break;
      case Kind::BadParams:
        errs() << "nestor rewrite: " << e.message << "\n";
        rc = 2;
        break;
      case Kind::NotApplicable:
        errs() << "nestor rewrite: " << e.rewriteId << " does not apply at " << location(file, e.blocker) << ": "
               << e.message << "\n";
        break;
      case Kind::ApplyFailed:
        errs() << "nestor rewrite: " << e.rewriteId << ": " << e.message << "\n";
        break;
      case Kind::AnalysisFailed:
        errs() << "error: " << e.message << "\n";
        rc = 2;
        break;
      }
    });
    return rc;
  }
  const std::string original = (*tu)->mainFileText().str();
  const std::string &current = composed->text;

  if (RewriteDiff) return printDiff(file, original, current);
  if (RewriteInPlace || !RewriteOutput.empty()) {
    std::string out = RewriteInPlace ? file : RewriteOutput.getValue();
    if (auto err = writeFileAtomically(out, current)) {
      errs() << "nestor rewrite: " << toString(std::move(err)) << "\n";
      return 2;
    }
    return 0;
  }
  outs() << current;
  return 0;
}

} // namespace nestor::cli
