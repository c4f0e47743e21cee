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
/// expression. `how` names the pattern that matched. Follows intermediate
/// variables through their initialisers.
std::optional<std::string> inferChildThreads(const clang::Expr *grid, const clang::Expr *block,
                                             clang::ASTContext &ctx, std::string &how);

} // namespace nestor
