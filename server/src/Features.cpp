#include "Features.h"
#include "Document.h"

#include "nestor/Inference.h"
#include "nestor/MappingAdvisor.h"
#include "nestor/Pragma.h"
#include "nestor/Rewrite.h"
#include "nestor/Rule.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace nestor::lsp {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

llvm::Error lspError(llvm::lsp::ErrorCode code, const llvm::Twine &msg) {
  return llvm::make_error<proto::LSPError>(msg.str(), code);
}

unsigned lineOfOffset(llvm::StringRef text, size_t offset) {
  return unsigned(text.take_front(std::min(offset, text.size())).count('\n')) + 1;
}

bool contains(const SourceSpan &span, size_t offset) {
  return span.valid() && span.begin.offset <= offset && offset <= span.end.offset;
}

std::string code(llvm::StringRef text) {
  // Inline code that survives backticks in the text itself.
  return text.contains('`') ? "`` " + text.str() + " ``" : "`" + text.str() + "`";
}

/// A pragma line: `#pragma np ...` (spaces allowed around '#').
std::optional<llvm::StringRef> npPragmaText(llvm::StringRef line) {
  llvm::StringRef rest = line.ltrim();
  if (!rest.consume_front("#")) return std::nullopt;
  rest = rest.ltrim();
  if (!rest.consume_front("pragma")) return std::nullopt;
  if (rest.empty() || !llvm::isSpace(rest.front())) return std::nullopt;
  rest = rest.ltrim();
  if (!rest.starts_with("np") || (rest.size() > 2 && (llvm::isAlnum(rest[2]) || rest[2] == '_'))) return std::nullopt;
  return rest;
}

} // namespace

bool isMainFile(const Snapshot &s, const SourceSpan &span) {
  return span.file.empty() || (s.tu && span.file == s.tu->mainFile());
}

proto::Position positionIn(const Snapshot &s, size_t offset) { return s.lines.positionAt(s.text, offset); }

