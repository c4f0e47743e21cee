// The CUDA-NP engine and helpers shared by the loop rewrites. The design (one
// code shape for inter- and intra-warp NP, masters-only sequential sections,
// predication instead of early returns for inter-warp NP, ...) is described in
// docs/rewrites-loops.md; every refusal below names the construct that blocks
// the rewrite.
#include "LoopCommon.h"
#include "nestor/Inference.h"

#include "../../analyzers/src/AstText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include <map>
#include <set>

using namespace clang;

namespace nestor::loops {

// ---------------------------------------------------------------- helpers

const char *opFunctor(ReductionOp op) {
  switch (op) {
  case ReductionOp::Add: return "nestor::op::add";
  case ReductionOp::Mul: return "nestor::op::mul";
  case ReductionOp::Max: return "nestor::op::max";
  case ReductionOp::Min: return "nestor::op::min";
  case ReductionOp::BitAnd: return "nestor::op::bit_and";
  case ReductionOp::BitOr: return "nestor::op::bit_or";
  case ReductionOp::BitXor: return "nestor::op::bit_xor";
  case ReductionOp::LogicalAnd: return "nestor::op::logical_and";
  case ReductionOp::LogicalOr: return "nestor::op::logical_or";
  }
  return "nestor::op::add";
}

clang::tooling::Replacement includeReplacement(const AnalyzedTU &tu, llvm::StringRef header) {
  llvm::StringRef text = tu.mainFileText();
  size_t insertAt = 0, pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == llvm::StringRef::npos) eol = text.size();
    llvm::StringRef line = text.slice(pos, eol).ltrim();
    if (line.starts_with("#include")) insertAt = eol < text.size() ? eol + 1 : eol;
    pos = eol + 1;
  }
  std::string inc = "#include <" + header.str() + ">\n";
  if (text.contains(inc)) return replacementFor(tu, 0, 0, "");
  return replacementFor(tu, unsigned(insertAt), unsigned(insertAt), inc);
}

namespace {

const VarDecl *refVar(const Expr *e) {
  if (!e) return nullptr;
  if (auto *dr = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts())) return dyn_cast<VarDecl>(dr->getDecl());
  return nullptr;
}

bool isBuiltinIdVar(const ValueDecl *d) {
  if (!d || !isa<VarDecl>(d) || !cast<VarDecl>(d)->hasGlobalStorage()) return false;
  llvm::StringRef n = d->getName();
  return n == "threadIdx" || n == "blockDim" || n == "blockIdx" || n == "gridDim" || n == "warpSize";
}

bool isPureFunction(llvm::StringRef n) {
  static const std::set<std::string> pure = {
      "min", "max", "fminf", "fmaxf", "fmin", "fmax", "abs", "fabs", "fabsf", "sqrt", "sqrtf", "rsqrt", "rsqrtf",
      "cbrtf", "exp", "expf", "exp2f", "exp10f", "log", "logf", "log2f", "log10f", "pow", "powf", "sin", "sinf",
      "cos", "cosf", "tan", "tanf", "tanhf", "floor", "floorf", "ceil", "ceilf", "round", "roundf", "trunc",
      "truncf", "rintf", "__fdividef", "__expf", "__logf", "__sinf", "__cosf", "__powf", "__saturatef", "fma",
      "fmaf", "__fmaf_rn", "__fmul_rn", "__fadd_rn", "__mul24", "__umul24", "__popc", "__popcll", "__clz",
      "__ffs", "__brev", "__float2int_rn", "__float2int_rz", "__int2float_rn", "copysignf", "make_float2",
      "make_float3", "make_float4", "make_int2", "make_int3", "make_int4", "make_uint3", "isnan", "isinf"};
  return pure.count(n.str()) != 0;
}
bool isBarrierFunction(llvm::StringRef n) {
  return n.starts_with("__syncthreads") || n == "__syncwarp" || n == "__barrier_sync" || n == "sync";
}
bool isWarpFunction(llvm::StringRef n) {
  return n.starts_with("__shfl") || n.starts_with("__ballot") || n.starts_with("__any") || n.starts_with("__all") ||
         n == "__activemask" || n.starts_with("__match") || n.starts_with("__reduce_") || n == "__uni";
}

/// What a statement or expression does, for the sequential/parallel split.
struct Facts {
  bool memRead = false, memWrite = false, impureCall = false, addrOfLocal = false;
  bool barrier = false, warp = false, ret = false, jump = false, launch = false, lambda = false;
  SourceLocation firstBad;
  std::set<const VarDecl *> reads, writes, declared;
  std::vector<const FunctionDecl *> userCalls;
};

void walk(const Stmt *s, const std::function<void(const Stmt *)> &f) {
  if (!s) return;
  f(s);
  if (auto *po = dyn_cast<PseudoObjectExpr>(s)) { walk(po->getSyntacticForm(), f); return; }
  if (auto *ov = dyn_cast<OpaqueValueExpr>(s)) { walk(ov->getSourceExpr(), f); return; }
  for (const Stmt *c : s->children()) walk(c, f);
}

bool isLocalVar(const VarDecl *vd) { return vd && (vd->hasLocalStorage() || isa<ParmVarDecl>(vd)); }

void noteWrite(const Expr *lhs, Facts &fx) {
  const Expr *e = lhs->IgnoreParenImpCasts();
  if (auto *dr = dyn_cast<DeclRefExpr>(e)) {
    if (auto *vd = dyn_cast<VarDecl>(dr->getDecl()); vd && isLocalVar(vd) && !vd->getType()->isReferenceType()) {
      fx.writes.insert(vd);
      return;
    }
  }
  if (auto *me = dyn_cast<MemberExpr>(e); me && !me->isArrow()) {
    if (const VarDecl *vd = refVar(me->getBase()); vd && isLocalVar(vd)) { fx.writes.insert(vd); return; }
  }
  fx.memWrite = true;
}

Facts factsOf(const Stmt *root) {
  Facts fx;
  int loopDepth = 0;
  std::function<void(const Stmt *)> go = [&](const Stmt *s) {
    if (!s) return;
    auto bad = [&](bool &flag) { flag = true; if (fx.firstBad.isInvalid()) fx.firstBad = s->getBeginLoc(); };
    if (auto *po = dyn_cast<PseudoObjectExpr>(s)) {
      // threadIdx.x and friends: builtin reads, uniform within a master's group.
      const Expr *syn = po->getSyntacticForm();
      if (auto *mp = dyn_cast<MSPropertyRefExpr>(syn->IgnoreParenImpCasts()))
        if (auto *ov = dyn_cast<OpaqueValueExpr>(mp->getBaseExpr()->IgnoreParenImpCasts()))
          if (auto *dr = dyn_cast_or_null<DeclRefExpr>(ov->getSourceExpr() ? ov->getSourceExpr()->IgnoreParenImpCasts() : nullptr);
              dr && isBuiltinIdVar(dr->getDecl()))
            return;
      go(syn);
      return;
    }
    if (auto *ov = dyn_cast<OpaqueValueExpr>(s)) { go(ov->getSourceExpr()); return; }
    if (auto *ds = dyn_cast<DeclStmt>(s))
      for (const Decl *d : ds->decls())
        if (auto *vd = dyn_cast<VarDecl>(d)) fx.declared.insert(vd);
    if (auto *dr = dyn_cast<DeclRefExpr>(s)) {
      if (auto *vd = dyn_cast<VarDecl>(dr->getDecl())) {
        if (isBuiltinIdVar(vd)) {
        } else if (isLocalVar(vd)) {
          fx.reads.insert(vd);
          if (vd->getType()->isReferenceType()) fx.memRead = true;
        } else if (!(vd->isConstexpr() || (vd->getType().isConstQualified() && vd->hasInit() &&
                                            !vd->hasAttr<CUDAConstantAttr>() && !vd->hasAttr<CUDADeviceAttr>()))) {
          fx.memRead = true; // a __device__/__constant__ global
        }
      }
    }
    if (isa<ArraySubscriptExpr>(s)) fx.memRead = true;
    if (auto *me = dyn_cast<MemberExpr>(s); me && me->isArrow()) fx.memRead = true;
    if (auto *uo = dyn_cast<UnaryOperator>(s)) {
      if (uo->getOpcode() == UO_Deref) fx.memRead = true;
      if (uo->getOpcode() == UO_AddrOf) {
        if (const VarDecl *vd = refVar(uo->getSubExpr()); vd && isLocalVar(vd)) fx.addrOfLocal = true;
        fx.memRead = true;
      }
      if (uo->isIncrementDecrementOp()) noteWrite(uo->getSubExpr(), fx);
    }
    if (auto *bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) noteWrite(bo->getLHS(), fx);
    if (auto *oc = dyn_cast<CXXOperatorCallExpr>(s); oc && oc->isAssignmentOp()) fx.memWrite = true;
    if (auto *ce = dyn_cast<CallExpr>(s)) {
      if (isa<CUDAKernelCallExpr>(ce)) bad(fx.launch);
      const FunctionDecl *fd = ce->getDirectCallee();
      std::string n = fd ? fd->getNameAsString() : "";
      if (isBarrierFunction(n)) bad(fx.barrier);
      else if (isWarpFunction(n)) bad(fx.warp);
      else if (!fd || !isPureFunction(n)) {
        fx.impureCall = true;
        if (fd && fd->hasBody()) fx.userCalls.push_back(fd);
      }
    }
    if (isa<LambdaExpr>(s)) bad(fx.lambda);
    if (isa<ReturnStmt>(s)) bad(fx.ret);
    if (isa<GotoStmt, IndirectGotoStmt>(s)) bad(fx.jump);
    if ((isa<BreakStmt>(s) || isa<ContinueStmt>(s)) && loopDepth == 0) bad(fx.jump);
    bool loop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt, SwitchStmt>(s);
    if (loop) ++loopDepth;
    for (const Stmt *c : s->children()) go(c);
    if (loop) --loopDepth;
  };
  go(root);
  return fx;
}

std::string statementKind(const Stmt *s) {
  if (isa<WhileStmt>(s)) return "while loop";
  if (isa<DoStmt>(s)) return "do loop";
  if (isa<CXXForRangeStmt>(s)) return "range-based for loop";
  if (isa<SwitchStmt, SwitchCase>(s)) return "switch";
  if (isa<LabelStmt>(s)) return "labelled statement";
  if (isa<CXXTryStmt>(s)) return "try block";
  return s->getStmtClassName();
}

SourceSpan spanAt(const ASTContext &ctx, SourceLocation loc) { return spanOf(SourceRange(loc, loc), ctx); }

struct Edit {
  unsigned offset, length;
  std::string text;
  bool rename = false;  ///< threadIdx/blockDim -> nestor_*: absorbed by a replacement that contains it
  bool absorbs = false; ///< a replacement whose text was made with editedText()
};

/// The source text with a C++ spelling of a (canonical, unqualified) type.
std::string typeText(QualType t, const ASTContext &ctx) {
  PrintingPolicy p(ctx.getLangOpts());
  p.SuppressTagKeyword = true;
  return t.getUnqualifiedType().getAsString(p);
}

/// A zero value of a scalar type, or "" when the type is not scalar.
std::string zeroOf(QualType t, const ASTContext &ctx) {
  if (t->isPointerType()) return "nullptr";
  if (t->isArithmeticType() || t->isEnumeralType()) return "(" + typeText(t, ctx) + ")0";
  return "";
}

std::optional<int64_t> intValue(const Expr *e, const ASTContext &ctx) {
  Expr::EvalResult r;
  if (!e || e->isValueDependent() || !e->EvaluateAsInt(r, ctx)) return std::nullopt;
  return r.Val.getInt().getExtValue();
}

} // namespace

// ---------------------------------------------------------------- launches

