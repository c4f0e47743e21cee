// AST -> nestor::FileModel. One pass per function in the main file:
//   1. variance: which values differ between the threads of a block;
//   2. loops: induction variable, trip-count class, body summary;
//   3. device-side and host launches, with the child's serialisability;
//   4. kernels, and the pragmas attached to the loops that follow them.
#include "ModelBuilder.h"
#include "AstText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"

#include <functional>
#include <set>

namespace nestor {

using namespace clang;

namespace {

bool isGlobalFn(const FunctionDecl *fd) { return fd && fd->hasAttr<CUDAGlobalAttr>(); }
bool isDeviceFn(const FunctionDecl *fd) {
  return fd && (fd->hasAttr<CUDAGlobalAttr>() || fd->hasAttr<CUDADeviceAttr>());
}

std::string calleeName(const CallExpr *call) {
  if (auto *fd = call->getDirectCallee()) return fd->getNameAsString();
  if (auto *ule = dyn_cast<UnresolvedLookupExpr>(call->getCallee()->IgnoreImplicit()))
    return ule->getName().getAsString();
  if (auto *me = dyn_cast<CXXDependentScopeMemberExpr>(call->getCallee()->IgnoreImplicit()))
    return me->getMember().getAsString();
  return "";
}

bool isBarrierName(llvm::StringRef n) {
  return n == "__syncthreads" || n.starts_with("__syncthreads_") || n == "__barrier_sync" ||
         n == "__syncwarp";
}
bool isWarpIntrinsicName(llvm::StringRef n) {
  return n.starts_with("__shfl") || n.starts_with("__ballot") || n == "__any_sync" ||
         n == "__all_sync" || n == "__uni_sync" || n == "__activemask" || n.starts_with("__match_") ||
         n.starts_with("__reduce_") || n == "__syncwarp" || n == "__any" || n == "__all";
}
bool isAtomicName(llvm::StringRef n) { return n.starts_with("atomic") || n.starts_with("__atomic"); }
bool isThreadVaryingCall(llvm::StringRef n) {
  // Also the Nestor runtime's ids (rewritten code), whose bodies a preamble may skip.
  return isAtomicName(n) || isWarpIntrinsicName(n) || n.starts_with("clock") || n == "__lane_id" ||
         n == "thread_rank" || n == "thread_index" || n == "meta_group_rank" || n.starts_with("curand") ||
         n == "__laneid" || n == "laneid" || n == "slave_id" || n == "master_id" || n == "lane_in_group";
}

bool inCooperativeGroups(const Decl *d) {
  for (const DeclContext *dc = d ? d->getDeclContext() : nullptr; dc; dc = dc->getParent())
    if (auto *ns = dyn_cast<NamespaceDecl>(dc))
      if (ns->getName() == "cooperative_groups") return true;
  return false;
}

const VarDecl *refVar(const Expr *e) {
  if (!e) return nullptr;
  e = e->IgnoreParenImpCasts();
  if (auto *dre = dyn_cast<DeclRefExpr>(e)) return dyn_cast<VarDecl>(dre->getDecl());
  return nullptr;
}

bool isBuiltinVar(const VarDecl *vd, llvm::StringRef name) {
  return vd && vd->getName() == name && !vd->hasLocalStorage();
}

Variance join(Variance a, Variance b) { return a > b ? a : b; }

// ---------------------------------------------------------------------------
// Variance of values across the threads of a block, flow-insensitive with
// control dependence on the enclosing conditions.
class VarianceAnalysis {
public:
  explicit VarianceAnalysis(ASTContext &ctx) : ctx_(ctx) {}

  void run(const FunctionDecl *fd) {
    if (!fd->hasBody()) return;
    for (int pass = 0; pass < 12; ++pass) {
      changed_ = false;
      walk(fd->getBody(), Variance::Constant);
      if (!changed_) break;
    }
  }

  Variance of(const Expr *e) const {
    if (!e) return Variance::Constant;
    e = e->IgnoreParens();
    // threadIdx.x is a property access: look through the pseudo-object.
    if (auto *pse = dyn_cast<PseudoObjectExpr>(e)) return of(pse->getSyntacticForm());
    if (auto *ove = dyn_cast<OpaqueValueExpr>(e)) return of(ove->getSourceExpr());
    if (auto *pr = dyn_cast<MSPropertyRefExpr>(e)) return of(pr->getBaseExpr());
    if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral, CXXBoolLiteralExpr, StringLiteral,
            CXXNullPtrLiteralExpr, SizeOfPackExpr, UnaryExprOrTypeTraitExpr>(e))
      return Variance::Constant;
    if (auto *dre = dyn_cast<DeclRefExpr>(e)) {
      const ValueDecl *d = dre->getDecl();
      if (isa<EnumConstantDecl>(d)) return Variance::Constant;
      if (auto *vd = dyn_cast<VarDecl>(d)) {
        if (isBuiltinVar(vd, "threadIdx")) return Variance::ThreadVarying;
        if (isBuiltinVar(vd, "warpSize")) return Variance::Constant;
        if (isBuiltinVar(vd, "blockIdx") || isBuiltinVar(vd, "blockDim") || isBuiltinVar(vd, "gridDim"))
          return Variance::Uniform;
        if (vd->isConstexpr()) return Variance::Constant;
        if (isa<ParmVarDecl>(vd)) {
          auto it = vars_.find(vd);
          return it == vars_.end() ? Variance::Uniform : join(Variance::Uniform, it->second);
        }
        if (vd->hasLocalStorage() && !vd->hasAttr<CUDASharedAttr>()) {
          auto it = vars_.find(vd);
          return it == vars_.end() ? Variance::Constant : it->second;
        }
        if (vd->getType().isConstQualified() && vd->hasInit() && !vd->hasAttr<CUDASharedAttr>())
          return Variance::Constant;
        return Variance::Uniform; // globals, __shared__, __constant__ scalars
      }
      return Variance::Uniform;
    }
    if (auto *call = dyn_cast<CallExpr>(e)) {
      std::string n = calleeName(call);
      if (isThreadVaryingCall(n)) return Variance::ThreadVarying;
      // A device function that reads threadIdx returns a per-thread value.
      if (const FunctionDecl *fd = call->getDirectCallee(); fd && readsThreadIdx(fd)) return Variance::ThreadVarying;
      Variance v = Variance::Constant;
      if (auto *mc = dyn_cast<CXXMemberCallExpr>(call)) v = join(v, of(mc->getImplicitObjectArgument()));
      for (const Expr *a : call->arguments()) v = join(v, of(a));
      return v;
    }
    Variance v = Variance::Constant;
    for (const Stmt *child : e->children())
      if (auto *ce = dyn_cast_or_null<Expr>(child)) v = join(v, of(ce));
    // A load through a uniform address is uniform; a constant pointer's load is not constant.
    if ((isa<ArraySubscriptExpr>(e) || (isa<UnaryOperator>(e) && cast<UnaryOperator>(e)->getOpcode() == UO_Deref)) &&
        v == Variance::Constant)
      v = Variance::Uniform;
    return v;
  }

  /// True when the value comes from memory through a thread-dependent address
  /// somewhere (data-dependent per thread).
  bool isDataDependent(const Expr *e) const {
    if (!e) return false;
    e = e->IgnoreParenImpCasts();
    if (isa<ArraySubscriptExpr>(e) && of(e) == Variance::ThreadVarying) return true;
    if (auto *dre = dyn_cast<DeclRefExpr>(e))
      if (auto *vd = dyn_cast<VarDecl>(dre->getDecl())) return dataVars_.count(vd) > 0;
    for (const Stmt *c : e->children())
      if (auto *ce = dyn_cast_or_null<Expr>(c))
        if (isDataDependent(ce)) return true;
    return false;
  }

private:
  bool readsThreadIdx(const FunctionDecl *fd) const {
    const FunctionDecl *def = fd->getDefinition();
    if (!def || !def->hasBody()) return false;
    auto [it, inserted] = readsThreadIdx_.try_emplace(def, false);
    if (!inserted) return it->second;
    std::function<bool(const Stmt *)> reads = [&](const Stmt *s) {
      if (!s) return false;
      if (auto *dre = dyn_cast<DeclRefExpr>(s))
        if (auto *vd = dyn_cast<VarDecl>(dre->getDecl()); vd && isBuiltinVar(vd, "threadIdx")) return true;
      for (const Stmt *c : s->children())
        if (reads(c)) return true;
      return false;
    };
    bool r = reads(def->getBody());
    readsThreadIdx_[def] = r;
    return r;
  }