namespace {

/// Markdown list of the rewrites of a target: applicable variants, and one
/// line with the reason for each rewrite that does not apply.
std::string rewritesMarkdown(const AnalyzedTU &tu, const RewriteTarget &t) {
  std::string md;
  std::vector<ShownOffer> offers = shownOffersAt(tu, t);
  std::set<const Rewrite *> applied;
  for (const ShownOffer &o : offers)
    if (o.applies) { md += "- ✓ " + o.title + "\n"; applied.insert(o.rewrite); }
  std::set<const Rewrite *> refused;
  for (const ShownOffer &o : offers)
    if (!o.applies && !applied.count(o.rewrite) && refused.insert(o.rewrite).second)
      md += "- ✗ " + code(o.rewrite->id()) + ": " + o.reason + "\n";
  if (md.empty()) return "";
  return "\n**Rewrites**\n\n" + md;
}

std::string tripCountText(const LoopSite &l) {
  switch (l.tripCount) {
  case TripCountClass::Constant:
    return "constant" + (l.constantTripCount ? " (" + std::to_string(*l.constantTripCount) + " iterations)" : std::string());
  case TripCountClass::Uniform:
    return "uniform across the block" + (l.upperBound.empty() ? std::string() : " (bound " + code(l.upperBound) + ")");
  case TripCountClass::Irregular:
    return "irregular: differs between threads" + (l.upperBound.empty() ? std::string() : " (bound " + code(l.upperBound) + ")");
  case TripCountClass::Unknown:
    return "unknown (no canonical induction variable)";
  }
  return spelling(l.tripCount);
}

/// The cost model's ranking of every offer here (the one `rewrite --list`
/// prints): the original's estimate, keep-the-original, the top three and why;
/// then the paper's mapping model on the first-ranked mapping.
std::string rankedMarkdown(const Snapshot &s, const RewriteTarget &t) {
  OfferRanking r = rankOffers(*s.tu, s.config.mapping, t);
  std::string md = offerMarkdown(r);
  return md.empty() ? "" : "\n" + md;
}

std::string loopHover(const Snapshot &s, const LoopSite &l) {
  const FileModel &m = s.tu->model();
  std::string md = "**Loop";
  if (!l.inductionVar.empty()) md += " over " + code(l.inductionVar);
  md += "**";
  md += " — " + l.kind + " loop in " + code(l.function) + (l.inKernel ? " (kernel)" : "") +
        (l.depth ? llvm::formatv(", nesting depth {0}", l.depth).str() : std::string()) + "\n\n";
  md += "- Trip count: " + tripCountText(l) + "\n";
  if (l.gridStride) md += "- Grid-stride loop: the thread's share of a flat loop, not nested parallelism\n";
  if (l.iterationsIndependent()) md += "- Iterations: independent" +
                                        std::string(l.reductions.empty() && l.scans.empty() ? "" : " apart from reductions/scans") + "\n";
  else {
    md += "- Iterations: not independent";
    std::vector<std::string> why;
    for (const auto &d : l.carriedDependences) why.push_back(code(d.var) + ": " + d.reason);
    if (!l.barriers.empty()) why.push_back("barrier in the body");
    if (!l.breaks.empty()) why.push_back("`break`");
    if (!l.returns.empty()) why.push_back("`return`");
    if (!l.gotos.empty()) why.push_back("`goto`");
    for (const auto &c : l.collectives) why.push_back("collective " + code(c.name) + " (line " + std::to_string(c.span.begin.line) + ")");
    if (l.hasWarpIntrinsics && l.collectives.empty()) why.push_back("warp intrinsics");
    if (l.inductionVar.empty()) why.push_back("no canonical induction variable");
    if (!why.empty()) md += " — " + llvm::join(why, "; ");
    md += "\n";
  }
  NpPragma inferred = inferredPragma(l);
  md += "- Inferred clauses: " + code(inferred.canonical()) + "\n";
  if (!l.liveIns.empty()) md += "- Live-ins (broadcast by the master, `copyin`): " + code(llvm::join(l.liveIns, ", ")) + "\n";
  if (!l.privatized.empty()) md += "- Private per iteration: " + code(llvm::join(l.privatized, ", ")) + "\n";
  md += std::string("- CUDA-NP candidate: ") + (isNpCandidate(l) ? "yes" : "no") + "\n";
  if (l.pragma >= 0 && size_t(l.pragma) < m.pragmas.size())
    md += "- Annotated with " + code(m.pragmas[size_t(l.pragma)].text.empty() ? "#pragma np" : "#pragma " + m.pragmas[size_t(l.pragma)].text) + "\n";
  md += rewritesMarkdown(*s.tu, RewriteTarget{RewriteTarget::Kind::Loop, l.id});
  md += rankedMarkdown(s, RewriteTarget{RewriteTarget::Kind::Loop, l.id});
  return md;
}

std::string launchHover(const Snapshot &s, const LaunchSite &l) {
  std::string md = std::string("**") + (l.deviceSide ? "Device launch" : "Host launch") + " of " + code(l.child) + "**";
  md += " — " + code(l.child + "<<<" + l.grid + ", " + l.block + (l.sharedMem.empty() ? "" : ", " + l.sharedMem) +
                     (l.stream.empty() ? "" : ", " + l.stream) + ">>>") +
        " in " + code(l.parent) + "\n\n";
  if (l.threads) md += "- Child threads per launch: " + code(*l.threads) + (l.threadsHow.empty() ? "" : " (" + l.threadsHow + ")") + "\n";
  else md += "- Child threads per launch: not inferred" + (l.threadsHow.empty() ? std::string() : " (" + l.threadsHow + ")") + "\n";
  if (l.deviceSide) {
    md += std::string("- Launched by: ") + (l.everyThreadMayLaunch ? "every thread that reaches it" : "one thread per block or warp") + "\n";
    if (!l.enclosingLoops.empty()) md += "- Inside a loop: one launch per iteration\n";
    if (l.serializable) md += "- Serialisable: yes — the child can run as a loop in the parent thread\n";
    else md += "- Serialisable: no" + (l.reasons.empty() ? std::string() : " — " + llvm::join(l.reasons, "; ")) + "\n";
    if (l.followedByDeviceSync) md += "- Followed by a device-side `cudaDeviceSynchronize()`\n";
  }
  md += rewritesMarkdown(*s.tu, RewriteTarget{RewriteTarget::Kind::Launch, l.id});
  md += rankedMarkdown(s, RewriteTarget{RewriteTarget::Kind::Launch, l.id});
  return md;
}

} // namespace

Value paramsJSON(const RewriteParams &p) {
  Object o;
  for (const auto &[k, v] : p) o[k] = v;
  return o;
}

proto::TextEdit lspEdit(const Snapshot &s, const TextEdit &e) {
  return proto::TextEdit{proto::Range(positionIn(s, e.span.begin.offset), positionIn(s, e.span.end.offset)), e.newText};
}

