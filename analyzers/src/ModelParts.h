// The parts of the model builder that need every function of the file at
// once: facts of each function body (KernelAnalysis.cpp), the kernels, the
// serialisability of each launch's child (LaunchAnalysis.cpp), and the
// pragmas' loops (ModelBuilder.cpp). Internal to analyzers/src.
#pragma once
#include "nestor/Analysis.h"

#include "clang/AST/Decl.h"

#include <map>
#include <set>
#include <vector>

namespace nestor {

/// What a function body contains that decides kernels and launches: CUDA
/// constructs (from StatementEffects), shared and thread-local arrays, the
/// thread ids it reads, and the functions it calls or launches.
struct FunctionFacts {
  std::vector<ConstructUse> barriers, warp, coop, atomics, syncs;
  /// Code clang could not parse: its recovery expressions and invalid
  /// declarations (StatementEffects::unparsed), and every parse error inside
  /// the function (some statements are dropped without a node).
  std::vector<SourceSpan> unparsed;
  std::vector<SharedDecl> shared;
  std::vector<LocalArray> locals;
  bool threadIdx = false, blockDim = false;
  std::set<const clang::FunctionDecl *> callees; ///< canonical declarations of calls and launches
};

/// Facts of the functions of a file, computed once each, also of functions
/// defined in headers (children may live there), and reachability over calls
/// and launches (recursion, constructs that callees contribute).
class FunctionIndex {
public:
  FunctionIndex(clang::ASTContext &ctx, std::map<const clang::FunctionDecl *, const clang::FunctionDecl *> defs,
                const std::vector<ParseDiagnostic> &diagnostics)
      : ctx_(ctx), defOf_(std::move(defs)), diagnostics_(diagnostics) {}
  /// Facts of `fd`'s definition, or null when its body is not visible.
  const FunctionFacts *factsOf(const clang::FunctionDecl *fd);
  /// Adds every function reachable from `fd` to `seen` (canonical decls).
  void reach(const clang::FunctionDecl *fd, std::set<const clang::FunctionDecl *> &seen);

private:
  clang::ASTContext &ctx_;
  std::map<const clang::FunctionDecl *, const clang::FunctionDecl *> defOf_; // canonical -> definition
  std::map<const clang::FunctionDecl *, FunctionFacts> facts_;
  const std::vector<ParseDiagnostic> &diagnostics_;
};

/// Appends the file's `__global__` functions (in `functions`) to the model;
/// `branchingOnGather`: those FunctionScanner::branchesOnGather found so.
void addKernels(AnalyzedTU &tu, const std::vector<const clang::FunctionDecl *> &functions, FunctionIndex &index,
                const std::set<const clang::FunctionDecl *> &branchingOnGather);
/// Who launches what, and whether each child can be serialised (with reasons).
void judgeLaunches(AnalyzedTU &tu, FunctionIndex &index);
/// LaunchSite::childAtLeast / childAtMost from the guards around each device
/// launch (LaunchSizeGuards.cpp).
void boundLaunchSizes(AnalyzedTU &tu);
/// The recursion shape of each recursive kernel (RecursionAnalysis.cpp).
void addRecursion(AnalyzedTU &tu);
/// Attaches each `#pragma np` to the loop that directly follows it.
void attachPragmas(AnalyzedTU &tu);
/// Whether a parse error is code Nestor knows nothing of: every one but the
/// unresolved device-side cudaDeviceSynchronize (StatementEffects::deviceSyncs).
bool isUnknownCode(const ParseDiagnostic &d);
/// Whether `at` begins inside `outer` (same file).
bool encloses(const SourceSpan &outer, const SourceSpan &at);
/// Parse errors inside a loop: unknown code there (LoopSite::unparsed).
void placeParseErrors(FileModel &model);

} // namespace nestor