  void assign(const VarDecl *vd, Variance v, const Expr *rhs) {
    if (!vd) return;
    auto [it, inserted] = vars_.try_emplace(vd, v);
    if (!inserted) {
      Variance n = join(it->second, v);
      if (n != it->second) { it->second = n; changed_ = true; }
    } else if (v != Variance::Constant || isa<ParmVarDecl>(vd)) {
      changed_ = true;
    }
    if (rhs && isDataDependent(rhs) && dataVars_.insert(vd).second) changed_ = true;
  }

  void walk(const Stmt *s, Variance ctl) {
    if (!s) return;
    if (auto *ifs = dyn_cast<IfStmt>(s)) {
      if (ifs->getInit()) walk(ifs->getInit(), ctl);
      if (ifs->getConditionVariableDeclStmt()) walk(ifs->getConditionVariableDeclStmt(), ctl);
      walk(ifs->getCond(), ctl);
      Variance c = join(ctl, of(ifs->getCond()));
      walk(ifs->getThen(), c);
      walk(ifs->getElse(), c);
      return;
    }
    if (auto *fs = dyn_cast<ForStmt>(s)) {
      walk(fs->getInit(), ctl);
      Variance c = join(ctl, of(fs->getCond()));
      walk(fs->getCond(), c);
      walk(fs->getInc(), c);
      walk(fs->getBody(), c);
      return;
    }
    if (auto *ws = dyn_cast<WhileStmt>(s)) {
      Variance c = join(ctl, of(ws->getCond()));
      walk(ws->getCond(), c);
      walk(ws->getBody(), c);
      return;
    }
    if (auto *ds = dyn_cast<DoStmt>(s)) {
      Variance c = join(ctl, of(ds->getCond()));
      walk(ds->getBody(), c);
      walk(ds->getCond(), c);
      return;
    }
    if (auto *sw = dyn_cast<SwitchStmt>(s)) {
      walk(sw->getCond(), ctl);
      walk(sw->getBody(), join(ctl, of(sw->getCond())));
      return;
    }
    if (auto *co = dyn_cast<ConditionalOperator>(s)) {
      walk(co->getCond(), ctl);
      Variance c = join(ctl, of(co->getCond()));
      walk(co->getTrueExpr(), c);
      walk(co->getFalseExpr(), c);
      return;
    }
    if (auto *ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl *d : ds->decls())
        if (auto *vd = dyn_cast<VarDecl>(d)) {
          if (vd->hasInit()) {
            walk(vd->getInit(), ctl);
            assign(vd, join(ctl, of(vd->getInit())), vd->getInit());
          } else if (vd->hasLocalStorage()) {
            assign(vd, ctl, nullptr);
          }
        }
      return;
    }
    if (auto *bo = dyn_cast<BinaryOperator>(s)) {
      if (bo->isAssignmentOp()) {
        const Expr *lhs = bo->getLHS()->IgnoreParenImpCasts();
        Variance rv = join(ctl, of(bo->getRHS()));
        if (bo->isCompoundAssignmentOp()) rv = join(rv, of(lhs));
        if (auto *vd = refVar(lhs)) assign(vd, rv, bo->getRHS());
      }
    }
    if (auto *uo = dyn_cast<UnaryOperator>(s)) {
      if (uo->isIncrementDecrementOp())
        if (auto *vd = refVar(uo->getSubExpr())) assign(vd, join(ctl, of(uo->getSubExpr())), nullptr);
      if (uo->getOpcode() == UO_AddrOf)
        if (auto *vd = refVar(uo->getSubExpr())) assign(vd, Variance::ThreadVarying, nullptr); // escapes
    }
    if (auto *oc = dyn_cast<CXXOperatorCallExpr>(s)) {
      if (oc->isAssignmentOp() && oc->getNumArgs() == 2)
        if (auto *vd = refVar(oc->getArg(0))) assign(vd, join(ctl, of(oc->getArg(1))), oc->getArg(1));
    }
    for (const Stmt *c : s->children()) walk(c, ctl);
  }

  ASTContext &ctx_;
  std::map<const VarDecl *, Variance> vars_;
  std::set<const VarDecl *> dataVars_;
  mutable std::map<const FunctionDecl *, bool> readsThreadIdx_;
  bool changed_ = false;
};

// ---------------------------------------------------------------------------
bool mentionsVar(const Stmt *s, const VarDecl *vd) {
  if (!s || !vd) return false;
  if (auto *dre = dyn_cast<DeclRefExpr>(s))
    if (dre->getDecl() == vd) return true;
  for (const Stmt *c : s->children())
    if (mentionsVar(c, vd)) return true;
  return false;
}

bool mentionsAnyVar(const Stmt *s, const std::set<const VarDecl *> &vars) {
  if (!s) return false;
  if (auto *dre = dyn_cast<DeclRefExpr>(s))
    if (auto *vd = dyn_cast<VarDecl>(dre->getDecl()))
      if (vars.count(vd)) return true;
  for (const Stmt *c : s->children())
    if (mentionsAnyVar(c, vars)) return true;
  return false;
}

bool containsLoad(const Stmt *s) {
  if (!s) return false;
  if (isa<ArraySubscriptExpr>(s)) return true;
  if (auto *uo = dyn_cast<UnaryOperator>(s))
    if (uo->getOpcode() == UO_Deref) return true;
  for (const Stmt *c : s->children())
    if (containsLoad(c)) return true;
  return false;
}

bool isThreadIdxX(const Expr *e) {
  e = e->IgnoreParenImpCasts();
  if (auto *pr = dyn_cast<MSPropertyRefExpr>(e)) {
    if (auto *vd = refVar(pr->getBaseExpr()))
      return isBuiltinVar(vd, "threadIdx") && pr->getPropertyDecl()->getName().contains("x");
  }
  if (auto *call = dyn_cast<CallExpr>(e)) { // property getter call form
    if (auto *me = dyn_cast<MemberExpr>(call->getCallee()->IgnoreParenImpCasts()))
      if (auto *vd = refVar(me->getBase()))
        return isBuiltinVar(vd, "threadIdx") && me->getMemberDecl()->getName().contains("x");
  }
  if (auto *pse = dyn_cast<PseudoObjectExpr>(e)) return isThreadIdxX(pse->getSyntacticForm());
  return false;
}

void additiveTerms(const Expr *e, std::vector<const Expr *> &out) {
  e = e->IgnoreParenImpCasts();
  if (auto *bo = dyn_cast<BinaryOperator>(e))
    if (bo->getOpcode() == BO_Add || bo->getOpcode() == BO_Sub) {
      additiveTerms(bo->getLHS(), out);
      additiveTerms(bo->getRHS(), out);
      return;
    }
  out.push_back(e);
}

std::string memorySpaceOf(const Expr *base) {
  const Expr *b = base->IgnoreParenImpCasts();
  while (auto *as = dyn_cast<ArraySubscriptExpr>(b)) b = as->getBase()->IgnoreParenImpCasts();
  if (auto *vd = refVar(b)) {
    if (vd->hasAttr<CUDASharedAttr>()) return "shared";
    if (vd->hasAttr<CUDAConstantAttr>()) return "constant";
    if (vd->getType()->isConstantArrayType() && vd->hasLocalStorage()) return "local";
    if (vd->getType()->isPointerType()) return isa<ParmVarDecl>(vd) ? "global" : "unknown";
    if (vd->hasGlobalStorage()) return "global";
  }
  return "unknown";
}