const char *targetKindName(RewriteTarget::Kind k) { return k == RewriteTarget::Kind::Loop ? "loop" : "launch"; }

proto::Range rangeOf(const Snapshot &s, const SourceSpan &span) {
  if (!span.valid()) return proto::Range(proto::Position(0, 0));
  if (isMainFile(s, span))
    return proto::Range(positionIn(s, span.begin.offset), positionIn(s, span.end.offset));
  // Another file (a header): its text is not at hand, so columns are bytes.
  auto pos = [](const SourcePos &p) { return proto::Position(int(p.line) - 1, p.column ? int(p.column) - 1 : 0); };
  return proto::Range(pos(span.begin), span.end.valid() ? pos(span.end) : pos(span.begin));
}

std::vector<Diagnostic> diagnosticsFor(const Snapshot &s, const proto::URIForFile &uri) {
  std::vector<Diagnostic> out;
  if (!s.tu) {
    Diagnostic d;
    // A crash is shown on the first line of what was being analysed (the
    // function), other failures on the file's first line.
    unsigned line = s.internalError && s.errorAt.valid() ? std::min(s.errorAt.begin.line, lineCount(s.text)) - 1 : 0;
    d.base.range = proto::Range(proto::Position(int(line), 0), proto::Position(int(line), int(lineText(s.text, line).size())));
    d.base.severity = proto::DiagnosticSeverity::Error;
    d.base.source = "nestor";
    d.base.message = (s.internalError ? "Nestor: " : "Nestor could not analyse this file: ") + s.error.value_or("unknown error");
    d.code = "analysis-failed";
    d.data["version"] = s.version;
    out.push_back(std::move(d));
    return out;
  }
  if (s.configError) {
    Diagnostic d;
    d.base.range = proto::Range(proto::Position(0, 0));
    d.base.severity = proto::DiagnosticSeverity::Warning;
    d.base.source = "nestor";
    d.base.message = "the configuration was not used (defaults apply): " + *s.configError;
    d.code = "config";
    d.data["version"] = s.version;
    out.push_back(std::move(d));
  }
  for (const Finding &f : s.findings) {
    Diagnostic d;
    d.base.range = rangeOf(s, f.span);
    d.base.severity = f.severity == Severity::Error     ? proto::DiagnosticSeverity::Error
                      : f.severity == Severity::Warning ? proto::DiagnosticSeverity::Warning
                                                        : proto::DiagnosticSeverity::Information;
    d.base.source = "nestor";
    d.base.message = f.message;
    if (!f.related.empty()) {
      std::vector<proto::DiagnosticRelatedInformation> related;
      for (const RelatedLocation &r : f.related) {
        proto::URIForFile where = uri;
        if (!isMainFile(s, r.span)) {
          auto other = proto::URIForFile::fromFile(r.span.file);
          if (!other) { llvm::consumeError(other.takeError()); continue; }
          where = *other;
        }
        related.emplace_back(proto::Location(where, rangeOf(s, r.span)), r.message);
      }
      d.base.relatedInformation = std::move(related);
    }
    d.code = f.ruleId;
    d.codeHref = ruleDocUrl(f.ruleId);
    for (const auto &[k, v] : f.data) d.data[k] = v;
    d.data["version"] = s.version;
    if (f.fix) d.data["fix"] = f.fix->title;
    out.push_back(std::move(d));
  }
  return out;
}

