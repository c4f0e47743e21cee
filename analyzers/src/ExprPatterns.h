// Small expression patterns of the model builder: which variables an
// expression mentions, whether it loads memory, additive terms, array roots
// and the memory space an access goes to.
#pragma once
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

#include <set>
#include <string>
#include <vector>

namespace nestor {

bool mentionsVar(const clang::Stmt *s, const clang::VarDecl *vd);
bool mentionsAnyVar(const clang::Stmt *s, const std::set<const clang::VarDecl *> &vars);
/// A subscript or a dereference anywhere in `s`.
bool containsLoad(const clang::Stmt *s);
/// `threadIdx.x` (also in its property-getter call form).
bool isThreadIdxX(const clang::Expr *e);
/// The terms of a chain of `+` and `-`.
void additiveTerms(const clang::Expr *e, std::vector<const clang::Expr *> &out);
/// "global", "shared", "constant", "local" or "unknown" for an array base.
std::string memorySpaceOf(const clang::Expr *base);
/// `T &` with T not const: a binding through which the callee may write.
bool isNonConstReference(clang::QualType t);
/// An overloaded operator that may write its first operand: a non-const
/// member (`a += x` on a class), a free operator taking it by non-const
/// reference, or an unresolved one (assume the worst).
bool writesFirstOperand(const clang::CXXOperatorCallExpr *oc);
/// The base of `a[i][j]` and its indices, outermost first.
const clang::Expr *arrayRoot(const clang::ArraySubscriptExpr *as, std::vector<const clang::Expr *> &indices);

} // namespace nestor
