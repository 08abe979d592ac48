#include "loaders/pytorch.hpp"

#include <zip.h>

#include <array>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "loaders/model_files.hpp"

namespace invar {

namespace {

// --- The restricted unpickler --------------------------------------------------------------------
// Python's pickle machine (Lib/pickle.py, _Unpickler) reduced to the objects of a state dict: a
// dict (or OrderedDict) of str -> _rebuild_tensor_v2(...) whose storages are persistent ids. Its
// callables are never called: REDUCE recognises the three allowed ones and builds the value they
// would have built. Objects live in an arena, so memo cycles cannot leak, and nothing recurses.
// What it holds (stack, marks, memo, objects) is charged against a budget proportional to the
// pickle's size, and the stack's depth is bounded: a pickle that repeats a cheap opcode (BINGET,
// EMPTY_TUPLE, MEMOIZE) would otherwise grow them far beyond the input.

enum class Kind : std::uint8_t { None, Bool, Int, String, Tuple, Dict, Global, Storage, Tensor };
enum class Callable : std::uint8_t { OrderedDict, RebuildTensor, StorageClass };

struct Object;

struct Value {
  Kind kind = Kind::None;
  std::int64_t number = 0;   // Int, Bool
  Object* object = nullptr;  // the other kinds but None
};

struct Object {
  std::string text;          // String
  std::vector<Value> items;  // Tuple items; Dict keys and values, alternating
  Callable callable{};       // Global
  // Storage: storage_key, dtype, storage_numel; Global storage class: dtype; Tensor: all but name.
  // Apart, so that the many other objects stay small.
  std::unique_ptr<PickledTensor> tensor;
};

struct StorageClass {
  const char* name;
  DType dtype;
};
constexpr std::array<StorageClass, 5> kStorageClasses{{{"FloatStorage", DType::F32},
                                                        {"HalfStorage", DType::F16},
                                                        {"BFloat16Storage", DType::BF16},
                                                        {"LongStorage", DType::I64},
                                                        {"IntStorage", DType::I32}}};

constexpr std::size_t kMaxRank = 64;

// The unpickler's memory per byte of pickle, and a floor for small pickles. torch.save's state
// dicts take 15 to 22 bytes per byte (each tensor's tuples, strings and memo entries; measured on
// the fixtures' checkpoints).
constexpr std::size_t kMemoryPerPickleByte = 32;
constexpr std::size_t kMemoryFloor = std::size_t{1} << 20;
// A state dict's pickle keeps its stack shallow: the dict's items come in SETITEMS batches of
// 1000, each built from a handful of values.
constexpr std::size_t kMaxStackDepth = std::size_t{1} << 16;

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "a bool";
    case Kind::Int: return "an int";
    case Kind::String: return "a str";
    case Kind::Tuple: return "a tuple";
    case Kind::Dict: return "a dict";
    case Kind::Global: return "a class or function";
    case Kind::Storage: return "a storage";
    case Kind::Tensor: return "a tensor";
  }
  return "?";
}

class Unpickler {
 public:
  Unpickler(const std::byte* bytes, std::size_t size, const std::string& where)
      : bytes_(reinterpret_cast<const std::uint8_t*>(bytes)),
        size_(size),
        where_(where),
        budget_(kMemoryFloor + kMemoryPerPickleByte * size) {}

  std::vector<PickledTensor> run() {
    while (true) {
      opcode_position_ = position_;
      const std::uint8_t opcode = read_u8();
      if (opcode == '.') return state_dict(pop());  // STOP
      execute(opcode);
    }
  }

 private:
  template <typename... Args>
  [[noreturn]] void bad(fmt::format_string<Args...> format, Args&&... args) const {
    fail("{}: byte {}: {}", where_, opcode_position_, fmt::format(format, std::forward<Args>(args)...));
  }

  const std::uint8_t* take(std::size_t count) {
    if (count > size_ - position_) bad("truncated pickle (needs {} more bytes, {} left)", count, size_ - position_);
    const std::uint8_t* start = bytes_ + position_;
    position_ += count;
    return start;
  }
  std::uint64_t read_le(std::size_t count) {
    const std::uint8_t* p = take(count);
    std::uint64_t value = 0;
    for (std::size_t i = count; i-- > 0;) value = (value << 8) | p[i];
    return value;
  }
  std::uint8_t read_u8() { return *take(1); }
  std::string read_line() {
    const std::uint8_t* start = bytes_ + position_;
    const void* end = std::memchr(start, '\n', size_ - position_);
    if (!end) bad("truncated pickle (a GLOBAL name has no end of line)");
    const std::size_t length = static_cast<const std::uint8_t*>(end) - start;
    position_ += length + 1;
    return {reinterpret_cast<const char*>(start), length};
  }