std::string pragmaHover(const NpPragma &p, const LoopSite *loop, const std::vector<std::string> &problems) {
  std::string md = p.isParallelFor ? "**#pragma np parallel for**\n\n" : "**#pragma np** (incomplete directive)\n\n";
  md += code("#pragma " + p.text) + "\n\n";
  if (problems.empty()) {
    md += "✓ Valid";
    if (loop) md += llvm::formatv(", applies to the {0} loop{1} on line {2}", loop->kind,
                                  loop->inductionVar.empty() ? "" : " over " + code(loop->inductionVar), loop->span.begin.line).str();
    md += ".\n";
  } else {
    md += "✗ Not valid:\n\n";
    for (const std::string &why : problems) md += "- " + why + "\n";
  }

  auto meaning = [](llvm::StringRef name) -> std::string {
    for (const ClauseInfo &c : npClauses())
      if (name == c.name) return c.meaning;
    return "";
  };
  auto varOps = [](const std::vector<VarOpClause> &cs) {
    std::vector<std::string> out;
    for (const VarOpClause &c : cs) out.push_back(std::string(spelling(c.op)) + ":" + llvm::join(c.vars, ","));
    return out;
  };
  std::string clauses;
  for (const std::string &r : varOps(p.reductions)) clauses += "- " + code("reduction(" + r + ")") + ": " + meaning("reduction") + "\n";
  for (const std::string &r : varOps(p.scans)) clauses += "- " + code("scan(" + r + ")") + ": " + meaning("scan") + "\n";
  if (!p.copyin.empty()) clauses += "- " + code("copyin(" + llvm::join(p.copyin, ",") + ")") + ": " + meaning("copyin") + "\n";
  if (p.numThreads) clauses += "- " + code(llvm::formatv("num_threads({0})", *p.numThreads).str()) + ": " + meaning("num_threads") + "\n";
  if (p.npType != NpType::Unspecified)
    clauses += "- " + code(std::string("np_type(") + (p.npType == NpType::Inter ? "inter" : "intra") + ")") + ": " + meaning("np_type") + "\n";
  if (p.smVersion) clauses += "- " + code(llvm::formatv("sm_version({0})", *p.smVersion).str()) + ": " + meaning("sm_version") + "\n";
  md += "\n**Clauses**\n\n" + (clauses.empty() ? std::string("- none given\n") : clauses);
  std::vector<std::string> defaults;
  if (p.copyin.empty()) defaults.push_back("`copyin`: live-ins are found automatically");
  if (!p.numThreads) defaults.push_back("`num_threads`: variants with 4 and 8 threads per master are generated");
  if (p.npType == NpType::Unspecified) defaults.push_back("`np_type`: both inter- and intra-warp variants are generated");
  if (!defaults.empty()) md += "- not given: " + llvm::join(defaults, "; ") + "\n";
  if (loop) {
    NpPragma inferred = inferredPragma(*loop);
    md += "- inferred for this loop: " + code(inferred.canonical()) + "\n";
  }

  md += "\n**What the transformation generates**\n\n";
  std::string slaves = p.numThreads ? std::to_string(*p.numThreads) : std::string("N (4 or 8)");
  md += "Each original (master) thread gets slave threads: " + slaves +
        " threads per master, added along a new `threadIdx.y` dimension (inter-warp) or as neighbouring lanes of "
        "the master's warp (intra-warp), so the block grows " + (p.numThreads ? "×" + std::to_string(*p.numThreads) : std::string("×N")) +
        " (at most 1024 threads). Code outside the loop runs in the master only; live-in scalars are broadcast from "
        "the master to its slaves before the loop, and the loop's iterations are distributed over the master and its slaves.";
  if (!p.reductions.empty())
    md += " Each thread accumulates a private partial value of " + code(llvm::join(varOps(p.reductions), " ")) +
          "; after the loop the partials are combined (shuffles within a warp, shared memory across warps) and the "
          "master continues with the result.";
  if (!p.scans.empty()) md += " Scans are computed across the slaves in the original iteration order.";
  md += "\n\n**Recommended slave counts**: 4 or 8 threads per master (`num_threads(4)`, `num_threads(8)`): the CUDA-NP "
        "paper measures these best. Supported: 2, 4, 8, 16, 32; intra-warp groups must fit in one warp.";
  if (p.numThreads && *p.numThreads != 4 && *p.numThreads != 8)
    md += llvm::formatv(" This directive asks for {0}{1}.", *p.numThreads,
                        isSupportedSlaveCount(*p.numThreads) ? ", which is supported but rarely the fastest" : ", which is not supported").str();
  md += "\n";
  return md;
}

