// Recursive kernels (irregular-loop-and-recursion-templates.md II-C): the
// shape the rec-hier and rec-flat rewrites take, recognised on the AST.
//
//   __global__ void K(..., T node) {
//     if (blockIdx.x == 0 && threadIdx.x == 0)                 // optional: post-order
//       C<<<1, 1, 0, cudaStreamTailLaunch>>>(..., node);       // combination after the subtree
//     T slot = offsets[node] + blockIdx.x * blockDim.x + threadIdx.x;
//     if (slot < offsets[node + 1]) {       // or: if (slot >= offsets[node + 1]) return;
//       T child = children[slot];
//       ...pre-order statements...
//       if (condition) K<<<grid, block>>>(..., child);  // the condition is optional
//     }
//   }
//
// The per-child part may also be the body of a loop over the children:
// `for (T slot = offsets[node] + blockIdx.x * blockDim.x + threadIdx.x; slot <
// offsets[node + 1]; slot += blockDim.x * gridDim.x)` (grid-stride), or
// `for (T slot = offsets[node]; slot < offsets[node + 1]; ++slot)` in a kernel
// launched <<<1, 1>>> (one thread visits every child in turn), or count the
// children from 0: `for (T c = threadIdx.x; c < offsets[node + 1] -
// offsets[node]; c += blockDim.x)` in one-block grids (or the grid-stride form)
// with `child = children[offsets[node] + c]`, the bounds possibly held in
// locals declared before the loop. The self-launch may also sit inside the
// child's statements, in `if`s that it ends (`if (improved) { ...; if (n)
// K<<<1, n>>>(..., child); }`).
//
// Every other form gets a reason naming the construct and its line. The
// model keeps the plain-data RecursionShape (Model.h); rewrites ask here for
// the AST nodes behind it.
#pragma once
#include "nestor/Model.h"

#include <vector>

namespace clang {
class ASTContext;
class CUDAKernelCallExpr;
class Expr;
class FunctionDecl;
class Stmt;
class VarDecl;
} // namespace clang

namespace nestor {

struct RecursionMatch {
  RecursionShape shape; ///< launch ids are filled in by the model builder only
  const clang::FunctionDecl *kernel = nullptr;
  const clang::VarDecl *node = nullptr, *offsets = nullptr, *children = nullptr;
  const clang::VarDecl *slot = nullptr, *child = nullptr;
  const clang::CUDAKernelCallExpr *selfCall = nullptr;
  const clang::Stmt *selfStmt = nullptr;   ///< the statement holding the self-launch (its `if`, or the launch)
  const clang::Expr *condition = nullptr;  ///< null: always recurses
  std::vector<const clang::Stmt *> pre;    ///< pre-order statements, after the child's declaration
  const clang::CUDAKernelCallExpr *postCall = nullptr; ///< the tail launch, null without one
  const clang::FunctionDecl *postKernel = nullptr;     ///< its kernel's definition
  /// Params of the kernel that the kernel or the post-order kernel writes
  /// through (stores, atomics): the recursion condition must not read them
  /// where it is evaluated ahead of the pre-order statements (rec-hier).
  std::vector<const clang::VarDecl *> writtenParams;
  /// Whether the recursion condition (with the locals it reads) depends only
  /// on the kernel's parameters that nothing writes, and on the child.
  bool conditionOnTreeOnly = false;
  std::string conditionNotOnTree; ///< why not, one line
  /// The children are visited by a loop `for (s = offsets[node]; s < offsets[node + 1]; ++s)`
  /// in the one thread of a <<<1, 1>>> grid (else: one thread per child, or a grid-stride loop).
  bool serialLoop = false;
  /// The loop counts the children from threadIdx.x by blockDim.x in a
  /// one-block grid (Li, Wu and Becchi's recursive BFS): the kernel's
  /// launches must all be <<<1, ...>>>.
  bool oneBlockPerNode = false;
  /// The self-launch sits inside the child's statements (in `if`s, ending
  /// every path that reaches it) rather than as their last statement:
  /// `pre` then holds every statement after the child's declaration, the
  /// launch included, and `condition` is null. rec-flat replays them with
  /// `return true` for the launch; rec-hier refuses.
  bool launchInChildStatements = false;
  /// A pre-order statement reads the slot (`depth[c] = depth[node] + (s -
  /// offsets[node])`: the child's position among its siblings): the
  /// rewrites pass it to the child's statements.
  bool preReadsSlot = false;
  /// The slot counts the children from 0 (`for (c = threadIdx.x; c <
  /// offsets[node + 1] - offsets[node]; c += blockDim.x)`, `child =
  /// children[offsets[node] + c]`), not from offsets[node].
  bool slotRelative = false;
};

/// Matches the recursion of `kernel` (a `__global__` definition that
/// launches itself). Always returns a match; shape.supported says whether it
/// has the supported form, shape.reason why not.
RecursionMatch matchRecursion(const clang::FunctionDecl *kernel, const clang::ASTContext &ctx);

} // namespace nestor
