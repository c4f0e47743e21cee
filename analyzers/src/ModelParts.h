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
  std::vector<SourceSpan> unparsed; ///< code clang could not parse (StatementEffects::unparsed)
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
  FunctionIndex(clang::ASTContext &ctx, std::map<const clang::FunctionDecl *, const clang::FunctionDecl *> defs)
      : ctx_(ctx), defOf_(std::move(defs)) {}
  /// Facts of `fd`'s definition, or null when its body is not visible.
  const FunctionFacts *factsOf(const clang::FunctionDecl *fd);
  /// Adds every function reachable from `fd` to `seen` (canonical decls).
  void reach(const clang::FunctionDecl *fd, std::set<const clang::FunctionDecl *> &seen);

private:
  clang::ASTContext &ctx_;
  std::map<const clang::FunctionDecl *, const clang::FunctionDecl *> defOf_; // canonical -> definition
  std::map<const clang::FunctionDecl *, FunctionFacts> facts_;
};

/// Appends the file's `__global__` functions (in `functions`) to the model;
/// `branchingOnGather`: those FunctionScanner::branchesOnGather found so.
void addKernels(AnalyzedTU &tu, const std::vector<const clang::FunctionDecl *> &functions, FunctionIndex &index,
                const std::set<const clang::FunctionDecl *> &branchingOnGather);
/// Who launches what, and whether each child can be serialised (with reasons).
void judgeLaunches(AnalyzedTU &tu, FunctionIndex &index);
/// The recursion shape of each recursive kernel (RecursionAnalysis.cpp).
void addRecursion(AnalyzedTU &tu);
/// Attaches each `#pragma np` to the loop that directly follows it.
void attachPragmas(AnalyzedTU &tu);
/// Parse errors inside a loop or a launched kernel: unknown code there (a
/// loop's `unparsed`, a launch's child not serialisable).
void placeParseErrors(FileModel &model);

} // namespace nestor
