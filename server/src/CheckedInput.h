// JSON-RPC input checking for `nestor lsp` (protocol plumbing): every message
// is checked before LLVM's transport sees it, and the id of the request being
// dispatched is remembered for $/cancelRequest.
#pragma once
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/LSP/Transport.h"

#include <optional>

namespace nestor::lsp {

namespace proto = llvm::lsp;
using llvm::json::Object;
using llvm::json::Value;

// ---- input: every message is checked before LLVM's transport sees it ------
//
// JSONTransport::run() logs unparsable JSON without answering and stops the
// server on a message that is not a JSON-RPC 2.0 object. Neither is what the
// protocol asks for, so malformed messages are turned here into calls of two
// internal methods whose handlers answer ParseError / InvalidRequest (with
// id null when the id cannot be read, as JSON-RPC specifies). The input also
// remembers the id of the request it just handed over: the transport calls
// the handler synchronously, so that is the id of the request being
// dispatched, which $/cancelRequest refers to.
constexpr llvm::StringLiteral kParseErrorMethod("$/nestor/parseError");
constexpr llvm::StringLiteral kInvalidRequestMethod("$/nestor/invalidRequest");

class CheckedInput final : public proto::JSONTransportInput {
public:
  explicit CheckedInput(std::FILE *in) : file_(in) {}
  bool hasError() const override { return file_.hasError(); }
  bool isEndOfInput() const override { return file_.isEndOfInput(); }
  llvm::LogicalResult readDelimitedMessage(std::string &json) override {
    return check(file_.readDelimitedMessage(json), json);
  }
  llvm::LogicalResult readStandardMessage(std::string &json) override {
    return check(file_.readStandardMessage(json), json);
  }
  const std::optional<Value> &lastId() const { return lastId_; }

private:
  llvm::LogicalResult check(llvm::LogicalResult read, std::string &json) {
    lastId_.reset();
    if (llvm::failed(read)) return read;
    auto replace = [&](llvm::StringRef method, Value id, llvm::StringRef message) {
      json = llvm::formatv("{0}", Value(Object{{"jsonrpc", "2.0"},
                                               {"id", std::move(id)},
                                               {"method", method},
                                               {"params", Object{{"message", message}}}}))
                 .str();
      return llvm::success();
    };
    auto parsed = llvm::json::parse(json);
    if (!parsed) return replace(kParseErrorMethod, nullptr, "parse error: " + llvm::toString(parsed.takeError()));
    Object *o = parsed->getAsObject();
    if (!o) return replace(kInvalidRequestMethod, nullptr, "invalid request: the message is not a JSON object");
    Value id = nullptr;
    bool hasId = false;
    if (const Value *i = o->get("id")) {
      if (i->getAsInteger() || i->getAsString()) { id = *i; hasId = true; }
      else if (!i->getAsNull()) return replace(kInvalidRequestMethod, nullptr, "invalid request: id must be a number or a string");
    }
    if (o->getString("jsonrpc") != std::optional<llvm::StringRef>("2.0"))
      return replace(kInvalidRequestMethod, id, "invalid request: \"jsonrpc\": \"2.0\" is missing");
    const Value *method = o->get("method");
    if (method && !method->getAsString())
      return replace(kInvalidRequestMethod, id, "invalid request: method must be a string");
    if (!method && !o->get("id"))
      return replace(kInvalidRequestMethod, nullptr, "invalid request: neither a method nor an id");
    if (method && hasId) lastId_ = id;
    return llvm::success();
  }

  proto::JSONTransportInputOverFile file_;
  std::optional<Value> lastId_;
};

inline std::string idKey(const llvm::json::Value &id) { return llvm::formatv("{0}", id).str(); }

} // namespace nestor::lsp
