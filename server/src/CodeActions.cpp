// Code actions from an ActionIndex, and codeAction/resolve (CodeActions.h).
#include "CodeActions.h"

#include "nestor/ProjectIndex.h"
#include "nestor/Rewrite.h"

#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace nestor::lsp {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

llvm::Error lspError(proto::ErrorCode code, const llvm::Twine &msg) {
  return llvm::make_error<proto::LSPError>(msg.str(), code);
}

bool wanted(const CodeActionRequest &req, llvm::StringRef kind) {
  if (req.only.empty()) return true;
  for (const std::string &o : req.only)
    if (kind == o || kind.starts_with(o + ".")) return true;
  return false;
}

const SourceSpan *targetSpan(const FileModel &m, const RewriteTarget &t) {
  if (t.kind == RewriteTarget::Kind::Loop)
    return t.id >= 0 && size_t(t.id) < m.loops.size() ? &m.loops[size_t(t.id)].span : nullptr;
  return t.id >= 0 && size_t(t.id) < m.launches.size() ? &m.launches[size_t(t.id)].span : nullptr;
}

Object positionJSON(const proto::Position &p) { return Object{{"line", p.line}, {"character", p.character}}; }

/// Maps offsets of the index's text into the current text, and positions.
struct Mapper {
  const ActionIndex &index;
  const DocumentNow &now;
  TextDelta delta;
  LineIndex ownLines;
  const LineIndex &lines;
  Mapper(const ActionIndex &ix, const DocumentNow &n)
      : index(ix), now(n), delta(ix.version == n.version ? TextDelta{} : TextDelta::between(ix.text, n.text)),
        ownLines(n.lines ? LineIndex() : LineIndex(n.text)), lines(n.lines ? *n.lines : ownLines) {}
  bool stale() const { return index.version != now.version; }
  proto::Position position(size_t oldOffset) const {
    return lines.positionAt(now.text, delta.toNew(oldOffset).value_or(0));
  }
};


/// A finding's quick fix as a code action: with its edit when the index is
/// of the current text, else with data for codeAction/resolve, which finds
/// the finding again in the current analysis and takes the edit from there.
CodeAction quickFixAction(const FixAction &f, const Mapper &map, const CodeActionRequest &req) {
  const ActionIndex &index = map.index;
  CodeAction a;
  a.title = f.title;
  a.kind = "quickfix";
  a.isPreferred = true;
  Diagnostic d = f.diagnostic;
  if (map.stale()) d.base.range = proto::Range(map.position(f.begin), map.position(f.end));
  a.diagnostics.push_back(toJSON(d));
  if (!map.stale()) {
    VersionedEdit e{req.uri, index.version, {}};
    for (const FixAction::Edit &t : f.edits)
      e.edits.push_back({proto::Range(index.lines.positionAt(index.text, t.begin), index.lines.positionAt(index.text, t.end)),
                         t.newText});
    a.edit = std::move(e);
  } else {
    a.data = Object{{"uri", req.uri.uri().str()},
                    {"version", map.now.version},
                    {"fix", Object{{"rule", f.ruleId}, {"title", f.title}, {"at", positionJSON(map.position(f.begin))}}}};
  }
  return a;
}

