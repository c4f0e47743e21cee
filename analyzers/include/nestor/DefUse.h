// Def-use of a function's locals (issue #21, "match meaning, not spelling").
//
// Real kernels keep what the patterns look for in locals:
//
//   int start = ptr[tid], end = ptr[tid + 1];      // CSR bounds
//   for (int i = start; i < end; ++i) ...
//   dim3 grid((n + 255) / 256);  kernel<<<grid, block>>>(...);
//   const int degree = offsets[v + 1] - offsets[v];  // a child count
//
// A local that only its declaration writes stands for its initialiser, so a
// pattern matches whatever names hold the values. A local written anywhere
// else (assigned, incremented, passed by non-const reference, a non-const
// method called on it, its address taken, captured by reference and written)
// is never seen through: its value at a use is not its initialiser.
//
// The initialiser is what the local held when it was declared; a consumer that
// emits the initialiser's text at another place must check that what it reads
// has not changed in between (pattern matching, the common use, need not).
#pragma once
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace nestor {

/// True when nothing but its declaration writes `vd`, a local variable or a
/// parameter of scalar type (not a reference, array or volatile): its value
/// anywhere in the function is the one it started with. Scans the body of the
/// function that declares it.
bool onlyDeclarationWrites(const clang::VarDecl *vd);

/// The initialiser of `vd` when it is a local variable (automatic storage,
/// not a parameter, not an array or a reference) that nothing but its
/// declaration writes; nullptr otherwise. Scans the body of the function
/// that declares it.
const clang::Expr *singleDefinition(const clang::VarDecl *vd);

/// `e` seen through such locals: while `e`, parentheses and implicit casts
/// aside, names a local with a single definition, its initialiser (at most
/// `maxSteps` steps, so `a = b; b = c` chains are followed). `e` itself when
/// it names no such local.
const clang::Expr *seeThroughLocals(const clang::Expr *e, int maxSteps = 8);

/// The local `e` names (parentheses and implicit casts aside), when it has a
/// single definition; nullptr otherwise.
const clang::VarDecl *singleDefinitionLocal(const clang::Expr *e);

} // namespace nestor
