#include "MultiFileWrite.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

namespace nestor::cli {

llvm::Error writeFileAtomically(const std::string &path, llvm::StringRef contents) {
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty()) dir = ".";
  llvm::SmallString<256> model(dir);
  llvm::sys::path::append(model, llvm::sys::path::filename(path) + ".nestor-%%%%%%.tmp");
  int fd = -1;
  llvm::SmallString<256> tmp;
  if (auto ec = llvm::sys::fs::createUniqueFile(model, fd, tmp))
    return llvm::createStringError("%s: cannot create a temporary file: %s", path.c_str(), ec.message().c_str());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.flush();
    if (os.has_error()) {
      std::string msg = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(tmp);
      return llvm::createStringError("%s: write failed: %s", path.c_str(), msg.c_str());
    }
  }
  // Test seam (tests/cli: a process killed between write and rename leaves
  // the original intact): NESTOR_TEST_PAUSE_BEFORE_RENAME_MS waits here.
  if (auto ms = llvm::sys::Process::GetEnv("NESTOR_TEST_PAUSE_BEFORE_RENAME_MS")) {
    llvm::errs() << "nestor: paused before renaming " << tmp << "\n";
    llvm::errs().flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(ms->c_str())));
  }
  // Keep the permissions of the file being replaced.
  llvm::sys::fs::file_status st;
  if (!llvm::sys::fs::status(path, st)) llvm::sys::fs::setPermissions(tmp, st.permissions());
  if (auto ec = llvm::sys::fs::rename(tmp, path)) {
    llvm::sys::fs::remove(tmp);
    return llvm::createStringError("%s: cannot replace the file: %s", path.c_str(), ec.message().c_str());
  }
  return llvm::Error::success();
}


llvm::Error writeFilesAllOrNone(const std::map<std::string, FileChange> &changes) {
  // Nothing is written unless every file can be.
  for (const auto &[path, change] : changes) {
    auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!buf)
      return llvm::createStringError("%s: cannot read file: %s (no file was written)", path.c_str(),
                                     buf.getError().message().c_str());
    if ((*buf)->getBuffer() != change.before)
      return llvm::createStringError("%s: changed since it was analysed (no file was written)", path.c_str());
    if (llvm::sys::fs::access(path, llvm::sys::fs::AccessMode::Write))
      return llvm::createStringError("%s: not writable (no file was written)", path.c_str());
  }
  std::vector<const std::string *> written;
  for (const auto &[path, change] : changes) {
    if (llvm::Error err = writeFileAtomically(path, change.after)) {
      std::string why = llvm::toString(std::move(err));
      std::string notRestored;
      for (const std::string *done : written)
        if (llvm::Error back = writeFileAtomically(*done, changes.at(*done).before)) {
          llvm::consumeError(std::move(back));
          notRestored += " " + *done;
        }
      if (!notRestored.empty())
        return llvm::createStringError("%s; could not restore:%s", why.c_str(), notRestored.c_str());
      return llvm::createStringError("%s (the other files were restored: no file changed)", why.c_str());
    }
    written.push_back(&path);
  }
  return llvm::Error::success();
}

} // namespace nestor::cli