const Expr *arrayRoot(const ArraySubscriptExpr *as, std::vector<const Expr *> &indices) {
  const Expr *b = as;
  while (auto *a = dyn_cast<ArraySubscriptExpr>(b->IgnoreParenImpCasts())) {
    indices.insert(indices.begin(), a->getIdx());
    b = a->getBase();
  }
  return b->IgnoreParenImpCasts();
}

std::optional<ReductionOp> compoundOp(BinaryOperatorKind k) {
  switch (k) {
  case BO_AddAssign: case BO_SubAssign: return ReductionOp::Add;
  case BO_MulAssign: return ReductionOp::Mul;
  case BO_AndAssign: return ReductionOp::BitAnd;
  case BO_OrAssign: return ReductionOp::BitOr;
  case BO_XorAssign: return ReductionOp::BitXor;
  default: return std::nullopt;
  }
}
std::optional<ReductionOp> binaryOp(BinaryOperatorKind k) {
  switch (k) {
  case BO_Add: case BO_Sub: return ReductionOp::Add;
  case BO_Mul: return ReductionOp::Mul;
  case BO_And: return ReductionOp::BitAnd;
  case BO_Or: return ReductionOp::BitOr;
  case BO_Xor: return ReductionOp::BitXor;
  case BO_LAnd: return ReductionOp::LogicalAnd;
  case BO_LOr: return ReductionOp::LogicalOr;
  default: return std::nullopt;
  }
}

