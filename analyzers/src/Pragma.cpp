#include "nestor/Pragma.h"

#include <cctype>
#include <set>

namespace nestor {

const char *spelling(ReductionOp op) {
  switch (op) {
  case ReductionOp::Add: return "+";
  case ReductionOp::Mul: return "*";
  case ReductionOp::Max: return "max";
  case ReductionOp::Min: return "min";
  case ReductionOp::BitAnd: return "&";
  case ReductionOp::BitOr: return "|";
  case ReductionOp::BitXor: return "^";
  case ReductionOp::LogicalAnd: return "&&";
  case ReductionOp::LogicalOr: return "||";
  }
  return "?";
}

std::optional<ReductionOp> parseReductionOp(const std::string &t) {
  if (t == "+") return ReductionOp::Add;
  if (t == "*") return ReductionOp::Mul;
  if (t == "max") return ReductionOp::Max;
  if (t == "min") return ReductionOp::Min;
  if (t == "&") return ReductionOp::BitAnd;
  if (t == "|") return ReductionOp::BitOr;
  if (t == "^") return ReductionOp::BitXor;
  if (t == "&&") return ReductionOp::LogicalAnd;
  if (t == "||") return ReductionOp::LogicalOr;
  return std::nullopt;
}

bool isSupportedSlaveCount(unsigned n) {
  return n == 2 || n == 4 || n == 8 || n == 16 || n == 32;
}

const std::vector<ClauseInfo> &npClauses() {
  static const std::vector<ClauseInfo> clauses = {
      {"reduction", "reduction(op:list)",
       "Each variable in the list is combined over all iterations with op; the slaves' partial "
       "results are reduced into the master after the loop."},
      {"scan", "scan(op:list)",
       "Each variable in the list holds a running (prefix) combination with op, in the original "
       "iteration order."},
      {"copyin", "copyin(list)",
       "Scalars the master computes before the loop and broadcasts to its slaves "
       "(inferred when omitted)."},
      {"num_threads", "num_threads(N)",
       "Threads that share one master's loop, the master included: 2, 4, 8, 16 or 32 "
       "(the paper finds 4 or 8 best)."},
      {"np_type", "np_type(inter|intra)",
       "inter: slaves along a new y dimension, in other warps (keeps coalescing); intra: slaves "
       "are neighbouring lanes of the master's warp and communicate by shuffles."},
      {"sm_version", "sm_version(N)",
       "Target compute capability, e.g. 90; below 30 shuffles are unavailable and shared memory "
       "is used instead."},
  };
  return clauses;
}

const std::vector<std::string> &npOperators() {
  static const std::vector<std::string> ops = {"+", "*", "max", "min", "&", "|", "^", "&&", "||"};
  return ops;
}

std::string NpPragma::canonical() const {
  std::string out = "#pragma np parallel for";
  auto lists = [&](const char *name, const std::vector<VarOpClause> &cs) {
    for (const auto &c : cs) {
      out += std::string(" ") + name + "(" + spelling(c.op) + ":";
      for (size_t i = 0; i < c.vars.size(); ++i)
        out += (i ? "," : "") + c.vars[i];
      out += ")";
    }
  };
  lists("reduction", reductions);
  lists("scan", scans);
  if (!copyin.empty()) {
    out += " copyin(";
    for (size_t i = 0; i < copyin.size(); ++i)
      out += (i ? "," : "") + copyin[i];
    out += ")";
  }
  if (numThreads) out += " num_threads(" + std::to_string(*numThreads) + ")";
  if (npType != NpType::Unspecified)
    out += std::string(" np_type(") + (npType == NpType::Inter ? "inter" : "intra") + ")";
  if (smVersion) out += " sm_version(" + std::to_string(*smVersion) + ")";
  return out;
}

namespace {

struct Token {
  enum Kind { Ident, Number, Punct, End } kind = End;
  std::string text;
  size_t begin = 0, end = 0;
};

class PragmaParser {
public:
  PragmaParser(std::string_view text, const PragmaTextOrigin &origin)
      : text_(text), origin_(origin) {
    lex();
  }