/// The rewrites offered for one target: applicable ones with their data for
/// codeAction/resolve, refused ones disabled with the reason.
void offerRewrites(const TargetActions &t, const Mapper &map, const CodeActionRequest &req, Array &out) {
  const DocumentNow &now = map.now;
  Object target{{"kind", targetKindName(t.target.kind)},
                {"id", t.target.id},
                {"at", positionJSON(map.position(t.spanBegin))}};
  std::set<const Rewrite *> applied;
  for (const ShownOffer &o : t.offers) {
    if (!o.applies) continue;
    applied.insert(o.rewrite);
    CodeAction a;
    a.title = o.title;
    a.kind = "refactor.rewrite";
    a.data = Object{{"uri", req.uri.uri().str()},
                    {"version", now.version},
                    {"rewrite", std::string(o.rewrite->id())},
                    {"target", Object(target)},
                    {"params", paramsJSON(o.params)}};
    out.push_back(toJSON(a, req.documentChanges));
  }
  // Rewrites that are relevant here (their kind of target is under the
  // cursor) but refused: one disabled action each, with the reason.
  std::set<const Rewrite *> refused;
  for (const ShownOffer &o : t.offers) {
    if (o.applies || applied.count(o.rewrite) || !refused.insert(o.rewrite).second) continue;
    CodeAction a;
    a.title = o.title;
    a.kind = "refactor.rewrite";
    a.disabledReason = o.reason.empty() ? "does not apply here" : o.reason;
    out.push_back(toJSON(a, req.documentChanges));
  }
}

} // namespace

std::shared_ptr<const ActionIndex> buildActionIndex(const Snapshot &s, const proto::URIForFile &uri,
                                                    llvm::function_ref<bool()> abandon) {
  auto ix = std::make_shared<ActionIndex>();
  ix->version = s.version;
  ix->text = s.text;
  ix->lines = s.lines.empty() ? LineIndex(s.text) : s.lines;
  if (!s.tu) return ix;
  std::vector<Diagnostic> diags = diagnosticsFor(s, uri);
  size_t firstFinding = s.configError ? 1 : 0;
  for (size_t i = 0; i < s.findings.size(); ++i) {
    const Finding &f = s.findings[i];
    if (!f.fix || !isMainFile(s, f.span)) continue;
    FixAction a;
    a.ruleId = f.ruleId;
    a.title = f.fix->title;
    a.begin = a.touchBegin = f.span.begin.offset;
    a.end = a.touchEnd = f.span.end.offset;
    for (const TextEdit &e : f.fix->edits) {
      a.edits.push_back({e.span.begin.offset, e.span.end.offset, e.newText});
      a.touchBegin = std::min(a.touchBegin, size_t(e.span.begin.offset));
      a.touchEnd = std::max(a.touchEnd, size_t(e.span.end.offset));
    }
    a.diagnostic = diags[i + firstFinding];
    ix->fixes.push_back(std::move(a));
  }
  // The lines that select each target, as targetAtLine() decides.
  const FileModel &m = s.tu->model();
  std::map<std::pair<int, int>, size_t> seen;
  auto index = [&](RewriteTarget::Kind kind, unsigned line, std::map<unsigned, size_t> &byLine) {
    std::optional<RewriteTarget> t = targetAtLine(m, kind, line);
    const SourceSpan *span = t ? targetSpan(m, *t) : nullptr;
    if (!span || !span->valid() || !isMainFile(s, *span)) return;
    auto [it, fresh] = seen.try_emplace({int(t->kind), t->id}, ix->targets.size());
    if (fresh) ix->targets.push_back({*t, span->begin.offset, span->begin.offset, span->end.offset, {}});
    TargetActions &ta = ix->targets[it->second];
    auto lineStart = ix->lines.offsetAt(ix->text, proto::Position(int(line) - 1, 0));
    if (lineStart) ta.begin = std::min(ta.begin, *lineStart);
    else llvm::consumeError(lineStart.takeError());
    byLine[line] = it->second;
  };
  for (const LaunchSite &l : m.launches)
    if (l.span.valid() && isMainFile(s, l.span))
      for (unsigned line = l.span.begin.line; line <= l.span.end.line; ++line)
        index(RewriteTarget::Kind::Launch, line, ix->launchAtLine);
  for (const LoopSite &l : m.loops)
    if (l.span.valid() && isMainFile(s, l.span)) index(RewriteTarget::Kind::Loop, l.span.begin.line, ix->loopAtLine);
  for (const NpPragma &p : m.pragmas)
    if (p.loopId >= 0 && isMainFile(s, p.span)) index(RewriteTarget::Kind::Loop, p.span.begin.line, ix->loopAtLine);
  for (TargetActions &ta : ix->targets) {
    if (abandon()) return nullptr;
    ta.offers = shownOffersAt(*s.tu, ta.target);
  }
  return ix;
}