std::optional<std::string> hoverAt(const Snapshot &s, size_t offset, proto::Range &range) {
  unsigned line = s.lines.empty() ? lineOfOffset(s.text, offset) : s.lines.lineOf(offset);
  llvm::StringRef lineStr = lineText(s.text, line - 1);
  if (auto pragmaText = npPragmaText(lineStr)) {
    {
      // Range: the whole directive line.
      auto start = s.lines.offsetAt(s.text, proto::Position(int(line) - 1, 0));
      size_t b = start ? *start : offset;
      if (!start) llvm::consumeError(start.takeError());
      range = proto::Range(positionIn(s, b), positionIn(s, b + lineStr.size()));
    }
    const NpPragma *modelled = nullptr;
    const LoopSite *loop = nullptr;
    std::vector<std::string> problems;
    NpPragma parsed;
    if (s.tu) {
      const FileModel &m = s.tu->model();
      for (const NpPragma &p : m.pragmas)
        if (p.span.begin.line == line) modelled = &p;
      if (modelled && modelled->loopId >= 0 && size_t(modelled->loopId) < m.loops.size())
        loop = &m.loops[size_t(modelled->loopId)];
    }
    if (!modelled) {
      PragmaTextOrigin origin;
      origin.line = line;
      parsed = parseNpPragma(std::string(*pragmaText), origin);
      modelled = &parsed;
    }
    std::set<std::string> seen;
    auto add = [&](const std::string &why) {
      if (seen.insert(why).second) problems.push_back(why);
    };
    for (const PragmaError &e : modelled->errors) add(e.message);
    if (s.tu && modelled != &parsed && modelled->loopId < 0 && modelled->errors.empty())
      add("it is not followed by a `for` loop inside a kernel, so it has no effect");
    for (const Finding &f : s.findings)
      if (f.span.begin.line == line && llvm::StringRef(f.ruleId).starts_with("np-pragma") && f.severity != Severity::Note)
        add(f.message + " [" + f.ruleId + "]");
    return pragmaHover(*modelled, loop, problems);
  }
  if (!s.tu) return std::nullopt;
  const FileModel &m = s.tu->model();
  // A launch under the cursor (innermost first), then the deepest loop whose
  // header holds the cursor or that starts on the cursor's line.
  for (const LaunchSite &l : m.launches)
    if (contains(l.span, offset) || (l.span.valid() && l.span.begin.line == line)) {
      range = rangeOf(s, l.span);
      return launchHover(s, l);
    }
  const LoopSite *best = nullptr;
  for (const LoopSite &l : m.loops)
    if (contains(l.headerSpan, offset) || (l.span.valid() && l.span.begin.line == line))
      if (!best || l.depth > best->depth) best = &l;
  if (best) {
    range = rangeOf(s, best->headerSpan.valid() ? best->headerSpan : best->span);
    return loopHover(s, *best);
  }
  return std::nullopt;
}

std::optional<Array> pragmaCompletions(llvm::StringRef before) {
  llvm::StringRef rest = before.ltrim();
  if (!rest.consume_front("#")) return std::nullopt;
  rest = rest.ltrim();
  if (!rest.consume_front("pragma") || rest.empty() || !llvm::isSpace(rest.front())) return std::nullopt;
  rest = rest.ltrim();
  Array items;
  // Strings are taken by value: json::Value would only refer to a StringRef.
  auto item = [&](std::string label, int kind, std::string detail, std::string doc, std::string insert,
                  bool snippet, std::string sort) {
    Object o{{"label", label}, {"kind", kind}};
    if (!detail.empty()) o["detail"] = detail;
    if (!doc.empty()) o["documentation"] = Object{{"kind", "markdown"}, {"value", doc}};
    if (!insert.empty()) o["insertText"] = insert;
    o["insertTextFormat"] = snippet ? 2 : 1;
    if (!sort.empty()) o["sortText"] = sort;
    items.push_back(std::move(o));
  };
  constexpr int Keyword = 14, Operator = 24, ValueKind = 12;
  if (!rest.starts_with("np")) {
    if (llvm::StringRef("np").starts_with(rest))
      item("np parallel for", Keyword, "CUDA-NP directive", "Marks the next loop for CUDA-NP.", "np parallel for", false, "0");
    return items.empty() ? std::nullopt : std::optional(std::move(items));
  }
  rest = rest.drop_front(2);
  if (!rest.empty() && !llvm::isSpace(rest.front())) return std::nullopt; // e.g. `#pragma npx`
  llvm::StringRef body = rest.ltrim();
  if (!body.starts_with("parallel for")) {
    if (llvm::StringRef("parallel for").starts_with(body) || body.empty())
      item("parallel for", Keyword, "#pragma np parallel for", "Spreads the next loop over slave threads (CUDA-NP).",
           "parallel for", false, "0");
    return items;
  }
  // Inside an open parenthesis: the clause's argument.
  size_t open = body.rfind('(');
  if (open != llvm::StringRef::npos && body.find(')', open) == llvm::StringRef::npos) {
    llvm::StringRef head = body.take_front(open).rtrim();
    size_t start = head.find_last_of(" \t,)");
    llvm::StringRef clause = start == llvm::StringRef::npos ? head : head.drop_front(start + 1);
    llvm::StringRef arg = body.drop_front(open + 1);
    if ((clause == "reduction" || clause == "scan") && !arg.contains(':')) {
      unsigned i = 0;
      for (const std::string &op : npOperators())
        item(op, Operator, clause.str() + " operator", "", op + ":", false, llvm::formatv("{0:2}", i++).str());
    } else if (clause == "np_type") {
      item("inter", ValueKind, "inter-warp NP", "Slaves along a new y dimension, in other warps (keeps coalescing).", "inter", false, "0");
      item("intra", ValueKind, "intra-warp NP", "Slaves are neighbouring lanes of the master's warp; shuffles for reductions.", "intra", false, "1");
    } else if (clause == "num_threads") {
      for (unsigned n : {4u, 8u, 2u, 16u, 32u})
        item(std::to_string(n), ValueKind, n == 4 || n == 8 ? "recommended" : "supported",
             "Threads per master group, the master included.", std::to_string(n), false, n == 4 ? "0" : n == 8 ? "1" : "2" + std::to_string(n));
    } else if (clause == "sm_version") {
      for (const char *v : {"90", "80", "70"}) item(v, ValueKind, "compute capability", "", v, false, "");
    }
    return items;
  }
  unsigned i = 0;
  for (const ClauseInfo &c : npClauses()) {
    std::string snippet = c.name == std::string("reduction") || c.name == std::string("scan")
                              ? std::string(c.name) + "(${1:+}:${2:var})"
                              : std::string(c.name) + "($1)";
    item(c.name, Keyword, c.syntax, c.meaning, snippet, true, llvm::formatv("{0:2}", i++).str());
  }
  return items;
}

