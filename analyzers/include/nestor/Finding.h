// Findings: what rules report about a FileModel, for every front end.
#pragma once
#include "nestor/Model.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nestor {

enum class Severity { Note = 0, Warning = 1, Error = 2 };
const char *spelling(Severity s);
std::optional<Severity> parseSeverity(const std::string &s);

/// A text edit on the analysed file: replace [span.begin.offset, span.end.offset).
struct TextEdit {
  SourceSpan span;
  std::string newText;
};

struct Fix {
  std::string title;            ///< e.g. "Insert #pragma np parallel for reduction(+:sum)"
  std::vector<TextEdit> edits;
};

struct RelatedLocation {
  std::string message;
  SourceSpan span;
};

struct Finding {
  std::string ruleId;
  Severity severity = Severity::Warning;
  std::string message;
  SourceSpan span;
  std::vector<RelatedLocation> related;
  std::optional<Fix> fix;                      ///< the single safest fix, if any
  std::map<std::string, std::string> data;     ///< what a fix needs: loop/launch ids, kernel
};

} // namespace nestor
