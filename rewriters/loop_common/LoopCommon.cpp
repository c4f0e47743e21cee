// What the loop rewrites share (LoopCommon.h): the map/reduce matcher,
// canonical `for` headers, constant launch blocks and small emitters. Every
// refusal names the construct that blocks the rewrite.
#include "LoopCommon.h"
#include "nestor/DefUse.h"
#include "nestor/StatementEffects.h"

#include "nestor/AstText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include <functional>

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
      if (!vd || !vd->hasInit()) return std::nullopt;
      // A local only its declaration writes (nestor/DefUse.h); a global's initial value.
      if (vd->hasLocalStorage() && !singleDefinition(vd)) return std::nullopt;
      return eval(vd->getInit(), depth + 1);
    }
    return std::nullopt;
  };
  return eval(call->getConfig()->getArg(1), 0);
}

// ---------------------------------------------------------------- map/reduce

std::optional<std::pair<ReductionOp, const Expr *>> matchUpdate(const Stmt *s, const VarDecl *acc) {
  auto r = reductionUpdate(s);
  if (!r || r->var != acc || r->negated) return std::nullopt;
  return std::make_pair(r->op, r->operand);
}

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
             bo && bo->getOpcode() == BO_Assign && referencedVar(bo->getLHS())) {
    p.iv = referencedVar(bo->getLHS());
    p.initExpr = bo->getRHS();
  } else {
    why = "the loop has no `i = begin` initialisation";
    return std::nullopt;
  }
  if (!p.iv->getType()->isIntegerType()) { why = "the loop variable is not an integer"; return std::nullopt; }
  p.lower = p.initExpr;
  auto *cond = dyn_cast_or_null<BinaryOperator>(fs->getCond() ? fs->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || (cond->getOpcode() != BO_LT && cond->getOpcode() != BO_LE) || referencedVar(cond->getLHS()) != p.iv) {
    why = "the loop condition is not `i < end` or `i <= end`";
    return std::nullopt;
  }
  p.upper = cond->getRHS();
  p.inclusive = cond->getOpcode() == BO_LE;
  const Expr *inc = fs->getInc() ? fs->getInc()->IgnoreParenImpCasts() : nullptr;
  if (auto *uo = dyn_cast_or_null<UnaryOperator>(inc); uo && uo->isIncrementOp() && referencedVar(uo->getSubExpr()) == p.iv) {
    p.step = 1;
  } else if (auto *cao = dyn_cast_or_null<CompoundAssignOperator>(inc);
             cao && cao->getOpcode() == BO_AddAssign && referencedVar(cao->getLHS()) == p.iv) {
    p.step = intValue(cao->getRHS(), ctx).value_or(0);
  } else if (auto *bo = dyn_cast_or_null<BinaryOperator>(inc); bo && bo->getOpcode() == BO_Assign && referencedVar(bo->getLHS()) == p.iv) {
    if (auto *rb = dyn_cast<BinaryOperator>(bo->getRHS()->IgnoreParenImpCasts());
        rb && rb->getOpcode() == BO_Add && referencedVar(rb->getLHS()) == p.iv)
      p.step = intValue(rb->getRHS(), ctx).value_or(0);
  }
  if (p.step <= 0) { why = "the loop step is not a positive compile-time constant"; return std::nullopt; }
  return p;
}

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
    acc = referencedVar(bo->getLHS());
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
    if (referencedVar(upd->second) != v) { why = "the update does not combine the mapped value"; return std::nullopt; }
  } else {
    mapped = upd->second;
  }
  StatementEffects fx = effectsOf(mapped, ctx);
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
  m.csrLike = isCsrPair(parts->lower, parts->upper, ctx);
  return m;
}

bool isCsrPair(const Expr *lower, const Expr *upper, const ASTContext &ctx) {
  // Bounds held in locals (`int start = p[v], end = p[v + 1];`) are seen through.
  auto *lb = dyn_cast<ArraySubscriptExpr>(seeThroughLocals(lower)->IgnoreParenImpCasts());
  auto *ub = dyn_cast<ArraySubscriptExpr>(seeThroughLocals(upper)->IgnoreParenImpCasts());
  if (!lb || !ub || textOf(lb->getBase(), ctx) != textOf(ub->getBase(), ctx)) return false;
  std::string q = textOf(lb->getIdx(), ctx), r = textOf(ub->getIdx(), ctx);
  auto strip = [](std::string s) { s.erase(std::remove(s.begin(), s.end(), ' '), s.end()); return s; };
  return strip(r) == strip(q) + "+1" || strip(r) == "1+" + strip(q) || strip(r) == "(" + strip(q) + ")+1";
}

std::optional<KernelRefusal> findLoopKernel(const AnalyzedTU &tu, const LoopSite &l, LoopKernel &out) {
  out.kernel = tu.model().findKernel(l.function);
  out.fd = tu.functionDecl(l.function);
  out.fs = dyn_cast_or_null<ForStmt>(tu.loopStmt(l.id));
  if (!out.kernel || !out.kernel->isGlobal || !out.fd || !out.fd->hasBody() || !out.fs)
    return KernelRefusal{"the kernel '" + l.function + "' was not analysed", l.headerSpan};
  if (out.fd->getDescribedFunctionTemplate() || out.fd->isTemplateInstantiation())
    return KernelRefusal{"'" + out.kernel->name + "' is a template kernel", out.kernel->nameSpan};
  return std::nullopt;
}

} // namespace nestor::loops
