// Memory dependences of a loop, decided location by location
// (LoopDependence.cpp). Sound by construction: a location the body may write
// is either proven safe for concurrent iterations or reported as a
// loop-carried dependence with the reason and the line.
#pragma once

#include "nestor/Model.h"

#include <set>

namespace clang {
class ASTContext;
class Stmt;
class VarDecl;
} // namespace clang

namespace nestor {

/// Appends to `loop.carriedDependences` every memory location (arrays,
/// pointers, members, globals, calls with effects) that the body of the loop
/// may write and that is not proven to be one of:
///  - a different element in every iteration, touched by no other iteration
///    (an index one-to-one in the induction variable, the same index at every
///    access of that array and of every array it may alias);
///  - updated only by commutative atomics (`atomicAdd`, `atomicMin`, ...);
///  - an idempotent store: every iteration that stores there stores the same
///    loop-invariant value, and the location is read only to decide whether
///    to store it (`if (level[v] == INF) level[v] = l + 1;`).
/// `inner` holds the variables declared inside the loop (private to an
/// iteration), `iv` the induction variable (null when there is none).
/// Also appends the collective operations of the body to `loop.collectives`.
void analyzeMemoryDependences(const clang::Stmt *body, const clang::VarDecl *iv,
                              const std::set<const clang::VarDecl *> &inner, clang::ASTContext &ctx, LoopSite &loop);

} // namespace nestor