  void charge(std::size_t bytes) {
    used_ += bytes;
    if (used_ > budget_)
      bad("reading the pickle takes more than {} bytes of memory ({} per byte of its {}): not a state dict as "
          "torch.save writes one", budget_, kMemoryPerPickleByte, size_);
  }

  Object* make(Kind kind, Value& value) {
    charge(sizeof(Object) + sizeof(std::unique_ptr<Object>));
    arena_.push_back(std::make_unique<Object>());
    value.kind = kind;
    value.object = arena_.back().get();
    return value.object;
  }
  PickledTensor& make_tensor(Kind kind, Value& value) {
    charge(sizeof(PickledTensor));
    Object* object = make(kind, value);
    object->tensor = std::make_unique<PickledTensor>();
    return *object->tensor;
  }
  // The stack and the marks are charged for their deepest extent.
  void push(Value value) {
    if (stack_.size() >= kMaxStackDepth)
      bad("the pickle stack grows deeper than {} values (a state dict's stays within a few thousand)",
          kMaxStackDepth);
    if (stack_.size() == stack_peak_) {
      charge(sizeof(Value));
      ++stack_peak_;
    }
    stack_.push_back(value);
  }
  void mark() {
    if (marks_.size() == marks_peak_) {
      charge(sizeof(std::size_t));
      ++marks_peak_;
    }
    marks_.push_back(stack_.size());
  }
  std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  Value pop() {
    if (stack_.size() <= floor()) bad("pickle stack underflow");
    Value value = stack_.back();
    stack_.pop_back();
    return value;
  }
  Value& top() {
    if (stack_.size() <= floor()) bad("pickle stack underflow");
    return stack_.back();
  }
  std::vector<Value> pop_mark() {
    if (marks_.empty()) bad("no MARK before a tuple or SETITEMS");
    std::vector<Value> items(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  void push_string(std::size_t length) {
    const std::uint8_t* start = take(length);
    charge(length);
    Value value;
    Object* object = make(Kind::String, value);
    object->text.assign(reinterpret_cast<const char*>(start), length);
    if (!is_valid_utf8(object->text)) bad("a str is not valid UTF-8");
    push(value);
  }
  void push_tuple(std::vector<Value> items) {
    charge(items.size() * sizeof(Value));
    Value value;
    make(Kind::Tuple, value)->items = std::move(items);
    push(value);
  }
  void push_int(std::int64_t number) { push({Kind::Int, number, nullptr}); }
  void put(std::uint64_t index) {
    const Value value = top();
    if (memo_.insert_or_assign(index, value).second) charge(kMemoEntryBytes);
  }
  void get(std::uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) bad("memo entry {} was never stored", index);
    push(it->second);
  }
  void set_items(std::vector<Value> items) {
    if (items.size() % 2 != 0) bad("SETITEMS with an odd number of items");
    Value& dict = top();
    if (dict.kind != Kind::Dict) bad("SETITEMS on {}, not a dict", kind_name(dict.kind));
    charge(items.size() * sizeof(Value));
    dict.object->items.insert(dict.object->items.end(), items.begin(), items.end());
  }

  void global(const std::string& module, const std::string& name) {
    Value value;
    if (module == "collections" && name == "OrderedDict") {
      make(Kind::Global, value)->callable = Callable::OrderedDict;
    } else if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
      make(Kind::Global, value)->callable = Callable::RebuildTensor;
    } else {
      for (const auto& storage : kStorageClasses) {
        if (module == "torch" && name == storage.name) {
          make_tensor(Kind::Global, value).dtype = storage.dtype;
          value.object->callable = Callable::StorageClass;
        }
      }
      if (!value.object)
        bad("global '{}.{}' is not allowed in a state dict (only collections.OrderedDict, "
            "torch._utils._rebuild_tensor_v2 and torch.{{Float,Half,BFloat16,Long,Int}}Storage)",
            module, name);
    }
    push(value);
  }

