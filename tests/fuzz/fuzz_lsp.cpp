// libFuzzer target: `nestor lsp` from the bytes a client sends. The input is
// the server's stdin (Content-Length framing, JSON-RPC, every request and
// notification the server handles), read by the same runServer() that
// `nestor lsp` runs; what the server writes is kept in memory.
//
// The input is read through a FILE* (fopencookie) that behaves like a client
// which waits for each answer: after a well-framed request it hands over the
// next message only once the server has answered that request (or after 2
// s, at most 3 s per input), so hovers, code actions and lenses run on analysed documents instead of
// being cancelled at the end of the input. Malformed framing is handed over
// as it is. runServer returns only once every document worker has been
// joined, so no analysis outlives its input.
//
// Documents are parsed against the built-in CUDA header (no toolkit: quick,
// and the same on every machine). `nestor.profile` must never build or run
// anything here: the workspace is untrusted unless the input says otherwise,
// and CUDA_VISIBLE_DEVICES="" makes the device check fail before a plan is
// written or nestor-runner is started.
#include "nestor/LspServer.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace {

// What the server writes, searchable for the answer to a request.
class Output final : public llvm::raw_ostream {
public:
  Output() { SetUnbuffered(); }
  bool waitFor(const std::string &needle, std::chrono::milliseconds limit) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, limit, [&] { return text_.find(needle) != std::string::npos; });
  }

private:
  void write_impl(const char *p, size_t n) override {
    {
      std::lock_guard<std::mutex> l(mu_);
      text_.append(p, n);
      pos_ += n;
    }
    cv_.notify_all();
  }
  uint64_t current_pos() const override { return pos_; }
  std::mutex mu_;
  std::condition_variable cv_;
  std::string text_;
  uint64_t pos_ = 0;
};

struct Chunk {
  std::string bytes;
  std::optional<std::string> answer; // `"id":<id>` of a request, when it is one
};

// Methods answered on a document worker, after its analysis; the others are
// answered while the transport dispatches them, before it reads again.
bool answeredLater(llvm::StringRef method) {
  return method == "textDocument/hover" || method == "textDocument/codeAction" || method == "codeAction/resolve" ||
         method == "textDocument/codeLens" || method == "workspace/executeCommand";
}

// Splits the input into the messages llvm::lsp::JSONTransportInputOverFile
// will read (readStandardMessage: header lines up to an empty one, the last
// "Content-Length: " wins, then that many bytes). From the first input it
// would refuse on, the rest is one chunk.
std::vector<Chunk> frames(const std::string &in) {
  std::vector<Chunk> out;
  llvm::StringRef all(in);
  size_t at = 0;
  while (at < in.size()) {
    size_t p = at;
    unsigned long long length = 0;
    bool headersEnded = false;
    while (p < in.size()) {
      size_t nl = all.find('\n', p);
      size_t lineEnd = nl == llvm::StringRef::npos ? in.size() : nl + 1;
      llvm::StringRef line = all.slice(p, lineEnd);
      if (nl == llvm::StringRef::npos) break; // a header line cut by the end of input
      p = lineEnd;
      if (line.consume_front("Content-Length: ")) {
        if (llvm::getAsUnsignedInteger(line.trim(), 0, length)) length = 0;
      } else if (line.trim().empty()) {
        headersEnded = true;
        break;
      }
    }
    if (!headersEnded || length == 0 || length > (1u << 30) || length > in.size() - p) break;
    Chunk c;
    c.bytes = in.substr(at, p + length - at);
    if (auto v = llvm::json::parse(all.substr(p, length)))
      if (auto *o = v->getAsObject())
        if (auto method = o->getString("method"); method && answeredLater(*method))
          if (const llvm::json::Value *id = o->get("id"); id && (id->getAsInteger() || id->getAsString()))
            c.answer = llvm::formatv("\"id\":{0}", *id).str();
    out.push_back(std::move(c));
    at = p + length;
  }
  if (at < in.size()) out.push_back({in.substr(at), std::nullopt});
  return out;
}

struct Client {
  std::vector<Chunk> chunks;
  size_t chunk = 0, offset = 0;
  Output *output = nullptr;
  // Where the transport reads frames differently than frames() cut them (a
  // mutated header), the answer waited for may never come: the waits of one
  // input share a budget, so that such an input costs seconds, not minutes.
  std::chrono::milliseconds waitBudget{3000};
};

ssize_t readClient(void *cookie, char *buf, size_t size) {
  Client &c = *static_cast<Client *>(cookie);
  while (c.chunk < c.chunks.size() && c.offset == c.chunks[c.chunk].bytes.size()) {
    // The whole chunk was handed over: a client waits for the answer.
    if (c.chunks[c.chunk].answer && c.waitBudget.count() > 0) {
      auto start = std::chrono::steady_clock::now();
      c.output->waitFor(*c.chunks[c.chunk].answer, std::min(c.waitBudget, std::chrono::milliseconds(2000)));
      c.waitBudget -= std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    }
    ++c.chunk;
    c.offset = 0;
  }
  if (c.chunk == c.chunks.size()) return 0;
  const std::string &b = c.chunks[c.chunk].bytes;
  size_t n = std::min(size, b.size() - c.offset);
  std::memcpy(buf, b.data() + c.offset, n);
  c.offset += n;
  return ssize_t(n);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  setenv("NESTOR_CUDA_PATH", "none", 1);
  setenv("NESTOR_RUNNER", "/nonexistent/nestor-runner", 1);
  setenv("XDG_CACHE_HOME", "/nonexistent/nestor-fuzz-cache", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Output out;
  Client client;
  client.chunks = frames(std::string(reinterpret_cast<const char *>(data), size));
  client.output = &out;
  cookie_io_functions_t io{};
  io.read = readClient;
  std::FILE *in = fopencookie(&client, "r", io);
  if (!in) std::abort();
  nestor::lsp::ServerOptions opts;
  opts.flags.cudaPath = "none";
  (void)nestor::lsp::runServer(in, out, opts);
  std::fclose(in);
  return 0;
}
