// StmtParents (StmtParents.h): ParentMapContext's traversal, of one function.
#include "StmtParents.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <memory>
#include <mutex>
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

namespace {

/// The StmtParents made for one AST, by function.
struct AstParents {
  explicit AstParents(const ASTContext *ctx) : ctx(ctx) {}
  const ASTContext *ctx;
  std::mutex mu;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<StmtParents>> byFunction;
};

/// Every AST with StmtParents, until its ASTContext is destroyed. Never
/// freed: an ASTContext may be destroyed during static destruction.
struct Registry {
  std::mutex mu;
  llvm::DenseMap<const ASTContext *, AstParents *> asts;
};
Registry &registry() {
  static Registry *r = new Registry;
  return *r;
}

void forgetAst(void *data) {
  auto *ast = static_cast<AstParents *>(data);
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> l(r.mu);
    r.asts.erase(ast->ctx);
  }
  delete ast;
}

} // namespace

const StmtParents &parentsOf(ASTContext &ctx, const FunctionDecl *fn) {
  AstParents *ast;
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> l(r.mu);
    auto [it, fresh] = r.asts.try_emplace(&ctx, nullptr);
    if (fresh) {
      it->second = new AstParents(&ctx);
      ctx.AddDeallocation(forgetAst, it->second);
    }
    ast = it->second;
  }
  std::lock_guard<std::mutex> l(ast->mu);
  std::unique_ptr<StmtParents> &p = ast->byFunction[fn];
  if (!p) p = std::make_unique<StmtParents>(ctx, fn);
  return *p;
}

const Stmt *StmtParents::parentOf(const Stmt *s) const {
  if (auto it = parent_.find(s); it != parent_.end()) return it->second;
  auto parents = ctx_.getParents(*s);
  return parents.empty() ? nullptr : parents[0].get<Stmt>();
}

} // namespace nestor::loops
