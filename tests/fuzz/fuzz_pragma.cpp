// libFuzzer target: the `#pragma np` parser (analyzers/src/Pragma.cpp).
//
// The input is the text after `#pragma`. Beyond "no crash", it checks what
// the parser promises: every error's span lies inside the text, and a
// directive that parsed without errors parses again, from its canonical
// spelling, to the same clauses.
#include "nestor/Pragma.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void require(bool ok, const char *what, std::string_view text) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_pragma: %s for input \"%.*s\"\n", what, int(text.size()), text.data());
  std::abort();
}

bool sameClauses(const nestor::NpPragma &a, const nestor::NpPragma &b) {
  auto sameVarOps = [](const auto &x, const auto &y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].op != y[i].op || x[i].vars != y[i].vars) return false;
    return true;
  };
  return a.isParallelFor == b.isParallelFor && sameVarOps(a.reductions, b.reductions) &&
         sameVarOps(a.scans, b.scans) && a.copyin == b.copyin && a.numThreads == b.numThreads &&
         a.npType == b.npType && a.smVersion == b.smVersion;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  nestor::PragmaTextOrigin origin;
  origin.file = "fuzz.cu";
  origin.line = 7;
  origin.column = 9;
  origin.offset = 100;
  nestor::NpPragma p = nestor::parseNpPragma(text, origin);
  for (const nestor::PragmaError &e : p.errors) {
    require(!e.message.empty(), "an error without a message", text);
    if (!e.span.valid()) continue;
    require(e.span.begin.offset >= origin.offset && e.span.end.offset <= origin.offset + size &&
                e.span.begin.offset <= e.span.end.offset,
            "an error span outside the text", text);
    require(e.span.begin.line == origin.line, "an error span on another line", text);
  }
  if (p.valid() && p.isParallelFor) {
    std::string canonical = p.canonical();
    std::string_view again(canonical);
    require(again.substr(0, 8) == "#pragma ", "a canonical spelling without #pragma", canonical);
    nestor::NpPragma q = nestor::parseNpPragma(again.substr(8), origin);
    require(q.valid(), "the canonical spelling does not parse", canonical);
    require(sameClauses(p, q), "the canonical spelling parses to other clauses", canonical);
  }
  return 0;
}
