// AST -> nestor::FileModel. One pass per function written in the main file
// (FunctionScanner: variance, loops, launches), then the parts that need every
// function at once (ModelParts.h: function facts, kernels, the serialisability
// of each launch's child), then the pragmas' loops. Where each part lives:
//   Variance.cpp        which values differ between the threads of a block
//   FunctionScanner.cpp contexts: enclosing loops, branches, single-thread guards
//   LoopAnalysis.cpp    loops: induction variable, trip count, body summary, dependences
//   LaunchAnalysis.cpp  launch sites and their children's serialisability
//   ThreadCount.cpp     the child thread count behind a grid expression
//   KernelAnalysis.cpp  kernels and the facts of every function body
//   RecursionAnalysis.cpp  the recursion shape of kernels that launch themselves
// The CUDA vocabulary they share is CudaSemantics.h; statement effects are
// StatementEffects.h.
#include "ModelBuilder.h"
#include "FunctionScanner.h"
#include "ModelParts.h"
#include "nestor/AstText.h"
#include "nestor/CrashRecovery.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>

namespace nestor {

using namespace clang;

void buildModel(AnalyzedTU &tu) {
  SourceManager &sm = tu.astContext().getSourceManager();
  FileModel &model = tu.model();

  // Functions written in the main file, in source order.
  std::vector<const FunctionDecl *> functions;
  std::map<const FunctionDecl *, const FunctionDecl *> defOf; // canonical -> definition
  struct Collector : RecursiveASTVisitor<Collector> {
    SourceManager &sm;
    std::vector<const FunctionDecl *> &out;
    std::map<const FunctionDecl *, const FunctionDecl *> &defs;
    Collector(SourceManager &s, std::vector<const FunctionDecl *> &o,
              std::map<const FunctionDecl *, const FunctionDecl *> &d) : sm(s), out(o), defs(d) {}
    bool shouldVisitTemplateInstantiations() const { return false; }
    bool VisitFunctionDecl(FunctionDecl *fd) {
      if (!fd->doesThisDeclarationHaveABody()) return true;
      defs[fd->getCanonicalDecl()] = fd;
      // An instantiation of a template (`scaled_rows<3>`, reported as a
      // top-level declaration once Sema instantiates it) repeats its
      // pattern's text: the model holds the pattern alone, whose analysis
      // must hold for every type and value it may be instantiated with (a
      // rewrite edits the one text they share). Holding both listed every
      // template kernel and loop twice, and a rewrite at a loop's line found
      // the pattern's loop in the instantiation's body.
      if (fd->isTemplateInstantiation()) return true;
      if (sm.isWrittenInMainFile(sm.getFileLoc(fd->getLocation()))) out.push_back(fd);
      return true;
    }
  } collector(sm, functions, defOf);
  for (const Decl *d : tu.topLevelDecls()) collector.TraverseDecl(const_cast<Decl *>(d));

  int nextLoop = 0, nextLaunch = 0;
  FunctionIndex index(tu.astContext(), std::move(defOf), model.parseDiagnostics);
  std::set<const FunctionDecl *> branchingOnGather; // read by addKernels

  for (const FunctionDecl *fd : functions) {
    // Where a crash is reported (CrashRecovery.h): this function's place.
    AnalysisStep step("building the model", fd->getNameAsString(), spanOf(fd->getSourceRange(), tu.astContext()));
    if (testOnlyCrashMarker()) crashIfTestMarker(textOf(fd->getSourceRange(), tu.astContext())); // TEST-ONLY hook
    tu.functionNodes[fd->getNameAsString()] = fd;
    FunctionScanner scanner(tu, fd, nextLoop, nextLaunch);
    scanner.run();
    if (cuda::isKernelFunction(fd) && scanner.branchesOnGather()) branchingOnGather.insert(fd);
    if (cuda::isDeviceCodeFunction(fd))
      if (const FunctionFacts *f = index.factsOf(fd))
        for (const ConstructUse &s : f->syncs) model.deviceSyncs.push_back({fd->getNameAsString(), s.span});
  }
  {
    AnalysisStep step("collecting the kernels");
    addKernels(tu, functions, index, branchingOnGather);
  }
  {
    AnalysisStep step("judging the launches");
    judgeLaunches(tu, index);
  }
  {
    AnalysisStep step("bounding the launches' child sizes by their guards");
    boundLaunchSizes(tu);
  }
  {
    AnalysisStep step("placing the parse errors in the loops");
    placeParseErrors(model);
  }
  {
    AnalysisStep step("analysing the recursion");
    addRecursion(tu);
  }
  AnalysisStep step("attaching the pragmas");
  attachPragmas(tu);
}

bool isUnknownCode(const ParseDiagnostic &d) { return d.message.find("cudaDeviceSynchronize") == std::string::npos; }

bool encloses(const SourceSpan &outer, const SourceSpan &at) {
  return outer.valid() && at.valid() && outer.file == at.file && outer.begin.offset <= at.begin.offset &&
         at.begin.offset <= outer.end.offset;
}

// Clang drops some statements it cannot parse without leaving a node (`s +=
// b[i] * UNDECLARED;` is gone from the body), so StatementEffects cannot see
// them: an error inside a loop is unknown code there. (Functions get theirs
// in FunctionIndex::factsOf, which judgeLaunches and the kernels read.)
void placeParseErrors(FileModel &model) {
  for (const ParseDiagnostic &d : model.parseDiagnostics)
    if (isUnknownCode(d))
      for (LoopSite &l : model.loops)
        if (encloses(l.span, d.span)) l.unparsed.push_back(d.span);
  // A loop's rewrite moves or reshapes the kernel around it too (CUDA-NP
  // renames its thread identity, the templates replay rows on other
  // threads): unknown code anywhere in the kernel, or in a function it
  // calls, is unknown code for the loop (LoopSite::collectiveRefusal says
  // where).
  for (LoopSite &l : model.loops)
    if (const Kernel *k = l.inKernel ? model.findKernel(l.function) : nullptr)
      for (const SourceSpan &at : k->unparsed)
        if (!encloses(l.span, at)) l.unparsed.push_back(at);
  // In source order, so that the first is the one reported.
  for (LoopSite &l : model.loops)
    std::sort(l.unparsed.begin(), l.unparsed.end(),
              [](const SourceSpan &a, const SourceSpan &b) { return a.begin.offset < b.begin.offset; });
}

void attachPragmas(AnalyzedTU &tu) {
  FileModel &model = tu.model();
  llvm::StringRef text = tu.mainFileText();
  for (size_t pi = 0; pi < model.pragmas.size(); ++pi) {
    NpPragma &p = model.pragmas[pi];
    size_t lineEnd = text.find('\n', p.span.begin.offset);
    if (lineEnd == llvm::StringRef::npos) lineEnd = text.size();
    p.span.end = p.span.begin;
    p.span.end.offset = unsigned(lineEnd);
    p.span.end.column = p.span.begin.column + unsigned(lineEnd - p.span.begin.offset);
    LoopSite *best = nullptr;
    for (LoopSite &l : model.loops)
      if (l.span.begin.offset > lineEnd && (!best || l.span.begin.offset < best->span.begin.offset)) best = &l;
    if (!best) continue;
    // Only whitespace and comments may stand between the pragma and the loop.
    llvm::StringRef between = text.slice(lineEnd, best->span.begin.offset);
    bool clean = true;
    for (size_t i = 0; i < between.size(); ++i) {
      char c = between[i];
      if (isspace(static_cast<unsigned char>(c))) continue;
      if (between.substr(i).starts_with("//")) { i = between.find('\n', i); if (i == llvm::StringRef::npos) break; continue; }
      if (between.substr(i).starts_with("/*")) { size_t e = between.find("*/", i + 2); if (e == llvm::StringRef::npos) { clean = false; break; } i = e + 1; continue; }
      clean = false;
      break;
    }
    if (!clean || best->pragma != -1) continue;
    best->pragma = int(pi);
    p.loopId = best->id;
  }
}

const Kernel *FileModel::findKernel(const std::string &name) const {
  for (const auto &k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}
const LoopSite *FileModel::loopAtLine(unsigned line) const {
  const LoopSite *best = nullptr;
  for (const auto &l : loops)
    if (l.span.begin.line == line && (!best || l.depth < best->depth)) best = &l;
  if (!best)
    for (const auto &p : pragmas)
      if (p.span.begin.line == line && p.loopId >= 0) return &loops[size_t(p.loopId)];
  return best;
}
const LaunchSite *FileModel::launchAtLine(unsigned line) const {
  for (const auto &l : launches)
    if (l.span.begin.line <= line && l.span.end.line >= line) return &l;
  return nullptr;
}

const char *spelling(TripCountClass c) {
  switch (c) {
  case TripCountClass::Constant: return "constant";
  case TripCountClass::Uniform: return "uniform";
  case TripCountClass::Irregular: return "irregular";
  case TripCountClass::Unknown: return "unknown";
  }
  return "unknown";
}

} // namespace nestor