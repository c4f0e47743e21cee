// An integer index expression as a polynomial over the variables and member
// reads it names: `(size_t)(t - 1) * assets + i` is t*assets - assets + i.
// Enough to tell that two reads of one array fetch the same elements a few
// iterations apart (a stencil along the loop), which the cost model charges
// once (MappingLoops.cpp). Not a soundness tool: casts are read as the
// identity, so it must never decide what a rewrite may do.
#pragma once

#include "clang/AST/Expr.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nestor {

class IndexPolynomial {
public:
  /// Sorted atom keys (a variable, `v:` + its declaration; a member chain
  /// rooted at one, `m:` + the chain); empty: the constant term.
  using Monomial = std::vector<std::string>;

  /// The polynomial of an integer expression of literals, constants,
  /// variables, member chains, + - * and a shift by a constant; none for
  /// anything else (calls, loads, division) or more than kMaxTerms terms.
  static std::optional<IndexPolynomial> of(const clang::Expr *e, const clang::ASTContext &ctx);
  static std::string atomOf(const clang::VarDecl *vd);

  IndexPolynomial minus(const IndexPolynomial &o) const;
  /// None when a coefficient overflows or the sum has more than kMaxTerms terms.
  std::optional<IndexPolynomial> plus(const IndexPolynomial &o) const;
  bool isZero() const { return terms_.empty(); }
  std::optional<int64_t> constant() const;
  bool mentions(const std::string &atom) const;
  /// The factor of `atom` (the terms that hold it once, without it); none when
  /// some term holds it more than once (`k * k`).
  std::optional<IndexPolynomial> coefficientOf(const std::string &atom) const;
  /// The integer c with *this == c * o (o not zero), if there is one.
  std::optional<int64_t> multipleOf(const IndexPolynomial &o) const;

  static constexpr size_t kMaxTerms = 16;

private:
  static std::optional<IndexPolynomial> build(const clang::Expr *e, const clang::ASTContext &ctx, int depth);
  bool add(const Monomial &m, int64_t c);
  static std::optional<IndexPolynomial> times(const IndexPolynomial &a, const IndexPolynomial &b);
  std::map<Monomial, int64_t> terms_;
};

} // namespace nestor
