// IndexPolynomial.h: an index as a polynomial, for the cost model's stencils.
#include "IndexPolynomial.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

#include <algorithm>

namespace nestor {

using namespace clang;

namespace {
/// `g->rows`, `p.n`, `a.b.c`: a key for a member chain rooted at a variable.
std::optional<std::string> memberChain(const Expr *e) {
  e = e->IgnoreParenImpCasts();
  if (auto *dre = dyn_cast<DeclRefExpr>(e))
    if (auto *vd = dyn_cast<VarDecl>(dre->getDecl())) return IndexPolynomial::atomOf(vd);
  if (auto *me = dyn_cast<MemberExpr>(e))
    if (auto base = memberChain(me->getBase()))
      return *base + (me->isArrow() ? "->" : ".") + me->getMemberDecl()->getNameAsString();
  return std::nullopt;
}
} // namespace

std::string IndexPolynomial::atomOf(const VarDecl *vd) {
  return "v:" + vd->getNameAsString() + "@" + std::to_string(reinterpret_cast<uintptr_t>(vd->getCanonicalDecl()));
}

bool IndexPolynomial::add(const Monomial &m, int64_t c) {
  int64_t &slot = terms_[m];
  if (__builtin_add_overflow(slot, c, &slot)) return false;
  if (slot == 0) terms_.erase(m);
  return terms_.size() <= kMaxTerms;
}

std::optional<IndexPolynomial> IndexPolynomial::times(const IndexPolynomial &a, const IndexPolynomial &b) {
  IndexPolynomial out;
  for (const auto &[ma, ca] : a.terms_)
    for (const auto &[mb, cb] : b.terms_) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      int64_t c;
      if (__builtin_mul_overflow(ca, cb, &c) || !out.add(m, c)) return std::nullopt;
    }
  return out;
}

IndexPolynomial IndexPolynomial::minus(const IndexPolynomial &o) const {
  IndexPolynomial out = *this;
  for (const auto &[m, c] : o.terms_) {
    int64_t &slot = out.terms_[m];
    slot -= c; // both came through add(): no overflow a difference of two indices needs to care about
    if (slot == 0) out.terms_.erase(m);
  }
  return out;
}

std::optional<IndexPolynomial> IndexPolynomial::plus(const IndexPolynomial &o) const {
  IndexPolynomial out = *this;
  for (const auto &[m, c] : o.terms_)
    if (!out.add(m, c)) return std::nullopt;
  return out;
}

std::optional<int64_t> IndexPolynomial::constant() const {
  if (terms_.empty()) return 0;
  if (terms_.size() == 1 && terms_.begin()->first.empty()) return terms_.begin()->second;
  return std::nullopt;
}

bool IndexPolynomial::mentions(const std::string &atom) const {
  for (const auto &[m, c] : terms_)
    if (std::find(m.begin(), m.end(), atom) != m.end()) return true;
  return false;
}

std::optional<IndexPolynomial> IndexPolynomial::coefficientOf(const std::string &atom) const {
  IndexPolynomial out;
  for (const auto &[m, c] : terms_) {
    auto n = std::count(m.begin(), m.end(), atom);
    if (n > 1) return std::nullopt;
    if (n == 0) continue;
    Monomial rest = m;
    rest.erase(std::find(rest.begin(), rest.end(), atom));
    out.terms_[rest] = c;
  }
  return out;
}

std::optional<int64_t> IndexPolynomial::multipleOf(const IndexPolynomial &o) const {
  if (o.terms_.empty() || terms_.size() != o.terms_.size()) return std::nullopt;
  std::optional<int64_t> ratio;
  for (const auto &[m, c] : o.terms_) {
    auto it = terms_.find(m);
    if (it == terms_.end() || it->second % c != 0) return std::nullopt;
    int64_t r = it->second / c;
    if (ratio && *ratio != r) return std::nullopt;
    ratio = r;
  }
  return ratio;
}

std::optional<IndexPolynomial> IndexPolynomial::of(const Expr *e, const ASTContext &ctx) { return build(e, ctx, 0); }

std::optional<IndexPolynomial> IndexPolynomial::build(const Expr *e, const ASTContext &ctx, int depth) {
  if (!e || depth > 24) return std::nullopt;
  e = e->IgnoreParenImpCasts();
  // An integer cast is read as the identity (`(size_t)(t - 1)`): an index
  // that wraps is not one the cost model needs to get right.
  while (auto *ce = dyn_cast<ExplicitCastExpr>(e)) {
    if (!ce->getType()->isIntegerType()) return std::nullopt;
    e = ce->getSubExpr()->IgnoreParenImpCasts();
  }
  if (e->isValueDependent() || e->isTypeDependent() || !e->getType()->isIntegerType()) return std::nullopt;
  IndexPolynomial out;
  if (std::optional<llvm::APSInt> c = e->getIntegerConstantExpr(ctx)) {
    if (c->getSignificantBits() > 62) return std::nullopt;
    if (c->getExtValue() != 0) out.add({}, c->getExtValue());
    return out;
  }
  if (auto key = memberChain(e)) {
    out.add({*key}, 1);
    return out;
  }
  if (auto *uo = dyn_cast<UnaryOperator>(e)) {
    if (uo->getOpcode() == UO_Plus) return build(uo->getSubExpr(), ctx, depth + 1);
    if (uo->getOpcode() == UO_Minus)
      if (auto sub = build(uo->getSubExpr(), ctx, depth + 1)) return IndexPolynomial().minus(*sub);
    return std::nullopt;
  }
  auto *bo = dyn_cast<BinaryOperator>(e);
  if (!bo) return std::nullopt;
  auto l = build(bo->getLHS(), ctx, depth + 1);
  if (!l) return std::nullopt;
  switch (bo->getOpcode()) {
  case BO_Add:
  case BO_Sub: {
    auto r = build(bo->getRHS(), ctx, depth + 1);
    if (!r) return std::nullopt;
    if (bo->getOpcode() == BO_Sub) return l->minus(*r);
    return l->plus(*r);
  }
  case BO_Mul: {
    auto r = build(bo->getRHS(), ctx, depth + 1);
    if (!r) return std::nullopt;
    return times(*l, *r);
  }
  case BO_Shl: {
    auto r = build(bo->getRHS(), ctx, depth + 1);
    std::optional<int64_t> k = r ? r->constant() : std::nullopt;
    if (!k || *k < 0 || *k > 30) return std::nullopt;
    IndexPolynomial scale;
    if (!scale.add({}, int64_t(1) << *k)) return std::nullopt;
    return times(*l, scale);
  }
  default:
    return std::nullopt;
  }
}

} // namespace nestor