  // torch.serialization's persistent_load: ('storage', storage class, key, location, numel).
  void persistent_id() {
    const Value id = pop();
    if (id.kind != Kind::Tuple) bad("persistent id is {}, not a tuple", kind_name(id.kind));
    const auto& items = id.object->items;
    if (items.size() != 5 || items[0].kind != Kind::String || items[0].object->text != "storage" ||
        items[1].kind != Kind::Global || items[1].object->callable != Callable::StorageClass ||
        items[2].kind != Kind::String || items[3].kind != Kind::String || items[4].kind != Kind::Int)
      bad("persistent id is not ('storage', <dtype>Storage, key, location, numel)");
    if (items[4].number < 0) bad("storage '{}' has a negative size {}", items[2].object->text, items[4].number);
    Value value;
    PickledTensor& storage = make_tensor(Kind::Storage, value);
    storage.dtype = items[1].object->tensor->dtype;
    storage.storage_key = items[2].object->text;
    storage.storage_numel = items[4].number;
    push(value);
  }

  std::vector<std::int64_t> int_tuple(const Value& value, const char* what) {
    if (value.kind != Kind::Tuple) bad("tensor {} is {}, not a tuple", what, kind_name(value.kind));
    // A bound on the rank keeps a hostile pickle from reusing one huge tuple as every tensor's size.
    if (value.object->items.size() > kMaxRank)
      bad("tensor {} has {} dimensions, more than {}", what, value.object->items.size(), kMaxRank);
    std::vector<std::int64_t> numbers;
    charge(value.object->items.size() * sizeof(std::int64_t));
    for (const auto& item : value.object->items) {
      if (item.kind != Kind::Int || item.number < 0) bad("tensor {} holds something other than a size", what);
      numbers.push_back(item.number);
    }
    return numbers;
  }

  void reduce() {
    const Value args = pop();
    const Value callable = pop();
    if (callable.kind != Kind::Global) bad("REDUCE calls {}, not an allowed global", kind_name(callable.kind));
    if (args.kind != Kind::Tuple) bad("REDUCE arguments are {}, not a tuple", kind_name(args.kind));
    const auto& a = args.object->items;
    Value value;
    switch (callable.object->callable) {
      case Callable::OrderedDict:
        if (!a.empty()) bad("OrderedDict is called with arguments");
        make(Kind::Dict, value);
        break;
      case Callable::RebuildTensor: {
        // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
        if (a.size() != 6 && a.size() != 7) bad("_rebuild_tensor_v2 takes 6 or 7 arguments, got {}", a.size());
        if (a[0].kind != Kind::Storage) bad("_rebuild_tensor_v2's storage is {}", kind_name(a[0].kind));
        if (a[1].kind != Kind::Int || a[1].number < 0) bad("_rebuild_tensor_v2's storage offset is not a size");
        if (a[4].kind != Kind::Bool) bad("_rebuild_tensor_v2's requires_grad is not a bool");
        if (a[5].kind != Kind::Dict || !a[5].object->items.empty())
          bad("_rebuild_tensor_v2's backward hooks are not an empty OrderedDict");
        PickledTensor& tensor = make_tensor(Kind::Tensor, value);
        charge(a[0].object->tensor->storage_key.size());
        tensor = *a[0].object->tensor;
        tensor.offset = a[1].number;
        tensor.shape = int_tuple(a[2], "size");
        tensor.stride = int_tuple(a[3], "stride");
        if (tensor.shape.size() != tensor.stride.size())
          bad("tensor size has {} dimensions but its stride {}", tensor.shape.size(), tensor.stride.size());
        break;
      }
      case Callable::StorageClass:
        bad("a storage class is called, which a state dict never does");
    }
    push(value);
  }