std::optional<BlockShape> constantBlock(const AnalyzedTU &tu, int launchId) {
  const CUDAKernelCallExpr *call = tu.launchExpr(launchId);
  if (!call || !call->getConfig() || call->getConfig()->getNumArgs() < 2) return std::nullopt;
  const ASTContext &ctx = tu.astContext();
  std::function<std::optional<BlockShape>(const Expr *, int)> eval = [&](const Expr *e, int depth) -> std::optional<BlockShape> {
    if (!e || depth > 4) return std::nullopt;
    e = e->IgnoreParenImpCasts();
    if (auto *mt = dyn_cast<MaterializeTemporaryExpr>(e)) return eval(mt->getSubExpr(), depth);
    if (auto *bt = dyn_cast<CXXBindTemporaryExpr>(e)) return eval(bt->getSubExpr(), depth);
    if (auto *fc = dyn_cast<CXXFunctionalCastExpr>(e)) return eval(fc->getSubExpr(), depth);
    if (auto v = intValue(e, ctx)) {
      if (*v <= 0 || *v > 1 << 20) return std::nullopt;
      return BlockShape{unsigned(*v), 1, 1};
    }
    if (auto *ce = dyn_cast<CXXConstructExpr>(e)) {
      if (ce->getNumArgs() == 1 && ce->getConstructor()->isCopyOrMoveConstructor()) return eval(ce->getArg(0), depth);
      BlockShape b;
      unsigned *dims[3] = {&b.x, &b.y, &b.z};
      for (unsigned i = 0; i < ce->getNumArgs() && i < 3; ++i) {
        if (isa<CXXDefaultArgExpr>(ce->getArg(i))) continue;
        auto v = intValue(ce->getArg(i), ctx);
        if (!v || *v <= 0) return std::nullopt;
        *dims[i] = unsigned(*v);
      }
      return b;
    }
    if (auto *dr = dyn_cast<DeclRefExpr>(e)) {
      auto *vd = dyn_cast<VarDecl>(dr->getDecl());
      if (!vd || !vd->hasInit() || vd->hasGlobalStorage() == false && !vd->getType().isConstQualified()) {
        // A local variable: accept only if it is never written after its declaration.
        if (!vd || !vd->hasInit()) return std::nullopt;
        const FunctionDecl *fd = dyn_cast<FunctionDecl>(vd->getDeclContext());
        if (!fd || !fd->getBody()) return std::nullopt;
        bool written = false;
        walk(fd->getBody(), [&](const Stmt *s) {
          const Expr *lhs = nullptr;
          if (auto *bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) lhs = bo->getLHS();
          if (auto *oc = dyn_cast<CXXOperatorCallExpr>(s); oc && oc->getNumArgs() > 0) lhs = oc->getArg(0);
          if (auto *uo = dyn_cast<UnaryOperator>(s); uo && (uo->isIncrementDecrementOp() || uo->getOpcode() == UO_AddrOf))
            lhs = uo->getSubExpr();
          if (lhs) {
            const Expr *b = lhs->IgnoreParenImpCasts();
            while (auto *me = dyn_cast<MemberExpr>(b)) b = me->getBase()->IgnoreParenImpCasts();
            if (auto *d = dyn_cast<DeclRefExpr>(b); d && d->getDecl() == vd) written = true;
          }
        });
        if (written) return std::nullopt;
      }
      return eval(vd->getInit(), depth + 1);
    }
    return std::nullopt;
  };
  return eval(call->getConfig()->getArg(1), 0);
}

// ---------------------------------------------------------------- map/reduce

namespace {
/// `acc OP= x`, `acc = acc OP x`, `acc = x OP acc` (commutative OP),
/// `acc = max(acc, x)`: the operator and x.
std::optional<std::pair<ReductionOp, const Expr *>> matchUpdate(const Stmt *s, const VarDecl *acc) {
  auto *bo = dyn_cast_or_null<BinaryOperator>(dyn_cast_or_null<Expr>(s) ? cast<Expr>(s)->IgnoreParens() : nullptr);
  if (!bo || refVar(bo->getLHS()) != acc) return std::nullopt;
  auto opOf = [](BinaryOperatorKind k) -> std::optional<ReductionOp> {
    switch (k) {
    case BO_Add: case BO_AddAssign: return ReductionOp::Add;
    case BO_Mul: case BO_MulAssign: return ReductionOp::Mul;
    case BO_And: case BO_AndAssign: return ReductionOp::BitAnd;
    case BO_Or: case BO_OrAssign: return ReductionOp::BitOr;
    case BO_Xor: case BO_XorAssign: return ReductionOp::BitXor;
    case BO_LAnd: return ReductionOp::LogicalAnd;
    case BO_LOr: return ReductionOp::LogicalOr;
    default: return std::nullopt;
    }
  };
  if (auto *cao = dyn_cast<CompoundAssignOperator>(bo)) {
    if (auto op = opOf(cao->getOpcode())) return std::make_pair(*op, cao->getRHS());
    return std::nullopt;
  }
  if (bo->getOpcode() != BO_Assign) return std::nullopt;
  const Expr *rhs = bo->getRHS()->IgnoreParenImpCasts();
  if (auto *rb = dyn_cast<BinaryOperator>(rhs)) {
    auto op = opOf(rb->getOpcode());
    if (!op) return std::nullopt;
    if (refVar(rb->getLHS()) == acc) return std::make_pair(*op, rb->getRHS());
    if (refVar(rb->getRHS()) == acc) return std::make_pair(*op, rb->getLHS());
    return std::nullopt;
  }
  if (auto *ce = dyn_cast<CallExpr>(rhs); ce && ce->getNumArgs() == 2 && ce->getDirectCallee()) {
    std::string n = ce->getDirectCallee()->getNameAsString();
    std::optional<ReductionOp> op;
    if (n == "max" || n == "fmaxf" || n == "fmax") op = ReductionOp::Max;
    if (n == "min" || n == "fminf" || n == "fmin") op = ReductionOp::Min;
    if (!op) return std::nullopt;
    if (refVar(ce->getArg(0)) == acc) return std::make_pair(*op, ce->getArg(1));
    if (refVar(ce->getArg(1)) == acc) return std::make_pair(*op, ce->getArg(0));
  }
  return std::nullopt;
}

struct ForParts {
  const VarDecl *iv = nullptr;
  bool ivDeclared = false;
  const Expr *lower = nullptr, *upper = nullptr;
  bool inclusive = false;
  int64_t step = 0;
  const Expr *initExpr = nullptr; ///< the expression to offset (decl init or assignment RHS)
};

std::optional<ForParts> forParts(const ForStmt *fs, const ASTContext &ctx, std::string &why) {
  ForParts p;
  if (auto *ds = dyn_cast_or_null<DeclStmt>(fs->getInit())) {
    if (!ds->isSingleDecl()) { why = "the loop declares several variables in its init"; return std::nullopt; }
    auto *vd = dyn_cast<VarDecl>(ds->getSingleDecl());
    if (!vd || !vd->getInit()) { why = "the loop variable has no initial value"; return std::nullopt; }
    p.iv = vd;
    p.ivDeclared = true;
    p.initExpr = vd->getInit();
  } else if (auto *bo = dyn_cast_or_null<BinaryOperator>(dyn_cast_or_null<Expr>(fs->getInit()));
             bo && bo->getOpcode() == BO_Assign && refVar(bo->getLHS())) {
    p.iv = refVar(bo->getLHS());
    p.initExpr = bo->getRHS();
  } else {
    why = "the loop has no `i = begin` initialisation";
    return std::nullopt;
  }
  if (!p.iv->getType()->isIntegerType()) { why = "the loop variable is not an integer"; return std::nullopt; }
  p.lower = p.initExpr;
  auto *cond = dyn_cast_or_null<BinaryOperator>(fs->getCond() ? fs->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || (cond->getOpcode() != BO_LT && cond->getOpcode() != BO_LE) || refVar(cond->getLHS()) != p.iv) {
    why = "the loop condition is not `i < end` or `i <= end`";
    return std::nullopt;
  }
  p.upper = cond->getRHS();
  p.inclusive = cond->getOpcode() == BO_LE;
  const Expr *inc = fs->getInc() ? fs->getInc()->IgnoreParenImpCasts() : nullptr;
  if (auto *uo = dyn_cast_or_null<UnaryOperator>(inc); uo && uo->isIncrementOp() && refVar(uo->getSubExpr()) == p.iv) {
    p.step = 1;
  } else if (auto *cao = dyn_cast_or_null<CompoundAssignOperator>(inc);
             cao && cao->getOpcode() == BO_AddAssign && refVar(cao->getLHS()) == p.iv) {
    p.step = intValue(cao->getRHS(), ctx).value_or(0);
  } else if (auto *bo = dyn_cast_or_null<BinaryOperator>(inc); bo && bo->getOpcode() == BO_Assign && refVar(bo->getLHS()) == p.iv) {
    if (auto *rb = dyn_cast<BinaryOperator>(bo->getRHS()->IgnoreParenImpCasts());
        rb && rb->getOpcode() == BO_Add && refVar(rb->getLHS()) == p.iv)
      p.step = intValue(rb->getRHS(), ctx).value_or(0);
  }
  if (p.step <= 0) { why = "the loop step is not a positive compile-time constant"; return std::nullopt; }
  return p;
}
} // namespace

