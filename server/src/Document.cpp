#include "Document.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>

namespace nestor::lsp {

namespace {
// Length in bytes of the UTF-8 sequence that starts with `lead`, and the
// UTF-16 code units it takes. Invalid bytes count as one byte, one unit, so
// that malformed input still maps somewhere instead of failing.
void utf8Sequence(unsigned char lead, size_t &bytes, unsigned &units) {
  if (lead < 0x80) { bytes = 1; units = 1; }
  else if ((lead & 0xE0) == 0xC0) { bytes = 2; units = 1; }
  else if ((lead & 0xF0) == 0xE0) { bytes = 3; units = 1; }
  else if ((lead & 0xF8) == 0xF0) { bytes = 4; units = 2; }
  else { bytes = 1; units = 1; }
}

size_t lineStartOffset(llvm::StringRef text, unsigned line, bool &exists) {
  size_t offset = 0;
  for (unsigned l = 0; l < line; ++l) {
    size_t nl = text.find('\n', offset);
    if (nl == llvm::StringRef::npos) { exists = false; return text.size(); }
    offset = nl + 1;
  }
  exists = true;
  return offset;
}

llvm::Error positionError(const llvm::lsp::Position &pos, llvm::StringRef why) {
  return llvm::make_error<llvm::lsp::LSPError>(
      llvm::formatv("position {0}:{1} is out of range: {2}", pos.line, pos.character, why).str(),
      llvm::lsp::ErrorCode::InvalidParams);
}
} // namespace

unsigned lineCount(llvm::StringRef text) { return unsigned(text.count('\n')) + 1; }

llvm::StringRef lineText(llvm::StringRef text, unsigned line) {
  bool exists = false;
  size_t start = lineStartOffset(text, line, exists);
  if (!exists) return "";
  llvm::StringRef rest = text.substr(start);
  rest = rest.take_until([](char c) { return c == '\n'; });
  if (rest.ends_with("\r")) rest = rest.drop_back();
  return rest;
}

llvm::Expected<size_t> offsetAt(llvm::StringRef text, const llvm::lsp::Position &pos, bool clampColumn) {
  if (pos.line < 0 || pos.character < 0) return positionError(pos, "negative line or character");
  bool exists = false;
  size_t start = lineStartOffset(text, unsigned(pos.line), exists);
  if (!exists)
    return positionError(pos, llvm::formatv("the document has {0} lines", lineCount(text)).str());
  llvm::StringRef line = lineText(text, unsigned(pos.line));
  size_t byte = 0;
  unsigned units = 0;
  while (units < unsigned(pos.character) && byte < line.size()) {
    size_t len;
    unsigned u;
    utf8Sequence((unsigned char)line[byte], len, u);
    byte = std::min(line.size(), byte + len);
    units += u;
  }
  if (units < unsigned(pos.character) && !clampColumn)
    return positionError(pos, llvm::formatv("line {0} has {1} characters", pos.line, units).str());
  return start + byte;
}

llvm::lsp::Position positionAt(llvm::StringRef text, size_t offset) {
  offset = std::min(offset, text.size());
  // StringRef::rfind(c, from) looks at indices < from: the newline that
  // ends the previous line, when `offset` starts a line, is found too.
  size_t newline = text.rfind('\n', offset);
  unsigned line = 0;
  size_t lineStart = 0;
  if (newline != llvm::StringRef::npos) {
    line = unsigned(text.take_front(newline + 1).count('\n'));
    lineStart = newline + 1;
  }
  unsigned units = 0;
  for (size_t i = lineStart; i < offset;) {
    size_t len;
    unsigned u;
    utf8Sequence((unsigned char)text[i], len, u);
    i += len;
    units += u;
  }
  return llvm::lsp::Position(int(line), int(units));
}

LineIndex::LineIndex(llvm::StringRef text) {
  starts_.push_back(0);
  for (size_t nl = text.find('\n'); nl != llvm::StringRef::npos; nl = text.find('\n', nl + 1)) starts_.push_back(nl + 1);
}

unsigned LineIndex::lineOf(size_t offset) const {
  if (starts_.empty()) return 1;
  return unsigned(std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin());
}

llvm::Expected<size_t> LineIndex::offsetAt(llvm::StringRef text, const llvm::lsp::Position &pos, bool clampColumn) const {
  if (starts_.empty()) return nestor::lsp::offsetAt(text, pos, clampColumn);
  if (pos.line < 0 || pos.character < 0) return positionError(pos, "negative line or character");
  if (size_t(pos.line) >= starts_.size())
    return positionError(pos, llvm::formatv("the document has {0} lines", starts_.size()).str());
  size_t start = starts_[size_t(pos.line)];
  // The line alone: offsetAt() on it answers in its own coordinates.
  size_t end = size_t(pos.line) + 1 < starts_.size() ? starts_[size_t(pos.line) + 1] : text.size();
  auto inLine = nestor::lsp::offsetAt(text.slice(start, end), llvm::lsp::Position(0, pos.character), clampColumn);
  if (!inLine) {
    llvm::consumeError(inLine.takeError());
    llvm::StringRef line = lineText(text.slice(start, end), 0);
    return positionError(pos, llvm::formatv("line {0} has {1} characters", pos.line,
                                            nestor::lsp::positionAt(line, line.size()).character).str());
  }
  return start + *inLine;
}

llvm::lsp::Position LineIndex::positionAt(llvm::StringRef text, size_t offset) const {
  if (starts_.empty()) return nestor::lsp::positionAt(text, offset);
  offset = std::min(offset, text.size());
  unsigned line = lineOf(offset) - 1;
  size_t start = starts_[line];
  llvm::lsp::Position p = nestor::lsp::positionAt(text.slice(start, offset), offset - start);
  return llvm::lsp::Position(int(line), p.character);
}

TextDelta TextDelta::between(llvm::StringRef older, llvm::StringRef newer) {
  TextDelta d;
  size_t n = std::min(older.size(), newer.size());
  // Blocks through memcmp first: a 5 MB text is compared in about a millisecond.
  constexpr size_t kBlock = 4096;
  const char *o = older.data(), *w = newer.data();
  size_t prefix = 0;
  while (prefix + kBlock <= n && std::memcmp(o + prefix, w + prefix, kBlock) == 0) prefix += kBlock;
  while (prefix < n && o[prefix] == w[prefix]) ++prefix;
  d.prefix = prefix;
  const char *oEnd = o + older.size(), *wEnd = w + newer.size();
  size_t suffix = 0, maxSuffix = n - prefix;
  while (suffix + kBlock <= maxSuffix && std::memcmp(oEnd - suffix - kBlock, wEnd - suffix - kBlock, kBlock) == 0)
    suffix += kBlock;
  while (suffix < maxSuffix && oEnd[-1 - ptrdiff_t(suffix)] == wEnd[-1 - ptrdiff_t(suffix)]) ++suffix;
  d.oldEnd = older.size() - suffix;
  d.newEnd = newer.size() - suffix;
  return d;
}

std::optional<size_t> TextDelta::toOld(size_t offset) const {
  if (unchanged() || offset < prefix) return offset;
  if (offset > newEnd) return offset - newEnd + oldEnd;
  return std::nullopt;
}

std::optional<size_t> TextDelta::toNew(size_t offset) const {
  if (unchanged() || offset < prefix) return offset;
  if (offset > oldEnd) return offset - oldEnd + newEnd;
  return std::nullopt;
}

bool TextDelta::keeps(size_t begin, size_t end) const {
  return unchanged() || end < prefix || begin > oldEnd;
}

llvm::Error applyChange(std::string &text, const llvm::lsp::TextDocumentContentChangeEvent &change) {
  if (!change.range) {
    text = change.text;
    return llvm::Error::success();
  }
  auto begin = offsetAt(text, change.range->start, /*clampColumn=*/true);
  if (!begin) return begin.takeError();
  auto end = offsetAt(text, change.range->end, /*clampColumn=*/true);
  if (!end) return end.takeError();
  if (*end < *begin)
    return llvm::make_error<llvm::lsp::LSPError>(
        llvm::formatv("change range {0} ends before it starts", *change.range).str(),
        llvm::lsp::ErrorCode::InvalidParams);
  text.replace(*begin, *end - *begin, change.text);
  return llvm::Error::success();
}

llvm::Error applyChanges(std::string &text, llvm::ArrayRef<llvm::lsp::TextDocumentContentChangeEvent> changes) {
  std::string edited = text;
  for (const auto &c : changes)
    if (llvm::Error err = applyChange(edited, c)) return err;
  text = std::move(edited);
  return llvm::Error::success();
}

} // namespace nestor::lsp