std::optional<Array> codeActions(const ActionIndex &index, const CodeActionRequest &req, const DocumentNow &now) {
  Mapper map(index, now);
  if (map.stale() && !req.resolveEdits) return std::nullopt;
  // The request's range in the index's text: answerable only if no edit
  // since touched it.
  auto begin = map.delta.toOld(req.begin), end = map.delta.toOld(req.end);
  if (!begin || !end || !map.delta.keeps(*begin, *end)) return std::nullopt;
  Array out;
  if (wanted(req, "quickfix")) {
    for (const FixAction &f : index.fixes) {
      if (f.begin > *end || *begin > f.end) continue;
      if (!map.delta.keeps(f.touchBegin, f.touchEnd)) return std::nullopt;
      out.push_back(toJSON(quickFixAction(f, map, req), req.documentChanges));
    }
  }
  if (!wanted(req, "refactor.rewrite")) return out;
  unsigned line = index.lines.lineOf(*begin);
  for (const auto *byLine : {&index.launchAtLine, &index.loopAtLine}) {
    auto it = byLine->find(line);
    if (it == byLine->end()) continue;
    const TargetActions &t = index.targets[it->second];
    if (!map.delta.keeps(t.begin, t.end)) return std::nullopt;
    offerRewrites(t, map, req, out);
  }
  return out;
}

Array codeActionsAroundEdit(const ActionIndex &index, const CodeActionRequest &req, const DocumentNow &now) {
  Mapper map(index, now);
  Array out;
  if (!map.stale() || !req.resolveEdits) return out;
  // The request's line in the index's text: through the start of its line,
  // or, when that start was edited, the same number if the edits added or
  // removed no line before it.
  const TextDelta &d = map.delta;
  unsigned newLine = map.lines.lineOf(req.begin);
  std::optional<unsigned> oldLine;
  auto lineStart = map.lines.offsetAt(now.text, proto::Position(int(newLine) - 1, 0));
  if (lineStart) {
    if (auto old = d.toOld(*lineStart)) oldLine = index.lines.lineOf(*old);
  } else {
    llvm::consumeError(lineStart.takeError());
  }
  llvm::StringRef oldText(index.text), newText(now.text);
  if (!oldLine && oldText.slice(d.prefix, d.oldEnd).count('\n') == newText.slice(d.prefix, d.newEnd).count('\n'))
    oldLine = newLine;
  if (wanted(req, "quickfix")) {
    auto begin = d.toOld(req.begin), end = d.toOld(req.end);
    for (const FixAction &f : index.fixes) {
      if (!begin || !end || f.begin > *end || *begin > f.end || !d.keeps(f.touchBegin, f.touchEnd)) continue;
      out.push_back(toJSON(quickFixAction(f, map, req), req.documentChanges));
    }
  }
  if (!oldLine || !wanted(req, "refactor.rewrite")) return out;
  for (const auto *byLine : {&index.launchAtLine, &index.loopAtLine}) {
    auto it = byLine->find(*oldLine);
    if (it == byLine->end()) continue;
    const TargetActions &t = index.targets[it->second];
    // Resolve finds the target where it starts: that start must have a
    // place in the current text.
    if (!d.toNew(t.spanBegin)) continue;
    offerRewrites(t, map, req, out);
  }
  return out;
}

