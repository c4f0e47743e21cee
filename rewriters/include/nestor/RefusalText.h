// A refusal as the front ends show it (issue #21): the reason, then where its
// blocker is. The blocker's line is named with its file when that is another
// file than the analysed one (a header), and a reason that already names the
// line is not told it again ("(line 170) (line 170)").
#pragma once
#include "nestor/Rewrite.h"

#include <string>

namespace nestor {

/// `a.reason` with its blocker's place: " (line N)", or " (graph.h:N)" for a
/// blocker in another file than `mainFile`; a "line N" of the blocker's line
/// inside the reason becomes "graph.h:N" too, and is not repeated after it.
std::string refusalText(const Applicability &a, const std::string &mainFile);

/// "line N", or "graph.h:N" when `s` is in another file than `mainFile`.
std::string lineRef(const SourceSpan &s, const std::string &mainFile);

} // namespace nestor
