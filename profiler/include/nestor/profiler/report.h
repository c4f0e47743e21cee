// Report writers shared by nestor-runner and (through the JSON) the LSP side.
#pragma once
#include "nestor/profiler/results.h"

#include <string>

namespace nestor::profiler {

// Markdown: a table of every variant (status, median, IQR, samples, speedup)
// followed by the recommendation and what was timed.
std::string render_markdown(const Results& results);

// SVG bar chart of the median time per variant with IQR error bars; failed
// variants are listed with their status instead of a bar.
std::string render_svg(const Results& results);

// Writes `text` to `path` through a temporary file in the same directory and
// a rename, so readers never see half a file. Throws std::runtime_error.
void write_text_atomic(const std::string& path, const std::string& text);

// Writes `path` in the format chosen by its extension (.json, .md, .svg).
// Throws std::runtime_error for another extension or an unwritable path.
void write_report(const Results& results, const std::string& path);

} // namespace nestor::profiler