Array codeActions(const Snapshot &s, const CodeActionRequest &req, const ActionIndex *index) {
  std::shared_ptr<const ActionIndex> own;
  if (!index || index->version != s.version) {
    own = buildActionIndex(s, req.uri);
    index = own.get();
  }
  DocumentNow now{s.version, s.text, &index->lines};
  std::optional<Array> actions = codeActions(*index, req, now);
  if (!actions) return Array{}; // unreachable: an index of the same text answers everything
  if (req.resolveEdits) return std::move(*actions);
  // The client cannot resolve: compute the rewrites' edits now.
  Array out;
  for (Value &v : *actions) {
    const Object *o = v.getAsObject();
    if (!o || !o->getObject("data")) {
      out.push_back(std::move(v));
      continue;
    }
    auto resolved = resolveCodeAction(s, v, req.documentChanges);
    if (!resolved) {
      llvm::consumeError(resolved.takeError());
      continue;
    }
    out.push_back(std::move(*resolved));
  }
  return out;
}

namespace {

/// The loop or launch of `kind` whose span starts at `offset` in the main file.
std::optional<RewriteTarget> targetStartingAt(const Snapshot &s, RewriteTarget::Kind kind, int idHint, size_t offset) {
  const FileModel &m = s.tu->model();
  auto startsThere = [&](const SourceSpan *span) {
    return span && span->valid() && isMainFile(s, *span) && span->begin.offset == offset;
  };
  if (startsThere(targetSpan(m, {kind, idHint}))) return RewriteTarget{kind, idHint};
  size_t n = kind == RewriteTarget::Kind::Loop ? m.loops.size() : m.launches.size();
  for (size_t id = 0; id < n; ++id)
    if (startsThere(targetSpan(m, {kind, int(id)}))) return RewriteTarget{kind, int(id)};
  return std::nullopt;
}

std::optional<size_t> offsetOf(const Snapshot &s, const Object *position) {
  if (!position) return std::nullopt;
  auto line = position->getInteger("line"), character = position->getInteger("character");
  if (!line || !character) return std::nullopt;
  auto off = s.lines.offsetAt(s.text, proto::Position(int(*line), int(*character)));
  if (!off) {
    llvm::consumeError(off.takeError());
    return std::nullopt;
  }
  return *off;
}

llvm::Expected<Value> resolveQuickFix(const Snapshot &s, const Object &action, const Object &fix,
                                      const proto::URIForFile &uri, bool documentChanges) {
  auto rule = fix.getString("rule"), title = fix.getString("title");
  std::optional<size_t> at = offsetOf(s, fix.getObject("at"));
  if (!rule || !title || !at) return lspError(proto::ErrorCode::InvalidParams, "codeAction/resolve: malformed quick fix data");
  for (const Finding &f : s.findings) {
    if (f.ruleId != *rule || !f.fix || f.fix->title != *title || !isMainFile(s, f.span) || f.span.begin.offset != *at) continue;
    VersionedEdit e{uri, s.version, {}};
    for (const TextEdit &t : f.fix->edits) e.edits.push_back(lspEdit(s, t));
    Object out = action;
    out["edit"] = toJSON(e, documentChanges);
    return Value(std::move(out));
  }
  return lspError(proto::ErrorCode::RequestFailed,
                  "'" + *title + "' no longer applies: the finding is gone from the current text; ask for code actions again");
}

} // namespace

