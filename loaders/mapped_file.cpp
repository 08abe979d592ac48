#include "loaders/mapped_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "core/error.hpp"
#include "core/printable.hpp"

namespace invar {

namespace {

// --- SIGBUS: a mapped file truncated under the process -------------------------------------------
// Reading a page of a mapping that lies past the file's (new) end raises SIGBUS, which would kill
// the process without a word. The handler looks the faulting address up among the live mappings
// and, when it is one of ours, writes one line naming the file and exits. The table is read by the
// handler without locks (a handler may take none): a slot is published by storing its start last
// and retired by clearing its start before the mapping goes.

struct LiveMapping {
  std::atomic<const std::byte*> start{nullptr};
  std::atomic<std::size_t> size{0};
  std::atomic<const char*> message{nullptr};  // the whole line to write, owned by the MappedFile
  std::atomic<std::size_t> message_size{0};
};

// More mappings than slots (sharded checkpoints of thousands of files) go unregistered: a fault in
// one of those kills the process as before, which is no worse than without the table.
constexpr std::size_t kSlots = 4096;
std::array<LiveMapping, kSlots> live_mappings;
std::mutex slots_mutex;  // between registering threads only; the handler never takes it
struct sigaction previous_action {};

// Exit status of a file changed while read: that of any other failure on bad input.
constexpr int kChangedFileExit = 1;

void write_all(const char* text, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(STDERR_FILENO, text, size);
    if (written <= 0) return;
    text += written;
    size -= static_cast<std::size_t>(written);
  }
}

void on_sigbus(int signal, siginfo_t* info, void* context) {
  const auto* address = static_cast<const std::byte*>(info->si_addr);
  for (const auto& slot : live_mappings) {
    const std::byte* start = slot.start.load(std::memory_order_acquire);
    if (!start || address < start || address >= start + slot.size.load(std::memory_order_relaxed)) continue;
    write_all(slot.message.load(std::memory_order_relaxed), slot.message_size.load(std::memory_order_relaxed));
    ::_exit(kChangedFileExit);
  }
  // Not a mapping of ours: whatever handled SIGBUS before does (by default, the signal kills; it
  // stays blocked until this handler returns).
  if (previous_action.sa_flags & SA_SIGINFO) {
    previous_action.sa_sigaction(signal, info, context);
    return;
  }
  ::sigaction(SIGBUS, &previous_action, nullptr);
  ::raise(signal);
}

void install_sigbus_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &previous_action);
  });
}

LiveMapping* register_mapping(const std::byte* start, std::size_t size, const std::string& message) {
  install_sigbus_handler();
  const std::lock_guard lock(slots_mutex);
  for (auto& slot : live_mappings) {
    if (slot.start.load(std::memory_order_relaxed)) continue;
    slot.size.store(size, std::memory_order_relaxed);
    slot.message.store(message.c_str(), std::memory_order_relaxed);
    slot.message_size.store(message.size(), std::memory_order_relaxed);
    slot.start.store(start, std::memory_order_release);
    return &slot;
  }
  return nullptr;
}

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("{}: cannot open: {}", path, std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    fail("{}: not a regular file", path);
  }
  std::shared_ptr<MappedFile> file(new MappedFile);
  file->path_ = path;
  file->size_ = static_cast<std::size_t>(info.st_size);
  if (file->size_ > 0) {
    void* address = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (address == MAP_FAILED) {
      const int error = errno;
      ::close(fd);
      fail("{}: cannot map into memory: {}", path, std::strerror(error));
    }
    file->data_ = static_cast<const std::byte*>(address);
    file->changed_message_ =
        "invar: error: " + printable(path) + ": the file changed (truncated?) while it was being read\n";
    file->slot_ = register_mapping(file->data_, file->size_, file->changed_message_);
  }
  ::close(fd);
  return file;
}

MappedFile::~MappedFile() {
  if (slot_) static_cast<LiveMapping*>(slot_)->start.store(nullptr, std::memory_order_release);
  if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace invar