  NpPragma parse() {
    result_.text = std::string(text_);
    result_.span = span(0, text_.size());
    if (!acceptIdent("np")) {
      error(cur(), "expected 'np'");
      return result_;
    }
    if (peekIdent("parallel")) {
      next();
      if (!acceptIdent("for")) {
        error(cur(), "expected 'for' after 'np parallel'");
        return result_;
      }
    } else if (!acceptIdent("for")) {
      error(cur(), "expected 'parallel for' after 'np'");
      return result_;
    }
    result_.isParallelFor = true;
    while (cur().kind != Token::End) {
      if (cur().kind == Token::Punct && cur().text == ",") { // optional separators
        next();
        continue;
      }
      if (!parseClause()) return result_;
    }
    return result_;
  }

private:
  void lex() {
    size_t i = 0;
    while (i < text_.size()) {
      char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c)) || c == '\\') { ++i; continue; }
      if (c == '/' && i + 1 < text_.size() && text_[i + 1] == '/') break; // line comment
      if (c == '/' && i + 1 < text_.size() && text_[i + 1] == '*') {
        size_t close = text_.find("*/", i + 2);
        i = close == std::string_view::npos ? text_.size() : close + 2;
        continue;
      }
      Token t;
      t.begin = i;
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        while (i < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '_')) ++i;
        t.kind = Token::Ident;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        while (i < text_.size() && std::isalnum(static_cast<unsigned char>(text_[i]))) ++i;
        t.kind = Token::Number;
      } else if ((c == '&' || c == '|') && i + 1 < text_.size() && text_[i + 1] == c) {
        i += 2;
        t.kind = Token::Punct;
      } else {
        ++i;
        t.kind = Token::Punct;
      }
      t.end = i;
      t.text = std::string(text_.substr(t.begin, t.end - t.begin));
      tokens_.push_back(t);
    }
    Token end;
    end.kind = Token::End;
    end.begin = end.end = text_.size();
    tokens_.push_back(end);
  }

  const Token &cur() const { return tokens_[pos_]; }
  void next() { if (pos_ + 1 < tokens_.size()) ++pos_; }
  bool peekIdent(const char *s) const { return cur().kind == Token::Ident && cur().text == s; }
  bool acceptIdent(const char *s) {
    if (!peekIdent(s)) return false;
    next();
    return true;
  }
  bool acceptPunct(const char *s) {
    if (cur().kind != Token::Punct || cur().text != s) return false;
    next();
    return true;
  }

  SourceSpan span(size_t b, size_t e) const {
    SourceSpan s;
    s.file = origin_.file;
    s.begin = {origin_.line, origin_.column + unsigned(b), origin_.offset + unsigned(b)};
    s.end = {origin_.line, origin_.column + unsigned(e), origin_.offset + unsigned(e)};
    return s;
  }

  void error(const Token &t, std::string message) {
    size_t b = t.begin, e = t.end;
    if (t.kind == Token::End) { // point at the end of the text
      b = text_.size();
      while (b > 0 && std::isspace(static_cast<unsigned char>(text_[b - 1]))) --b;
      e = b;
    }
    std::string found = t.kind == Token::End ? "end of line" : "'" + t.text + "'";
    result_.errors.push_back({message + ", found " + found, span(b, e)});
  }

  bool expectPunct(const char *s, const std::string &context) {
    if (acceptPunct(s)) return true;
    error(cur(), std::string("expected '") + s + "' " + context);
    return false;
  }

  bool parseIdentList(std::vector<std::string> &out, const char *clause) {
    // `out` already holds the names of earlier copyin(...) clauses: a name
    // repeated across two of them is as much a duplicate as within one
    // (canonical() writes them as one list).
    std::set<std::string> seen(out.begin(), out.end());
    for (;;) {
      if (cur().kind != Token::Ident) {
        error(cur(), std::string("expected a variable name in ") + clause + "(...)");
        return false;
      }
      if (!seen.insert(cur().text).second) {
        error(cur(), "variable '" + cur().text + "' is listed twice in " + clause + "(...)");
        return false;
      }
      out.push_back(cur().text);
      next();
      if (acceptPunct(",")) continue;
      return expectPunct(")", std::string("to close ") + clause + "(...)");
    }
  }

  bool parseOpList(std::vector<VarOpClause> &out, const char *clause) {
    Token opStart = cur();
    std::string opText;
    if (cur().kind == Token::Ident || cur().kind == Token::Punct) {
      opText = cur().text;
      next();
    }
    auto op = parseReductionOp(opText);
    if (!op) {
      error(opStart, std::string("unknown ") + clause +
                         " operator; expected one of + * max min & | ^ && ||");
      return false;
    }
    if (!expectPunct(":", std::string("after the ") + clause + " operator")) return false;
    VarOpClause c;
    c.op = *op;
    size_t b = opStart.begin;
    if (!parseIdentList(c.vars, clause)) return false;
    c.span = span(b, tokens_[pos_ - 1].end);
    out.push_back(std::move(c));
    return true;
  }

  bool parseNumber(unsigned &value, const char *clause) {
    if (cur().kind != Token::Number) {
      error(cur(), std::string("expected a positive integer in ") + clause + "(...)");
      return false;
    }
    const std::string &t = cur().text;
    unsigned long v = 0;
    for (char c : t) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || v > 100000) {
        error(cur(), std::string("expected a positive integer in ") + clause + "(...)");
        return false;
      }
      v = v * 10 + unsigned(c - '0');
    }
    if (v == 0) {
      error(cur(), std::string(clause) + "(...) must be positive");
      return false;
    }
    value = unsigned(v);
    next();
    return true;
  }

  bool parseClause() {
    Token name = cur();
    if (name.kind != Token::Ident) {
      error(name, "expected a clause (reduction, scan, copyin, num_threads, np_type, sm_version)");
      return false;
    }
    next();
    if (!expectPunct("(", "after '" + name.text + "'")) return false;
    const std::string &n = name.text;
    if (n == "reduction") return parseOpList(result_.reductions, "reduction");
    if (n == "scan") return parseOpList(result_.scans, "scan");
    if (n == "copyin") return parseIdentList(result_.copyin, "copyin");
    if (n == "num_threads") {
      if (result_.numThreads) { error(name, "duplicate num_threads clause"); return false; }
      Token num = cur();
      unsigned v = 0;
      if (!parseNumber(v, "num_threads")) return false;
      if (!isSupportedSlaveCount(v)) {
        error(num, "num_threads must be 2, 4, 8, 16 or 32 (threads per master, master included)");
        return false;
      }
      result_.numThreads = v;
      return expectPunct(")", "to close num_threads(...)");
    }
    if (n == "np_type") {
      if (result_.npType != NpType::Unspecified) { error(name, "duplicate np_type clause"); return false; }
      if (peekIdent("inter")) result_.npType = NpType::Inter;
      else if (peekIdent("intra")) result_.npType = NpType::Intra;
      else { error(cur(), "np_type must be 'inter' or 'intra'"); return false; }
      next();
      return expectPunct(")", "to close np_type(...)");
    }
    if (n == "sm_version") {
      if (result_.smVersion) { error(name, "duplicate sm_version clause"); return false; }
      unsigned v = 0;
      if (!parseNumber(v, "sm_version")) return false;
      result_.smVersion = v;
      return expectPunct(")", "to close sm_version(...)");
    }
    error(name, "unknown clause; expected reduction, scan, copyin, num_threads, np_type or sm_version");
    return false;
  }

  std::string_view text_;
  PragmaTextOrigin origin_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  NpPragma result_;
};

} // namespace

NpPragma parseNpPragma(std::string_view text, const PragmaTextOrigin &origin) {
  NpPragma p = PragmaParser(text, origin).parse();
  // A variable may appear in one reduction/scan clause only.
  std::set<std::string> seen;
  for (auto *list : {&p.reductions, &p.scans})
    for (const auto &c : *list)
      for (const auto &v : c.vars)
        if (!seen.insert(v).second && p.errors.empty())
          p.errors.push_back({"variable '" + v + "' appears in more than one reduction/scan clause", c.span});
  return p;
}

} // namespace nestor
