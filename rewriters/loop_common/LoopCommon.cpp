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

#include <algorithm>
#include <cctype>
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

namespace {
/// A launch configuration's block without what wraps the value it names:
/// parentheses, implicit casts, temporaries and `dim3(...)`-style
/// functional casts.
const Expr *withoutTemporaries(const Expr *e) {
  while (e) {
    e = e->IgnoreParenImpCasts();
    if (auto *mt = dyn_cast<MaterializeTemporaryExpr>(e)) e = mt->getSubExpr();
    else if (auto *bt = dyn_cast<CXXBindTemporaryExpr>(e)) e = bt->getSubExpr();
    else if (auto *fc = dyn_cast<CXXFunctionalCastExpr>(e)) e = fc->getSubExpr();
    else break;
  }
  return e;
}

/// A global whose initial value is its value everywhere, in a form
/// blockAsAnalysedCondition can check at the launch: const-qualified (any
/// other global can be written anywhere in the program, at run time: its
/// initial value says nothing about a launch), and either usable in
/// constant expressions (checked by the launch's own spelling) or declared
/// at file scope (checked by what initialises it, whose names are then in
/// scope at the launch; a namespace's names may not be).
bool checkableConstantGlobal(const VarDecl *vd, const ASTContext &ctx) {
  if (!vd->getType().isConstQualified()) return false;
  return vd->isUsableInConstantExpressions(ctx) || vd->getDeclContext()->getRedeclContext()->isTranslationUnit();
}
} // namespace

std::optional<BlockShape> constantBlock(const AnalyzedTU &tu, int launchId) {
  const CUDAKernelCallExpr *call = tu.launchExpr(launchId);
  if (!call || !call->getConfig() || call->getConfig()->getNumArgs() < 2) return std::nullopt;
  const ASTContext &ctx = tu.astContext();
  std::function<std::optional<BlockShape>(const Expr *, int)> eval = [&](const Expr *e, int depth) -> std::optional<BlockShape> {
    e = withoutTemporaries(e);
    if (!e || depth > 4) return std::nullopt;
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
      // A local only its declaration writes (nestor/DefUse.h); a global only
      // when it is a constant blockAsAnalysedCondition can check.
      if (vd->hasLocalStorage() ? !singleDefinition(vd) : !checkableConstantGlobal(vd, ctx)) return std::nullopt;
      return eval(vd->getInit(), depth + 1);
    }
    return std::nullopt;
  };
  return eval(call->getConfig()->getArg(1), 0);
}

namespace {
bool spelledAsLiteral(llvm::StringRef t) {
  t = t.trim();
  while (t.size() >= 2 && t.front() == '(' && t.back() == ')') t = t.drop_front().drop_back().trim();
  if (t.empty() || !llvm::isDigit(t.front())) return false;
  return llvm::all_of(t, [](char c) { return llvm::isAlnum(c) || c == '\''; }); // 128, 0x80, 256u, 1'024
}
} // namespace

