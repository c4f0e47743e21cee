// Variance of values across the threads of a block, flow-insensitive with
// control dependence on the conditions entered since a variable's
// declaration: it decides whether a loop's
// trip count is the same for every thread (uniform) or differs (irregular),
// and which conditions single out one thread.
#pragma once
#include "nestor/Model.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

#include <map>
#include <set>
#include <vector>

namespace nestor {

inline Variance join(Variance a, Variance b) { return a > b ? a : b; }

class VarianceAnalysis {
public:
  explicit VarianceAnalysis(clang::ASTContext &ctx) : ctx_(ctx) {}

  /// Iterates the function's assignments to a fixed point.
  void run(const clang::FunctionDecl *fd);
  Variance of(const clang::Expr *e) const;
  /// True when the value comes from memory through a thread-dependent address
  /// somewhere (data-dependent per thread).
  bool isDataDependent(const clang::Expr *e) const;

private:
  bool readsThreadIdx(const clang::FunctionDecl *fd) const;
  /// For a call that names no body (indirect, virtual, dependent).
  bool mayReadThreadIdx(const clang::CallExpr *call) const;
  void assign(const clang::VarDecl *vd, Variance v, const clang::Expr *rhs);
  void walk(const clang::Stmt *s);
  /// Walks `s` inside a region entered under a condition of variance `region`.
  void walkUnder(const clang::Stmt *s, Variance region);
  /// Records how many control regions enclose a local variable's declaration.
  void declare(const clang::VarDecl *vd);
  /// The join of the control regions entered since `vd` was declared (all of
  /// them for parameters, globals and variables not declared here).
  Variance controlSince(const clang::VarDecl *vd) const;

  clang::ASTContext &ctx_;
  std::map<const clang::VarDecl *, Variance> vars_;
  std::set<const clang::VarDecl *> dataVars_;
  /// The variance of each enclosing control region's condition, outermost first.
  std::vector<Variance> control_;
  std::map<const clang::VarDecl *, size_t> declDepth_;
  mutable std::map<const clang::FunctionDecl *, bool> readsThreadIdx_;
  bool changed_ = false;
};

} // namespace nestor