  void execute(std::uint8_t opcode) {
    switch (opcode) {
      case 0x80:  // PROTO
        if (read_u8() > 5) bad("pickle protocol above 5");
        break;
      case 0x95:  // FRAME (protocol 4): a length prefix only
        read_le(8);
        break;
      case '(':  // MARK
        mark();
        break;
      case 'N':
        push({});
        break;
      case 0x88:  // NEWTRUE
      case 0x89:  // NEWFALSE
        push({Kind::Bool, opcode == 0x88, nullptr});
        break;
      case 'K':  // BININT1
        push_int(static_cast<std::int64_t>(read_le(1)));
        break;
      case 'M':  // BININT2
        push_int(static_cast<std::int64_t>(read_le(2)));
        break;
      case 'J':  // BININT: signed 32-bit
        push_int(static_cast<std::int32_t>(static_cast<std::uint32_t>(read_le(4))));
        break;
      case 0x8a: {  // LONG1: n-byte little-endian two's complement
        const std::size_t length = read_u8();
        if (length > 8) bad("integer of {} bytes is too large", length);
        std::uint64_t bits = read_le(length);
        if (length > 0 && length < 8 && (bits >> (8 * length - 1)) != 0) bits |= ~std::uint64_t{0} << (8 * length);
        push_int(static_cast<std::int64_t>(bits));
        break;
      }
      case 'X':  // BINUNICODE
        push_string(read_le(4));
        break;
      case 0x8c:  // SHORT_BINUNICODE
        push_string(read_u8());
        break;
      case 0x8d:  // BINUNICODE8
        push_string(read_le(8));
        break;
      case ')':  // EMPTY_TUPLE
        push_tuple({});
        break;
      case 0x85:  // TUPLE1
      case 0x86:  // TUPLE2
      case 0x87: {  // TUPLE3
        std::vector<Value> items(opcode - 0x84);
        for (auto it = items.rbegin(); it != items.rend(); ++it) *it = pop();
        push_tuple(std::move(items));
        break;
      }
      case 't':  // TUPLE
        push_tuple(pop_mark());
        break;
      case '}': {  // EMPTY_DICT
        Value value;
        make(Kind::Dict, value);
        push(value);
        break;
      }
      case 's': {  // SETITEM
        Value value = pop();
        Value key = pop();
        set_items({key, value});
        break;
      }
      case 'u':  // SETITEMS
        set_items(pop_mark());
        break;
      case 'c': {  // GLOBAL "module\nname\n"
        std::string module = read_line();
        global(module, read_line());
        break;
      }
      case 0x93: {  // STACK_GLOBAL (protocol 4)
        const Value name = pop(), module = pop();
        if (name.kind != Kind::String || module.kind != Kind::String) bad("STACK_GLOBAL needs two strings");
        global(module.object->text, name.object->text);
        break;
      }
      case 'Q':  // BINPERSID
        persistent_id();
        break;
      case 'R':
        reduce();
        break;
      case 'b': {  // BUILD: an OrderedDict's __dict__ (the state dict's _metadata) is not needed
        pop();
        if (top().kind != Kind::Dict) bad("BUILD on {}, not a dict", kind_name(top().kind));
        break;
      }
      case 'q':  // BINPUT
        put(read_u8());
        break;
      case 'r':  // LONG_BINPUT
        put(read_le(4));
        break;
      case 0x94:  // MEMOIZE
        put(memo_.size());
        break;
      case 'h':  // BINGET
        get(read_u8());
        break;
      case 'j':  // LONG_BINGET
        get(read_le(4));
        break;
      default:
        bad("pickle opcode 0x{:02x} is not one a state dict uses", opcode);
    }
  }

  std::vector<PickledTensor> state_dict(const Value& result) {
    if (result.kind != Kind::Dict) bad("the pickle holds {}, not a state dict", kind_name(result.kind));
    const auto& items = result.object->items;
    std::vector<PickledTensor> tensors;
    for (std::size_t i = 0; i < items.size(); i += 2) {
      if (items[i].kind != Kind::String) bad("a state dict key is {}, not a str", kind_name(items[i].kind));
      if (items[i + 1].kind != Kind::Tensor)
        bad("state dict entry '{}' is {}, not a tensor", items[i].object->text, kind_name(items[i + 1].kind));
      const PickledTensor& tensor = *items[i + 1].object->tensor;
      charge(sizeof(PickledTensor) + tensor.storage_key.size() + items[i].object->text.size() +
             2 * tensor.shape.size() * sizeof(std::int64_t));
      tensors.push_back(tensor);
      tensors.back().name = items[i].object->text;
    }
    return tensors;
  }

  const std::uint8_t* bytes_;
  std::size_t size_;
  std::size_t position_ = 0, opcode_position_ = 0;
  const std::string& where_;
  // An unordered_map node: the key, the value and the bucket's pointers.
  static constexpr std::size_t kMemoEntryBytes = sizeof(std::uint64_t) + sizeof(Value) + 3 * sizeof(void*);
  std::size_t budget_, used_ = 0, stack_peak_ = 0, marks_peak_ = 0;
  std::vector<Value> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<std::uint64_t, Value> memo_;
  std::vector<std::unique_ptr<Object>> arena_;
};

