// Thesis §3.1.3: the number of child threads is the N inside the ceiling
// division that computes the grid (Fig. 3.2 (a)-(f)). Heuristic by nature; the
// result only decides between launching and serialising, never correctness.
#include "nestor/AstText.h"
#include "ModelBuilder.h"
#include "nestor/DefUse.h"

#include "clang/AST/ExprCXX.h"

namespace nestor {

namespace {

using namespace clang;

/// Through locals that only their declaration writes (nestor/DefUse.h): a
/// `dim3 grid(...)` or `int blocks = ...` variable stands for its initialiser;
/// one written again does not.
const Expr *followVariable(const Expr *e, int depth) {
  e = stripConversions(e);
  if (depth > 8) return e;
  if (const VarDecl *vd = singleDefinitionLocal(e)) return followVariable(vd->getInit(), depth + 1);
  return e;
}

bool isIntLiteral(const Expr *e, ASTContext &ctx, int64_t *value = nullptr) {
  e = stripConversions(e);
  if (e->isValueDependent()) return false;
  Expr::EvalResult r;
  if (!e->EvaluateAsInt(r, ctx)) {
    if (auto *fl = dyn_cast<FloatingLiteral>(e)) {
      if (value) *value = int64_t(fl->getValueAsApproximateDouble());
      return true;
    }
    return false;
  }
  if (value) *value = r.Val.getInt().getExtValue();
  return true;
}

std::string normalised(std::string s) {
  std::string out;
  for (char c : s)
    if (!isspace(static_cast<unsigned char>(c)) && c != '(' && c != ')') out += c;
  return out;
}

struct Term {
  const Expr *e;
  bool negative;
};

void flattenAdditive(const Expr *e, bool negative, std::vector<Term> &out) {
  e = e->IgnoreParenImpCasts();
  if (auto *ce = dyn_cast<CStyleCastExpr>(e)) e = ce->getSubExpr()->IgnoreParenImpCasts();
  if (auto *bo = dyn_cast<BinaryOperator>(e)) {
    if (bo->getOpcode() == BO_Add) {
      flattenAdditive(bo->getLHS(), negative, out);
      flattenAdditive(bo->getRHS(), negative, out);
      return;
    }
    if (bo->getOpcode() == BO_Sub) {
      flattenAdditive(bo->getLHS(), negative, out);
      flattenAdditive(bo->getRHS(), !negative, out);
      return;
    }
  }
  out.push_back({e, negative});
}

const Expr *stripCasts(const Expr *e) {
  for (;;) {
    e = e->IgnoreParenImpCasts();
    if (auto *ce = dyn_cast<ExplicitCastExpr>(e)) { e = ce->getSubExpr(); continue; }
    return e;
  }
}

// N from the numerator of a ceiling division: drop constant terms and terms
// equal to the divisor (N + b - 1).
std::optional<std::string> numeratorThreads(const Expr *num, const Expr *den, ASTContext &ctx) {
  std::vector<Term> terms;
  flattenAdditive(stripCasts(num), false, terms);
  std::string denText = normalised(textOf(stripCasts(den), ctx));
  std::string out;
  for (const Term &t : terms) {
    if (isIntLiteral(t.e, ctx)) continue;
    std::string tt = normalised(textOf(stripCasts(t.e), ctx));
    if (!denText.empty() && tt == denText) continue;
    std::string text = textOf(stripCasts(t.e), ctx);
    if (text.empty()) return std::nullopt;
    bool compound = isa<BinaryOperator>(stripCasts(t.e)) || isa<ConditionalOperator>(stripCasts(t.e));
    if (compound && terms.size() > 1) text = "(" + text + ")";
    if (out.empty()) out = t.negative ? "-" + text : text;
    else out += (t.negative ? " - " : " + ") + text;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

const BinaryOperator *findDivision(const Expr *e, int depth = 0) {
  e = stripCasts(e);
  if (depth > 6) return nullptr;
  if (auto *bo = dyn_cast<BinaryOperator>(e)) {
    if (bo->getOpcode() == BO_Div) return bo;
    if (bo->getOpcode() == BO_Add || bo->getOpcode() == BO_Sub) {
      if (auto *d = findDivision(bo->getLHS(), depth + 1)) return d;
      return findDivision(bo->getRHS(), depth + 1);
    }
  }
  if (auto *call = dyn_cast<CallExpr>(e)) {
    if (auto *fd = call->getDirectCallee()) {
      llvm::StringRef n = fd->getName();
      if ((n == "ceil" || n == "ceilf" || n == "__ceil" || n == "round" || n == "roundf") && call->getNumArgs() == 1)
        return findDivision(call->getArg(0), depth + 1);
      // A grid capped at a size (`min((n + 255) / 256, max_blocks)`, through a
      // local too): the division in either operand.
      if ((n == "min" || n == "umin" || n == "max" || n == "umax") && call->getNumArgs() == 2) {
        if (auto *d = findDivision(followVariable(call->getArg(0), depth + 1), depth + 1)) return d;
        return findDivision(followVariable(call->getArg(1), depth + 1), depth + 1);
      }
    }
  }
  return nullptr;
}

std::optional<std::string> inferScalar(const Expr *grid, ASTContext &ctx, std::string &how) {
  const Expr *e = followVariable(grid, 0);
  if (e != stripConversions(grid)) how = "through an intermediate variable; ";
  if (const BinaryOperator *div = findDivision(e)) {
    // The numerator stays as written: a variable there is the thread count.
    auto n = numeratorThreads(div->getLHS(), div->getRHS(), ctx);
    if (n) how += "ceiling division of the grid";
    return n;
  }
  return std::nullopt;
}

// dim3(x, y, z) written explicitly (possibly behind a variable).
const CXXConstructExpr *dim3Construct(const Expr *e) {
  e = followVariable(e, 0);
  e = e->IgnoreImplicit();
  if (auto *fc = dyn_cast<CXXFunctionalCastExpr>(e)) e = fc->getSubExpr()->IgnoreImplicit();
  if (auto *ce = dyn_cast<CXXConstructExpr>(e))
    if (ce->getNumArgs() == 3) return ce;
  return nullptr;
}

} // namespace

std::optional<std::string> inferChildThreads(const Expr *grid, const Expr *block, ASTContext &ctx,
                                             std::string &how, bool &byCeilingDivision) {
  byCeilingDivision = false;
  if (!grid) return std::nullopt;
  std::vector<std::string> parts;
  if (auto *ce = dim3Construct(grid)) {
    for (unsigned i = 0; i < 3; ++i) {
      const Expr *arg = ce->getArg(i);
      if (isa<CXXDefaultArgExpr>(arg)) continue;
      int64_t v = 0;
      if (isIntLiteral(arg, ctx, &v) && v == 1) continue;
      std::string h;
      auto n = inferScalar(arg, ctx, h);
      if (!n) return std::nullopt;
      parts.push_back(*n);
    }
    how = "dim3 grid, a ceiling division per dimension";
    if (parts.empty()) {
      if (!block) return std::nullopt;
      how = "one block: the block size";
      return textOf(stripConversions(block), ctx);
    }
    byCeilingDivision = true;
    std::string out;
    for (auto &p : parts) {
      bool simple = p.find_first_of("+-*/ ") == std::string::npos;
      out += (out.empty() ? "" : " * ") + (simple || parts.size() == 1 ? p : "(" + p + ")");
    }
    return out;
  }
  if (auto n = inferScalar(grid, ctx, how)) {
    byCeilingDivision = true;
    return n;
  }
  int64_t v = 0;
  if (isIntLiteral(grid, ctx, &v) && v == 1 && block) {
    how = "one block: the block size";
    return textOf(stripConversions(block), ctx);
  }
  if (block) {
    how = "no ceiling division: grid * block";
    std::string g = textOf(stripConversions(grid), ctx), b = textOf(stripConversions(block), ctx);
    if (g.empty() || b.empty()) return std::nullopt;
    return "(" + g + ") * (" + b + ")";
  }
  return std::nullopt;
}

} // namespace nestor