// Is `s` (a statement in the loop) a reduction update of a variable? Returns
// the variable and operator.
std::optional<std::pair<const VarDecl *, ReductionOp>> reductionUpdate(const Stmt *s) {
  auto *e = dyn_cast<Expr>(s);
  if (!e) return std::nullopt;
  e = e->IgnoreParenImpCasts();
  if (auto *cao = dyn_cast<CompoundAssignOperator>(e)) {
    auto *vd = refVar(cao->getLHS());
    auto op = compoundOp(cao->getOpcode());
    if (vd && op && !mentionsVar(cao->getRHS(), vd)) return std::make_pair(vd, *op);
    return std::nullopt;
  }
  auto *bo = dyn_cast<BinaryOperator>(e);
  if (!bo || bo->getOpcode() != BO_Assign) return std::nullopt;
  auto *vd = refVar(bo->getLHS());
  if (!vd) return std::nullopt;
  const Expr *rhs = bo->getRHS()->IgnoreParenImpCasts();
  if (auto *rb = dyn_cast<BinaryOperator>(rhs)) {
    auto op = binaryOp(rb->getOpcode());
    if (!op) return std::nullopt;
    bool lhsIsVar = refVar(rb->getLHS()) == vd, rhsIsVar = refVar(rb->getRHS()) == vd;
    if (lhsIsVar && !mentionsVar(rb->getRHS(), vd)) return std::make_pair(vd, *op);
    if (rhsIsVar && rb->getOpcode() != BO_Sub && !mentionsVar(rb->getLHS(), vd)) return std::make_pair(vd, *op);
    return std::nullopt;
  }
  if (auto *call = dyn_cast<CallExpr>(rhs)) {
    std::string n = calleeName(call);
    std::optional<ReductionOp> op;
    if (n == "max" || n == "fmax" || n == "fmaxf" || n == "__max" || n == "maximum") op = ReductionOp::Max;
    if (n == "min" || n == "fmin" || n == "fminf" || n == "__min" || n == "minimum") op = ReductionOp::Min;
    if (op && call->getNumArgs() == 2) {
      bool a0 = refVar(call->getArg(0)) == vd, a1 = refVar(call->getArg(1)) == vd;
      if (a0 && !mentionsVar(call->getArg(1), vd)) return std::make_pair(vd, *op);
      if (a1 && !mentionsVar(call->getArg(0), vd)) return std::make_pair(vd, *op);
    }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------
class FunctionScanner {
public:
  FunctionScanner(AnalyzedTU &tu, const FunctionDecl *fd, int &nextLoopId, int &nextLaunchId)
      : tu_(tu), ctx_(tu.astContext()), fd_(fd), variance_(ctx_), nextLoopId_(nextLoopId),
        nextLaunchId_(nextLaunchId) {}

  void run() {
    if (isDeviceFn(fd_)) variance_.run(fd_);
    collectThreadLinearVars(fd_->getBody());
    visit(fd_->getBody(), {});
  }

  const VarianceAnalysis &variance() const { return variance_; }

private:
  struct Context {
    std::vector<int> loops;           // enclosing loop ids (innermost last)
    bool inBranch = false;
    bool singleThreadGuard = false;   // under `if (threadIdx.x == 0)` and the like
  };

  bool deviceCode() const { return isDeviceFn(fd_); }

  void collectThreadLinearVars(const Stmt *s) {
    if (!s) return;
    if (auto *ds = dyn_cast<DeclStmt>(s))
      for (const Decl *d : ds->decls())
        if (auto *vd = dyn_cast<VarDecl>(d))
          if (vd->hasInit() && isThreadLinear(vd->getInit())) threadLinear_.insert(vd);
    for (const Stmt *c : s->children()) collectThreadLinearVars(c);
  }

  bool isThreadLinear(const Expr *e) const {
    std::vector<const Expr *> terms;
    additiveTerms(e, terms);
    for (const Expr *t : terms) {
      if (isThreadIdxX(t)) return true;
      if (auto *vd = refVar(t))
        if (threadLinear_.count(vd)) return true;
    }
    return false;
  }

  bool isSingleThreadTest(const Expr *cond) const {
    cond = cond->IgnoreParenImpCasts();
    if (auto *bo = dyn_cast<BinaryOperator>(cond)) {
      if (bo->getOpcode() == BO_LAnd)
        return isSingleThreadTest(bo->getLHS()) || isSingleThreadTest(bo->getRHS());
      if (bo->getOpcode() == BO_EQ) {
        Variance l = variance_.of(bo->getLHS()), r = variance_.of(bo->getRHS());
        return (l == Variance::ThreadVarying) != (r == Variance::ThreadVarying) && isThreadIndexTest(bo);
      }
    }
    if (auto *uo = dyn_cast<UnaryOperator>(cond)) // if (!threadIdx.x)
      if (uo->getOpcode() == UO_LNot) return variance_.of(uo->getSubExpr()) == Variance::ThreadVarying;
    return false;
  }

  // A comparison of thread indices (threadIdx.x == 0, lane != 0), not of data
  // loaded per thread (levels[v] == level), which selects many threads.
  bool isThreadIndexTest(const BinaryOperator *bo) const {
    return !containsLoad(bo) && !variance_.isDataDependent(bo->getLHS()) && !variance_.isDataDependent(bo->getRHS());
  }

  static bool exitsImmediately(const Stmt *s) {
    if (isa_and_nonnull<ReturnStmt>(s)) return true;
    if (auto *cs = dyn_cast_or_null<CompoundStmt>(s)) return cs->size() == 1 && isa<ReturnStmt>(cs->body_front());
    return false;
  }

  // True for conditions that hold for all threads but one: `tid != 0`,
  // `threadIdx.x > 0`, `threadIdx.x` (non-zero), and `||` of those.
  bool isOtherThreadsTest(const Expr *cond) const {
    cond = cond->IgnoreParenImpCasts();
    if (auto *bo = dyn_cast<BinaryOperator>(cond)) {
      if (bo->getOpcode() == BO_LOr) return isOtherThreadsTest(bo->getLHS()) || isOtherThreadsTest(bo->getRHS());
      Variance l = variance_.of(bo->getLHS()), r = variance_.of(bo->getRHS());
      bool oneVarying = (l == Variance::ThreadVarying) != (r == Variance::ThreadVarying) && isThreadIndexTest(bo);
      if (bo->getOpcode() == BO_NE) return oneVarying;
      // `tid > 0` and `tid >= 1`, not bounds guards like `tid >= n`.
      Expr::EvalResult v;
      bool rhsConst = !bo->getRHS()->isValueDependent() && bo->getRHS()->EvaluateAsInt(v, ctx_);
      if (bo->getOpcode() == BO_GT) return l == Variance::ThreadVarying && rhsConst && v.Val.getInt() == 0;
      if (bo->getOpcode() == BO_GE) return l == Variance::ThreadVarying && rhsConst && v.Val.getInt() == 1;
      return false;
    }
    return variance_.of(cond) == Variance::ThreadVarying && !isa<CallExpr>(cond);
  }

  void visit(const Stmt *s, Context ctx) {
    if (!s) return;
    if (auto *ifs = dyn_cast<IfStmt>(s)) {
      visit(ifs->getInit(), ctx);
      visit(ifs->getCond(), ctx);
      Context inner = ctx;
      inner.inBranch = true;
      Context thenCtx = inner;
      if (deviceCode() && isSingleThreadTest(ifs->getCond())) thenCtx.singleThreadGuard = true;
      visit(ifs->getThen(), thenCtx);
      visit(ifs->getElse(), inner);
      return;
    }
    if (auto *cs = dyn_cast<CompoundStmt>(s); cs && deviceCode()) {
      // `if (threadIdx.x != 0) return;` restricts the rest of the block to one
      // thread, like an enclosing `if (threadIdx.x == 0)`.
      Context inner = ctx;
      for (const Stmt *c : cs->body()) {
        visit(c, inner);
        if (auto *ifs = dyn_cast<IfStmt>(c); ifs && !ifs->getElse() && exitsImmediately(ifs->getThen()) &&
                                             isOtherThreadsTest(ifs->getCond()))
          inner.singleThreadGuard = true;
      }
      return;
    }
    if (isa<SwitchStmt, ConditionalOperator>(s)) {
      Context inner = ctx;
      inner.inBranch = true;
      for (const Stmt *c : s->children()) visit(c, inner);
      return;
    }
    if (isa<ForStmt, WhileStmt, DoStmt>(s) && deviceCode()) {
      int id = analyzeLoop(s, ctx);
      Context inner = ctx;
      inner.loops.push_back(id);
      for (const Stmt *c : s->children()) visit(c, inner);
      return;
    }
    if (auto *kc = dyn_cast<CUDAKernelCallExpr>(s)) {
      analyzeLaunch(kc, ctx);
      // fall through: arguments may contain more launches (they cannot), keep walking
    }
    for (const Stmt *c : s->children()) visit(c, ctx);
  }

  // ---- loops --------------------------------------------------------------
  int analyzeLoop(const Stmt *s, const Context &ctx) {
    LoopSite loop;
    loop.id = nextLoopId_++;
    loop.function = fd_->getNameAsString();
    loop.inKernel = isGlobalFn(fd_);
    loop.inDeviceCode = true;
    loop.span = spanOf(s, ctx_);
    loop.depth = unsigned(ctx.loops.size());
    loop.parentLoop = ctx.loops.empty() ? -1 : ctx.loops.back();
    const Stmt *body = nullptr;
    const VarDecl *iv = nullptr;
    if (auto *fs = dyn_cast<ForStmt>(s)) {
      loop.kind = "for";
      body = fs->getBody();
      loop.headerSpan = spanOf(SourceRange(fs->getForLoc(), fs->getRParenLoc()), ctx_);
      loop.init = textOf(fs->getInit(), ctx_);
      if (!loop.init.empty() && loop.init.back() == ';') loop.init.pop_back();
      loop.condition = textOf(fs->getCond(), ctx_);
      loop.step = textOf(fs->getInc(), ctx_);
      iv = canonicalFor(fs, loop);
    } else if (auto *ws = dyn_cast<WhileStmt>(s)) {
      loop.kind = "while";
      body = ws->getBody();
      loop.condition = textOf(ws->getCond(), ctx_);
      loop.headerSpan = spanOf(SourceRange(ws->getWhileLoc(), ws->getRParenLoc()), ctx_);
    } else if (auto *ds = dyn_cast<DoStmt>(s)) {
      loop.kind = "do";
      body = ds->getBody();
      loop.condition = textOf(ds->getCond(), ctx_);
      loop.headerSpan = spanOf(SourceRange(ds->getDoLoc(), ds->getDoLoc()), ctx_);
    }
    loop.bodySpan = spanOf(body, ctx_);
    summarizeBody(s, body, iv, loop);
    tu_.loopNodes[loop.id] = s;
    tu_.model().loops.push_back(std::move(loop));
    return tu_.model().loops.back().id;
  }

  const VarDecl *canonicalFor(const ForStmt *fs, LoopSite &loop) {
    const VarDecl *iv = nullptr;
    const Expr *lower = nullptr;
    if (auto *ds = dyn_cast_or_null<DeclStmt>(fs->getInit())) {
      if (ds->isSingleDecl())
        if (auto *vd = dyn_cast<VarDecl>(ds->getSingleDecl()))
          if (vd->hasInit()) { iv = vd; lower = vd->getInit(); }
    } else if (auto *bo = dyn_cast_or_null<BinaryOperator>(fs->getInit())) {
      if (bo->getOpcode() == BO_Assign) { iv = refVar(bo->getLHS()); lower = bo->getRHS(); }
    }
    if (!iv || !iv->getType()->isIntegerType()) return nullptr;
    auto *cond = dyn_cast_or_null<BinaryOperator>(fs->getCond() ? fs->getCond()->IgnoreParenImpCasts() : nullptr);
    if (!cond) return nullptr;
    const Expr *upper = nullptr;
    bool ivLeft = refVar(cond->getLHS()) == iv, ivRight = refVar(cond->getRHS()) == iv;
    BinaryOperatorKind op = cond->getOpcode();
    if (ivLeft && (op == BO_LT || op == BO_LE || op == BO_NE || op == BO_GT || op == BO_GE)) upper = cond->getRHS();
    else if (ivRight && (op == BO_GT || op == BO_GE || op == BO_NE || op == BO_LT || op == BO_LE)) upper = cond->getLHS();
    if (!upper || mentionsVar(upper, iv)) return nullptr;
    // Step: ++i, i++, i += c, i = i + c (and decrements).
    const Expr *inc = fs->getInc() ? fs->getInc()->IgnoreParenImpCasts() : nullptr;
    const Expr *stepExpr = nullptr;
    bool decrement = false;
    std::string stepText;
    if (auto *uo = dyn_cast_or_null<UnaryOperator>(inc)) {
      if (!uo->isIncrementDecrementOp() || refVar(uo->getSubExpr()) != iv) return nullptr;
      decrement = uo->isDecrementOp();
      stepText = "1";
    } else if (auto *cao = dyn_cast_or_null<CompoundAssignOperator>(inc)) {
      if (refVar(cao->getLHS()) != iv) return nullptr;
      if (cao->getOpcode() != BO_AddAssign && cao->getOpcode() != BO_SubAssign) return nullptr;
      decrement = cao->getOpcode() == BO_SubAssign;
      stepExpr = cao->getRHS();
    } else if (auto *bo = dyn_cast_or_null<BinaryOperator>(inc)) {
      if (bo->getOpcode() != BO_Assign || refVar(bo->getLHS()) != iv) return nullptr;
      auto *rb = dyn_cast<BinaryOperator>(bo->getRHS()->IgnoreParenImpCasts());
      if (!rb || (rb->getOpcode() != BO_Add && rb->getOpcode() != BO_Sub) || refVar(rb->getLHS()) != iv) return nullptr;
      decrement = rb->getOpcode() == BO_Sub;
      stepExpr = rb->getRHS();
    } else {
      return nullptr;
    }
    if (stepExpr) {
      if (mentionsVar(stepExpr, iv)) return nullptr;
      stepText = textOf(stepExpr, ctx_);
    }
    if (decrement) stepText = "-" + stepText;
    loop.inductionVar = iv->getNameAsString();
    loop.inductionType = iv->getType().getAsString();
    loop.lowerBound = textOf(lower, ctx_);
    loop.upperBound = textOf(upper, ctx_);
    loop.stepAmount = stepText;
    loop.upperInclusive = (op == BO_LE && ivLeft) || (op == BO_GE && ivRight);

    Variance v = join(join(variance_.of(lower), variance_.of(upper)), stepExpr ? variance_.of(stepExpr) : Variance::Constant);
    Expr::EvalResult lo, hi, st;
    int64_t stepValue = decrement ? -1 : 1;
    bool stepConst = true;
    if (stepExpr) {
      if (!stepExpr->isValueDependent() && stepExpr->EvaluateAsInt(st, ctx_))
        stepValue = decrement ? -st.Val.getInt().getExtValue() : st.Val.getInt().getExtValue();
      else stepConst = false;
    }
    if (stepConst && !lower->isValueDependent() && !upper->isValueDependent() &&
        lower->EvaluateAsInt(lo, ctx_) && upper->EvaluateAsInt(hi, ctx_) && stepValue != 0) {
      loop.tripCount = TripCountClass::Constant;
      int64_t l = lo.Val.getInt().getExtValue(), h = hi.Val.getInt().getExtValue();
      if (loop.upperInclusive) h += stepValue > 0 ? 1 : -1;
      int64_t n = stepValue > 0 ? (h > l ? (h - l + stepValue - 1) / stepValue : 0)
                                : (l > h ? (l - h + (-stepValue) - 1) / (-stepValue) : 0);
      loop.constantTripCount = n;
    } else if (v == Variance::ThreadVarying) {
      loop.tripCount = TripCountClass::Irregular;
    } else {
      loop.tripCount = TripCountClass::Uniform;
    }
    // Grid-stride / block-stride loops: start at a thread id, step by a block or grid size.
    // (a warp-stride loop `for (c = lane; c < n; c += 32)` is one too).
    bool strideStep = stepExpr && (variance_.of(stepExpr) == Variance::Uniform ||
                                   (variance_.of(stepExpr) == Variance::Constant && (stepValue > 1 || stepValue < -1)));
    if (variance_.of(lower) == Variance::ThreadVarying && variance_.of(upper) != Variance::ThreadVarying &&
        strideStep && !variance_.isDataDependent(lower)) {
      loop.gridStride = true;
      loop.tripCount = TripCountClass::Uniform; // differs by at most one between threads
    }
    return iv;
  }

  void summarizeBody(const Stmt *loopStmt, const Stmt *body, const VarDecl *iv, LoopSite &loop) {
    if (!body) return;
    // Variables declared inside the loop (private to an iteration) and those
    // derived from the induction variable.
    std::set<const VarDecl *> inner, derived;
    if (iv) derived.insert(iv);
    std::function<void(const Stmt *)> collectDecls = [&](const Stmt *s) {
      if (!s) return;
      if (auto *ds = dyn_cast<DeclStmt>(s))
        for (const Decl *d : ds->decls())
          if (auto *vd = dyn_cast<VarDecl>(d)) {
            inner.insert(vd);
            if (vd->hasInit() && mentionsAnyVar(vd->getInit(), derived)) derived.insert(vd);
          }
      for (const Stmt *c : s->children()) collectDecls(c);
    };
    collectDecls(body);
    if (auto *fs = dyn_cast<ForStmt>(loopStmt))
      if (auto *ds = dyn_cast_or_null<DeclStmt>(fs->getInit()))
        for (const Decl *d : ds->decls())
          if (auto *vd = dyn_cast<VarDecl>(d)) inner.insert(vd);

    // Walk the body in source order, tracking reads and writes of outer scalars.
    struct VarUse {
      bool written = false, read = false, firstIsPlainWrite = false, seen = false;
      bool onlyReductionUpdates = true;
      std::optional<ReductionOp> op;
      bool opConsistent = true;
      SourceSpan firstSpan;
      std::vector<SourceSpan> updates;
      bool readOutsideUpdate = false;
      bool storedToArray = false; // scan candidate: out[i] = s
    };
    std::map<const VarDecl *, VarUse> uses;
    std::vector<const VarDecl *> order;
    std::set<const VarDecl *> liveIn, localArrays;

    auto outerScalar = [&](const VarDecl *vd) {
      return vd && vd->hasLocalStorage() && !inner.count(vd) && vd != iv && !vd->getType()->isArrayType() &&
             !vd->hasAttr<CUDASharedAttr>();
    };
    auto noteUse = [&](const VarDecl *vd) -> VarUse & {
      auto &u = uses[vd];
      if (!u.seen) { u.seen = true; order.push_back(vd); }
      return u;
    };

    const VarDecl *updatingVar = nullptr; // the reduction variable whose update is being walked
    std::function<void(const Stmt *, int, bool, bool)> walk;
    // depthInLoops: nested loops inside this one (for break binding)
    // conditional: under a branch inside the body
    walk = [&](const Stmt *s, int nestedLoops, bool conditional, bool inSwitch) {
      if (!s) return;
      if (auto red = reductionUpdate(s)) {
        const VarDecl *vd = red->first;
        if (outerScalar(vd)) {
          VarUse &u = noteUse(vd);
          u.written = true;
          if (u.op && *u.op != red->second) u.opConsistent = false;
          u.op = red->second;
          u.updates.push_back(spanOf(s, ctx_));
          if (!u.firstSpan.valid()) u.firstSpan = spanOf(s, ctx_);
          // The right-hand side may still read other things; its own mention
          // of the variable is part of the update.
          const Expr *e = cast<Expr>(s)->IgnoreParenImpCasts();
          if (auto *bo = dyn_cast<BinaryOperator>(e)) {
            const VarDecl *saved = updatingVar;
            updatingVar = vd;
            walk(bo->getRHS(), nestedLoops, conditional, inSwitch);
            updatingVar = saved;
          }
          return;
        }
      }
      if (auto *bo = dyn_cast<BinaryOperator>(s)) {
        if (bo->isAssignmentOp()) {
          const Expr *lhs = bo->getLHS()->IgnoreParenImpCasts();
          if (auto *vd = refVar(lhs); outerScalar(vd)) {
            // Evaluate the RHS first: `x = x + 1` reads before it writes.
            walk(bo->getRHS(), nestedLoops, conditional, inSwitch);
            VarUse &u = noteUse(vd);
            if (!u.read && !u.written && bo->getOpcode() == BO_Assign && !conditional && nestedLoops == 0)
              u.firstIsPlainWrite = true;
            if (bo->isCompoundAssignmentOp()) u.read = true;
            u.written = true;
            u.onlyReductionUpdates = false;
            if (!u.firstSpan.valid()) u.firstSpan = spanOf(s, ctx_);
            return;
          }
          if (auto *as = dyn_cast<ArraySubscriptExpr>(lhs)) {
            recordAccess(as, true, derived, loop);
            if (bo->isCompoundAssignmentOp()) recordAccess(as, false, derived, loop);
            // Scan candidate: out[i] = s, after the update (inclusive) or
            // before it (exclusive order).
            if (auto *rv = refVar(bo->getRHS()); rv && outerScalar(rv)) noteUse(rv).storedToArray = true;
            walkIndices(as, nestedLoops, conditional, inSwitch, walk);
            walk(bo->getRHS(), nestedLoops, conditional, inSwitch);
            return;
          }
        }
      }
      if (auto *uo = dyn_cast<UnaryOperator>(s)) {
        if (uo->isIncrementDecrementOp()) {
          if (auto *vd = refVar(uo->getSubExpr()); outerScalar(vd)) {
            VarUse &u = noteUse(vd);
            // `count++` is a + reduction when nothing else reads count.
            if (u.op && *u.op != ReductionOp::Add) u.opConsistent = false;
            u.op = ReductionOp::Add;
            u.written = true;
            u.updates.push_back(spanOf(s, ctx_));
            if (!u.firstSpan.valid()) u.firstSpan = spanOf(s, ctx_);
            return;
          }
          if (auto *as = dyn_cast<ArraySubscriptExpr>(uo->getSubExpr()->IgnoreParenImpCasts())) {
            recordAccess(as, true, derived, loop);
            recordAccess(as, false, derived, loop);
            walkIndices(as, nestedLoops, conditional, inSwitch, walk);
            return;
          }
        }
      }
      if (auto *as = dyn_cast<ArraySubscriptExpr>(s)) {
        recordAccess(as, false, derived, loop);
        walkIndices(as, nestedLoops, conditional, inSwitch, walk);
        return;
      }
      if (auto *dre = dyn_cast<DeclRefExpr>(s)) {
        if (auto *vd = dyn_cast<VarDecl>(dre->getDecl())) {
          if (outerScalar(vd) && vd != updatingVar) {
            VarUse &u = noteUse(vd);
            u.read = true;
            u.readOutsideUpdate = true;
            if (!u.written) liveIn.insert(vd);
            if (!u.firstSpan.valid()) u.firstSpan = spanOf(s, ctx_);
          }
          if (vd->hasLocalStorage() && vd->getType()->isConstantArrayType() && !vd->hasAttr<CUDASharedAttr>() &&
              !inner.count(vd))
            localArrays.insert(vd);
        }
        return;
      }
      if (auto *call = dyn_cast<CallExpr>(s)) {
        std::string n = calleeName(call);
        if (!n.empty()) loop.calls.push_back(n);
        if (isBarrierName(n)) loop.barriers.push_back(spanOf(s, ctx_));
        if (isWarpIntrinsicName(n)) loop.hasWarpIntrinsics = true;
        if (isAtomicName(n)) loop.atomics.push_back(spanOf(s, ctx_));
        if (isa<CUDAKernelCallExpr>(call)) loop.hasDeviceLaunch = true;
        if (auto *fd = call->getDirectCallee(); fd && inCooperativeGroups(fd) && n == "sync")
          loop.barriers.push_back(spanOf(s, ctx_));
      }
      if (isa<BreakStmt>(s) && nestedLoops == 0 && !inSwitch) loop.breaks.push_back(spanOf(s, ctx_));
      if (isa<ReturnStmt>(s)) loop.returns.push_back(spanOf(s, ctx_));
      if (isa<GotoStmt, IndirectGotoStmt>(s)) loop.gotos.push_back(spanOf(s, ctx_));
      bool isLoop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(s);
      bool isCond = isa<IfStmt, SwitchStmt, ConditionalOperator, BinaryConditionalOperator>(s) ||
                    (isa<BinaryOperator>(s) && cast<BinaryOperator>(s)->isLogicalOp());
      bool sw = isa<SwitchStmt>(s);
      for (const Stmt *c : s->children())
        walk(c, nestedLoops + (isLoop ? 1 : 0), conditional || isCond || isLoop, (inSwitch || sw) && !isLoop);
    };
    walk(body, 0, false, false);

    // Classify the outer scalars the body touched.
    for (const VarDecl *vd : order) {
      const VarUse &u = uses[vd];
      std::string name = vd->getNameAsString();
      if (!u.written) continue;
      bool pureReduction = u.op && u.opConsistent && !u.readOutsideUpdate;
      if (pureReduction) {
        loop.reductions.push_back({*u.op, name, u.updates.front()});
        continue;
      }
      if (u.op && u.opConsistent && u.storedToArray && u.updates.size() >= 1) {
        loop.scans.push_back({*u.op, name, u.updates.front()});
        continue;
      }
      if (u.firstIsPlainWrite) {
        loop.privatized.push_back(name);
        continue;
      }
      std::string reason = u.op ? "'" + name + "' is updated across iterations and also read inside the loop"
                                : "'" + name + "' is written in one iteration and read in a later one";
      loop.carriedDependences.push_back({name, reason, u.firstSpan});
    }
    for (const VarDecl *vd : order)
      if (liveIn.count(vd)) loop.liveIns.push_back(vd->getNameAsString());
    for (const VarDecl *vd : localArrays) loop.localArrays.push_back(vd->getNameAsString());

    // Array dependences: a written element that another iteration reads or writes.
    for (const ArrayAccess &w : loop.accesses) {
      if (!w.isWrite) continue;
      bool carried = false;
      std::string reason;
      if (!w.dependsOnInduction && w.memorySpace != "local") {
        // Same element every iteration (unless thread-private local memory).
        bool alsoRead = false;
        for (const ArrayAccess &r : loop.accesses)
          if (!r.isWrite && r.array == w.array && r.index == w.index) alsoRead = true;
        if (alsoRead) {
          carried = true;
          reason = "every iteration reads and writes " + w.array + "[" + w.index + "]";
        } else {
          carried = true;
          reason = "every iteration writes " + w.array + "[" + w.index + "] (the last iteration's value wins)";
        }
      }
      for (const ArrayAccess &r : loop.accesses) {
        if (carried) break;
        if (r.isWrite || r.array != w.array || r.index == w.index) continue;
        if (r.dependsOnInduction || w.dependsOnInduction) {
          carried = true;
          reason = "reads " + r.array + "[" + r.index + "] while writing " + w.array + "[" + w.index +
                   "] in another iteration";
        }
      }
      if (carried) {
        bool dup = false;
        for (auto &d : loop.carriedDependences) dup |= d.var == w.array;
        if (!dup) loop.carriedDependences.push_back({w.array, reason, w.span});
      }
    }
  }

  template <class Walk>
  void walkIndices(const ArraySubscriptExpr *as, int nested, bool cond, bool sw, Walk &walk) {
    const Expr *b = as;
    while (auto *a = dyn_cast<ArraySubscriptExpr>(b->IgnoreParenImpCasts())) {
      walk(a->getIdx(), nested, cond, sw);
      b = a->getBase();
    }
    walk(b, nested, cond, sw);
  }

  void recordAccess(const ArraySubscriptExpr *as, bool isWrite, const std::set<const VarDecl *> &derived,
                    LoopSite &loop) {
    std::vector<const Expr *> indices;
    const Expr *root = arrayRoot(as, indices);
    ArrayAccess a;
    a.array = textOf(root, ctx_);
    a.isWrite = isWrite;
    a.memorySpace = memorySpaceOf(root);
    a.span = spanOf(as, ctx_);
    for (size_t i = 0; i < indices.size(); ++i) {
      const Expr *idx = indices[i];
      a.index += (i ? "][" : "") + textOf(idx, ctx_);
      a.dependsOnThread |= variance_.of(idx) == Variance::ThreadVarying;
      a.dependsOnInduction |= mentionsAnyVar(idx, derived);
      a.indirect |= containsLoad(idx);
    }
    if (!indices.empty()) a.threadContiguous = isThreadLinear(indices.back());
    // One entry per (array, index, direction).
    for (const auto &e : loop.accesses)
      if (e.array == a.array && e.index == a.index && e.isWrite == a.isWrite) return;
    loop.accesses.push_back(std::move(a));
  }

  // ---- launches -----------------------------------------------------------
  void analyzeLaunch(const CUDAKernelCallExpr *kc, const Context &ctx) {
    LaunchSite l;
    l.id = nextLaunchId_++;
    l.span = spanOf(kc, ctx_);
    l.deviceSide = deviceCode();
    l.parent = fd_->getNameAsString();
    const FunctionDecl *child = kc->getDirectCallee();
    if (!child)
      if (auto *dre = dyn_cast<DeclRefExpr>(kc->getCallee()->IgnoreParenImpCasts()))
        child = dyn_cast<FunctionDecl>(dre->getDecl());
    l.child = child ? child->getNameAsString() : textOf(kc->getCallee(), ctx_);
    const CallExpr *cfg = kc->getConfig();
    // Host launches configure through __cudaPushCallConfiguration(grid, block,
    // shmem, stream); device-side ones through cudaLaunchDevice(buf, fn, grid,
    // block, shmem, stream).
    unsigned first = cfg && calleeName(cfg) == "cudaLaunchDevice" ? 2 : 0;
    auto cfgArg = [&](unsigned i) -> const Expr * {
      i += first;
      if (!cfg || i >= cfg->getNumArgs() || isa<CXXDefaultArgExpr>(cfg->getArg(i))) return nullptr;
      // Arguments clang supplies itself for device-side launches (shared
      // memory, stream) sit at the `<<<` token: they were not written.
      const Expr *a = cfg->getArg(i);
      if (first && a->getBeginLoc() == cfg->getBeginLoc()) return nullptr;
      return a;
    };
    const Expr *grid = cfgArg(0), *block = cfgArg(1), *shm = cfgArg(2), *stream = cfgArg(3);
    l.grid = grid ? textOf(stripConversions(grid), ctx_) : "";
    l.block = block ? textOf(stripConversions(block), ctx_) : "";
    l.sharedMem = shm ? textOf(stripConversions(shm), ctx_) : "";
    l.stream = stream ? textOf(stripConversions(stream), ctx_) : "";
    if (grid) l.gridSpan = spanOf(stripConversions(grid), ctx_);
    if (block) l.blockSpan = spanOf(stripConversions(block), ctx_);
    if (cfg) l.configSpan = spanOf(SourceRange(cfg->getBeginLoc(), cfg->getEndLoc()), ctx_);
    for (const Expr *a : kc->arguments()) l.args.push_back(textOf(a, ctx_));
    std::string how;
    l.threads = inferChildThreads(grid, block, ctx_, how);
    l.threadsHow = how;
    l.enclosingLoops = ctx.loops;
    l.inBranch = ctx.inBranch;
    l.everyThreadMayLaunch = l.deviceSide && !ctx.singleThreadGuard;
    tu_.launchNodes[l.id] = kc;
    tu_.model().launches.push_back(std::move(l));
  }

  AnalyzedTU &tu_;
  ASTContext &ctx_;
  const FunctionDecl *fd_;
  VarianceAnalysis variance_;
  std::set<const VarDecl *> threadLinear_;
  int &nextLoopId_;
  int &nextLaunchId_;
};

// ---------------------------------------------------------------------------
// Kernel-level facts: shared memory, local arrays, barriers, intrinsics...
struct KernelFacts {
  std::vector<ConstructUse> barriers, warp, coop, atomics, syncs;
  std::vector<SharedDecl> shared;
  std::vector<LocalArray> locals;
  bool threadIdx = false, blockDim = false;
  std::set<const FunctionDecl *> callees; // calls and launches
};

void collectFacts(const Stmt *s, ASTContext &ctx, KernelFacts &f) {
  if (!s) return;
  if (auto *call = dyn_cast<CallExpr>(s)) {
    std::string n = calleeName(call);
    ConstructUse u{n, spanOf(s, ctx)};
    if (isBarrierName(n)) f.barriers.push_back(u);
    if (isWarpIntrinsicName(n) && n != "__syncwarp") f.warp.push_back(u);
    if (n == "__syncwarp") { f.warp.push_back(u); }
    if (isAtomicName(n)) f.atomics.push_back(u);
    if (n == "cudaDeviceSynchronize") f.syncs.push_back(u);
    if (auto *fd = call->getDirectCallee()) {
      if (inCooperativeGroups(fd)) f.coop.push_back({"cooperative_groups::" + n, u.span});
      f.callees.insert(fd->getCanonicalDecl());
    }
  }
  // CUDA 12+ headers no longer declare the device-side cudaDeviceSynchronize,
  // so clang keeps such a call only as a RecoveryExpr around the callee name.
  if (auto *re = dyn_cast<RecoveryExpr>(s)) {
    for (const Expr *sub : re->subExpressions()) {
      const Expr *callee = sub ? sub->IgnoreParenImpCasts() : nullptr;
      std::string name;
      if (auto *ule = dyn_cast_or_null<UnresolvedLookupExpr>(callee)) name = ule->getName().getAsString();
      if (auto *dre = dyn_cast_or_null<DeclRefExpr>(callee)) name = dre->getNameInfo().getAsString();
      if (name == "cudaDeviceSynchronize") {
        f.syncs.push_back({name, spanOf(s, ctx)});
        break;
      }
    }
  }
  if (auto *dre = dyn_cast<DeclRefExpr>(s)) {
    if (auto *vd = dyn_cast<VarDecl>(dre->getDecl())) {
      if (isBuiltinVar(vd, "threadIdx")) f.threadIdx = true;
      if (isBuiltinVar(vd, "blockDim")) f.blockDim = true;
    }
  }
  if (auto *ds = dyn_cast<DeclStmt>(s)) {
    for (const Decl *d : ds->decls()) {
      auto *vd = dyn_cast<VarDecl>(d);
      if (!vd) continue;
      if (vd->hasAttr<CUDASharedAttr>()) {
        SharedDecl sd;
        sd.name = vd->getNameAsString();
        sd.type = vd->getType().getAsString();
        sd.isExtern = vd->hasExternalStorage() || vd->getType()->isIncompleteArrayType();
        if (!sd.isExtern && !vd->getType()->isDependentType() && vd->getType()->isConstantSizeType())
          sd.sizeBytes = uint64_t(ctx.getTypeSizeInChars(vd->getType()).getQuantity());
        sd.span = spanOf(vd->getSourceRange(), ctx);
        f.shared.push_back(sd);
      } else if (vd->hasLocalStorage() && vd->getType()->isConstantArrayType() && !vd->getType()->isDependentType()) {
        LocalArray la;
        la.name = vd->getNameAsString();
        const auto *cat = ctx.getAsConstantArrayType(vd->getType());
        QualType elem = ctx.getBaseElementType(vd->getType());
        la.elementType = elem.getAsString();
        la.sizeBytes = uint64_t(ctx.getTypeSizeInChars(vd->getType()).getQuantity());
        uint64_t elemSize = uint64_t(ctx.getTypeSizeInChars(elem).getQuantity());
        la.elements = elemSize ? la.sizeBytes / elemSize : cat->getZExtSize();
        la.span = spanOf(vd->getSourceRange(), ctx);
        f.locals.push_back(la);
      }
    }
  }
  if (auto *kc = dyn_cast<CUDAKernelCallExpr>(s))
    if (auto *fd = kc->getDirectCallee()) f.callees.insert(fd->getCanonicalDecl());
  for (const Stmt *c : s->children()) collectFacts(c, ctx, f);
}

} // namespace

void buildModel(AnalyzedTU &tu) {
  ASTContext &ctx = tu.astContext();
  SourceManager &sm = ctx.getSourceManager();
  FileModel &model = tu.model();

  // Functions written in the main file, in source order.
  std::vector<const FunctionDecl *> functions;
  std::map<const FunctionDecl *, const FunctionDecl *> defOf; // canonical -> definition
  struct Collector : RecursiveASTVisitor<Collector> {
    SourceManager &sm;
    std::vector<const FunctionDecl *> &out;
    std::map<const FunctionDecl *, const FunctionDecl *> &defs;
    Collector(SourceManager &s, std::vector<const FunctionDecl *> &o,
              std::map<const FunctionDecl *, const FunctionDecl *> &d) : sm(s), out(o), defs(d) {}
    bool shouldVisitTemplateInstantiations() const { return false; }
    bool VisitFunctionDecl(FunctionDecl *fd) {
      if (!fd->doesThisDeclarationHaveABody()) return true;
      defs[fd->getCanonicalDecl()] = fd;
      if (sm.isWrittenInMainFile(sm.getFileLoc(fd->getLocation()))) out.push_back(fd);
      return true;
    }
  } collector(sm, functions, defOf);
  for (const Decl *d : tu.topLevelDecls()) collector.TraverseDecl(const_cast<Decl *>(d));

  int nextLoop = 0, nextLaunch = 0;
  std::map<const FunctionDecl *, KernelFacts> facts;
  for (const FunctionDecl *fd : functions) {
    tu.functionNodes[fd->getNameAsString()] = fd;
    FunctionScanner scanner(tu, fd, nextLoop, nextLaunch);
    scanner.run();
    KernelFacts &f = facts[fd->getCanonicalDecl()];
    collectFacts(fd->getBody(), ctx, f);
    if (isDeviceFn(fd))
      for (const ConstructUse &s : f.syncs) model.deviceSyncs.push_back({fd->getNameAsString(), s.span});
  }
  // Facts of functions defined in headers too (children may live there).
  auto factsOf = [&](const FunctionDecl *fd) -> const KernelFacts * {
    if (!fd) return nullptr;
    const FunctionDecl *canon = fd->getCanonicalDecl();
    auto it = facts.find(canon);
    if (it != facts.end()) return &it->second;
    // Functions defined in the preamble's headers are found through their
    // declaration (deserialising just that one).
    const FunctionDecl *def = nullptr;
    if (auto d = defOf.find(canon); d != defOf.end()) def = d->second;
    else if (const FunctionDecl *found = fd->getDefinition(); found && found->hasBody()) def = found;
    if (!def) return nullptr;
    collectFacts(def->getBody(), ctx, facts[canon]);
    return &facts[canon];
  };

  // Reachability over calls and launches, for recursion and for the
  // constructs that callees contribute.
  std::function<void(const FunctionDecl *, std::set<const FunctionDecl *> &)> reach =
      [&](const FunctionDecl *fd, std::set<const FunctionDecl *> &seen) {
        const KernelFacts *f = factsOf(fd);
        if (!f) return;
        for (const FunctionDecl *c : f->callees)
          if (seen.insert(c).second) reach(c, seen);
      };

  // Kernels.
  for (const FunctionDecl *fd : functions) {
    if (!isGlobalFn(fd)) continue;
    Kernel k;
    k.name = fd->getNameAsString();
    k.span = spanOf(fd->getSourceRange(), ctx);
    k.nameSpan = spanOf(SourceRange(fd->getLocation(), fd->getLocation()), ctx);
    k.bodySpan = spanOf(fd->getBody(), ctx);
    for (const ParmVarDecl *p : fd->parameters()) k.params.push_back({p->getNameAsString(), p->getType().getAsString()});
    if (auto *lb = fd->getAttr<CUDALaunchBoundsAttr>()) {
      k.launchBoundsMaxThreads = textOf(lb->getMaxThreads(), ctx);
      if (lb->getMinBlocks()) k.launchBoundsMinBlocks = textOf(lb->getMinBlocks(), ctx);
      Expr::EvalResult r;
      if (lb->getMaxThreads() && !lb->getMaxThreads()->isValueDependent() && lb->getMaxThreads()->EvaluateAsInt(r, ctx))
        k.launchBoundsMaxThreadsValue = r.Val.getInt().getZExtValue();
    }
    const KernelFacts &f = facts[fd->getCanonicalDecl()];
    k.shared = f.shared;
    k.localArrays = f.locals;
    k.barriers = f.barriers;
    k.warpIntrinsics = f.warp;
    k.cooperativeGroups = f.coop;
    k.atomics = f.atomics;
    k.deviceSyncs = f.syncs;
    k.usesThreadIdx = f.threadIdx;
    k.usesBlockDim = f.blockDim;
    std::set<const FunctionDecl *> seen;
    reach(fd, seen);
    k.isRecursive = seen.count(fd->getCanonicalDecl()) > 0;
    for (const LoopSite &l : model.loops)
      if (l.function == k.name) k.loops.push_back(l.id);
    model.kernels.push_back(std::move(k));
  }

  // Launch sites: who launches what, serialisability of the child.
  for (LaunchSite &l : model.launches) {
    const CUDAKernelCallExpr *kc = tu.launchExpr(l.id);
    const FunctionDecl *child = kc ? kc->getDirectCallee() : nullptr;
    for (Kernel &k : model.kernels)
      if (k.name == l.child) k.launchedBy.push_back(l.id);
    l.serializable = true;
    auto block = [&](const std::string &why, const SourceSpan &where) {
      l.serializable = false;
      std::string at = where.valid() ? " (line " + std::to_string(where.begin.line) + ")" : "";
      l.reasons.push_back(why + at);
      l.reasonSpans.push_back(where);
    };
    const KernelFacts *cf = factsOf(child);
    if (!cf) {
      block("the body of '" + l.child + "' is not visible in this translation unit", l.span);
    } else {
      // Constructs of the child and of everything it calls.
      std::vector<const KernelFacts *> all{cf};
      std::set<const FunctionDecl *> seen;
      reach(child, seen);
      for (const FunctionDecl *c : seen)
        if (c != child->getCanonicalDecl())
          if (const KernelFacts *x = factsOf(c)) all.push_back(x);
      for (const KernelFacts *x : all) {
        for (auto &u : x->barriers)
          if (u.name != "__syncwarp") block("'" + l.child + "' uses " + u.name, u.span);
        for (auto &u : x->shared) block("'" + l.child + "' uses __shared__ memory ('" + u.name + "')", u.span);
        for (auto &u : x->warp) block("'" + l.child + "' uses the warp-level intrinsic " + u.name, u.span);
        for (auto &u : x->coop) block("'" + l.child + "' uses cooperative groups (" + u.name + ")", u.span);
      }
      if (seen.count(child->getCanonicalDecl()))
        block("'" + l.child + "' is recursive (it launches or calls itself)", spanOf(child->getSourceRange(), ctx));
      // Dedupe reasons (one per construct name is enough).
      std::vector<std::string> r;
      std::vector<SourceSpan> rs;
      std::set<std::string> seenReason;
      for (size_t i = 0; i < l.reasons.size(); ++i) {
        std::string key = l.reasons[i].substr(0, l.reasons[i].find(" (line"));
        if (seenReason.insert(key).second) { r.push_back(l.reasons[i]); rs.push_back(l.reasonSpans[i]); }
      }
      l.reasons = r;
      l.reasonSpans = rs;
    }
    // A device-side cudaDeviceSynchronize after the launch in the same parent.
    if (l.deviceSide)
      for (const Kernel &k : model.kernels)
        if (k.name == l.parent)
          for (const ConstructUse &s : k.deviceSyncs)
            if (s.span.begin.offset > l.span.begin.offset) l.followedByDeviceSync = true;
  }

  // Pragmas: attach each to the loop that directly follows it.
  llvm::StringRef text = tu.mainFileText();
  for (size_t pi = 0; pi < model.pragmas.size(); ++pi) {
    NpPragma &p = model.pragmas[pi];
    size_t lineEnd = text.find('\n', p.span.begin.offset);
    if (lineEnd == llvm::StringRef::npos) lineEnd = text.size();
    p.span.end = p.span.begin;
    p.span.end.offset = unsigned(lineEnd);
    p.span.end.column = p.span.begin.column + unsigned(lineEnd - p.span.begin.offset);
    LoopSite *best = nullptr;
    for (LoopSite &l : model.loops)
      if (l.span.begin.offset > lineEnd && (!best || l.span.begin.offset < best->span.begin.offset)) best = &l;
    if (!best) continue;
    // Only whitespace and comments may stand between the pragma and the loop.
    llvm::StringRef between = text.slice(lineEnd, best->span.begin.offset);
    bool clean = true;
    for (size_t i = 0; i < between.size(); ++i) {
      char c = between[i];
      if (isspace(static_cast<unsigned char>(c))) continue;
      if (between.substr(i).starts_with("//")) { i = between.find('\n', i); if (i == llvm::StringRef::npos) break; continue; }
      if (between.substr(i).starts_with("/*")) { size_t e = between.find("*/", i + 2); if (e == llvm::StringRef::npos) { clean = false; break; } i = e + 1; continue; }
      clean = false;
      break;
    }
    if (!clean || best->pragma != -1) continue;
    best->pragma = int(pi);
    p.loopId = best->id;
  }
}

const Kernel *FileModel::findKernel(const std::string &name) const {
  for (const auto &k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}
const LoopSite *FileModel::loopAtLine(unsigned line) const {
  const LoopSite *best = nullptr;
  for (const auto &l : loops)
    if (l.span.begin.line == line && (!best || l.depth < best->depth)) best = &l;
  if (!best)
    for (const auto &p : pragmas)
      if (p.span.begin.line == line && p.loopId >= 0) return &loops[size_t(p.loopId)];
  return best;
}
const LaunchSite *FileModel::launchAtLine(unsigned line) const {
  for (const auto &l : launches)
    if (l.span.begin.line <= line && l.span.end.line >= line) return &l;
  return nullptr;
}

const char *spelling(TripCountClass c) {
  switch (c) {
  case TripCountClass::Constant: return "constant";
  case TripCountClass::Uniform: return "uniform";
  case TripCountClass::Irregular: return "irregular";
  case TripCountClass::Unknown: return "unknown";
  }
  return "unknown";
}

} // namespace nestor