std::optional<MapReduceLoop> matchMapReduce(const AnalyzedTU &tu, const LoopSite &l, std::string &why, SourceSpan &where) {
  const ASTContext &ctx = tu.astContext();
  auto *fs = dyn_cast_or_null<ForStmt>(tu.loopStmt(l.id));
  where = l.headerSpan;
  if (!fs) { why = "the loop is not a for loop"; return std::nullopt; }
  auto parts = forParts(fs, ctx, why);
  if (!parts) return std::nullopt;
  if (!parts->ivDeclared) { why = "the loop variable must be declared in the loop header"; return std::nullopt; }
  if (parts->step != 1 || parts->inclusive) { why = "the loop must be `for (i = begin; i < end; ++i)`"; return std::nullopt; }
  std::vector<const Stmt *> body;
  if (auto *cs = dyn_cast<CompoundStmt>(fs->getBody())) body.assign(cs->body_begin(), cs->body_end());
  else body.push_back(fs->getBody());
  const VarDecl *v = nullptr;
  const Expr *mapped = nullptr;
  const Stmt *update = nullptr;
  if (body.size() == 2) {
    auto *ds = dyn_cast<DeclStmt>(body[0]);
    if (!ds || !ds->isSingleDecl() || !(v = dyn_cast<VarDecl>(ds->getSingleDecl())) || !v->getInit()) {
      why = "the loop body is not `v = f(i); acc = acc OP v;`";
      return std::nullopt;
    }
    mapped = v->getInit();
    update = body[1];
  } else if (body.size() == 1) {
    update = body[0];
  } else {
    why = "the loop body is not `[v = f(i);] acc = acc OP v;` (" + std::to_string(body.size()) + " statements)";
    return std::nullopt;
  }
  // Find the accumulator: the variable assigned by the update.
  const VarDecl *acc = nullptr;
  if (auto *bo = dyn_cast_or_null<BinaryOperator>(dyn_cast<Expr>(update) ? cast<Expr>(update)->IgnoreParens() : nullptr))
    acc = refVar(bo->getLHS());
  if (!acc || !acc->hasLocalStorage() || !acc->getType()->isArithmeticType()) {
    why = "the last statement does not update a local scalar accumulator";
    where = spanOf(update, ctx);
    return std::nullopt;
  }
  auto upd = matchUpdate(update, acc);
  if (!upd) {
    why = "the update of '" + acc->getNameAsString() + "' is not an associative reduction (+, *, &, |, ^, &&, ||, max, min)";
    where = spanOf(update, ctx);
    return std::nullopt;
  }
  if (v) {
    if (refVar(upd->second) != v) { why = "the update does not combine the mapped value"; return std::nullopt; }
  } else {
    mapped = upd->second;
  }
  Facts fx = factsOf(mapped);
  if (fx.memWrite || fx.impureCall || fx.barrier || fx.warp || fx.lambda || !fx.writes.empty() || fx.addrOfLocal) {
    why = "f(i) has side effects or calls a function that is not known to be pure";
    where = spanOf(mapped, ctx);
    return std::nullopt;
  }
  if (fx.reads.count(acc)) { why = "f(i) reads the accumulator"; where = spanOf(mapped, ctx); return std::nullopt; }
  MapReduceLoop m;
  m.iv = parts->iv->getNameAsString();
  m.ivType = typeText(parts->iv->getType(), ctx);
  m.begin = textOf(parts->lower, ctx);
  m.end = textOf(parts->upper, ctx);
  m.acc = acc->getNameAsString();
  m.accType = typeText(acc->getType(), ctx);
  m.op = upd->first;
  m.mapped = textOf(mapped, ctx);
  m.beginExpr = parts->lower;
  m.endExpr = parts->upper;
  m.mappedExpr = mapped;
  for (const VarDecl *r : fx.reads) {
    if (r == parts->iv || fx.declared.count(r)) continue;
    if (isa<ParmVarDecl>(r) || r->hasAttr<CUDASharedAttr>()) continue; // uniform over the warp / not private
    if (r->getType()->isArrayType()) {
      why = "f(i) reads the thread-local array '" + r->getNameAsString() + "'";
      return std::nullopt;
    }
    m.descriptors.push_back({r->getNameAsString(), typeText(r->getType(), ctx)});
  }
  std::sort(m.descriptors.begin(), m.descriptors.end());
  // CSR: begin = P[Q], end = P[Q + 1].
  auto *lb = dyn_cast<ArraySubscriptExpr>(parts->lower->IgnoreParenImpCasts());
  auto *ub = dyn_cast<ArraySubscriptExpr>(parts->upper->IgnoreParenImpCasts());
  if (lb && ub && textOf(lb->getBase(), ctx) == textOf(ub->getBase(), ctx)) {
    std::string q = textOf(lb->getIdx(), ctx), r = textOf(ub->getIdx(), ctx);
    auto strip = [](std::string s) { s.erase(std::remove(s.begin(), s.end(), ' '), s.end()); return s; };
    m.csrLike = strip(r) == strip(q) + "+1" || strip(r) == "1+" + strip(q) || strip(r) == "(" + strip(q) + ")+1";
  }
  return m;
}

// ---------------------------------------------------------------- CUDA-NP

namespace {

struct ArrayPlan {
  const VarDecl *vd = nullptr;
  const DeclStmt *decl = nullptr;
  bool usedInParallel = false;
  bool registersOk = true;
  bool onlySubscripts = true;
  std::string home; // "registers", "shared"
};

class NpPlanner {
public:
  NpPlanner(const AnalyzedTU &tu, const RewriteTarget &t, const NpConfig &cfg)
      : tu_(tu), m_(tu.model()), ctx_(tu.astContext()), text_(tu.mainFileText()), t_(t), cfg_(cfg) {}

  NpPlan run() {
    NpPlan out;
    if (!plan()) {
      out.reason = reason_;
      out.blocker = blocker_;
      return out;
    }
    // Stable: insertions at one offset keep the order they were planned in.
    // Renames inside an absorbing replacement are part of its text already.
    std::vector<Edit> kept;
    for (const Edit &e : edits_) {
      bool absorbed = false;
      if (e.rename)
        for (const Edit &r : edits_)
          absorbed |= r.absorbs && e.offset >= r.offset && e.offset + e.length <= r.offset + r.length;
      if (!absorbed) kept.push_back(e);
    }
    edits_ = std::move(kept);
    std::stable_sort(edits_.begin(), edits_.end(), [](const Edit &a, const Edit &b) { return a.offset < b.offset; });
    for (const Edit &e : edits_) {
      if (auto err = out.edits.add(replacementFor(tu_, e.offset, e.offset + e.length, e.text))) {
        out.reason = "internal error: overlapping edits (" + llvm::toString(std::move(err)) + ")";
        return out;
      }
    }
    out.ok = true;
    return out;
  }

private:
  const AnalyzedTU &tu_;
  const FileModel &m_;
  const ASTContext &ctx_;
  llvm::StringRef text_;
  RewriteTarget t_;
  NpConfig cfg_;
  std::string reason_;
  SourceSpan blocker_;
  std::vector<Edit> edits_;

  const Kernel *kernel_ = nullptr;
  const FunctionDecl *fd_ = nullptr;
  const CompoundStmt *body_ = nullptr;
  std::optional<BlockShape> block_; // common block shape, when all launches agree
  std::map<const ForStmt *, const LoopSite *> parallel_;
  std::map<const VarDecl *, bool> masterOnly_; // locals declared at the top level
  std::set<const VarDecl *> liveInAnywhere_;   // outer locals read by some parallel loop
  std::map<const VarDecl *, ArrayPlan> arrays_;
  bool predicated_ = false; // inter-warp with early returns: nestor_active
  // Inter-warp NP runs every statement that encloses a parallel loop on all
  // threads of the block (the group's barriers are block barriers), so a
  // branch becomes a predicate: preds_ holds the ones in force (innermost
  // last); intra-warp NP branches per group and keeps preds_ empty.
  std::vector<std::string> preds_;
  int ifCount_ = 0;
  uint64_t poolBytesPerMaster_ = 0; // thread-local arrays moved to global memory, per master

  std::string globalPoolBlocker() const;
  bool addPoolParameter();
  /// A number naming launch site `id` among all launches of the file (the
  /// host pool's template argument, so that every site has its own buffer).
  int poolSite(int id) const { return id + 1; }
  std::set<const VarDecl *> kernelWrites_; // locals and parameters written anywhere in the kernel
  std::map<const Stmt *, const Stmt *> parent_;

  std::string G() const { return "nestor_np_group"; }
  /// The conjunction of the predicates in force ("" when none).
  std::string predicate() const {
    std::string p;
    for (const std::string &q : preds_) p += (p.empty() ? "" : " && ") + q;
    return p;
  }
  std::string guard() const {
    std::string p = predicate();
    return p.empty() ? G() + "::is_master()" : "(" + p + " && " + G() + "::is_master())";
  }
  /// The predicates of enclosing branches only (nestor_active is left out:
  /// a thread that returned never runs again, so its locals do not matter).
  std::string branchPredicate() const {
    std::string p;
    for (const std::string &q : preds_)
      if (q != "nestor_active") p += (p.empty() ? "" : " && ") + q;
    return p;
  }
  /// Prefix for a condition that holds only while the thread is active.
  std::string activePrefix() const {
    std::string p = predicate();
    return p.empty() ? "" : p + " && ";
  }

  bool fail(std::string why, SourceSpan at = {}) {
    reason_ = std::move(why);
    blocker_ = std::move(at);
    return false;
  }
  std::string lineOf(const SourceSpan &s) const { return "line " + std::to_string(s.begin.line); }
  std::string lineOf(const Stmt *s) const { return lineOf(spanOf(s, ctx_)); }

  unsigned beginOf(const Stmt *s) const { return spanOf(s, ctx_).begin.offset; }
  /// End offset of a statement, including its `;` when the AST range stops before it.
  unsigned endOf(const Stmt *s) const {
    unsigned e = spanOf(s, ctx_).end.offset;
    if (e > 0 && (text_[e - 1] == '}' || text_[e - 1] == ';')) return e;
    size_t i = e;
    while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t')) ++i;
    if (i < text_.size() && text_[i] == ';') return unsigned(i + 1);
    return e;
  }
  void insert(unsigned at, std::string s) { edits_.push_back({at, 0, std::move(s)}); }
  void replace(unsigned b, unsigned e, std::string s) { edits_.push_back({b, e - b, std::move(s)}); }
  /// Replaces [b, e) with text built from editedText() of ranges inside it.
  void replaceAbsorbing(unsigned b, unsigned e, std::string s) {
    edits_.push_back({b, e - b, std::move(s), false, /*absorbs=*/true});
  }
  /// The source of [b, e) with the thread-id renames inside it applied.
  std::string editedText(unsigned b, unsigned e) const {
    std::string out = text_.slice(b, e).str();
    std::vector<const Edit *> inside;
    for (const Edit &ed : edits_)
      if (ed.rename && ed.offset >= b && ed.offset + ed.length <= e) inside.push_back(&ed);
    std::sort(inside.begin(), inside.end(), [](const Edit *x, const Edit *y) { return x->offset > y->offset; });
    for (const Edit *ed : inside) out.replace(ed->offset - b, ed->length, ed->text);
    return out;
  }
  /// Memory read by `reader` and memory touched by `writer` cannot overlap:
  /// every access goes through a named pointer, the pointers differ, and of
  /// each pair one is __restrict__ (the programmer's promise of no aliasing).
  static bool disjointMemory(const Stmt *reader, const Stmt *writer) {
    auto bases = [](const Stmt *root, std::set<const VarDecl *> &out) {
      bool known = true;
      walk(root, [&](const Stmt *s) {
        const Expr *base = nullptr;
        if (auto *as = dyn_cast<ArraySubscriptExpr>(s)) base = as->getBase();
        else if (auto *uo = dyn_cast<UnaryOperator>(s); uo && uo->getOpcode() == UO_Deref) base = uo->getSubExpr();
        else if (auto *me = dyn_cast<MemberExpr>(s); me && me->isArrow()) base = me->getBase();
        else if (auto *ce = dyn_cast<CallExpr>(s); ce && (!ce->getDirectCallee() || !isPureFunction(ce->getDirectCallee()->getName())))
          known = false;
        if (!base) return;
        const VarDecl *vd = refVar(base);
        if (!vd || !vd->getType()->isPointerType()) known = false;
        else out.insert(vd);
      });
      return known;
    };
    std::set<const VarDecl *> r, w;
    if (!bases(reader, r) || !bases(writer, w)) return false;
    for (const VarDecl *a : r)
      for (const VarDecl *b : w)
        if (a == b || (!a->getType().isRestrictQualified() && !b->getType().isRestrictQualified())) return false;
    return true;
  }
  static bool readsMemory(const Stmt *e) {
    Facts fx = factsOf(e);
    return fx.memRead || fx.impureCall;
  }
  std::string editedText(const Stmt *s) const { return editedText(beginOf(s), endOf(s)); }
  std::string editedExpr(const Expr *x) const {
    SourceSpan sp = spanOf(x, ctx_);
    return editedText(sp.begin.offset, sp.end.offset);
  }
  std::string text(const Stmt *s) const { return text_.slice(beginOf(s), endOf(s)).str(); }
  std::string indentOf(const Stmt *s) const { return indentationAt(text_, beginOf(s)); }

  bool isParallel(const Stmt *s) const { return isa<ForStmt>(s) && parallel_.count(cast<ForStmt>(s)); }