std::vector<CodeLens> codeLenses(const Snapshot &s, const proto::URIForFile &uri) {
  std::vector<CodeLens> out;
  if (!s.tu) return out;
  for (const Kernel &k : s.tu->model().kernels) {
    if (!k.isGlobal || !isMainFile(s, k.span)) continue;
    bool hasFindings = false;
    for (const Finding &f : s.findings)
      hasFindings |= isMainFile(s, f.span) && k.span.begin.offset <= f.span.begin.offset && f.span.begin.offset <= k.span.end.offset;
    if (!hasFindings) continue;
    CodeLens l;
    proto::Range r = rangeOf(s, k.nameSpan.valid() ? k.nameSpan : k.span);
    l.range = proto::Range(proto::Position(r.start.line, 0), proto::Position(r.start.line, 0));
    l.title = "Profile variants";
    l.command = kProfileCommand;
    l.arguments = Array{uri.uri().str(), k.name};
    out.push_back(std::move(l));
  }
  return out;
}

llvm::Expected<Array> profileCandidates(const Snapshot &s, const std::string &kernel) {
  if (!s.tu) return lspError(proto::ErrorCode::RequestFailed, "the file could not be analysed: " + s.error.value_or("unknown error"));
  const FileModel &m = s.tu->model();
  const Kernel *k = m.findKernel(kernel);
  if (!k) {
    std::vector<std::string> names;
    for (const Kernel &each : m.kernels)
      if (each.isGlobal) names.push_back(each.name);
    return lspError(proto::ErrorCode::InvalidParams, "no kernel named '" + kernel + "' in this file (kernels: " +
                                                        (names.empty() ? std::string("none") : llvm::join(names, ", ")) + ")");
  }
  std::vector<RewriteTarget> targets;
  for (int id : k->loops) targets.push_back({RewriteTarget::Kind::Loop, id});
  for (const LaunchSite &l : m.launches)
    if (l.parent == kernel) targets.push_back({RewriteTarget::Kind::Launch, l.id});
  Array out;
  for (const RewriteTarget &t : targets) {
    unsigned line = 0;
    if (t.kind == RewriteTarget::Kind::Loop && size_t(t.id) < m.loops.size()) line = m.loops[size_t(t.id)].span.begin.line;
    if (t.kind == RewriteTarget::Kind::Launch && size_t(t.id) < m.launches.size()) line = m.launches[size_t(t.id)].span.begin.line;
    for (const ShownOffer &o : shownOffersAt(*s.tu, t)) {
      if (!o.applies) continue;
      out.push_back(Object{{"rewrite", std::string(o.rewrite->id())},
                           {"params", paramsJSON(o.params)},
                           {"title", o.title},
                           {"name", llvm::formatv("{0} (line {1})", o.title, line).str()},
                           {"description", std::string(o.rewrite->summary())},
                           {"target", Object{{"kind", targetKindName(t.kind)}, {"id", t.id}, {"line", line}}}});
    }
  }
  return out;
}

} // namespace nestor::lsp