std::string blockAsAnalysedCondition(const AnalyzedTU &tu, int launchId, const BlockShape &analysed) {
  const CUDAKernelCallExpr *call = tu.launchExpr(launchId);
  if (!call || !call->getConfig() || call->getConfig()->getNumArgs() < 2) return "";
  const ASTContext &ctx = tu.astContext();
  std::vector<std::string> checks;
  auto dimension = [&](const Expr *e, unsigned value) {
    e = e->IgnoreParenImpCasts();
    // Only a dimension with its own spelling: one inside a macro that spells
    // the whole block (`#define THREADS dim3(16, 16)`) has none to repeat.
    if (fileRange(e->getSourceRange(), ctx).isInvalid()) return;
    std::string t = textOf(e, ctx);
    if (t.empty() || spelledAsLiteral(t) || e->isValueDependent() || !e->getType()->isIntegralOrEnumerationType() ||
        !e->isIntegerConstantExpr(ctx))
      return;
    checks.push_back("(" + t + ") == " + std::to_string(value));
  };
  const unsigned dims[3] = {analysed.x, analysed.y, analysed.z};
  // A whole dim3 with a name of its own (a macro that spells it, a constexpr
  // dim3): each of its dimensions through that name.
  auto wholeDim3 = [&](const Expr *e) {
    if (fileRange(e->getSourceRange(), ctx).isInvalid() || e->isValueDependent() || !e->isCXX11ConstantExpr(ctx)) return;
    std::string t = textOf(e, ctx);
    if (t.empty()) return;
    checks.push_back("dim3(" + t + ").x == " + std::to_string(dims[0]));
    checks.push_back("dim3(" + t + ").y == " + std::to_string(dims[1]));
    checks.push_back("dim3(" + t + ").z == " + std::to_string(dims[2]));
  };
  // The same forms constantBlock evaluates.
  std::function<void(const Expr *, int)> walk = [&](const Expr *e, int depth) {
    e = withoutTemporaries(e);
    if (!e || depth > 4) return;
    if (e->getType()->isIntegralOrEnumerationType() && !isa<DeclRefExpr>(e)) return dimension(e, dims[0]);
    if (auto *ce = dyn_cast<CXXConstructExpr>(e)) {
      // `#define THREADS dim3(16, 16)`: its dimensions have no spelling of
      // their own to repeat, the macro has (an integer macro converted to a
      // dim3, with no parentheses of the dim3's own, is one dimension).
      if (ce->getBeginLoc().isMacroID() && ce->getParenOrBraceRange().isValid()) return wholeDim3(ce);
      if (ce->getNumArgs() == 1 && ce->getConstructor()->isCopyOrMoveConstructor()) return walk(ce->getArg(0), depth);
      for (unsigned i = 0; i < ce->getNumArgs() && i < 3; ++i)
        if (!isa<CXXDefaultArgExpr>(ce->getArg(i))) dimension(ce->getArg(i), dims[i]);
      return;
    }
    if (auto *dr = dyn_cast<DeclRefExpr>(e)) {
      // A named integer constant is checked by its name, a constexpr dim3 by
      // its dimensions; a local dim3 or integer variable, or a const global
      // dim3 at file scope, by what initialises it (its names are in scope
      // at the launch, which its own declaration precedes).
      if (e->getType()->isIntegralOrEnumerationType() && e->isIntegerConstantExpr(ctx)) return dimension(e, dims[0]);
      auto *vd = dyn_cast<VarDecl>(dr->getDecl());
      if (!vd || !vd->hasInit()) return;
      if (!vd->hasLocalStorage() && vd->isUsableInConstantExpressions(ctx)) return wholeDim3(e);
      return walk(vd->getInit(), depth + 1);
    }
  };
  walk(call->getConfig()->getArg(1), 0);
  std::string all;
  for (const std::string &c : checks) all += (all.empty() ? "" : " && ") + c;
  return all;
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

std::string MapReduceLoop::mappedText(const std::function<std::string(unsigned, unsigned)> &source) const {
  std::string out;
  for (const Piece &p : mappedPieces) out += p.source ? source(p.begin, p.end) : p.literal;
  return out;
}

namespace {

/// Operators whose identity is zero in every arithmetic type: a conditional
/// update `if (c) acc OP= x` folds `c ? x : 0` (for `||`, 0 is false).
bool zeroIdentity(ReductionOp op) {
  return op == ReductionOp::Add || op == ReductionOp::BitOr || op == ReductionOp::BitXor || op == ReductionOp::LogicalOr;
}

/// The variable `s` assigns (`acc = ...`, `acc OP= ...`) or, when `incDec`,
/// steps (`++acc`, `acc--`).
const VarDecl *updatedVar(const Stmt *s, bool incDec) {
  auto *e = dyn_cast_or_null<Expr>(s);
  if (!e) return nullptr;
  e = e->IgnoreParens();
  if (auto *bo = dyn_cast<BinaryOperator>(e)) return referencedVar(bo->getLHS());
  if (auto *uo = dyn_cast<UnaryOperator>(e); incDec && uo && uo->isIncrementDecrementOp())
    return referencedVar(uo->getSubExpr());
  return nullptr;
}

/// Whole-word occurrences of `name` in `text` (an identifier written where
/// the AST holds no reference to the variable: `decltype(w)`, a macro's body).
size_t wordCount(llvm::StringRef text, llvm::StringRef name) {
  auto isWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  size_t n = 0;
  for (size_t at = text.find(name); at != llvm::StringRef::npos; at = text.find(name, at + 1))
    if ((at == 0 || !isWord(text[at - 1])) && (at + name.size() >= text.size() || !isWord(text[at + name.size()]))) ++n;
  return n;
}

} // namespace

std::optional<MapReduceLoop> matchMapReduce(const AnalyzedTU &tu, const LoopSite &l, std::string &why, SourceSpan &where) {
  const ASTContext &ctx = tu.astContext();
  const SourceManager &sm = ctx.getSourceManager();
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
  const Stmt *update = nullptr;
  if (body.size() == 2) {
    auto *ds = dyn_cast<DeclStmt>(body[0]);
    if (!ds || !ds->isSingleDecl() || !(v = dyn_cast<VarDecl>(ds->getSingleDecl())) || !v->getInit()) {
      why = "the loop body is not `v = f(i); acc = acc OP v;`";
      return std::nullopt;
    }
    update = body[1];
  } else if (body.size() == 1) {
    update = body[0];
  } else {
    why = "the loop body is not `[v = f(i);] acc = acc OP v;` (" + std::to_string(body.size()) + " statements)";
    return std::nullopt;
  }
  // `if (c) U`: U folds x into the accumulator when c holds and nothing
  // otherwise, which is folding `c ? x : 0` when 0 is the operator's identity.
  const IfStmt *guard = dyn_cast<IfStmt>(update);
  const Expr *cond = nullptr;
  if (guard) {
    if (guard->getElse()) {
      why = "the conditional update has an `else` branch: only `if (c) acc OP= x;` is a reduction";
      where = spanOf(guard->getElse(), ctx);
      return std::nullopt;
    }
    if (guard->getInit() || guard->getConditionVariable()) {
      why = "the condition of the conditional update declares a variable";
      where = guard->getInit() ? spanOf(guard->getInit(), ctx)
                               : spanOf(guard->getConditionVariable()->getSourceRange(), ctx);
      return std::nullopt;
    }
    if (guard->isConsteval()) {
      why = "the conditional update is an `if consteval`";
      where = spanOf(guard, ctx);
      return std::nullopt;
    }
    cond = guard->getCond();
    update = guard->getThen();
    if (auto *cs = dyn_cast<CompoundStmt>(update)) {
      if (cs->size() != 1) {
        why = "the conditional branch is not one update of a local scalar accumulator (" + std::to_string(cs->size()) +
              " statements)";
        where = spanOf(update, ctx);
        return std::nullopt;
      }
      update = cs->body_front();
    }
  }
  // Find the accumulator: the variable assigned by the update.
  const VarDecl *acc = updatedVar(update, guard);
  if (!acc || !acc->hasLocalStorage() || !acc->getType()->isArithmeticType() || acc == parts->iv || acc == v) {
    why = guard ? "the conditional branch does not update a local scalar accumulator"
                : "the last statement does not update a local scalar accumulator";
    where = spanOf(update, ctx);
    return std::nullopt;
  }
  ReductionOp op = ReductionOp::Add;
  const Expr *x = nullptr; // the folded value; none for `++acc` (1)
  auto *step = dyn_cast<UnaryOperator>(cast<Expr>(update)->IgnoreParens());
  if (guard && step && step->isIncrementDecrementOp()) {
    if (step->isDecrementOp()) {
      why = "the conditional update of '" + acc->getNameAsString() +
            "' subtracts (`--`): the rewrites fold the value as written, not its negation";
      where = spanOf(update, ctx);
      return std::nullopt;
    }
  } else {
    auto r = reductionUpdate(update);
    if (guard && r && r->var == acc && r->negated) {
      why = "the conditional update of '" + acc->getNameAsString() +
            "' subtracts (`-=`): the rewrites fold the value as written, not its negation";
      where = spanOf(update, ctx);
      return std::nullopt;
    }
    auto upd = matchUpdate(update, acc);
    if (!upd) {
      why = "the update of '" + acc->getNameAsString() + "' is not an associative reduction (+, *, &, |, ^, &&, ||, max, min)";
      where = spanOf(update, ctx);
      return std::nullopt;
    }
    op = upd->first;
    x = upd->second;
  }
  if (guard && !zeroIdentity(op)) {
    why = std::string("the conditional update of '") + acc->getNameAsString() + "' is a " + spelling(op) +
          " reduction, whose identity is not 0: only +, |, ^ and || fold `c ? x : 0`";
    where = spanOf(guard, ctx);
    return std::nullopt;
  }
  if (guard && x && !x->getType()->isArithmeticType() && !x->getType()->isEnumeralType()) {
    why = "the conditionally folded value `" + textOf(x, ctx) + "` is not a scalar";
    where = spanOf(x, ctx);
    return std::nullopt;
  }
  // The parts the mapped value is built from, each checked below.
  struct Part {
    const Expr *e;
    std::string name; ///< for the refusals
  };
  std::vector<Part> checked;
  const Expr *mapped = nullptr; // f(i) of the forms without a condition
  if (v && !guard) {
    if (referencedVar(x) != v) { why = "the update does not combine the mapped value"; return std::nullopt; }
    mapped = v->getInit();
    checked.push_back({mapped, "f(i)"});
  } else if (!guard) {
    mapped = x;
    checked.push_back({mapped, "f(i)"});
  } else {
    if (v) checked.push_back({v->getInit(), "f(i)"});
    checked.push_back({cond, "the condition `" + textOf(cond, ctx) + "`"});
    if (x) checked.push_back({x, "the folded value `" + textOf(x, ctx) + "`"});
  }
  StatementEffects all;
  for (const Part &p : checked) {
    StatementEffects fx = effectsOf(p.e, ctx);
    if (fx.memWrite || fx.impureCall || fx.barrier || fx.warp || fx.lambda || !fx.writes.empty() || fx.addrOfLocal) {
      why = p.name + " has side effects or calls a function that is not known to be pure";
      where = spanOf(p.e, ctx);
      return std::nullopt;
    }
    if (fx.reads.count(acc)) { why = p.name + " reads the accumulator"; where = spanOf(p.e, ctx); return std::nullopt; }
    all.reads.insert(fx.reads.begin(), fx.reads.end());
    all.declared.insert(fx.declared.begin(), fx.declared.end());
  }

  MapReduceLoop m;
  m.iv = parts->iv->getNameAsString();
  m.ivType = typeText(parts->iv->getType(), ctx);
  m.begin = textOf(parts->lower, ctx);
  m.end = textOf(parts->upper, ctx);
  m.acc = acc->getNameAsString();
  m.accType = typeText(acc->getType(), ctx);
  m.op = op;
  m.beginExpr = parts->lower;
  m.endExpr = parts->upper;
  m.conditional = guard != nullptr;
  for (const Part &p : checked) m.mappedParts.push_back(p.e);
  // The mapped value's text, as pieces a rewrite may write with its own edits.
  auto range = [&](const Expr *e) {
    SourceSpan s = spanOf(e, ctx);
    return std::make_pair(s.begin.offset, s.end.offset);
  };
  auto source = [&](unsigned b, unsigned e) { m.mappedPieces.push_back({"", b, e, true}); };
  auto literal = [&](std::string t) { m.mappedPieces.push_back({std::move(t), 0, 0, false}); };
  // f(i) written where the local v stood, as v's declaration converts it:
  // `int v = w[e] * 4.0f` is the truncated value, not the float.
  // (Empty: no conversion.)
  std::string vConversion;
  if (v && v->getType().getCanonicalType().getUnqualifiedType() !=
               v->getInit()->IgnoreImpCasts()->getType().getCanonicalType().getUnqualifiedType())
    vConversion = "(" + typeText(v->getType(), ctx) + ")";
  const std::string vOpen = "(" + vConversion + (vConversion.empty() ? "" : "("),
                    vClose = vConversion.empty() ? ")" : "))";
  if (!guard) {
    // `T v = f(i); acc OP= v` folds f(i) as v holds it.
    auto [b, e] = range(mapped);
    if (!vConversion.empty()) literal(vOpen);
    source(b, e);
    if (!vConversion.empty()) literal(vClose);
    m.mappedSpan = spanOf(mapped, ctx);
  } else {
    // `T w = f(i); if (c(w)) U(w)`: every reference to w in c and x is
    // written as `(f(i))` (converted to T where f(i) has another type, as the
    // declaration converts it). Evaluating f(i) there instead of once before
    // is the same value only because f(i) is pure (checked above: no writes
    // to memory or locals, no impure calls, barriers or warp operations) and
    // neither c nor x writes anything that f(i) reads (they are pure too), and
    // because w is written by nothing but its declaration (c and x write no
    // local; the body has no other statement).
    if (v && (!v->getType()->isScalarType() || v->getType()->isReferenceType())) {
      why = "the local '" + v->getNameAsString() + "' before the conditional update is not a scalar";
      where = spanOf(body[0], ctx);
      return std::nullopt;
    }
    llvm::StringRef file = sm.getBufferData(sm.getFileID(sm.getFileLoc(fs->getBeginLoc())));
    // e's source with each reference to w replaced (refused where a
    // reference cannot be replaced by its text: in a macro, or one the AST
    // does not show).
    auto addSubstituted = [&](const Expr *e) -> bool {
      auto [b, end] = range(e);
      std::vector<std::pair<unsigned, unsigned>> refs;
      bool inMacro = false;
      if (v)
        forEachNode(e, [&](const Stmt *n) {
          if (auto *dr = dyn_cast<DeclRefExpr>(n); dr && dr->getDecl() == v) {
            if (dr->getLocation().isMacroID()) inMacro = true;
            refs.push_back(range(dr));
          }
        });
      std::sort(refs.begin(), refs.end());
      refs.erase(std::unique(refs.begin(), refs.end()), refs.end());
      if (v && (inMacro || end > file.size() || wordCount(file.slice(b, end), v->getName()) != refs.size())) {
        why = "'" + v->getNameAsString() + "' is used in `" + textOf(e, ctx) +
              "` in a way the rewrite cannot write as its initialiser (a macro, decltype)";
        where = spanOf(e, ctx);
        return false;
      }
      auto [ib, ie] = v ? range(v->getInit()) : std::make_pair(0u, 0u);
      unsigned at = b;
      for (auto [rb, re] : refs) {
        if (rb < at || re > end) continue; // nested ranges: written once
        source(at, rb);
        literal(vOpen);
        source(ib, ie);
        literal(vClose);
        at = re;
      }
      source(at, end);
      return true;
    };
    literal("((");
    if (!addSubstituted(cond)) return std::nullopt;
    literal(") ? (");
    if (x) {
      if (!addSubstituted(x)) return std::nullopt;
    } else {
      literal("1");
    }
    literal(") : " + zeroOf(acc->getType(), ctx) + ")");
    m.mappedSpan = spanOf(guard, ctx);
    if (v) m.mappedSpan.begin = spanOf(body[0], ctx).begin;
  }
  {
    llvm::StringRef file = sm.getBufferData(sm.getFileID(sm.getFileLoc(fs->getBeginLoc())));
    m.mapped = m.mappedText([&](unsigned b, unsigned e) { return b <= e && e <= file.size() ? file.slice(b, e).str() : ""; });
  }
  for (const VarDecl *r : all.reads) {
    if (r == parts->iv || r == v || all.declared.count(r)) continue;
    if (isa<ParmVarDecl>(r) || r->hasAttr<CUDASharedAttr>()) continue; // uniform over the warp / not private
    if (r->getType()->isArrayType()) {
      why = (guard ? "the conditional update reads the thread-local array '" : "f(i) reads the thread-local array '") +
            r->getNameAsString() + "'";
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