// --- The zip archive -------------------------------------------------------------------------------

using Buffer = std::vector<std::uint64_t>;  // 8-byte aligned, so any dtype can be read in place

// deflate cannot expand data more than about 1032 times; a larger declared size is a zip bomb.
constexpr std::uint64_t kMaxDeflateRatio = 1032;
// torch.save's pickle takes a few hundred bytes per tensor: 64 MiB is some 200,000 tensors, far
// more than any checkpoint holds, and bounds what a compressed pickle may expand to.
constexpr std::uint64_t kMaxPickleBytes = std::uint64_t{64} << 20;

// The first bytes of a file, to tell an archive that is damaged from a file that is none.
std::string file_start(const std::string& path, std::size_t count) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(count, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(count));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return bytes;
}

// Why zip_open() failed, in words that say what to do. A file that starts like a zip archive but
// cannot be opened as one was cut short (an interrupted download) or damaged; a pickle (opcode PROTO,
// 0x80) is torch.save's format before 1.6.
[[noreturn]] void fail_to_open(const std::string& path, int code, const std::string& message) {
  constexpr const char* kDamaged = "{}: truncated or corrupt zip archive ({}): re-download the file";
  if (code == ZIP_ER_OPEN) fail("{}: cannot open the file: {}", path, message);
  if (code != ZIP_ER_NOZIP) fail(kDamaged, path, message);
  const std::string start = file_start(path, 4);
  if (start.starts_with("PK")) fail(kDamaged, path, "no end of central directory");
  if (start.starts_with("\x80"))
    fail("{}: not a zip archive (PyTorch checkpoints before torch 1.6 are not supported; re-save it "
         "or convert it to safetensors)", path);
  fail("{}: not a PyTorch checkpoint (neither a zip archive nor a pickle)", path);
}

