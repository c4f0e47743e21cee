// What a statement or expression does: the memory it reads and writes, the
// locals it reads, writes and declares, the calls it makes and what they mean
// (CudaSemantics.h), and the control flow that leaves it. The model builder
// summarises loop bodies and kernels with it; rewrites decide with it which
// statements may run in one thread only, which values are uniform, and what a
// mapped expression may touch. Also the reduction-update pattern both sides
// recognise (`acc += x`, `acc = max(acc, x)`, ...).
#pragma once

#include "nestor/Model.h"

#include "clang/Basic/SourceLocation.h"

#include <functional>
#include <optional>
#include <set>
#include <vector>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
class Stmt;
class VarDecl;
} // namespace clang

namespace nestor {

/// Calls `f` on `s` and every node below it, looking through pseudo-objects
/// (`threadIdx.x`) to their syntactic form.
void forEachNode(const clang::Stmt *s, const std::function<void(const clang::Stmt *)> &f);

/// The variable an expression names (through parentheses and implicit casts).
const clang::VarDecl *referencedVar(const clang::Expr *e);
/// A local variable or parameter (not a global, `__shared__` or static).
bool isLocalVar(const clang::VarDecl *vd);

struct StatementEffects {
  // Memory and calls.
  bool memRead = false;     ///< loads: subscripts, `*p`, `p->f`, references, `__device__` globals
  bool memWrite = false;    ///< stores to anything that is not a local scalar
  bool impureCall = false;  ///< a call that is not pure math (nor a barrier or warp intrinsic)
  bool addrOfLocal = false; ///< `&local`: the local may change behind our back
  bool launch = false;      ///< a `<<<>>>` launch
  bool barrier = false;     ///< a barrier call (CudaSemantics: names and cooperative groups)
  bool warp = false;        ///< a warp-level intrinsic or tile collective
  bool lambda = false;
  // Control flow that leaves the statement.
  bool ret = false;         ///< `return`
  bool jump = false;        ///< `goto`, or `break`/`continue` not bound inside the statement
  /// The first construct that set one of launch/barrier/warp/lambda/ret/jump.
  clang::SourceLocation firstBad;

  std::set<const clang::VarDecl *> reads, writes, declared; ///< locals and parameters
  std::vector<const clang::FunctionDecl *> userCalls;       ///< impure calls of functions with a body
  std::set<const clang::FunctionDecl *> callees;            ///< canonical decls of every direct call and launch
  std::set<std::string> threadIds;                          ///< builtins read: "threadIdx", "blockDim", ...

  // Each use, in source order (spans need the ASTContext given to effectsOf).
  std::vector<std::string> calls;            ///< callee names of every call
  std::vector<ConstructUse> barriers;        ///< named barriers and cooperative-groups waits
  std::vector<ConstructUse> warpOps;         ///< warp intrinsics and tile collectives
  std::vector<ConstructUse> atomics;
  std::vector<ConstructUse> cooperativeGroups; ///< every call into cooperative groups
  std::vector<ConstructUse> deviceSyncs;     ///< cudaDeviceSynchronize, also unresolved (CUDA 12+ headers)
  std::vector<SourceSpan> returns, gotos;
  std::vector<SourceSpan> breaks;            ///< `break` not bound by a loop or switch inside the statement
  /// Code clang could not parse (a RecoveryExpr: an undeclared name, a call
  /// that matches no declaration; a declaration it marked invalid). Nothing
  /// is known of what it reads, writes or synchronises, so it also counts as
  /// an impure call. The unresolved device-side cudaDeviceSynchronize is
  /// not here: it is known (deviceSyncs).
  std::vector<SourceSpan> unparsed;
};

/// The effects of `s` (null: none). `ctx` gives the spans of the uses.
StatementEffects effectsOf(const clang::Stmt *s, const clang::ASTContext &ctx);

/// A statement that folds a value into a variable with an associative
/// operator: `acc OP= x`, `acc = acc OP x`, `acc = x OP acc` (commutative OP),
/// `acc = max(acc, x)` / `min`. `x` does not mention `acc`.
struct ReductionUpdate {
  const clang::VarDecl *var = nullptr;
  ReductionOp op = ReductionOp::Add;
  const clang::Expr *operand = nullptr; ///< x
  /// `acc -= x`, `acc = acc - x`: folds -x (op is Add). A rewrite that
  /// re-emits x must negate it, or refuse.
  bool negated = false;
};
std::optional<ReductionUpdate> reductionUpdate(const clang::Stmt *s);

} // namespace nestor
