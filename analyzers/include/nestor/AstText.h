// Small helpers to turn AST nodes into source text and spans; public because
// the rewriters build their edits from the same spans the analysis reports.
#pragma once
#include "nestor/Model.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

namespace nestor {

inline clang::CharSourceRange fileRange(clang::SourceRange r, const clang::ASTContext &ctx) {
  const clang::SourceManager &sm = ctx.getSourceManager();
  return clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(r), sm, ctx.getLangOpts());
}

inline std::string textOf(clang::SourceRange r, const clang::ASTContext &ctx) {
  if (r.isInvalid()) return "";
  const clang::SourceManager &sm = ctx.getSourceManager();
  clang::CharSourceRange cr = fileRange(r, ctx);
  if (cr.isInvalid()) {
    // Inside a macro: use the expansion.
    cr = sm.getExpansionRange(r);
  }
  bool invalid = false;
  llvm::StringRef t = clang::Lexer::getSourceText(cr, sm, ctx.getLangOpts(), &invalid);
  return invalid ? "" : t.str();
}

inline std::string textOf(const clang::Stmt *s, const clang::ASTContext &ctx) {
  return s ? textOf(s->getSourceRange(), ctx) : "";
}

inline SourcePos posOf(clang::SourceLocation loc, const clang::SourceManager &sm) {
  SourcePos p;
  if (loc.isInvalid()) return p;
  loc = sm.getFileLoc(loc);
  p.line = sm.getSpellingLineNumber(loc);
  p.column = sm.getSpellingColumnNumber(loc);
  p.offset = sm.getFileOffset(loc);
  return p;
}

inline SourceSpan spanOf(clang::SourceRange r, const clang::ASTContext &ctx) {
  SourceSpan s;
  const clang::SourceManager &sm = ctx.getSourceManager();
  if (r.isInvalid()) return s;
  clang::CharSourceRange cr = fileRange(r, ctx);
  if (cr.isInvalid()) cr = sm.getExpansionRange(r);
  clang::SourceLocation b = cr.getBegin(), e = cr.getEnd();
  if (cr.isTokenRange())
    e = clang::Lexer::getLocForEndOfToken(e, 0, sm, ctx.getLangOpts());
  s.file = sm.getFilename(sm.getFileLoc(b)).str();
  s.begin = posOf(b, sm);
  s.end = posOf(e, sm);
  return s;
}

inline SourceSpan spanOf(const clang::Stmt *st, const clang::ASTContext &ctx) {
  return st ? spanOf(st->getSourceRange(), ctx) : SourceSpan{};
}

/// Strips parentheses, implicit casts and dim3/scalar conversions.
inline const clang::Expr *stripConversions(const clang::Expr *e) {
  while (e) {
    const clang::Expr *prev = e;
    e = e->IgnoreParenImpCasts();
    if (auto *mt = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(e)) e = mt->getSubExpr();
    if (auto *bt = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(e)) e = bt->getSubExpr();
    if (auto *ce = llvm::dyn_cast<clang::CXXConstructExpr>(e)) {
      // Implicit conversion / copy: one written argument.
      if (!llvm::isa<clang::CXXTemporaryObjectExpr>(ce) && ce->getNumArgs() >= 1 &&
          (ce->getNumArgs() == 1 || llvm::isa<clang::CXXDefaultArgExpr>(ce->getArg(1))))
        e = ce->getArg(0);
    }
    if (auto *fc = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(e)) {
      if (!llvm::isa<clang::CXXConstructExpr>(fc->getSubExpr()->IgnoreImplicit()) ||
          llvm::cast<clang::CXXConstructExpr>(fc->getSubExpr()->IgnoreImplicit())->getNumArgs() == 1)
        e = fc->getSubExpr();
    }
    if (auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(e)) e = ic->getSubExpr();
    if (e == prev) break;
  }
  return e;
}

/// The expression as written: strips only what the compiler added (implicit
/// casts, temporaries, an implicit conversion to dim3), not parentheses or
/// explicit casts. An edit that replaces a launch's grid or block replaces
/// this: replacing what stripConversions leaves would keep a written cast
/// around the new text (`int(X)` would become `int(dim3 ...)`).
inline const clang::Expr *stripImplicitConversions(const clang::Expr *e) {
  while (e) {
    const clang::Expr *prev = e;
    e = e->IgnoreImplicit();
    if (auto *ce = llvm::dyn_cast<clang::CXXConstructExpr>(e);
        ce && !llvm::isa<clang::CXXTemporaryObjectExpr>(ce) && ce->getParenOrBraceRange().isInvalid() &&
        ce->getNumArgs() >= 1 && (ce->getNumArgs() == 1 || llvm::isa<clang::CXXDefaultArgExpr>(ce->getArg(1))))
      e = ce->getArg(0);
    if (e == prev) break;
  }
  return e;
}

} // namespace nestor
