// The SVG report: speedup over the baseline on a log axis (a 60 ms loser and
// a 0.14 ms winner both stay visible), rows sorted fastest first, the
// recommended, eliminated and failed variants marked, and a view box computed
// from the text it holds so that no name or value is ever cut off. Text is
// monospace so that its width is known here; the render test
// (tests/profiler/svg_render_test.py) checks the result in Chromium.
#include "nestor/profiler/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace nestor::profiler {
namespace {

constexpr double kFontSize = 12;
constexpr double kCharWidth = 0.62 * kFontSize; // DejaVu Sans Mono / Liberation Mono advance is 0.60 em
constexpr double kPad = 14, kRow = 24, kBar = 14, kPlotWidth = 380, kTop = 58;

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string significant(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, value >= 100 ? "%.0f" : "%.3g", value);
  return buffer;
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\n': case '\r': case '\t': out += ' '; break;
    default: out += c;
    }
  }
  return out;
}

size_t code_points(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

double text_width(const std::string& text) { return static_cast<double>(code_points(text)) * kCharWidth; }

// Cuts at a code point boundary.
std::string shorten(const std::string& text, size_t max_points) {
  if (code_points(text) <= max_points) return text;
  size_t n = 0, i = 0;
  for (; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && n++ == max_points - 3) break;
  return text.substr(0, i) + "...";
}

struct Row {
  const VariantResult* v;
  bool charted = false;
  double value = 0, low = 0, high = 0; // speedup (or ms without a baseline) and its IQR range
  std::string label, note, cls;
};

} // namespace

