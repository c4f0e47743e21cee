// Expression and statement patterns of the recursion analysis
// (RecursionAnalysis.cpp): CUDA built-in components, CSR subscripts, the
// first-thread guard, the parameters a body writes through. Internal to
// analyzers/src.
#pragma once
#include "nestor/AstText.h"
#include "nestor/CudaSemantics.h"
#include "nestor/StatementEffects.h"

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

#include <algorithm>
#include <string>
#include <vector>

namespace nestor::recpat {

// The clang names this header uses (no `using namespace` in a header).
using clang::ArraySubscriptExpr;
using clang::BinaryOperator;
using clang::CUDAKernelCallExpr;
using clang::CallExpr;
using clang::CompoundStmt;
using clang::Decl;
using clang::DeclRefExpr;
using clang::Expr;
using clang::FunctionDecl;
using clang::IntegerLiteral;
using clang::MemberExpr;
using clang::ParmVarDecl;
using clang::Stmt;
using clang::UnaryOperator;
using clang::VarDecl;
using llvm::cast;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;
using llvm::isa;

inline std::string lineText(const SourceSpan &s) { return "line " + std::to_string(s.begin.line); }

inline const Expr *bare(const Expr *e) { return e ? e->IgnoreParenImpCasts() : nullptr; }

inline bool isComponent(const Expr *e, llvm::StringRef builtin, char axis = 'x') {
  auto c = cuda::builtinComponent(e);
  return c && c->builtin == builtin && c->axis == axis;
}

inline const VarDecl *varOf(const Expr *e) { return referencedVar(bare(e)); }

/// `a[i]` with a a parameter: the parameter and the index.
inline const ParmVarDecl *subscriptParam(const Expr *e, const Expr **index) {
  auto *as = dyn_cast_or_null<ArraySubscriptExpr>(bare(e));
  if (!as) return nullptr;
  *index = as->getIdx();
  return dyn_cast_or_null<ParmVarDecl>(varOf(as->getBase()));
}

/// blockIdx.x * blockDim.x (either order).
inline bool isBlockOffset(const Expr *e) {
  auto *bo = dyn_cast<BinaryOperator>(bare(e));
  if (!bo || bo->getOpcode() != clang::BO_Mul) return false;
  return (isComponent(bo->getLHS(), "blockIdx") && isComponent(bo->getRHS(), "blockDim")) ||
         (isComponent(bo->getLHS(), "blockDim") && isComponent(bo->getRHS(), "blockIdx"));
}

/// `if (blockIdx.x == 0 && threadIdx.x == 0)` (either order): one thread per grid.
inline bool isFirstThreadOfGrid(const Expr *cond) {
  auto *bo = dyn_cast<BinaryOperator>(bare(cond));
  if (!bo || bo->getOpcode() != clang::BO_LAnd) return false;
  auto zeroTest = [](const Expr *e, llvm::StringRef b) {
    auto *eq = dyn_cast<BinaryOperator>(bare(e));
    if (!eq || eq->getOpcode() != clang::BO_EQ) return false;
    auto *lit = dyn_cast<IntegerLiteral>(bare(eq->getRHS()));
    return lit && lit->getValue() == 0 && isComponent(eq->getLHS(), b);
  };
  return (zeroTest(bo->getLHS(), "blockIdx") && zeroTest(bo->getRHS(), "threadIdx")) ||
         (zeroTest(bo->getLHS(), "threadIdx") && zeroTest(bo->getRHS(), "blockIdx"));
}

/// The only statement of `s` (itself, or the one statement of a `{}`).
inline const Stmt *single(const Stmt *s) {
  while (auto *cs = dyn_cast_or_null<CompoundStmt>(s)) {
    if (cs->size() != 1) return s;
    s = cs->body_front();
  }
  return s;
}

inline std::vector<const Stmt *> statementsOf(const Stmt *s) {
  std::vector<const Stmt *> out;
  if (auto *cs = dyn_cast_or_null<CompoundStmt>(s))
    for (const Stmt *c : cs->body()) out.push_back(c);
  else if (s)
    out.push_back(s);
  return out;
}

inline const CUDAKernelCallExpr *launchIn(const Stmt *s) {
  if (auto *e = dyn_cast_or_null<Expr>(s)) return dyn_cast<CUDAKernelCallExpr>(e->IgnoreParenImpCasts());
  return nullptr;
}

inline const FunctionDecl *calleeDef(const CUDAKernelCallExpr *call) {
  const FunctionDecl *fd = call ? call->getDirectCallee() : nullptr;
  if (!fd) return nullptr;
  const FunctionDecl *def = fd->getDefinition();
  return def ? def : nullptr;
}

/// Parameters a statement writes through: `p[i] = ...`, `*p += ...`,
/// `atomicAdd(&p[i], ...)`, `++p[i]`.
inline void collectWrittenParams(const Stmt *s, std::vector<const VarDecl *> &out) {
  auto baseParam = [](const Expr *lhs) -> const VarDecl * {
    const Expr *b = bare(lhs);
    while (true) {
      if (auto *as = dyn_cast<ArraySubscriptExpr>(b)) b = bare(as->getBase());
      else if (auto *uo = dyn_cast<UnaryOperator>(b); uo && (uo->getOpcode() == clang::UO_Deref || uo->getOpcode() == clang::UO_AddrOf))
        b = bare(uo->getSubExpr());
      else if (auto *me = dyn_cast<MemberExpr>(b)) b = bare(me->getBase());
      else break;
    }
    const VarDecl *vd = referencedVar(b);
    return vd && isa<ParmVarDecl>(vd) ? vd : nullptr;
  };
  forEachNode(s, [&](const Stmt *n) {
    const Expr *target = nullptr;
    if (auto *bo = dyn_cast<BinaryOperator>(n); bo && bo->isAssignmentOp()) target = bo->getLHS();
    else if (auto *uo = dyn_cast<UnaryOperator>(n); uo && uo->isIncrementDecrementOp()) target = uo->getSubExpr();
    else if (auto *call = dyn_cast<CallExpr>(n); call && !isa<CUDAKernelCallExpr>(call) && call->getNumArgs() > 0 &&
                                                   cuda::classifyCall(call).atomic)
      target = call->getArg(0);
    if (!target) return;
    if (!bare(target)->getType()->isPointerType() && isa<DeclRefExpr>(bare(target))) return; // a local or the param itself
    if (const VarDecl *p = baseParam(target))
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  });
}

} // namespace nestor::recpat
