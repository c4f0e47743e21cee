// Helpers shared by the dynamic-parallelism rewrites (threshold, coarsen,
// aggregate): locating a device-side launch statement and the code around it,
// cloning a child kernel's body with the CUDA built-ins (threadIdx, blockIdx,
// blockDim, gridDim) and its `return`s replaced, and the checks all three make
// before they are offered (CDP2 device synchronisation, templates, macros).
#pragma once
#include "nestor/Rewrite.h"
#include "nestor/EditSet.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class Expr;
class Stmt;
class FunctionDecl;
class CUDAKernelCallExpr;
} // namespace clang

namespace nestor::dprw {

/// A device-side launch `child<<<grid, block[, shmem[, stream]]>>>(args);` as a
/// statement of its parent, with the statements that belong to it.
struct LaunchStatement {
  const LaunchSite *site = nullptr;
  const clang::CUDAKernelCallExpr *call = nullptr;
  const clang::FunctionDecl *child = nullptr;  ///< the child's definition
  const clang::FunctionDecl *parent = nullptr; ///< the parent's definition
  std::string gridText, blockText;
  std::string shmemText, streamText; ///< "" when not written
  std::vector<std::string> argTexts;
  unsigned begin = 0, end = 0; ///< the launch statement, `;` included
  /// Launch bookkeeping that follows the launch into the branch that still
  /// launches: a counter `atomicAdd(p, 1)` directly before it and an error
  /// check (`cudaGetLastError`/`cudaPeekAtLastError`) directly after it.
  std::string counterText, errorCheckText;
  unsigned groupBegin = 0, groupEnd = 0; ///< the statement plus its bookkeeping
  std::string indent;                    ///< indentation of the launch line
  /// The grid expression (for the threshold: where the thread count sits).
  const clang::Expr *grid = nullptr;
};

/// Finds the launch statement of target `t` and makes the checks every DP
/// rewrite needs. On failure returns the refusal.
Applicability locateLaunch(const AnalyzedTU &tu, const RewriteTarget &t, LaunchStatement &out);

/// A host-side launch statement of a kernel (for the aggregate rewrite, which
/// resets its pool around the parent's launches).
struct HostLaunch {
  const LaunchSite *site = nullptr;
  unsigned begin = 0, end = 0;
  std::string indent;
  std::string streamText;
};
Applicability hostLaunchesOf(const AnalyzedTU &tu, const std::string &kernel, std::vector<HostLaunch> &out);

/// What the child kernel's body contains that a clone must replace.
struct ChildScan {
  struct Ref {
    unsigned begin, end;
    std::string builtin; ///< threadIdx, blockIdx, blockDim or gridDim
  };
  struct Ret {
    unsigned begin, end; ///< `return ...;`, `;` included
    SourceSpan span;
  };
  std::vector<Ref> refs;
  std::vector<Ret> returns;    ///< not counting those inside lambdas
  bool gridYZ = false;         ///< blockIdx/gridDim .y or .z (or whole) are used
  unsigned bodyBegin = 0, bodyEnd = 0; ///< the body `{ ... }`
  unsigned declEnd = 0;        ///< just after the closing brace of the child
};

/// Scans the child body. Refuses when a built-in is spelt inside a macro or a
/// callee (defined in this file) reads one, since neither can be replaced.
Applicability scanChild(const AnalyzedTU &tu, const clang::FunctionDecl *child, ChildScan &out);

/// The child's body `{ ... }` with each built-in replaced by replace(name)
/// and, when returnText is set, every `return;` replaced by it.
std::string cloneBody(const AnalyzedTU &tu, const ChildScan &scan,
                      const std::function<std::string(const std::string &)> &replace,
                      const std::optional<std::string> &returnText);

/// Parameters of `fd` its body assigns, increments or takes the address of.
/// A clone that runs the body more than once per call (serial loop, coarsening
/// loop) renames them to `_arg_<name>` and gives every iteration a fresh copy.
std::vector<std::string> modifiedParams(const clang::FunctionDecl *fd);

/// The parameter list as declared, without default arguments; those named in
/// `rename` become `_arg_<name>`.
std::vector<std::string> parameterDecls(const AnalyzedTU &tu, const clang::FunctionDecl *fd,
                                        const std::vector<std::string> &rename = {});

/// `auto name = _arg_name;` for each renamed parameter, one line each.
std::string freshCopies(const std::vector<std::string> &renamed, const std::string &indent);

/// Adds `#include <nestor/dp.cuh>` (after the last #include before `before`)
/// unless present, preceded by `#ifndef M / #define M v / #endif` for each
/// define (a default that -D still overrides).
llvm::Error addRuntimeInclude(const AnalyzedTU &tu, EditSet &reps, unsigned before,
                              const std::vector<std::pair<std::string, std::string>> &defines = {});

/// Re-indents a multi-line block: every line after the first gets `prefix`.
std::string indentLines(const std::string &text, const std::string &prefix);

/// Offset just after the last `#include` line before `before`, and whether
/// <nestor/dp.cuh> is already included.
unsigned includeInsertionPoint(llvm::StringRef text, unsigned before);
bool includesDpRuntime(llvm::StringRef text);

/// True when `text` contains `ident` as a whole identifier.
bool mentionsIdentifier(llvm::StringRef text, llvm::StringRef ident);

/// The launch's argument list with an extra argument appended.
std::string joinArgs(const std::vector<std::string> &args, const std::string &extra = "");

/// One line naming a source position, "line L".
std::string lineOf(const SourceSpan &s);

/// Why a parameter of `child` cannot be a field of a record that device code
/// default-constructs (aggregate's and the launch templates' records of a
/// launch's arguments): its class type has no default constructor, a deleted
/// one, or a __host__ one (LonestarGPU's `Graph`, issue #21); "" when every
/// parameter can. Names the parameter, its type and the constructor's line.
std::string recordFieldProblem(const clang::FunctionDecl *child, const clang::ASTContext &ctx);

} // namespace nestor::dprw
