// StmtParents (StmtParents.h): ParentMapContext's traversal, of one function.
#include "StmtParents.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <vector>

namespace nestor::loops {
using namespace clang;

namespace {

/// Records the first parent of every statement the way
/// ParentMapContext::ParentMap::ASTVisitor does (clang/lib/AST/
/// ParentMapContext.cpp): every node it traverses (declarations, type and
/// name locations, attributes, statements) is a parent on the stack; only
/// statements' parents are kept, since only those are asked for.
class ParentRecorder : public RecursiveASTVisitor<ParentRecorder> {
public:
  explicit ParentRecorder(llvm::DenseMap<const Stmt *, const Stmt *> &out) : out_(out) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  bool TraverseDecl(Decl *d) { return d ? nonStatement([&] { return Base::TraverseDecl(d); }) : true; }
  bool TraverseTypeLoc(TypeLoc t, bool traverseQualifier = true) {
    return t ? nonStatement([&] { return Base::TraverseTypeLoc(t, traverseQualifier); }) : true;
  }
  bool TraverseNestedNameSpecifierLoc(NestedNameSpecifierLoc n) {
    return n ? nonStatement([&] { return Base::TraverseNestedNameSpecifierLoc(n); }) : true;
  }
  bool TraverseAttr(Attr *a) { return a ? nonStatement([&] { return Base::TraverseAttr(a); }) : true; }
  bool TraverseObjCProtocolLoc(ObjCProtocolLoc p) { return nonStatement([&] { return Base::TraverseObjCProtocolLoc(p); }); }

  // Statements through the data-recursion hooks, as ParentMapContext does.
  // A default argument or member initialiser is one expression shared by
  // every use; the whole-unit traversal meets it first at its parameter or
  // field (declared before any use), so its first parent is that declaration.
  bool dataTraverseStmtPre(Stmt *s) {
    if (!stack_.empty())
      out_.try_emplace(s, isa_and_nonnull<CXXDefaultArgExpr, CXXDefaultInitExpr>(stack_.back()) ? nullptr : stack_.back());
    stack_.push_back(s);
    return true;
  }
  bool dataTraverseStmtPost(Stmt *) {
    stack_.pop_back();
    return true;
  }

private:
  using Base = RecursiveASTVisitor<ParentRecorder>;
  template <typename F> bool nonStatement(F traverse) {
    stack_.push_back(nullptr);
    bool ok = traverse();
    stack_.pop_back();
    return ok;
  }
  llvm::DenseMap<const Stmt *, const Stmt *> &out_;
  std::vector<const Stmt *> stack_; ///< the nodes being traversed; null: not a statement
};

} // namespace

StmtParents::StmtParents(ASTContext &ctx, const FunctionDecl *fn) : ctx_(ctx) {
  if (fn) ParentRecorder(parent_).TraverseDecl(const_cast<FunctionDecl *>(fn));
}

const Stmt *StmtParents::parentOf(const Stmt *s) const {
  if (auto it = parent_.find(s); it != parent_.end()) return it->second;
  auto parents = ctx_.getParents(*s);
  return parents.empty() ? nullptr : parents[0].get<Stmt>();
}

} // namespace nestor::loops
