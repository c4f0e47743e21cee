#pragma once
#include "nestor/Analysis.h"

namespace clang {
class Expr;
class ASTContext;
}

namespace nestor {

/// Fills tu.model() (kernels, loops, launches; attaches pragmas) from the AST.
void buildModel(AnalyzedTU &tu);

/// Thesis §3.1.3 / Fig. 3.2: the number of child threads behind a grid
/// expression. `how` names the pattern that matched; `byCeilingDivision`
/// says the count is the numerator of the grid's ceiling division (in every
/// dimension): the threads that can do work, not grid x block. Follows
/// intermediate variables through their initialisers.
std::optional<std::string> inferChildThreads(const clang::Expr *grid, const clang::Expr *block,
                                             clang::ASTContext &ctx, std::string &how, bool &byCeilingDivision);

} // namespace nestor
