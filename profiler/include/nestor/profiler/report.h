// Report writers shared by nestor-runner and (through the JSON) the LSP side.
#pragma once
#include "nestor/profiler/results.h"

#include <string>

namespace nestor::profiler {

// Markdown: a table of every variant (status, median, IQR, samples, speedup)
// followed by the recommendation and what was timed.
std::string render_markdown(const Results& results);

// SVG chart of the speedup over the baseline per variant (log axis, IQR
// whiskers), fastest first; the recommended variant, the baseline, variants
// eliminated by racing and failed or incorrect ones are marked. Without a
// baseline timing it shows median times (log axis). The view box is computed
// from the text, so long names and values are never cut off.
std::string render_svg(const Results& results);

// Writes `text` to `path` through a temporary file in the same directory and
// a rename, so readers never see half a file. Throws std::runtime_error.
void write_text_atomic(const std::string& path, const std::string& text);

// Writes `path` in the format chosen by its extension (.json, .md, .svg).
// Throws std::runtime_error for another extension or an unwritable path.
void write_report(const Results& results, const std::string& path);

} // namespace nestor::profiler