std::string render_svg(const Results& results) {
  const VariantResult* baseline = nullptr;
  for (auto& v : results.variants)
    if (v.baseline && v.status == VariantStatus::Ok && v.timing && v.timing->median > 0) baseline = &v;
  const bool speedup = baseline != nullptr;
  const std::optional<std::string>& winner = results.recommendation.variant;

  std::vector<Row> rows;
  for (auto& v : results.variants) {
    Row row{&v};
    row.label = v.id + (v.baseline && v.id != "baseline" ? " (baseline)" : "");
    if (v.status == VariantStatus::Ok && v.timing && v.timing->median > 0) {
      const Timing& t = *v.timing;
      row.charted = true;
      if (speedup) {
        double base = baseline->timing->median;
        row.value = base / t.median;
        row.low = t.q3 > 0 ? base / t.q3 : row.value;
        row.high = t.q1 > 0 ? base / t.q1 : row.value;
        row.note = fixed(row.value, row.value < 10 ? 2 : 1) + "x  " + significant(t.median) + " ms";
      } else {
        row.value = t.median;
        row.low = t.q1 > 0 ? t.q1 : t.median;
        row.high = t.q3;
        row.note = significant(t.median) + " ms";
      }
      bool recommended = winner && *winner == v.id;
      bool eliminated = t.stop_reason == "eliminated", interrupted = t.stop_reason == "interrupted";
      row.cls = recommended ? "winner" : v.baseline ? "baseline" : eliminated ? "eliminated" : interrupted ? "interrupted" : "ok";
      if (recommended) row.note += "  recommended";
      if (eliminated) row.note += "  eliminated after " + std::to_string(t.samples.size()) + " samples";
      if (interrupted) row.note += "  interrupted after " + std::to_string(t.samples.size()) + " samples";
    } else {
      row.cls = v.status == VariantStatus::OutputMismatch ? "incorrect" : "failed";
      row.note = std::string(v.status == VariantStatus::OutputMismatch ? "incorrect" : to_string(v.status)) +
                 (v.reason.empty() ? "" : ": " + shorten(v.reason, 90));
    }
    rows.push_back(std::move(row));
  }
  // Fastest first (highest speedup, or lowest time), then what did not run.
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (a.charted != b.charted) return a.charted;
    if (!a.charted) return a.v->id < b.v->id;
    return speedup ? a.value > b.value : a.value < b.value;
  });

  // Log axis over whole decades that hold every value, its IQR and 1x.
  double lo = speedup ? 1 : 0, hi = speedup ? 1 : 0;
  for (auto& r : rows) {
    if (!r.charted) continue;
    lo = lo > 0 ? std::min(lo, r.low) : r.low;
    hi = std::max(hi, r.high);
  }
  if (!(lo > 0)) lo = hi > 0 ? hi : 1;
  if (!(hi > 0)) hi = 1;
  double lo_exp = std::floor(std::log10(lo) + 1e-9), hi_exp = std::ceil(std::log10(hi) - 1e-9);
  if (hi_exp <= lo_exp) hi_exp = lo_exp + 1;

  double label_width = 0, note_width = 0;
  for (auto& r : rows) {
    label_width = std::max(label_width, text_width(r.label));
    note_width = std::max(note_width, text_width(r.note));
  }
  const std::string title = speedup ? "Speedup over the baseline (" + significant(baseline->timing->median) +
                                          " ms median), log scale; whiskers: interquartile range"
                                    : "Median time per variant (ms), log scale; whiskers: interquartile range "
                                      "(the baseline has no timing, so no speedups)";
  const std::string legend = "green: recommended   grey: baseline   pale: eliminated by racing   red: failed or incorrect";
  const double plot_left = kPad + std::max(label_width, 4 * kCharWidth) + 12;
  const double plot_right = plot_left + kPlotWidth;
  const double note_x = plot_right + 12;
  const double width = std::ceil(std::max({note_x + note_width + kPad, kPad + text_width(title) + kPad, kPad + text_width(legend) + kPad}));
  const double axis_y = kTop + static_cast<double>(rows.size()) * kRow + 6;
  const double height = std::ceil(axis_y + 44);
  auto x_of = [&](double value) {
    double position = (std::log10(std::max(value, 1e-300)) - lo_exp) / (hi_exp - lo_exp);
    return plot_left + std::clamp(position, 0.0, 1.0) * kPlotWidth;
  };
  auto num = [](double v) { return fixed(v, 2); };

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 "
      << width << " " << height << "\" font-family=\"DejaVu Sans Mono, Liberation Mono, monospace\" font-size=\"" << kFontSize
      << "\">\n";
  svg << "<title>" << xml_escape(title) << "</title>\n";
  svg << "<style>.ok{fill:#1f77b4}.winner{fill:#2e7d32}.baseline{fill:#888888}.eliminated{fill:#b7cde3}"
         ".interrupted{fill:#d8c27a}.failed,.incorrect{fill:#c62828}</style>\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"" << kPad << "\" y=\"20\" font-weight=\"bold\">" << xml_escape(title) << "</text>\n";
  svg << "<text x=\"" << kPad << "\" y=\"38\" fill=\"#555555\">" << legend << "</text>\n";
  if (speedup) {
    double one = x_of(1);
    svg << "<line class=\"unity\" x1=\"" << num(one) << "\" x2=\"" << num(one) << "\" y1=\"" << kTop - 4 << "\" y2=\"" << axis_y
        << "\" stroke=\"#888888\" stroke-dasharray=\"3,3\"/>\n";
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    double y = kTop + static_cast<double>(i) * kRow, cy = y + kBar / 2, text_y = cy + 4;
    svg << "<g class=\"row " << r.cls << "-row\" data-variant=\"" << xml_escape(r.v->id) << "\">";
    svg << "<text class=\"label\" x=\"" << num(plot_left - 10) << "\" y=\"" << num(text_y) << "\" text-anchor=\"end\">"
        << xml_escape(r.label) << "</text>";
    if (r.charted) {
      double from = speedup ? x_of(1) : plot_left, to = x_of(r.value);
      double left = std::min(from, to), bar = std::max(1.0, std::abs(to - from));
      svg << "<rect class=\"bar " << r.cls << "\" x=\"" << num(left) << "\" y=\"" << num(y) << "\" width=\"" << num(bar)
          << "\" height=\"" << kBar << "\"/>";
      double a = x_of(r.low), b = x_of(r.high);
      svg << "<line class=\"whisker\" x1=\"" << num(a) << "\" x2=\"" << num(b) << "\" y1=\"" << num(cy) << "\" y2=\"" << num(cy)
          << "\" stroke=\"black\"/>";
      for (double edge : {a, b})
        svg << "<line x1=\"" << num(edge) << "\" x2=\"" << num(edge) << "\" y1=\"" << num(cy - 4) << "\" y2=\"" << num(cy + 4)
            << "\" stroke=\"black\"/>";
    }
    svg << "<text class=\"note" << (r.charted ? "" : " " + r.cls) << "\" x=\"" << num(note_x) << "\" y=\"" << num(text_y) << "\">"
        << xml_escape(r.note) << "</text>";
    svg << "<title>" << xml_escape(r.v->id + ": " + (r.v->reason.empty() ? r.note : r.v->reason)) << "</title></g>\n";
  }
  svg << "<line x1=\"" << num(plot_left) << "\" x2=\"" << num(plot_right) << "\" y1=\"" << axis_y << "\" y2=\"" << axis_y
      << "\" stroke=\"black\"/>\n";
  const bool fine = hi_exp - lo_exp <= 2;
  for (double e = lo_exp; e <= hi_exp + 1e-9; ++e)
    for (double m : {1.0, 2.0, 5.0}) {
      if ((m != 1 && (!fine || e == hi_exp))) continue;
      double value = m * std::pow(10.0, e), tx = x_of(value);
      std::string text = significant(value) + (speedup ? "x" : "");
      svg << "<line x1=\"" << num(tx) << "\" x2=\"" << num(tx) << "\" y1=\"" << axis_y << "\" y2=\"" << axis_y + 5
          << "\" stroke=\"black\"/><text class=\"tick\" x=\"" << num(tx) << "\" y=\"" << axis_y + 18
          << "\" text-anchor=\"middle\">" << text << "</text>\n";
    }
  svg << "<text x=\"" << num((plot_left + plot_right) / 2) << "\" y=\"" << axis_y + 36 << "\" text-anchor=\"middle\">"
      << (speedup ? "speedup over the baseline (log scale)" : "median time in ms (log scale)") << "</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

} // namespace nestor::profiler
