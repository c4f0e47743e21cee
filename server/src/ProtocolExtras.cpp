#include "ProtocolExtras.h"

namespace nestor::lsp {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

bool fromJSON(const Value &v, NestorSettings &out, llvm::json::Path p) {
  const Object *o = v.getAsObject();
  if (!o) {
    p.report("expected an object");
    return false;
  }
  // Each key is optional; a key of the wrong type is an error (a typo in the
  // editor's settings should be visible, not silently ignored).
  if (const Value *dir = o->get("compileCommandsDir")) {
    if (dir->getAsNull()) out.compileCommandsDir.reset();
    else if (auto s = dir->getAsString()) out.compileCommandsDir = s->empty() ? std::nullopt : std::optional(s->str());
    else { p.field("compileCommandsDir").report("expected a string or null"); return false; }
  }
  if (const Value *arch = o->get("gpuArch")) {
    auto s = arch->getAsString();
    if (!s || s->empty()) { p.field("gpuArch").report("expected a non-empty string such as \"sm_90\""); return false; }
    out.gpuArch = s->str();
  }
  if (const Value *trusted = o->get("workspaceTrusted")) {
    auto b = trusted->getAsBoolean();
    if (!b) { p.field("workspaceTrusted").report("expected a boolean"); return false; }
    out.workspaceTrusted = *b;
  }
  if (const Value *profile = o->get("profile")) {
    const Object *po = profile->getAsObject();
    if (!po) { p.field("profile").report("expected an object"); return false; }
    if (auto s = po->getString("buildCommand")) out.buildCommand = s->str();
    if (auto s = po->getString("runCommand")) out.runCommand = s->str();
    if (const Value *budget = po->get("budget")) {
      auto n = budget->getAsInteger();
      if (!n || *n < 0 || *n > 100000) { p.field("profile").field("budget").report("expected a non-negative integer (0: all variants)"); return false; }
      out.profileBudget = unsigned(*n);
    }
  }
  return true;
}

Value toJSON(const NestorSettings &s) {
  return Object{{"compileCommandsDir", s.compileCommandsDir ? Value(*s.compileCommandsDir) : Value(nullptr)},
                {"gpuArch", s.gpuArch},
                {"workspaceTrusted", s.workspaceTrusted},
                {"profile", Object{{"buildCommand", s.buildCommand}, {"runCommand", s.runCommand}, {"budget", int64_t(s.profileBudget)}}}};
}

bool fromJSON(const Value &v, InitializeParams &out, llvm::json::Path p) {
  if (!proto::fromJSON(v, out.base, p)) return false;
  const Object *o = v.getAsObject();
  if (const Value *opts = o->get("initializationOptions"); opts && !opts->getAsNull()) {
    NestorSettings s;
    if (!fromJSON(*opts, s, p.field("initializationOptions"))) return false;
    out.settings = s;
  }
  if (const Object *caps = o->getObject("capabilities")) {
    if (const Object *td = caps->getObject("textDocument"))
      if (const Object *ca = td->getObject("codeAction"))
        if (const Object *rs = ca->getObject("resolveSupport"))
          if (const Array *props = rs->getArray("properties"))
            for (const Value &prop : *props)
              if (prop.getAsString() == std::optional<llvm::StringRef>("edit")) out.codeActionResolvesEdit = true;
    if (const Object *ws = caps->getObject("workspace"))
      if (const Object *we = ws->getObject("workspaceEdit"))
        out.documentChanges = we->getBoolean("documentChanges").value_or(false);
  }
  return true;
}

bool fromJSON(const Value &v, DidChangeConfigurationParams &out, llvm::json::Path p) {
  const Object *o = v.getAsObject();
  if (!o) { p.report("expected an object"); return false; }
  const Object *settings = o->getObject("settings");
  if (!settings) return true; // clients may send {settings: null}: nothing for us
  if (const Value *nestor = settings->get("nestor")) {
    NestorSettings s;
    if (!fromJSON(*nestor, s, p.field("settings").field("nestor"))) return false;
    out.settings = s;
  }
  return true;
}

bool fromJSON(const Value &v, CancelParams &out, llvm::json::Path p) {
  const Object *o = v.getAsObject();
  const Value *id = o ? o->get("id") : nullptr;
  if (!id || (!id->getAsInteger() && !id->getAsString())) {
    p.report("expected {id: number | string}");
    return false;
  }
  out.id = *id;
  return true;
}

bool fromJSON(const Value &v, WorkDoneProgressCancelParams &out, llvm::json::Path p) {
  const Object *o = v.getAsObject();
  const Value *token = o ? o->get("token") : nullptr;
  if (!token || (!token->getAsInteger() && !token->getAsString())) {
    p.report("expected {token: number | string}");
    return false;
  }
  out.token = *token;
  return true;
}

bool fromJSON(const Value &v, CodeLensParams &out, llvm::json::Path p) {
  llvm::json::ObjectMapper o(v, p);
  return o && o.map("textDocument", out.textDocument);
}

bool fromJSON(const Value &v, ExecuteCommandParams &out, llvm::json::Path p) {
  llvm::json::ObjectMapper o(v, p);
  if (!o || !o.map("command", out.command)) return false;
  const Object *obj = v.getAsObject();
  if (const Value *args = obj->get("arguments"); args && !args->getAsNull()) {
    const Array *a = args->getAsArray();
    if (!a) { p.field("arguments").report("expected an array"); return false; }
    out.arguments = *a;
  }
  if (const Value *token = obj->get("workDoneToken"); token && !token->getAsNull()) out.workDoneToken = *token;
  return true;
}

Value toJSON(const Diagnostic &d) {
  Value v = proto::toJSON(d.base);
  Object &o = *v.getAsObject();
  // LLVM's toJSON(Location) refers to the URI's string instead of copying
  // it; rebuild the related locations so the value owns its strings.
  if (d.base.relatedInformation) {
    Array related;
    for (const proto::DiagnosticRelatedInformation &r : *d.base.relatedInformation)
      related.push_back(Object{{"location", Object{{"uri", r.location.uri.uri().str()}, {"range", proto::toJSON(r.location.range)}}},
                               {"message", r.message}});
    o["relatedInformation"] = std::move(related);
  }
  if (!d.code.empty()) o["code"] = d.code;
  if (!d.codeHref.empty()) o["codeDescription"] = Object{{"href", d.codeHref}};
  if (!d.data.empty()) o["data"] = Object(d.data);
  return v;
}

Value toJSON(const VersionedEdit &e, bool documentChanges, const std::vector<VersionedEdit> &others) {
  auto editsOf = [](const VersionedEdit &v) {
    Array edits;
    for (const proto::TextEdit &t : v.edits) edits.push_back(proto::toJSON(t));
    return edits;
  };
  // json::Value keeps StringRefs by reference: every string is copied in.
  if (!documentChanges) {
    Object changes{{e.uri.uri().str(), editsOf(e)}};
    for (const VersionedEdit &o : others) changes[o.uri.uri().str()] = editsOf(o);
    return Object{{"changes", std::move(changes)}};
  }
  Array docs;
  for (const VersionedEdit *v : {&e}) docs.push_back(Object{
      {"textDocument", Object{{"uri", v->uri.uri().str()}, {"version", v->version}}}, {"edits", editsOf(*v)}});
  for (const VersionedEdit &o : others)
    docs.push_back(Object{{"textDocument", Object{{"uri", o.uri.uri().str()},
                                                  {"version", o.version < 0 ? Value(nullptr) : Value(o.version)}}},
                          {"edits", editsOf(o)}});
  return Object{{"documentChanges", std::move(docs)}};
}

Value toJSON(const CodeAction &a, bool documentChanges) {
  Object o{{"title", a.title}, {"kind", a.kind}};
  if (!a.diagnostics.empty()) o["diagnostics"] = Array(a.diagnostics);
  if (a.isPreferred) o["isPreferred"] = true;
  if (a.edit) o["edit"] = toJSON(*a.edit, documentChanges);
  if (a.disabledReason) o["disabled"] = Object{{"reason", *a.disabledReason}};
  if (a.data) o["data"] = *a.data;
  return o;
}

Value toJSON(const CodeLens &l) {
  return Object{{"range", proto::toJSON(l.range)},
                {"command", Object{{"title", l.title}, {"command", l.command}, {"arguments", Array(l.arguments)}}}};
}

Value progressBegin(llvm::StringRef title, bool cancellable, llvm::StringRef message,
                    std::optional<unsigned> percentage) {
  Object o{{"kind", "begin"}, {"title", title.str()}, {"cancellable", cancellable}};
  if (!message.empty()) o["message"] = message.str();
  if (percentage) o["percentage"] = *percentage;
  return o;
}
Value progressReport(llvm::StringRef message, std::optional<unsigned> percentage) {
  Object o{{"kind", "report"}};
  if (!message.empty()) o["message"] = message.str();
  if (percentage) o["percentage"] = *percentage;
  return o;
}
Value progressEnd(llvm::StringRef message) {
  Object o{{"kind", "end"}};
  if (!message.empty()) o["message"] = message.str();
  return o;
}
Value progressParams(const Value &token, Value value) {
  return Object{{"token", token}, {"value", std::move(value)}};
}

Value serverCapabilities() {
  return Object{
      {"positionEncoding", "utf-16"},
      {"textDocumentSync", Object{{"openClose", true},
                                  {"change", int(proto::TextDocumentSyncKind::Incremental)},
                                  {"save", Object{{"includeText", false}}}}},
      {"hoverProvider", true},
      {"completionProvider", Object{{"triggerCharacters", Array{" ", "(", ":", ","}}, {"resolveProvider", false}}},
      {"codeActionProvider",
       Object{{"codeActionKinds", Array{"quickfix", "refactor.rewrite"}}, {"resolveProvider", true}}},
      {"codeLensProvider", Object{{"resolveProvider", false}}},
      {"executeCommandProvider", Object{{"commands", Array{kProfileCommand}}}},
  };
}

} // namespace nestor::lsp