  bool plan();
  bool checkKernelAndLaunches();
  bool choosePrallelLoops();
  bool checkCallees();
  bool planArrays();
  bool rewriteThreadIds();
  /// `if (cond)`: text before and after the condition, which keeps its own edits.
  void wrapCondition(const IfStmt *is, const std::string &before, const std::string &after) {
    SourceSpan cs = spanOf(is->getCond(), ctx_);
    insert(cs.begin.offset, before);
    insert(cs.end.offset, after);
  }
  static std::string oneLine(std::string t) {
    for (char &c : t)
      if (c == '\n' || c == '\r') c = ' ';
    return t;
  }
  /// `!(p)` of the predicates in force.
  std::string notPredicate() const { return preds_.size() == 1 ? "!" + preds_[0] : "!(" + predicate() + ")"; }
  bool statement(const Stmt *s, bool &masterWrote, int depth);
  bool enclosingIf(const IfStmt *is, bool &masterWrote, int depth);
  bool enclosingFor(const ForStmt *fs, bool &masterWrote, int depth);
  bool sequentialStatement(const Stmt *s, bool &masterWrote, int depth);
  bool parallelLoop(const ForStmt *fs, const LoopSite &ls, bool &masterWrote);
  /// Does `s` contain (or is it) a loop chosen for distribution?
  bool enclosesParallel(const Stmt *s) const {
    for (auto &[fs, ls] : parallel_)
      for (const Stmt *p = fs; p; p = parentOf(p))
        if (p == s) return true;
    return false;
  }
  const Stmt *parentOf(const Stmt *s) const {
    auto it = parent_.find(s);
    return it == parent_.end() ? nullptr : it->second;
  }
  /// Same value in every thread of the block: parameters and locals never
  /// written (or only by `loopVars`), blockIdx/gridDim/blockDim, constants.
  bool blockUniform(const Stmt *e, const std::set<const VarDecl *> &loopVars) const;
  bool isUniform(const Facts &fx) const {
    if (fx.memRead || fx.impureCall || fx.addrOfLocal || fx.barrier || fx.warp || fx.lambda) return false;
    for (const VarDecl *vd : fx.reads) {
      if (fx.declared.count(vd) || isa<ParmVarDecl>(vd)) continue;
      if (vd->getType()->isArrayType()) return false;
      auto it = masterOnly_.find(vd);
      if (it == masterOnly_.end() || it->second) return false;
    }
    return true;
  }
};

bool NpPlanner::plan() {
  if (t_.kind != RewriteTarget::Kind::Loop || t_.id < 0 || size_t(t_.id) >= m_.loops.size())
    return fail("no loop at this position");
  const LoopSite &l = m_.loops[size_t(t_.id)];
  if (!l.inKernel) return fail("the loop is not inside a __global__ kernel", l.headerSpan);
  kernel_ = m_.findKernel(l.function);
  fd_ = tu_.functionDecl(l.function);
  if (!kernel_ || !fd_ || !fd_->getBody()) return fail("the kernel '" + l.function + "' has no body in this file");
  body_ = dyn_cast<CompoundStmt>(fd_->getBody());
  if (!body_) return fail("the kernel body is not a block");
  {
    std::function<void(const Stmt *)> link = [&](const Stmt *p) {
      for (const Stmt *c : p->children())
        if (c) { parent_[c] = p; link(c); }
    };
    link(body_);
    kernelWrites_ = factsOf(body_).writes;
  }
  if (!checkKernelAndLaunches()) return false;
  if (!choosePrallelLoops()) return false;
  if (!checkCallees()) return false;
  if (!planArrays()) return false;
  if (!rewriteThreadIds()) return false;

  // Early returns at the top level: inter-warp NP predicates instead.
  for (const Stmt *s : body_->body())
    if (auto *is = dyn_cast<IfStmt>(s); is && !cfg_.intra && !is->getElse()) {
      const Stmt *th = is->getThen();
      if (auto *cs = dyn_cast<CompoundStmt>(th); cs && cs->size() == 1) th = cs->body_front();
      if (isa<ReturnStmt>(th)) predicated_ = true;
    }
  if (predicated_) preds_.push_back("nestor_active");

  // Kernel parameters are uniform; every top-level local starts unknown.
  bool masterWrote = false;
  for (const Stmt *s : body_->body())
    if (!statement(s, masterWrote, 0)) return false;

  // Prologue: the group type and the master's original thread ids.
  unsigned S = cfg_.slaves;
  std::string in = "\n" + indentOf(body_->body_empty() ? body_ : body_->body_front());
  std::string pro;
  if (cfg_.intra) {
    pro += in + "// " + cfg_.label + ": master = linear thread / " + std::to_string(S) + ", slave = linear thread % " +
           std::to_string(S) + " (cuda-np.md 3.4, 3.7).";
    pro += in + "using " + G() + " = nestor::np::intra<" + std::to_string(S) + ">;";
    pro += in + "const dim3 nestor_blockDim(blockDim.x / " + std::to_string(S) + ", blockDim.y, blockDim.z);";
    pro += in + "const unsigned nestor_master = " + G() + "::master_id();";
  } else {
    BlockShape b = *block_;
    unsigned M = b.threads();
    pro += in + "// " + cfg_.label + ": block (" + std::to_string(M) + ", " + std::to_string(S) +
           "), master = threadIdx.x, slave = threadIdx.y (cuda-np.md 3.4, 3.7).";
    pro += in + "using " + G() + " = nestor::np::inter<" + std::to_string(M) + ", " + std::to_string(S) + ">;";
    pro += in + "const dim3 nestor_blockDim(" + std::to_string(b.x) + ", " + std::to_string(b.y) + ", " +
           std::to_string(b.z) + ");";
    pro += in + "const unsigned nestor_master = " + G() + "::master_id();";
  }
  pro += in + "const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / "
              "nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));";
  if (predicated_) pro += in + "bool nestor_active = true; // false once the original thread would have returned";
  insert(spanOf(body_->getLBracLoc().getLocWithOffset(0), ctx_).begin.offset + 1, pro);

  // Launch sites: the enlarged block.
  for (int id : kernel_->launchedBy) {
    const LaunchSite &ls = m_.launches[size_t(id)];
    BlockShape b = *constantBlock(tu_, id);
    std::string nb = cfg_.intra ? "dim3(" + std::to_string(b.x * S) + ", " + std::to_string(b.y) + ", " + std::to_string(b.z) + ")"
                                : "dim3(" + std::to_string(b.threads()) + ", " + std::to_string(S) + ", 1)";
    replace(ls.blockSpan.begin.offset, ls.blockSpan.end.offset, nb + " /* " + cfg_.label + ", was " + ls.block + " */");
    if (poolBytesPerMaster_) {
      // The pool of the arrays moved to global memory, sized for this launch.
      const CUDAKernelCallExpr *call = tu_.launchExpr(id);
      unsigned rparen = spanOf(call->getRParenLoc(), ctx_).begin.offset;
      std::string grid = textOf(call->getConfig()->getArg(0), ctx_);
      insert(rparen, std::string(call->getNumArgs() ? ", " : "") + "nestor::np::array_pool<" +
                         std::to_string(poolSite(id)) + ">(dim3(" + grid + "), " + std::to_string(b.threads()) + ", " +
                         std::to_string(poolBytesPerMaster_) + ", \"" + kernel_->name + "\")");
    }
  }
  if (poolBytesPerMaster_ && !addPoolParameter()) return false;
  edits_.push_back({includeReplacement(tu_, "nestor/np.cuh").getOffset(), 0,
                    includeReplacement(tu_, "nestor/np.cuh").getReplacementText().str()});
  return true;
}

bool NpPlanner::checkKernelAndLaunches() {
  const Kernel &k = *kernel_;
  if (!k.isGlobal) return fail("'" + k.name + "' is not a __global__ kernel", k.nameSpan);
  if (!k.warpIntrinsics.empty())
    return fail("the kernel uses " + k.warpIntrinsics.front().name + ": CUDA-NP changes which threads share a warp",
                k.warpIntrinsics.front().span);
  if (!k.cooperativeGroups.empty())
    return fail("the kernel uses cooperative groups: CUDA-NP changes the block shape", k.cooperativeGroups.front().span);
  if (!k.deviceSyncs.empty()) return fail("the kernel synchronises with child launches", k.deviceSyncs.front().span);
  if (k.launchedBy.empty())
    return fail("kernel '" + k.name + "' has no host launch in this file (it is launched from another translation "
                "unit): CUDA-NP must enlarge the block of every launch", k.nameSpan);
  unsigned S = cfg_.slaves;
  for (int id : k.launchedBy) {
    const LaunchSite &ls = m_.launches[size_t(id)];
    if (ls.deviceSide) return fail("kernel '" + k.name + "' is launched from the device (" + lineOf(ls.span) + ")", ls.span);
    auto b = constantBlock(tu_, id);
    if (!b)
      return fail("the block size of the launch at " + lineOf(ls.span) + " ('" + ls.block +
                  "') is not a compile-time constant: the enlarged block cannot be checked", ls.blockSpan);
    if (b->threads() * S > 1024)
      return fail("the launch at " + lineOf(ls.span) + " has " + std::to_string(b->threads()) + " threads per block; with " +
                  std::to_string(S) + " slaves that is " + std::to_string(b->threads() * S) + " > 1024", ls.blockSpan);
    if (k.launchBoundsMaxThreadsValue && b->threads() * S > *k.launchBoundsMaxThreadsValue)
      return fail("the enlarged block (" + std::to_string(b->threads() * S) + " threads) exceeds __launch_bounds__(" +
                  std::to_string(*k.launchBoundsMaxThreadsValue) + ") of '" + k.name + "'", k.nameSpan);
    if (!block_) block_ = b;
    else if (!(*block_ == *b)) {
      if (!cfg_.intra)
        return fail("inter-warp NP needs the same block shape at every launch of '" + k.name + "' (" +
                    lineOf(ls.span) + " differs)", ls.blockSpan);
      block_.reset();
      break;
    }
  }
  Facts fx = factsOf(body_);
  if (fx.launch) return fail("the kernel launches child kernels", spanAt(ctx_, fx.firstBad));
  for (const Stmt *s : body_->body())
    if (auto *ds = dyn_cast<DeclStmt>(s))
      for (const Decl *d : ds->decls())
        if (auto *vd = dyn_cast<VarDecl>(d); vd && vd->isStaticLocal() && !vd->hasAttr<CUDASharedAttr>())
          return fail("static local variable '" + vd->getNameAsString() + "'", spanOf(s, ctx_));
  return true;
}

bool NpPlanner::choosePrallelLoops() {
  const LoopSite &target = m_.loops[size_t(t_.id)];
  auto *targetStmt = dyn_cast_or_null<ForStmt>(tu_.loopStmt(target.id));
  if (!targetStmt) return fail("the loop is not a for loop", target.headerSpan);
  // A distributed loop may sit in branches and sequential `for` loops (which
  // every thread of a group then runs together), not inside another loop
  // that is itself distributed, a while/do loop or a switch.
  auto isPragmaLoop = [&](const LoopSite &l) {
    return l.pragma >= 0 && m_.pragmas[size_t(l.pragma)].isParallelFor && m_.pragmas[size_t(l.pragma)].valid();
  };
  std::map<const Stmt *, const LoopSite *> pragmaLoops;
  for (int id : kernel_->loops)
    if (const LoopSite &l = m_.loops[size_t(id)]; isPragmaLoop(l))
      if (auto *fs = dyn_cast_or_null<ForStmt>(tu_.loopStmt(id))) pragmaLoops[fs] = &l;
  // Why `fs` cannot be distributed where it is ("" when it can).
  auto placement = [&](const ForStmt *fs) -> std::string {
    for (const Stmt *p = parentOf(fs); p && p != body_; p = parentOf(p)) {
      if (pragmaLoops.count(p))
        return "the loop is nested in the parallel loop at " + lineOf(p) + "; apply the rewrite to that loop";
      if (isa<CompoundStmt>(p)) continue;
      if (isa<IfStmt>(p)) continue;
      if (auto *outer = dyn_cast<ForStmt>(p); outer && outer->getBody()) continue;
      return "the loop is nested in a " + statementKind(p) +
             " (only blocks, `if` statements and sequential `for` loops may enclose a distributed loop)";
    }
    return parentOf(fs) ? "" : "the loop is not inside the kernel body";
  };
  if (std::string why = placement(targetStmt); !why.empty()) return fail(why, target.headerSpan);
  parallel_[targetStmt] = &target;
  if (cfg_.allPragmaLoops && cfg_.form == LoopForm::Strided)
    for (auto &[fs, l] : pragmaLoops)
      if (fs != targetStmt && placement(cast<ForStmt>(fs)).empty()) {
        bool nestedInTarget = false;
        for (const Stmt *p = parentOf(fs); p; p = parentOf(p)) nestedInTarget |= p == targetStmt;
        if (!nestedInTarget) parallel_[cast<ForStmt>(fs)] = l;
      }
  for (auto &[fs, ls] : parallel_) {
    if (!ls->barriers.empty()) return fail("the parallel loop contains a barrier", ls->barriers.front());
    if (!ls->returns.empty()) return fail("the parallel loop contains 'return'", ls->returns.front());
    if (!ls->breaks.empty()) return fail("the parallel loop contains 'break'", ls->breaks.front());
    if (!ls->gotos.empty()) return fail("the parallel loop contains 'goto'", ls->gotos.front());
    if (ls->hasWarpIntrinsics) return fail("the parallel loop uses warp-level intrinsics", ls->bodySpan);
    if (ls->gridStride) return fail("the loop is a grid-stride loop (the thread's share of a flat loop)", ls->headerSpan);
    if (cfg_.requireIrregular && ls->tripCount != TripCountClass::Irregular)
      return fail(std::string("the loop's trip count is ") + spelling(ls->tripCount) +
                  ", not irregular: every task has the same length", ls->headerSpan);
  }
  // Outer locals read by parallel loops (for eager broadcast of const ones).
  for (auto &[fs, ls] : parallel_) {
    Facts fx = factsOf(fs);
    for (const VarDecl *vd : fx.reads) liveInAnywhere_.insert(vd);
  }
  return true;
}

bool NpPlanner::checkCallees() {
  Facts fx = factsOf(body_);
  for (const FunctionDecl *fd : fx.userCalls) {
    bool ids = false;
    walk(fd->getBody(), [&](const Stmt *s) {
      if (auto *dr = dyn_cast<DeclRefExpr>(s))
        if (isBuiltinIdVar(dr->getDecl()) && (dr->getDecl()->getName() == "threadIdx" || dr->getDecl()->getName() == "blockDim"))
          ids = true;
      if (auto *ce = dyn_cast<CallExpr>(s); ce && ce->getDirectCallee()) {
        std::string n = ce->getDirectCallee()->getNameAsString();
        if (isBarrierFunction(n) || isWarpFunction(n)) ids = true;
      }
    });
    if (ids)
      return fail("the kernel calls '" + fd->getNameAsString() +
                  "', which reads threadIdx/blockDim or synchronises: it would see the enlarged block",
                  spanOf(fd->getSourceRange(), ctx_));
  }
  return true;
}

bool NpPlanner::planArrays() {
  // Thread-local arrays declared outside the parallel loops (at any depth);
  // those declared inside one are private to an iteration already.
  walk(body_, [&](const Stmt *s) {
    auto *ds = dyn_cast<DeclStmt>(s);
    if (!ds) return;
    for (const Stmt *p = parentOf(s); p; p = parentOf(p))
      if (isParallel(p)) return;
    for (const Decl *d : ds->decls())
      if (auto *vd = dyn_cast<VarDecl>(d); vd && vd->getType()->isConstantArrayType() && !vd->hasAttr<CUDASharedAttr>() &&
                                           !vd->isStaticLocal())
        arrays_[vd] = ArrayPlan{vd, ds};
  });
  // Which arrays parallel loops use, and whether every use is `a[i]` in a
  // strided loop that starts at 0 with step 1 (then slave s owns i % S == s).
  for (auto &[fs, ls] : parallel_) {
    std::string why;
    auto parts = forParts(fs, ctx_, why);
    bool zeroBased = parts && parts->step == 1 && intValue(parts->lower, ctx_) == 0;
    walk(fs, [&](const Stmt *s) {
      if (auto *dr = dyn_cast<DeclRefExpr>(s))
        if (auto *vd = dyn_cast<VarDecl>(dr->getDecl()); vd && arrays_.count(vd)) arrays_[vd].usedInParallel = true;
      if (auto *as = dyn_cast<ArraySubscriptExpr>(s))
        if (const VarDecl *a = refVar(as->getBase()); a && arrays_.count(a))
          if (!zeroBased || !parts || refVar(as->getIdx()) != parts->iv) arrays_[a].registersOk = false;
    });
  }
  // Every reference must be the base of a subscript; references outside
  // parallel loops rule registers out.
  std::set<const DeclRefExpr *> subscripted;
  walk(body_, [&](const Stmt *s) {
    if (auto *as = dyn_cast<ArraySubscriptExpr>(s))
      if (auto *dr = dyn_cast<DeclRefExpr>(as->getBase()->IgnoreParenImpCasts())) subscripted.insert(dr);
  });
  walk(body_, [&](const Stmt *s) {
    auto *dr = dyn_cast<DeclRefExpr>(s);
    if (!dr) return;
    auto *vd = dyn_cast<VarDecl>(dr->getDecl());
    if (!vd || !arrays_.count(vd)) return;
    if (!subscripted.count(dr)) arrays_[vd].onlySubscripts = false;
    bool inParallel = false;
    unsigned off = spanOf(dr, ctx_).begin.offset;
    for (auto &[fs, ls] : parallel_)
      if (off >= beginOf(fs) && off < endOf(fs)) inParallel = true;
    if (!inParallel) arrays_[vd].registersOk = false;
  });
  uint64_t baselineShared = 0;
  for (const SharedDecl &sd : kernel_->shared) baselineShared += sd.sizeBytes;
  for (auto &[vd, ap] : arrays_) {
    if (!ap.usedInParallel) continue;
    SourceSpan at = spanOf(ap.decl, ctx_);
    const auto *cat = ctx_.getAsConstantArrayType(vd->getType());
    if (!cat || !cat->getElementType()->isScalarType())
      return fail("local array '" + vd->getNameAsString() + "' is not a one-dimensional array of scalars", at);
    if (vd->hasInit()) return fail("local array '" + vd->getNameAsString() + "' has an initialiser", at);
    if (!ap.decl->isSingleDecl()) return fail("local array '" + vd->getNameAsString() + "' shares its declaration", at);
    if (!ap.onlySubscripts)
      return fail("local array '" + vd->getNameAsString() + "' is used other than as `a[i]` (passed, or its address taken)", at);
    uint64_t n = cat->getSize().getZExtValue();
    uint64_t bytes = n * ctx_.getTypeSizeInChars(cat->getElementType()).getQuantity();
    std::string et = typeText(cat->getElementType(), ctx_);
    std::string name = vd->getNameAsString();
    std::string repl;
    if (ap.registersOk) {
      ap.home = "registers";
      repl = "NESTOR_NP_ARRAY_REGISTERS(" + G() + ", " + et + ", " + name + ", " + std::to_string(n) + "); // " +
             std::to_string(bytes) + " bytes, indexed only by the iterator: partitioned over the slaves (cuda-np.md 3.3)";
    } else {
      if (!block_)
        return fail("local array '" + name + "' must move to shared memory, which needs one block size at every launch", at);
      uint64_t masters = block_->threads();
      uint64_t perMaster = baselineShared / masters;
      const uint64_t budget = 384; // cuda-np.md 3.3, as nestor::np::choose_array_home
      if (bytes < (perMaster < budget ? budget - perMaster : 0)) {
        ap.home = "shared";
        repl = "NESTOR_NP_ARRAY_SHARED(" + G() + ", " + et + ", " + name + ", " + std::to_string(n) + ", " +
               std::to_string(masters) + "); // " + std::to_string(bytes) + " bytes < 384 - " + std::to_string(perMaster) +
               " per master: shared memory (cuda-np.md 3.3)";
      } else {
        // Global memory (cuda-np.md 3.3): a region of the pool the host
        // passes in, interleaved across the masters of each block.
        if (std::string why = globalPoolBlocker(); !why.empty())
          return fail("local array '" + name + "' (" + std::to_string(bytes) +
                          " bytes) is not indexed only by the loop iterator and exceeds the 384-byte shared-memory "
                          "budget, so it would move to global memory, but " + why,
                      at);
        ap.home = "global";
        repl = "NESTOR_NP_ARRAY_GLOBAL_AT(" + G() + ", " + et + ", " + name + ", " + std::to_string(n) +
               ", nestor_np_pool, " + std::to_string(poolBytesPerMaster_) + "); // " + std::to_string(bytes) +
               " bytes: over the shared-memory budget, global memory (cuda-np.md 3.3)";
        poolBytesPerMaster_ += (bytes + 15) / 16 * 16;
      }
    }
    replace(beginOf(ap.decl), endOf(ap.decl), repl);
  }
  return true;
}

// Why the kernel cannot take a pool of global memory from its launches ("" if it can).
std::string NpPlanner::globalPoolBlocker() const {
  if (fd_->getPreviousDecl() || fd_->isTemplateInstantiation() || fd_->getDescribedFunctionTemplate())
    return "the kernel is a template or declared more than once, and the pool is a new kernel parameter";
  for (int id : kernel_->launchedBy) {
    const CUDAKernelCallExpr *call = tu_.launchExpr(id);
    if (!call || !call->getConfig()) return "a launch of the kernel is not visible";
    const CallExpr *cfg = call->getConfig();
    if (cfg->getNumArgs() >= 4 && !isa<CXXDefaultArgExpr>(cfg->getArg(3))) {
      const Expr *st = cfg->getArg(3)->IgnoreParenImpCasts();
      bool defaultStream = isa<CXXNullPtrLiteralExpr, GNUNullExpr>(st) || intValue(st, ctx_) == std::optional<long long>(0);
      if (!defaultStream)
        return "the launch at " + lineOf(spanOf(call, ctx_)) + " names a stream: one pool per launch site is safe only "
               "for launches that run in order (the default stream)";
    }
    Facts fg = factsOf(cfg->getArg(0));
    if (fg.memWrite || !fg.writes.empty() || fg.impureCall || fg.launch)
      return "the grid of the launch at " + lineOf(spanOf(call, ctx_)) + " has side effects or calls a function, and "
             "the pool size evaluates it again; compute the grid into a variable first";
  }
  // Any other use of the kernel (its address, cudaLaunchKernel) would miss the new parameter.
  std::set<const Expr *> callees;
  for (int id : kernel_->launchedBy)
    if (const CUDAKernelCallExpr *call = tu_.launchExpr(id)) callees.insert(call->getCallee()->IgnoreParenImpCasts());
  std::string other;
  auto check = [&](const Stmt *st) {
    if (auto *dr = dyn_cast<DeclRefExpr>(st);
        dr && dr->getDecl()->getCanonicalDecl() == fd_->getCanonicalDecl() && !callees.count(dr))
      other = lineOf(spanOf(dr, ctx_));
  };
  std::function<void(const Decl *)> visit = [&](const Decl *d) {
    if (!other.empty()) return;
    if (auto *ftd = dyn_cast<FunctionTemplateDecl>(d)) d = ftd->getTemplatedDecl();
    if (auto *fd = dyn_cast<FunctionDecl>(d); fd && fd->hasBody()) walk(fd->getBody(), check);
    if (isa<NamespaceDecl, LinkageSpecDecl, CXXRecordDecl>(d))
      for (const Decl *c : cast<DeclContext>(d)->decls()) visit(c);
  };
  for (const Decl *d : tu_.topLevelDecls()) visit(d);
  if (!other.empty()) return "the kernel is used other than by a <<<>>> launch at " + other + ", which would miss the pool parameter";
  return "";
}

bool NpPlanner::addPoolParameter() {
  FunctionTypeLoc ftl = fd_->getFunctionTypeLoc();
  if (!ftl) return fail("cannot find the kernel's parameter list", kernel_->nameSpan);
  unsigned rparen = spanOf(ftl.getRParenLoc(), ctx_).begin.offset;
  if (fd_->getNumParams() == 0) {
    unsigned lparen = spanOf(ftl.getLParenLoc(), ctx_).begin.offset + 1;
    replace(lparen, rparen, "void *nestor_np_pool");
  } else {
    insert(rparen, ", void *nestor_np_pool /* " + cfg_.label + ": global memory for thread-local arrays */");
  }
  return true;
}

bool NpPlanner::rewriteThreadIds() {
  std::set<unsigned> done;
  bool macro = false;
  SourceSpan macroAt;
  walk(body_, [&](const Stmt *s) {
    auto *dr = dyn_cast<DeclRefExpr>(s);
    if (!dr || !isBuiltinIdVar(dr->getDecl())) return;
    llvm::StringRef n = dr->getDecl()->getName();
    if (n != "threadIdx" && n != "blockDim") return;
    if (dr->getBeginLoc().isMacroID()) { macro = true; macroAt = spanOf(dr, ctx_); return; }
    unsigned off = spanOf(dr, ctx_).begin.offset;
    if (!done.insert(off).second) return;
    edits_.push_back({off, unsigned(n.size()), "nestor_" + n.str(), /*rename=*/true});
  });
  if (macro) return fail("threadIdx/blockDim is used inside a macro expansion; expand the macro first", macroAt);
  return true;
}

bool NpPlanner::statement(const Stmt *s, bool &masterWrote, int depth) {
  if (isParallel(s)) {
    auto *fs = cast<ForStmt>(s);
    return parallelLoop(fs, *parallel_[fs], masterWrote);
  }
  if (!enclosesParallel(s)) return sequentialStatement(s, masterWrote, depth);
  if (auto *cs = dyn_cast<CompoundStmt>(s)) {
    for (const Stmt *c : cs->body())
      if (!statement(c, masterWrote, depth + 1)) return false;
    return true;
  }
  if (auto *is = dyn_cast<IfStmt>(s)) return enclosingIf(is, masterWrote, depth);
  if (auto *fs = dyn_cast<ForStmt>(s)) return enclosingFor(fs, masterWrote, depth);
  return fail("a " + statementKind(s) + " encloses a parallel loop", spanOf(s, ctx_));
}

bool NpPlanner::blockUniform(const Stmt *e, const std::set<const VarDecl *> &loopVars) const {
  bool ok = true;
  walk(e, [&](const Stmt *s) {
    if (auto *dr = dyn_cast<DeclRefExpr>(s)) {
      auto *vd = dyn_cast<VarDecl>(dr->getDecl());
      if (!vd) return;
      if (isBuiltinIdVar(vd)) {
        if (vd->getName() == "threadIdx") ok = false;
        return;
      }
      if (!isLocalVar(vd)) return; // constants; memory reads are refused below
      if (loopVars.count(vd)) return;
      if (kernelWrites_.count(vd) || vd->getType()->isArrayType() || vd->getType()->isReferenceType()) { ok = false; return; }
      if (isa<ParmVarDecl>(vd)) return;
      // A local written only by its initialiser: uniform when that is.
      if (!vd->getInit() || !blockUniform(vd->getInit(), loopVars)) ok = false;
    }
  });
  Facts fx = factsOf(e);
  return ok && !fx.memRead && !fx.impureCall && !fx.barrier && !fx.warp && !fx.launch && !fx.lambda && !fx.memWrite;
}

bool NpPlanner::enclosingIf(const IfStmt *is, bool &masterWrote, int depth) {
  const SourceSpan at = spanOf(is, ctx_);
  if (is->getInit() || is->getConditionVariable() || is->isConstexpr() || is->isConsteval())
    return fail("an `if` with an initialiser or a declaration encloses a parallel loop", at);
  Facts fc = factsOf(is->getCond());
  if (fc.memWrite || !fc.writes.empty() || fc.barrier || fc.warp || fc.launch || fc.lambda)
    return fail("the condition of the `if` enclosing a parallel loop has side effects", spanOf(is->getCond(), ctx_));
  const std::string cond = oneLine(textOf(is->getCond(), ctx_));
  const SourceSpan cs = spanOf(is->getCond(), ctx_);
  const bool uniform = isUniform(fc);
  // The master decides; its slaves follow (read_from_master reaches every thread).
  const std::string decidedPrefix = G() + "::read_from_master(" + guard() + " ? bool(", decidedSuffix = ") : false)";
  bool wroteThen = masterWrote, wroteElse = masterWrote;
  if (cfg_.intra) {
    // Every member of a group takes the master's branch.
    if (!uniform) wrapCondition(is, decidedPrefix, decidedSuffix);
    if (!statement(is->getThen(), wroteThen, depth + 1)) return false;
    if (is->getElse() && !statement(is->getElse(), wroteElse, depth + 1)) return false;
    masterWrote = wroteThen || wroteElse;
    return true;
  }
  // Inter-warp: every thread of the block runs both branches, predicated.
  const std::string p = "nestor_if_" + std::to_string(ifCount_++);
  const std::string prefix = uniform ? (preds_.empty() ? "bool(" : predicate() + " && bool(") : decidedPrefix;
  const std::string suffix = uniform ? ")" : decidedSuffix;
  const std::string in = indentOf(is);
  replace(beginOf(is), cs.begin.offset,
          "{ // was: if (" + cond + "): inter-warp NP predicates the branch (every thread reaches the group barriers)\n" +
              in + "const bool " + p + " = " + prefix);
  replace(cs.end.offset, beginOf(is->getThen()), suffix + ";\n" + in);
  preds_.push_back(p);
  bool ok = statement(is->getThen(), wroteThen, depth + 1);
  preds_.pop_back();
  if (!ok) return false;
  if (const Stmt *el = is->getElse()) {
    replace(endOf(is->getThen()), beginOf(el), "\n" + in + "// else\n" + in);
    preds_.push_back("!" + p);
    ok = statement(el, wroteElse, depth + 1);
    preds_.pop_back();
    if (!ok) return false;
  }
  insert(endOf(is), "\n" + in + "}");
  masterWrote = wroteThen || wroteElse;
  return true;
}

bool NpPlanner::enclosingFor(const ForStmt *fs, bool &masterWrote, int depth) {
  const SourceSpan at = spanOf(fs, ctx_);
  if (fs->getConditionVariable()) return fail("a `for` with a condition variable encloses a parallel loop", at);
  // The loop's variables: declared in the header or assigned by its init.
  std::set<const VarDecl *> loopVars;
  Facts fi = factsOf(fs->getInit()), fc = factsOf(fs->getCond()), fn = factsOf(fs->getInc());
  for (const VarDecl *vd : fi.declared) loopVars.insert(vd);
  for (const VarDecl *vd : fi.writes) loopVars.insert(vd);
  for (const Facts *f : {&fi, &fc, &fn})
    if (f->memWrite || f->barrier || f->warp || f->launch || f->lambda || f->impureCall)
      return fail("the header of the `for` loop enclosing a parallel loop has side effects or calls", at);
  for (const VarDecl *vd : fc.writes)
    return fail("the condition of the enclosing `for` loop writes '" + vd->getNameAsString() + "'", at);
  for (const VarDecl *vd : fn.writes)
    if (!loopVars.count(vd))
      return fail("the increment of the enclosing `for` loop writes '" + vd->getNameAsString() + "'", at);
  Facts fb = factsOf(fs->getBody());
  for (const VarDecl *vd : fb.writes)
    if (loopVars.count(vd))
      return fail("the body of the enclosing `for` loop writes its variable '" + vd->getNameAsString() +
                  "'; every thread of a group must run the same iterations", at);
  if (!cfg_.intra)
    for (const Stmt *h : {(const Stmt *)fs->getInit(), (const Stmt *)fs->getCond(), (const Stmt *)fs->getInc()})
      if (h && !blockUniform(h, loopVars))
        return fail("inter-warp NP needs the `for` loop enclosing a parallel loop to run the same iterations in every "
                    "thread of the block (its header reads per-thread values); use np_type(intra)",
                    spanOf(h, ctx_));
  // All threads run the header: the loop variables are group-uniform when
  // the header reads only group-uniform values (checked after the body).
  auto headerUniform = [&] {
    for (const Facts *f : {&fi, &fc, &fn})
      for (const VarDecl *vd : f->reads)
        if (!loopVars.count(vd) && !f->declared.count(vd) && !isa<ParmVarDecl>(vd)) {
          auto it = masterOnly_.find(vd);
          if (it == masterOnly_.end() || it->second) return false;
        }
    return !fi.memRead && !fc.memRead && !fn.memRead;
  };
  if (!headerUniform())
    return fail("the header of the `for` loop enclosing a parallel loop reads memory or values the master alone computes", at);
  for (const VarDecl *vd : loopVars) masterOnly_[vd] = false;
  // The body runs again after its own end: plan it with the state at the
  // loop head joined with the state at the end of the body, until it holds.
  const size_t mark = edits_.size();
  const int ifMark = ifCount_;
  auto joined = masterOnly_;
  bool joinedWrote = masterWrote;
  for (int round = 0;; ++round) {
    edits_.resize(mark);
    ifCount_ = ifMark;
    masterOnly_ = joined;
    bool wrote = joinedWrote;
    if (!statement(fs->getBody(), wrote, depth + 1)) return false;
    bool changed = false;
    for (auto &[vd, mo] : masterOnly_)
      if (mo && !fb.declared.count(vd) && joined.count(vd) && !joined[vd]) { joined[vd] = true; changed = true; }
    if (wrote && !joinedWrote) { joinedWrote = true; changed = true; }
    if (!changed) {
      masterWrote = wrote || joinedWrote;
      break;
    }
    if (round == 3) return fail("internal error: the enclosing loop's state did not settle", at);
  }
  if (!headerUniform())
    return fail("the `for` loop enclosing a parallel loop reads values that its body computes on the master alone", at);
  return true;
}

bool NpPlanner::sequentialStatement(const Stmt *s, bool &masterWrote, int depth) {
  const SourceSpan at = spanOf(s, ctx_);
  if (isa<NullStmt>(s)) return true;
  if (auto *ce = dyn_cast<CallExpr>(s); ce && ce->getDirectCallee() && ce->getDirectCallee()->getName() == "__syncthreads") {
    masterWrote = false; // every thread of the enlarged block reaches it
    return true;
  }
  if (auto *ds = dyn_cast<DeclStmt>(s)) {
    for (const Decl *d : ds->decls()) {
      auto *vd = dyn_cast<VarDecl>(d);
      if (!vd) continue;
      if (vd->hasAttr<CUDASharedAttr>() || arrays_.count(vd)) continue;
      if (!vd->hasInit()) { masterOnly_[vd] = false; continue; }
      Facts fx = factsOf(vd->getInit());
      if (fx.barrier || fx.warp || fx.launch || fx.lambda)
        return fail("a declaration outside the parallel loops synchronises or uses warp intrinsics", at);
      if (isUniform(fx) && !fx.memWrite && fx.writes.empty()) { masterOnly_[vd] = false; continue; }
      if (!ds->isSingleDecl())
        return fail("'" + vd->getNameAsString() + "' is initialised from memory or a call in a multi-variable declaration; "
                    "split the declaration", at);
      if (vd->getType()->isReferenceType()) return fail("reference '" + vd->getNameAsString() + "'", at);
      std::string zero = zeroOf(vd->getType(), ctx_);
      if (zero.empty()) return fail("'" + vd->getNameAsString() + "' is not a scalar", at);
      const Expr *init = vd->getInit();
      if (auto *ewc = dyn_cast<ExprWithCleanups>(init)) init = ewc->getSubExpr();
      // (guard ? (T)(init) : 0), the initialiser kept in place with its own edits.
      bool eager = liveInAnywhere_.count(vd) && vd->getType().isConstQualified();
      SourceSpan is = spanOf(init, ctx_);
      insert(is.begin.offset, std::string(eager ? G() + "::read_from_master" : "") + "(" + guard() + " ? (" +
                                  typeText(vd->getType(), ctx_) + ")(");
      insert(is.end.offset, ") : " + zero + ")");
      masterOnly_[vd] = !eager;
      if (fx.memWrite || fx.impureCall) masterWrote = true;
    }
    return true;
  }
  if (auto *is = dyn_cast<IfStmt>(s); is && !is->getElse() && !is->getInit() && !is->getConditionVariable()) {
    const Stmt *th = is->getThen();
    if (auto *cs = dyn_cast<CompoundStmt>(th); cs && cs->size() == 1) th = cs->body_front();
    if (auto *rs = dyn_cast<ReturnStmt>(th); rs && !rs->getRetValue() && !cfg_.intra && depth > 0)
      return fail("inter-warp NP cannot return from inside a statement that encloses a parallel loop (every thread "
                  "must reach the block barriers after it); use np_type(intra)",
                  at);
    if (auto *rs = dyn_cast<ReturnStmt>(th); rs && !rs->getRetValue() && (cfg_.intra || depth == 0)) {
      Facts fx = factsOf(is->getCond());
      if (fx.barrier || fx.warp || fx.launch || fx.memWrite || !fx.writes.empty())
        return fail("the early-return condition has side effects", at);
      std::string cond = textOf(is->getCond(), ctx_);
      bool uniform = isUniform(fx);
      if (cfg_.intra) {
        // The whole group (master and slaves) returns together.
        if (!uniform) wrapCondition(is, G() + "::read_from_master(" + guard() + " ? bool(", ") : false)");
        return true;
      }
      // The broadcast contains barriers: it must come first, where `&&` cannot
      // skip it for threads that are already inactive. The condition stays in
      // place so that its own edits (thread ids) apply.
      SourceSpan cs = spanOf(is->getCond(), ctx_);
      const std::string was = "; // was: " + oneLine(text(s)) + " (inter-warp NP keeps every thread for the block barriers)";
      if (uniform) {
        replace(beginOf(s), cs.begin.offset, "nestor_active = nestor_active && !(");
        replace(cs.end.offset, endOf(s), ")" + was);
      } else {
        replace(beginOf(s), cs.begin.offset, "nestor_active = !" + G() + "::read_from_master(" + guard() + " ? bool(");
        replace(cs.end.offset, endOf(s), ") : false) && nestor_active" + was);
      }
      return true;
    }
  }
  if (auto *rs = dyn_cast<ReturnStmt>(s); rs && depth == 0 && s == body_->body_back()) return true;
  Facts fx = factsOf(s);
  if (fx.ret) return fail("'return' inside a sequential statement (only top-level `if (cond) return;` is supported)",
                          spanAt(ctx_, fx.firstBad));
  if (fx.barrier) return fail("a barrier nested inside a sequential statement would be reached by masters only",
                              spanAt(ctx_, fx.firstBad));
  if (fx.warp) return fail("warp-level intrinsic in a sequential section", spanAt(ctx_, fx.firstBad));
  if (fx.jump) return fail("goto/break/continue crossing a sequential statement", spanAt(ctx_, fx.firstBad));
  if (fx.lambda) return fail("lambda in a sequential section", spanAt(ctx_, fx.firstBad));
  for (const VarDecl *vd : fx.writes)
    if (arrays_.count(vd) == 0 && masterOnly_.count(vd) == 0 && !isa<ParmVarDecl>(vd) && !fx.declared.count(vd))
      return fail("statement writes '" + vd->getNameAsString() + "', declared in a nested scope", at);
  if (isUniform(fx) && !fx.memWrite && !fx.impureCall) {
    for (const VarDecl *vd : fx.writes) masterOnly_[vd] = false; // every member computes the same value (3.1)
    // Under a branch predicate (inter-warp), threads outside the branch run
    // on afterwards: they must not take the branch's assignments.
    if (std::string bp = branchPredicate(); !bp.empty() && !fx.writes.empty()) {
      insert(beginOf(s), "if (" + bp + ") { ");
      insert(endOf(s), " }");
    }
    return true;
  }
  // Masters only.
  for (const VarDecl *vd : fx.writes)
    if (masterOnly_.count(vd)) masterOnly_[vd] = true;
  for (const VarDecl *vd : fx.writes)
    if (isa<ParmVarDecl>(vd))
      return fail("statement writes kernel parameter '" + vd->getNameAsString() + "' from memory", at);
  if (fx.memWrite || fx.impureCall) masterWrote = true;
  insert(beginOf(s), "if (" + guard() + ") { ");
  insert(endOf(s), " }");
  return true;
}

bool NpPlanner::parallelLoop(const ForStmt *fs, const LoopSite &ls, bool &masterWrote) {
  std::string why;
  auto parts = forParts(fs, ctx_, why);
  if (!parts) return fail(why, ls.headerSpan);
  const unsigned S = cfg_.slaves;
  const std::string Ss = std::to_string(S);
  const std::string in = indentOf(fs);
  const VarDecl *iv = parts->iv;
  const std::string ivName = iv->getNameAsString();

  // The loop variable must not be live after the loop.
  if (!parts->ivDeclared) {
    bool usedAfter = false;
    walk(body_, [&](const Stmt *s) {
      if (auto *dr = dyn_cast<DeclRefExpr>(s); dr && dr->getDecl() == iv && beginOf(dr) >= endOf(fs)) {
        // a later loop that re-initialises it is fine
        usedAfter = true;
      }
    });
    if (usedAfter) {
      bool reinit = true;
      walk(body_, [&](const Stmt *s) {
        auto *dr = dyn_cast<DeclRefExpr>(s);
        if (!dr || dr->getDecl() != iv || beginOf(dr) < endOf(fs)) return;
        bool ok = false;
        for (auto &[other, ol] : parallel_) {
          if (other == fs) continue;
          std::string w;
          auto op = forParts(other, ctx_, w);
          if (op && op->iv == iv && beginOf(dr) >= beginOf(other) && beginOf(dr) < endOf(other)) ok = true;
        }
        if (!ok) reinit = false;
      });
      if (!reinit)
        return fail("the loop variable '" + ivName + "' is used after the loop; its final value differs per slave",
                    ls.headerSpan);
    }
  }

  // Reductions and scans: the pragma's clauses, else the inferred ones.
  std::vector<VarOpClause> reds, scans;
  if (ls.pragma >= 0) {
    reds = m_.pragmas[size_t(ls.pragma)].reductions;
    scans = m_.pragmas[size_t(ls.pragma)].scans;
  } else {
    NpPragma p = inferredPragma(ls);
    reds = p.reductions;
    scans = p.scans;
  }
  // The clause names a variable the loop refers to (several scopes may
  // declare the same name).
  const Facts fx = factsOf(fs);
  auto findLocal = [&](const std::string &n) -> const VarDecl * {
    for (const auto *set : {&fx.writes, &fx.reads})
      for (const VarDecl *vd : *set)
        if (vd->getNameAsString() == n && masterOnly_.count(vd)) return vd;
    return nullptr;
  };
  struct Red { const VarDecl *vd; ReductionOp op; };
  std::vector<Red> redVars, scanVars;
  for (auto &c : reds)
    for (auto &v : c.vars) {
      const VarDecl *vd = findLocal(v);
      if (!vd) return fail("reduction variable '" + v + "' is not a scalar local declared before the loop, outside the parallel loops", ls.headerSpan);
      if (!vd->getType()->isArithmeticType()) return fail("reduction variable '" + v + "' is not arithmetic", ls.headerSpan);
      redVars.push_back({vd, c.op});
    }
  for (auto &c : scans)
    for (auto &v : c.vars) {
      const VarDecl *vd = findLocal(v);
      if (!vd) return fail("scan variable '" + v + "' is not a scalar local declared before the loop, outside the parallel loops", ls.headerSpan);
      scanVars.push_back({vd, c.op});
    }
  if (scanVars.size() > 1) return fail("more than one scan variable in one loop", ls.headerSpan);
  if (!scanVars.empty() && cfg_.form != LoopForm::Strided) return fail("scan in a sub-warp loop", ls.headerSpan);

  std::set<std::string> privatized(ls.privatized.begin(), ls.privatized.end());
  std::vector<const VarDecl *> privVars;
  for (const VarDecl *vd : fx.writes) {
    if (vd == iv || fx.declared.count(vd)) continue;
    bool isRed = false;
    for (auto &r : redVars) isRed |= r.vd == vd;
    for (auto &r : scanVars) isRed |= r.vd == vd;
    if (isRed) continue;
    if (arrays_.count(vd)) continue;
    if (privatized.count(vd->getNameAsString()) && masterOnly_.count(vd)) {
      if (!vd->getType()->isArithmeticType())
        return fail("privatized variable '" + vd->getNameAsString() + "' is not arithmetic", ls.headerSpan);
      privVars.push_back(vd);
      continue;
    }
    return fail("the loop writes '" + vd->getNameAsString() +
                "', which is neither a reduction, a scan, nor written first by every iteration", ls.headerSpan);
  }

  // Before the loop: make what the master wrote visible, broadcast live-ins.
  std::string before, after;
  std::string head = "// " + cfg_.label + ": iterations spread over the master and its slaves";
  if (ls.pragma >= 0) {
    const NpPragma &p = m_.pragmas[size_t(ls.pragma)];
    replace(p.span.begin.offset, p.span.end.offset, "// (was: #pragma " + p.text + ")");
  } else {
    head += " (inferred: " + inferredPragma(ls).canonical() + ")";
  }
  before += head + "\n" + in;
  const bool syncBefore = masterWrote;
  if (masterWrote) {
    before += G() + "::sync(); // the slaves read what the masters wrote\n" + in;
    masterWrote = false;
  }
  std::vector<const VarDecl *> bcast;
  for (const VarDecl *vd : fx.reads) {
    if (fx.declared.count(vd) || vd == iv) continue;
    auto it = masterOnly_.find(vd);
    if (it == masterOnly_.end() || !it->second) continue;
    bool isRed = false;
    for (auto &r : redVars) isRed |= r.vd == vd;
    for (auto &p : privVars) isRed |= p == vd;
    if (isRed) continue;
    bcast.push_back(vd);
  }
  std::sort(bcast.begin(), bcast.end(), [&](auto *a, auto *b) { return a->getName() < b->getName(); });
  for (const VarDecl *vd : bcast) {
    if (vd->getType().isConstQualified())
      return fail("const '" + vd->getNameAsString() + "' is computed by the master only and cannot be broadcast", ls.headerSpan);
    before += vd->getNameAsString() + " = " + G() + "::read_from_master(" + vd->getNameAsString() + "); // live-in (3.1)\n" + in;
    masterOnly_[vd] = false;
  }
  before += "{\n" + in;
  for (auto &r : redVars) {
    std::string n = r.vd->getNameAsString(), ty = typeText(r.vd->getType(), ctx_);
    before += "  const " + ty + " nestor_" + n + "_in = " + n + ";\n" + in;
    before += "  " + n + " = " + opFunctor(r.op) + "::identity<" + ty + ">(); // this thread's partial\n" + in;
    after += "\n" + in + "  " + n + " = " + opFunctor(r.op) + "{}(nestor_" + n + "_in, " + G() + "::reduce<" +
             opFunctor(r.op) + ">(" + n + ")); // reduction(" + spelling(r.op) + ":" + n + ") (3.2)";
  }
  if (!privVars.empty()) before += "  const long long nestor_none = -0x7fffffffffffffffLL - 1;\n" + in;
  if (!privVars.empty()) before += "  long long nestor_last_iter = nestor_none; // the last iteration this thread ran\n" + in;
  for (const VarDecl *vd : privVars) {
    std::string n = vd->getNameAsString(), ty = typeText(vd->getType(), ctx_);
    after += "\n" + in + "  { // '" + n + "' keeps the value of the last iteration (3.2): only its owner adds it";
    after += "\n" + in + "    const long long nestor_last = " + G() + "::reduce<nestor::op::max>(nestor_last_iter);";
    after += "\n" + in + "    const " + ty + " nestor_value = " + G() + "::reduce<nestor::op::add>(nestor_last_iter == nestor_last ? " + n +
             " : " + ty + "(0));";
    after += "\n" + in + "    if (nestor_last != nestor_none) " + n + " = nestor_value;";
    after += "\n" + in + "  }";
  }
  after += "\n" + in + "}";
  if (fx.memWrite) {
    after += "\n" + in + G() + "::sync(); // the masters read what the slaves wrote";
  }
  const std::string active = activePrefix();

  if (cfg_.form == LoopForm::SubwarpForEach) {
    SourceSpan where;
    auto mr = matchMapReduce(tu_, ls, why, where);
    if (!mr) return fail(why, where);
    // The tile's lanes hold the same (broadcast) values, so the lambda may capture them.
    const std::string b = editedExpr(mr->beginExpr), e = editedExpr(mr->endExpr);
    // Predicated-off threads pass an empty range without evaluating the bounds.
    const std::string range = preds_.empty() || (!readsMemory(mr->beginExpr) && !readsMemory(mr->endExpr))
                                  ? b + ", " + (preds_.empty() ? e : "(" + predicate() + ") ? " + e + " : " + b)
                                             : "(" + predicate() + ") ? (" + b + ") : 0, (" + predicate() + ") ? (" + e + ") : 0";
    std::string call = mr->acc + " = nestor::subwarp::for_each_index<" + Ss + ">(" + range + ", [=](" + mr->ivType +
                       " " + mr->iv + ") { return " + editedExpr(mr->mappedExpr) + "; }, " + opFunctor(mr->op) + "{}, " +
                       mr->acc + ");";
    // for_each_index reduces over the tile itself.
    before = head + "\n" + in;
    if (syncBefore) before += G() + "::sync(); // the slaves read what the masters wrote\n" + in;
    for (const VarDecl *vd : bcast)
      before += vd->getNameAsString() + " = " + G() + "::read_from_master(" + vd->getNameAsString() + "); // live-in\n" + in;
    replaceAbsorbing(beginOf(fs), endOf(fs), before + call);
    return true;
  }

  if (!scanVars.empty()) {
    // Padded rounds so that every member steps the scanner together (runtime-loops.md).
    if (parts->step != 1) return fail("a scan loop must have step 1", ls.headerSpan);
    if (!parts->ivDeclared) return fail("a scan loop must declare its variable in the header", ls.headerSpan);
    auto *cs = dyn_cast<CompoundStmt>(fs->getBody());
    std::vector<const Stmt *> stmts;
    if (cs) stmts.assign(cs->body_begin(), cs->body_end());
    else stmts.push_back(fs->getBody());
    const VarDecl *acc = scanVars[0].vd;
    size_t k = 0;
    std::optional<std::pair<ReductionOp, const Expr *>> upd;
    for (; k < stmts.size(); ++k)
      if ((upd = matchUpdate(stmts[k], acc))) break;
    if (!upd) return fail("no `" + acc->getNameAsString() + " OP= x` update at the top level of the loop body", ls.bodySpan);
    if (upd->first != scanVars[0].op) return fail("the scan update's operator differs from the clause", ls.bodySpan);
    std::string ty = typeText(acc->getType(), ctx_), ivTy = typeText(iv->getType(), ctx_);
    std::string op = opFunctor(upd->first);
    std::string n = acc->getNameAsString();
    std::string lower = editedExpr(parts->lower), upper = editedExpr(parts->upper);
    std::string out = before;
    out += "  " + G() + "::scanner<" + op + ", " + ty + "> nestor_scan(" + n + "); // scan(" + spelling(upd->first) +
           ":" + n + ") in iteration order (3.2)\n" + in;
    if (preds_.empty() || (!readsMemory(parts->lower) && !readsMemory(parts->upper)))
      out += "  const long long nestor_lo = (long long)(" + lower + "), nestor_hi = (long long)(" + upper + ")" +
             (parts->inclusive ? " + 1" : "") + ";\n" + in;
    else // predicated-off threads do not evaluate the bounds
      out += "  const long long nestor_lo = " + predicate() + " ? (long long)(" + lower + ") : 0LL, nestor_hi = " +
             predicate() + " ? (long long)(" + upper + ")" + (parts->inclusive ? " + 1" : "") + " : 0LL;\n" + in;
    out += "  const long long nestor_rounds = " + G() + "::loop_rounds(" + (preds_.empty() ? "" : notPredicate() + " ? 0LL : ") +
           "(nestor_hi > nestor_lo ? nestor_hi - nestor_lo : 0LL));\n" + in;
    out += "  for (long long nestor_round = 0; nestor_round < nestor_rounds; ++nestor_round) {\n" + in;
    out += "    " + ivTy + " " + ivName + " = (" + ivTy + ")(nestor_lo + nestor_round * " + Ss + " + " + G() + "::slave_id());\n" + in;
    out += "    const bool nestor_valid = " + active + "(long long)" + ivName + " < nestor_hi;\n" + in;
    // Leading declarations compute the scanned value; the statements between
    // them and the update (exclusive order: `out[i] = acc; acc += x;`) see
    // the value before this iteration's update, those after it the value after.
    size_t d = 0;
    while (d < k && isa<DeclStmt>(stmts[d])) ++d;
    for (size_t j = 0; j < d; ++j) {
      auto *ds = cast<DeclStmt>(stmts[j]);
      const VarDecl *vd = ds->isSingleDecl() ? dyn_cast<VarDecl>(ds->getSingleDecl()) : nullptr;
      if (!vd || !vd->getInit() || zeroOf(vd->getType(), ctx_).empty())
        return fail("only scalar declarations may precede the scan update in the loop body", spanOf(stmts[j], ctx_));
      if (factsOf(vd->getInit()).reads.count(acc))
        return fail("'" + vd->getNameAsString() + "' reads the scan variable before its update: not a scan",
                    spanOf(stmts[j], ctx_));
      out += "    " + typeText(vd->getType(), ctx_) + " " + vd->getNameAsString() + " = nestor_valid ? (" +
             editedExpr(vd->getInit()) + ") : " + zeroOf(vd->getType(), ctx_) + ";\n" + in;
    }
    const Facts fv = factsOf(upd->second);
    if (fv.reads.count(acc)) return fail("the scanned value reads the scan variable", spanOf(upd->second, ctx_));
    // The scanned values are computed before the exclusive-order statements
    // run: they must not read what those statements write.
    for (size_t j = d; j < k; ++j) {
      const SourceSpan at = spanOf(stmts[j], ctx_);
      if (isa<DeclStmt>(stmts[j]))
        return fail("a declaration between the use of the scan variable and its update; move it before the use", at);
      Facts fe = factsOf(stmts[j]);
      if (fe.writes.count(acc)) return fail("the loop writes the scan variable outside its update", at);
      if (fe.ret || fe.jump || fe.barrier || fe.warp || fe.launch || fe.lambda)
        return fail("a statement before the scan update jumps, returns or synchronises", at);
      for (const VarDecl *w : fe.writes)
        if (fv.reads.count(w))
          return fail("the scanned value reads '" + w->getNameAsString() + "', which the statement before the update writes", at);
      if ((fe.memWrite || fe.impureCall) && (fv.memRead || fv.impureCall) && !disjointMemory(upd->second, stmts[j]))
        return fail("the scanned value reads memory that the statement before the update may write; read it into a "
                    "local first (`T v = ...; out[i] = acc; acc += v;`) or mark the pointers __restrict__", at);
    }
    for (size_t j = k + 1; j < stmts.size(); ++j)
      if (factsOf(stmts[j]).writes.count(acc))
        return fail("the loop writes the scan variable outside its update", spanOf(stmts[j], ctx_));
    const std::string value = "nestor_valid ? (" + ty + ")(" + editedExpr(upd->second) + ") : " + op + "::identity<" + ty + ">()";
    if (d == k) {
      out += "    " + n + " = nestor_scan.step(" + value + ").inclusive;\n" + in;
    } else {
      out += "    const auto nestor_step = nestor_scan.step(" + value + ");\n" + in;
      out += "    if (nestor_valid) {\n" + in + "      " + n + " = nestor_step.exclusive; // before this iteration's update\n";
      for (size_t j = d; j < k; ++j) out += in + "      " + editedText(stmts[j]) + "\n";
      out += in + "    }\n" + in + "    " + n + " = nestor_step.inclusive;\n" + in;
    }
    if (k + 1 < stmts.size()) {
      out += "    if (nestor_valid) {\n";
      for (size_t j = k + 1; j < stmts.size(); ++j) out += in + "      " + editedText(stmts[j]) + "\n";
      out += in + "    }\n" + in;
    }
    out += "  }\n" + in + "  " + n + " = nestor_scan.total();";
    out += after;
    replaceAbsorbing(beginOf(fs), endOf(fs), out);
    return true;
  }

  // Strided distribution: the bounds stay as written, so runtime trip counts hold.
  insert(beginOf(fs), before);
  SourceSpan initSpan = spanOf(parts->initExpr, ctx_);
  std::string stepTxt = parts->step == 1 ? "" : " * " + std::to_string(parts->step);
  // Inactive threads (predicated) must not evaluate the bounds: they may
  // index past the end of an array (e.g. rowPtr[row] for row >= n).
  const std::string ivZero = "(" + typeText(iv->getType(), ctx_) + ")0";
  const bool guardInit = !preds_.empty() && readsMemory(parts->initExpr);
  insert(initSpan.begin.offset, guardInit ? "(" + predicate() + " ? (" : "(");
  insert(initSpan.end.offset, (guardInit ? ") : " + ivZero + ") + " : ") + ") + G() + "::slave_id()" + stepTxt);
  SourceSpan condSpan = spanOf(fs->getCond(), ctx_);
  if (!preds_.empty()) {
    insert(condSpan.begin.offset, active + "(");
    insert(condSpan.end.offset, ")");
  }
  SourceSpan incSpan = spanOf(fs->getInc(), ctx_);
  replace(incSpan.begin.offset, incSpan.end.offset,
          ivName + " += " + G() + "::slave_size" + (parts->step == 1 ? "" : " * " + std::to_string(parts->step)));
  if (!privVars.empty()) {
    if (auto *cs = dyn_cast<CompoundStmt>(fs->getBody()))
      insert(spanOf(cs->getLBracLoc(), ctx_).begin.offset + 1, " nestor_last_iter = (long long)" + ivName + ";");
    else {
      insert(beginOf(fs->getBody()), "{ nestor_last_iter = (long long)" + ivName + "; ");
      insert(endOf(fs->getBody()), " }");
    }
  }
  insert(endOf(fs), after);
  return true;
}

} // namespace

NpPlan planNp(const AnalyzedTU &tu, const RewriteTarget &t, const NpConfig &cfg) { return NpPlanner(tu, t, cfg).run(); }

} // namespace nestor::loops
