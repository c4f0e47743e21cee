// The parent of a statement inside one function, for the rewrites' checks
// that walk from a loop or a launch up to the function's body.
//
// clang's ASTContext::getParents() builds its map of the whole translation
// unit on first use: every declaration of the CUDA and C++ headers is read
// back from the precompiled preamble and traversed, about 100-300 ms on a
// 2-core machine, paid again by every analysis (issue 25: the first code
// action after an analysis). StmtParents traverses one function the same way
// (RecursiveASTVisitor with implicit code and template instantiations, as
// ParentMapContext does), so each statement of that function gets the same
// first parent, for the cost of that function alone. (Checked against
// getParents() on every statement of the functions the rewrites asked about
// in examples/ and tests/: 506,253 statements of 2,643 functions, no
// difference.) Like getParents(), each function's map is built once per AST
// (parentsOf): the hover ranks every rewrite chain at a launch, a few hundred
// prepare() calls on bfs.cu.
#pragma once
#include "llvm/ADT/DenseMap.h"

namespace clang {
class ASTContext;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace nestor::loops {

class StmtParents {
public:
  /// The statements of `fn` (its body, parameters' default arguments and
  /// everything RecursiveASTVisitor reaches from its declaration); null: none.
  StmtParents(clang::ASTContext &ctx, const clang::FunctionDecl *fn);

  /// The first parent of `s`, as ctx.getParents(*s)[0], when that parent is a
  /// statement; null when it is a declaration (the function itself for its
  /// body, a lambda's call operator for the lambda's body, a variable for its
  /// initialiser) or there is none. A statement outside the function (a
  /// caller that named the wrong function) is answered by the context's
  /// whole-unit map: slow, never wrong.
  const clang::Stmt *parentOf(const clang::Stmt *s) const;

private:
  clang::ASTContext &ctx_;
  /// Statement -> first parent (null: a declaration or another non-statement node).
  llvm::DenseMap<const clang::Stmt *, const clang::Stmt *> parent_;
};

/// The StmtParents of `fn` in the AST of `ctx`, made on first use and kept
/// with that AST until its ASTContext is destroyed (ASTContext::
/// AddDeallocation): the only thing that invalidates them, since an analysed
/// AST never changes. Thread-safe.
const StmtParents &parentsOf(clang::ASTContext &ctx, const clang::FunctionDecl *fn);

} // namespace nestor::loops