llvm::Expected<Value> resolveCodeAction(const Snapshot &s, const Value &actionIn, bool documentChanges) {
  const Object *action = actionIn.getAsObject();
  const Object *data = action ? action->getObject("data") : nullptr;
  if (!data) return lspError(proto::ErrorCode::InvalidParams, "codeAction/resolve: the action has no Nestor data");
  auto version = data->getInteger("version");
  auto uri = data->getString("uri");
  if (!version || !uri) return lspError(proto::ErrorCode::InvalidParams, "codeAction/resolve: malformed Nestor data");
  if (*version != s.version || !s.tu)
    return lspError(proto::ErrorCode::ContentModified,
                    llvm::formatv("the document changed (version {0} -> {1}) since this action was offered; "
                                  "ask for code actions again", *version, s.version));
  auto documentUri = proto::URIForFile::fromURI(*uri);
  if (!documentUri) return lspError(proto::ErrorCode::InvalidParams, llvm::toString(documentUri.takeError()));
  if (const Object *fix = data->getObject("fix")) return resolveQuickFix(s, *action, *fix, *documentUri, documentChanges);
  auto rewriteId = data->getString("rewrite");
  const Object *target = data->getObject("target");
  const Object *params = data->getObject("params");
  if (!rewriteId || !target || !params) return lspError(proto::ErrorCode::InvalidParams, "codeAction/resolve: malformed Nestor data");
  const Rewrite *r = findRewrite(rewriteId->str());
  if (!r) return lspError(proto::ErrorCode::InvalidParams, "codeAction/resolve: unknown rewrite '" + *rewriteId + "'");
  auto kind = target->getString("kind");
  auto id = target->getInteger("id");
  if (!kind || !id || (*kind != "loop" && *kind != "launch"))
    return lspError(proto::ErrorCode::InvalidParams, "codeAction/resolve: malformed target");
  RewriteTarget t{*kind == "loop" ? RewriteTarget::Kind::Loop : RewriteTarget::Kind::Launch, int(*id)};
  // The target is found where the action says it starts: ids number the
  // loops of one analysis and may name another loop in the next.
  if (const Object *at = target->getObject("at")) {
    std::optional<size_t> offset = offsetOf(s, at);
    std::optional<RewriteTarget> found = offset ? targetStartingAt(s, t.kind, t.id, *offset) : std::nullopt;
    if (!found)
      return lspError(proto::ErrorCode::RequestFailed, llvm::formatv("the {0} this action was offered for is gone from the "
                                                                     "current text; ask for code actions again", *kind));
    t = *found;
  } else if (!targetSpan(s.tu->model(), t)) {
    return lspError(proto::ErrorCode::InvalidParams, "codeAction/resolve: no such target");
  }
  RewriteParams given;
  for (const auto &[k, v] : *params)
    if (auto str = v.getAsString()) given[k.str()] = str->str();
  auto resolved = resolveParams(*r, given);
  if (!resolved) return lspError(proto::ErrorCode::InvalidParams, llvm::toString(resolved.takeError()));
  Applicability a = r->prepare(*s.tu, t, *resolved);
  if (!a.applies) return lspError(proto::ErrorCode::RequestFailed, r->title(*resolved) + " no longer applies: " + a.reason);
  auto files = r->applyAcrossFiles(*s.tu, t, *resolved);
  if (!files) return lspError(proto::ErrorCode::RequestFailed, r->title(*resolved) + " failed: " + llvm::toString(files.takeError()));
  VersionedEdit e{*documentUri, s.version, {}};
  if (auto own = files->find(s.tu->mainFile()); own != files->end())
    for (const TextEdit &te : toTextEdits(*s.tu, own->second)) e.edits.push_back(lspEdit(s, te));
  // Launches in other files of the project (the project index): one
  // WorkspaceEdit spans them all, at the texts the rewrite was computed on.
  std::vector<VersionedEdit> others;
  for (const auto &[file, reps] : *files) {
    if (file == s.tu->mainFile()) continue;
    std::shared_ptr<const AnalyzedTU> unit = s.tu->project() ? s.tu->project()->unit(file) : nullptr;
    if (!unit) return lspError(proto::ErrorCode::RequestFailed, r->title(*resolved) + " failed: " + file + " cannot be read");
    llvm::StringRef text = unit->mainFileText();
    LineIndex lines(text);
    auto uri = proto::URIForFile::fromFile(file);
    if (!uri) return lspError(proto::ErrorCode::RequestFailed, llvm::toString(uri.takeError()));
    VersionedEdit other{*uri, -1, {}};
    for (const TextEdit &te : toTextEdits(*unit, reps))
      other.edits.push_back(proto::TextEdit{
          proto::Range(lines.positionAt(text, te.span.begin.offset), lines.positionAt(text, te.span.end.offset)), te.newText});
    others.push_back(std::move(other));
  }
  Object out = *action;
  out["edit"] = toJSON(e, documentChanges, others);
  return Value(std::move(out));
}

} // namespace nestor::lsp