class ZipArchive {
 public:
  explicit ZipArchive(const std::string& path) : path_(path) {
    int code = 0;
    zip_ = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
    if (!zip_) {
      zip_error_t error;
      zip_error_init_with_code(&error, code);
      const std::string message = zip_error_strerror(&error);
      zip_error_fini(&error);
      fail_to_open(path, code, message);
    }
  }
  ~ZipArchive() { zip_discard(zip_); }
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  std::vector<std::string> names() const {
    std::vector<std::string> names;
    const zip_int64_t count = zip_get_num_entries(zip_, 0);
    for (zip_int64_t i = 0; i < count; ++i) {
      const char* name = zip_get_name(zip_, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
      names.emplace_back(name ? name : "");
    }
    return names;
  }

  std::optional<std::uint64_t> entry_size(const std::string& name) const {
    zip_stat_t stat;
    if (zip_stat(zip_, name.c_str(), ZIP_FL_ENC_RAW, &stat) != 0) return std::nullopt;
    const zip_uint64_t needed = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
    if ((stat.valid & needed) != needed) fail("{}: zip entry '{}' has no sizes", path_, name);
    const bool stored = stat.comp_method == ZIP_CM_STORE;
    if ((stored && stat.comp_size != stat.size) || (!stored && stat.size / kMaxDeflateRatio > stat.comp_size))
      fail("{}: zip entry '{}' declares {} bytes from {} compressed", path_, name, stat.size, stat.comp_size);
    return stat.size;
  }

  // The whole entry, which must hold exactly `size` bytes (its CRC checked by libzip).
  std::shared_ptr<Buffer> read(const std::string& name, std::uint64_t size) const {
    auto buffer = std::make_shared<Buffer>((size + 7) / 8);
    zip_file_t* file = zip_fopen(zip_, name.c_str(), ZIP_FL_ENC_RAW);
    if (!file) fail("{}: cannot open zip entry '{}': {}", path_, name, zip_strerror(zip_));
    auto* out = reinterpret_cast<char*>(buffer->data());
    std::uint64_t done = 0;
    zip_int64_t got = 0;
    while (done < size && (got = zip_fread(file, out + done, size - done)) > 0) done += static_cast<std::uint64_t>(got);
    char extra = 0;
    if (got >= 0 && done == size) got = zip_fread(file, &extra, 1);
    const std::string message = got < 0 ? zip_file_strerror(file) : "";
    zip_fclose(file);
    if (!message.empty())
      fail("{}: cannot read zip entry '{}' ({}): the archive is truncated or corrupt, re-download the file", path_,
           name, message);
    if (done != size || got != 0) fail("{}: zip entry '{}' does not hold the {} bytes it declares", path_, name, size);
    return buffer;
  }

 private:
  std::string path_;
  zip_t* zip_ = nullptr;
};

// torch.save writes "<archive name>/data.pkl"; the archive name is the file's stem when saved.
std::string archive_prefix(const ZipArchive& zip, const std::string& path) {
  std::optional<std::string> prefix;
  for (const auto& name : zip.names()) {
    const auto slash = name.find('/');
    if (slash == std::string::npos || name.compare(slash, std::string::npos, "/data.pkl") != 0) continue;
    if (prefix) fail("{}: the zip archive holds more than one data.pkl", path);
    prefix = name.substr(0, slash);
    check_relative_path(*prefix, path);
  }
  if (!prefix) fail("{}: the zip archive has no '<name>/data.pkl' (not a PyTorch checkpoint)", path);
  return *prefix;
}

struct Storage {
  DType dtype;
  std::int64_t numel;
  std::shared_ptr<Buffer> bytes;
};

const Storage& load_storage(const ZipArchive& zip, const std::string& prefix, const PickledTensor& tensor,
                            std::map<std::string, Storage>& storages, const std::string& path) {
  const std::string& key = tensor.storage_key;
  auto it = storages.find(key);
  if (it != storages.end()) {
    if (it->second.dtype != tensor.dtype || it->second.numel != tensor.storage_numel)
      fail("{}: storage '{}' is declared both as {} {} and as {} {}", path, key, it->second.numel,
           dtype_name(it->second.dtype), tensor.storage_numel, dtype_name(tensor.dtype));
    return it->second;
  }
  check_relative_path(key, path);
  if (key.find('/') != std::string::npos) fail("{}: storage key '{}' is not a plain entry name", path, key);
  const std::string entry = prefix + "/data/" + key;
  const auto size = zip.entry_size(entry);
  if (!size) fail("{}: tensor '{}': storage entry '{}' is missing", path, tensor.name, entry);
  const std::uint64_t expected =
      checked_nbytes({tensor.storage_numel}, tensor.dtype, path, "storage '" + key + "'");
  if (*size != expected)
    fail("{}: storage entry '{}' holds {} bytes but the pickle declares {} {} elements ({} bytes)", path, entry,
         *size, tensor.storage_numel, dtype_name(tensor.dtype), expected);
  return storages.emplace(key, Storage{tensor.dtype, tensor.storage_numel, zip.read(entry, *size)}).first->second;
}

// The last element a strided view reads, or fails when computing it overflows.
std::uint64_t last_element(const PickledTensor& tensor, const std::string& path) {
  std::uint64_t last = static_cast<std::uint64_t>(tensor.offset);
  for (std::size_t i = 0; i < tensor.shape.size(); ++i) {
    std::uint64_t reach = 0;
    if (__builtin_mul_overflow(static_cast<std::uint64_t>(tensor.shape[i] - 1),
                               static_cast<std::uint64_t>(tensor.stride[i]), &reach) ||
        __builtin_add_overflow(last, reach, &last))
      fail("{}: tensor '{}' has strides that overflow", path, tensor.name);
  }
  return last;
}

bool is_contiguous(const PickledTensor& tensor) {
  std::int64_t expected = 1;
  for (std::size_t i = tensor.shape.size(); i-- > 0;) {
    if (tensor.shape[i] != 1 && tensor.stride[i] != expected) return false;
    expected *= tensor.shape[i];
  }
  return true;
}

// Copies a strided view out into a contiguous buffer, row-major.
std::shared_ptr<Buffer> materialise(const PickledTensor& tensor, const std::byte* storage, std::size_t nbytes) {
  auto out = std::make_shared<Buffer>((nbytes + 7) / 8);
  auto* target = reinterpret_cast<std::byte*>(out->data());
  const std::size_t element = dtype_size(tensor.dtype);
  const std::size_t rank = tensor.shape.size();
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t source = tensor.offset;
  for (std::size_t done = 0; done < nbytes; done += element) {
    std::memcpy(target + done, storage + static_cast<std::size_t>(source) * element, element);
    for (std::size_t d = rank; d-- > 0;) {
      source += tensor.stride[d];
      if (++index[d] < tensor.shape[d]) break;
      source -= tensor.stride[d] * tensor.shape[d];
      index[d] = 0;
    }
  }
  return out;
}

// Fails unless the view stays inside its storage and reads no more elements than it holds: views
// whose strides overlap (a broadcast, stride 0) would otherwise turn a few stored bytes into any
// number of copied ones, and no weight is one.
void check_view(const PickledTensor& entry, std::size_t nbytes, const Storage& storage, const std::string& path) {
  if (nbytes == 0) return;
  const auto describe = [&] {
    return fmt::format("tensor '{}' {} (offset {}, stride {})", entry.name, nlohmann::json(entry.shape).dump(),
                       entry.offset, nlohmann::json(entry.stride).dump());
  };
  if (last_element(entry, path) >= static_cast<std::uint64_t>(storage.numel))
    fail("{}: {} reaches past its storage '{}' of {} elements", path, describe(), entry.storage_key, storage.numel);
  if (nbytes / dtype_size(entry.dtype) > static_cast<std::uint64_t>(storage.numel))
    fail("{}: {} reads more elements than its storage '{}' holds ({}): its strides overlap", path, describe(),
         entry.storage_key, storage.numel);
}

void read_checkpoint(const std::string& path, TensorSet& tensors) {
  const ZipArchive zip(path);
  const std::string prefix = archive_prefix(zip, path);
  // torch >= 2.1 records the byte order of the storages; older versions wrote little-endian only.
  if (const auto size = zip.entry_size(prefix + "/byteorder")) {
    const auto order = *size <= 16 ? zip.read(prefix + "/byteorder", *size) : nullptr;
    if (!order || std::string(reinterpret_cast<const char*>(order->data()), *size) != "little")
      fail("{}: the storages are not little-endian (byteorder entry)", path);
  }
  const std::string pickle_name = prefix + "/data.pkl";
  const std::uint64_t pickle_size = *zip.entry_size(pickle_name);
  if (pickle_size > kMaxPickleBytes)
    fail("{}: '{}' of {} bytes is larger than a state dict's pickle can be ({} bytes)", path, pickle_name,
         pickle_size, kMaxPickleBytes);
  const auto pickle = zip.read(pickle_name, pickle_size);
  const auto entries =
      parse_state_dict_pickle(reinterpret_cast<const std::byte*>(pickle->data()), pickle_size, path + ": " + pickle_name);

  std::map<std::string, Storage> storages;
  for (const auto& entry : entries) {
    const Storage& storage = load_storage(zip, prefix, entry, storages, path);
    TensorData tensor;
    tensor.dtype = entry.dtype;
    tensor.shape = entry.shape;
    tensor.nbytes = checked_nbytes(entry.shape, entry.dtype, path, "tensor '" + entry.name + "'");
    check_view(entry, tensor.nbytes, storage, path);
    const auto* base = reinterpret_cast<const std::byte*>(storage.bytes->data());
    if (tensor.nbytes == 0 || is_contiguous(entry)) {
      tensor.data = base + (tensor.nbytes == 0 ? 0 : static_cast<std::size_t>(entry.offset) * dtype_size(entry.dtype));
      tensors.add(entry.name, std::move(tensor), path);
    } else {
      const std::size_t nbytes = tensor.nbytes;
      tensors.add_copied_on_use(
          entry.name, std::move(tensor),
          [entry, nbytes, bytes = storage.bytes] {
            return materialise(entry, reinterpret_cast<const std::byte*>(bytes->data()), nbytes);
          },
          path);
    }
  }
  for (auto& [key, storage] : storages) tensors.keep(storage.bytes);
}

}  // namespace

std::vector<PickledTensor> parse_state_dict_pickle(const std::byte* bytes, std::size_t size,
                                                   const std::string& where) {
  return Unpickler(bytes, size, where).run();
}

void read_pytorch_checkpoint(const std::string& path, TensorSet& tensors) {
  try {
    read_checkpoint(path, tensors);
  } catch (const std::bad_alloc&) {
    fail("{}: out of memory while reading the checkpoint", path);
  }
}

}  // namespace invar
