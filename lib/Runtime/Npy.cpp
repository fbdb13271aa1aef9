//===- Npy.cpp - NumPy .npy files -----------------------------------------===//

#include "jeet/Runtime/Npy.h"
#include "jeet/Runtime/Device.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include <sys/stat.h>

using namespace jeet::runtime;

static const char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicSize = 6;

namespace {
struct Header {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// A tiny parser for the Python dict literal of a .npy header.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  Status parse(Header &header) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    if (!eat('{'))
      return error("expected '{'");
    while (true) {
      skipSpace();
      if (eat('}'))
        break;
      std::string key;
      JEET_RETURN_IF_ERROR(parseString(key));
      skipSpace();
      if (!eat(':'))
        return error("expected ':' after '" + key + "'");
      skipSpace();
      if (key == "descr") {
        JEET_RETURN_IF_ERROR(parseString(header.descr));
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (eatWord("True"))
          header.fortranOrder = true;
        else if (eatWord("False"))
          header.fortranOrder = false;
        else
          return error("fortran_order is neither True nor False");
        haveOrder = true;
      } else if (key == "shape") {
        JEET_RETURN_IF_ERROR(parseShape(header.shape));
        haveShape = true;
      } else {
        return error("unexpected key '" + key + "'");
      }
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat('}'))
        break;
      return error("expected ',' or '}'");
    }
    if (!haveDescr || !haveOrder || !haveShape)
      return error("missing descr, fortran_order or shape");
    return Status();
  }

private:
  Status error(const std::string &what) {
    return invalidArgument("malformed header: " + what);
  }
  void skipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n'))
      ++pos_;
  }
  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool eatWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return false;
    pos_ += word.size();
    return true;
  }
  Status parseString(std::string &out) {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return error("expected a string");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos)
      return error("unterminated string");
    out = std::string(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return Status();
  }
  Status parseShape(std::vector<int64_t> &shape) {
    if (!eat('('))
      return error("expected '(' for shape");
    while (true) {
      skipSpace();
      if (eat(')'))
        return Status();
      size_t start = pos_;
      int64_t value = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        int digit = text_[pos_++] - '0';
        if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
          return error("dimension does not fit in 64 bits");
        value = value * 10 + digit;
      }
      if (pos_ == start)
        return error("expected a dimension");
      if (pos_ < text_.size() && text_[pos_] == 'L') // Python 2 longs
        ++pos_;
      shape.push_back(value);
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat(')'))
        return Status();
      return error("expected ',' or ')' in shape");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

StatusOr<DType> dtypeFromDescr(const std::string &descr) {
  if (descr == "<f4")
    return DType::F32;
  if (descr == "<f2")
    return DType::F16;
  if (descr == "<i4")
    return DType::I32;
  if (descr == "<i8")
    return DType::I64;
  if (descr == "|b1")
    return DType::I1;
  // NumPy has no bfloat16: ml_dtypes' bfloat16 arrays are saved as 2-byte
  // void elements holding the raw bits.
  if (descr == "<V2" || descr == "|V2")
    return DType::BF16;
  return invalidArgument("unsupported dtype '" + descr +
                         "' (supported: <f4, <f2, <i4, <i8, |b1, and <V2 or "
                         "|V2 for bfloat16 as ml_dtypes saves it)");
}

StatusOr<const char *> descrFromDType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "<f4";
  case DType::F16:
    return "<f2";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::I1:
    return "|b1";
  case DType::BF16:
    break;
  }
  return invalidArgument("bf16 has no NumPy dtype");
}
} // namespace

/// The longest header accepted (NumPy writes a few hundred bytes; format 2.0
/// allows 4 GiB): checked before the header is read.
static constexpr size_t kMaxHeaderBytes = 1 << 20;
/// Bytes before the header text: magic, version, and the header length.
static constexpr size_t kPreambleV1 = kMagicSize + 2 + 2;
static constexpr size_t kPreambleV2 = kMagicSize + 2 + 4;

namespace {
/// A parsed header and where the data starts.
struct Layout {
  Header header;
  DType dtype = DType::F32;
  size_t dataOffset = 0;
  size_t dataBytes = 0;
};
} // namespace

/// Reads the magic, version and header length from the first `size` bytes
/// (at least kPreambleV2 of them when the file has as many): the length of
/// the preamble and of the header that follows.
static Status parsePreamble(const unsigned char *bytes, size_t size,
                            size_t &preamble, size_t &headerLength) {
  if (size < kMagicSize || std::memcmp(bytes, kMagic, kMagicSize) != 0)
    return invalidArgument("not a .npy file (bad magic)");
  if (size < kMagicSize + 2)
    return invalidArgument("truncated header");
  int major = bytes[6], minor = bytes[7];
  if (major == 1) {
    if (size < kPreambleV1)
      return invalidArgument("truncated header");
    headerLength = bytes[8] | (size_t(bytes[9]) << 8);
    preamble = kPreambleV1;
  } else if (major == 2 || major == 3) {
    if (size < kPreambleV2)
      return invalidArgument("truncated header");
    headerLength = bytes[8] | (size_t(bytes[9]) << 8) |
                   (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
    preamble = kPreambleV2;
  } else {
    return invalidArgument("unsupported .npy format version " +
                           std::to_string(major) + "." + std::to_string(minor));
  }
  if (headerLength > kMaxHeaderBytes)
    return invalidArgument("header of " + std::to_string(headerLength) +
                           " bytes is longer than the " +
                           std::to_string(kMaxHeaderBytes) + " accepted");
  return Status();
}

/// Parses the header text and checks the shape against Jeet's limits.
static Status parseHeaderText(std::string_view text, size_t dataOffset,
                              Layout &layout) {
  JEET_RETURN_IF_ERROR(HeaderParser(text).parse(layout.header));
  if (layout.header.fortranOrder)
    return invalidArgument("Fortran order is not supported");
  StatusOr<DType> dtype = dtypeFromDescr(layout.header.descr);
  if (!dtype.ok())
    return dtype.status();
  JEET_RETURN_IF_ERROR(Tensor::checkShape(layout.header.shape, *dtype));
  layout.dtype = *dtype;
  layout.dataOffset = dataOffset;
  layout.dataBytes =
      static_cast<size_t>(Tensor::countElements(layout.header.shape)) *
      dtypeSize(*dtype);
  return Status();
}

/// Checks the bytes of a bool array (one byte per element, 0 or 1).
static Status checkBools(const unsigned char *payload, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i)
    if (payload[i] > 1)
      return invalidArgument("bool element " + std::to_string(i) +
                             " is neither 0 nor 1");
  return Status();
}

static Status checkDataSize(size_t available, size_t expected) {
  if (available < expected)
    return invalidArgument("truncated: expected " + std::to_string(expected) +
                           " bytes of data, file has " +
                           std::to_string(available));
  if (available > expected)
    return invalidArgument(
        "trailing data: expected " + std::to_string(expected) +
        " bytes of data, file has " + std::to_string(available));
  return Status();
}

StatusOr<Tensor> jeet::runtime::parseNpy(const void *data, size_t size,
                                         const std::string &name) {
  const unsigned char *bytes = static_cast<const unsigned char *>(data);
  auto fail = [&](const Status &status) {
    return invalidArgument(name + ": " + status.message());
  };
  size_t preamble = 0, headerLength = 0;
  if (Status status = parsePreamble(bytes, size, preamble, headerLength);
      !status.ok())
    return fail(status);
  if (size - preamble < headerLength)
    return fail(invalidArgument(
        "truncated header: expected " + std::to_string(headerLength) +
        " header bytes, file has " + std::to_string(size - preamble)));
  std::string_view text(reinterpret_cast<const char *>(bytes) + preamble,
                        headerLength);
  Layout layout;
  if (Status status = parseHeaderText(text, preamble + headerLength, layout);
      !status.ok())
    return fail(status);
  if (Status status = checkDataSize(size - layout.dataOffset, layout.dataBytes);
      !status.ok())
    return fail(status);
  const unsigned char *payload = bytes + layout.dataOffset;
  if (layout.dtype == DType::I1)
    if (Status status = checkBools(payload, layout.dataBytes); !status.ok())
      return fail(status);
  StatusOr<Tensor> tensor =
      Tensor::fromHost(getHostDevice(), layout.header.shape, layout.dtype,
                       payload, layout.dataBytes);
  if (!tensor.ok())
    return tensor.status().withContext(name);
  return tensor;
}

namespace {
/// A FILE that closes itself.
struct File {
  explicit File(const std::string &path)
      : file(std::fopen(path.c_str(), "rb")) {}
  ~File() {
    if (file)
      std::fclose(file);
  }
  /// Reads up to `size` bytes; the number read.
  size_t read(void *out, size_t size) { return std::fread(out, 1, size, file); }
  FILE *file;
};
} // namespace

StatusOr<Tensor> jeet::runtime::loadNpy(const std::string &path) {
  // Bounded reads: the preamble, then the header (its length checked first),
  // then exactly the data the header announces, straight into the tensor,
  // which is allocated only after its size was checked against the file's.
  File file(path);
  if (!file.file)
    return ioError(path + ": cannot open: " + std::strerror(errno));
  auto fail = [&](const Status &status) {
    return Status(status.code(), path + ": " + status.message());
  };
  unsigned char preambleBytes[kPreambleV2];
  size_t got = file.read(preambleBytes, kPreambleV2);
  size_t preamble = 0, headerLength = 0;
  if (Status status = parsePreamble(preambleBytes, got, preamble, headerLength);
      !status.ok())
    return fail(status);
  std::string text(preambleBytes + preamble, preambleBytes + got);
  size_t have = text.size();
  if (have < headerLength) {
    text.resize(headerLength);
    have += file.read(&text[have], headerLength - have);
  }
  if (have < headerLength)
    return fail(invalidArgument(
        "truncated header: expected " + std::to_string(headerLength) +
        " header bytes, file has " + std::to_string(have)));
  // What was read past the header (a short header in a format 1.0 file)
  // already belongs to the data.
  std::string early = text.substr(headerLength);
  text.resize(headerLength);
  Layout layout;
  if (Status status = parseHeaderText(text, preamble + headerLength, layout);
      !status.ok())
    return fail(status);

  struct stat info;
  if (::fstat(::fileno(file.file), &info) == 0 && S_ISREG(info.st_mode)) {
    size_t fileSize = static_cast<size_t>(info.st_size);
    size_t available =
        fileSize > layout.dataOffset ? fileSize - layout.dataOffset : 0;
    if (Status status = checkDataSize(available, layout.dataBytes);
        !status.ok())
      return fail(status);
  }
  StatusOr<Tensor> tensor =
      Tensor::empty(getHostDevice(), layout.header.shape, layout.dtype);
  if (!tensor.ok())
    return tensor.status().withContext(path);
  auto *out = static_cast<unsigned char *>(tensor->data());
  size_t fromEarly = std::min(early.size(), layout.dataBytes);
  std::memcpy(out, early.data(), fromEarly);
  size_t read = fromEarly;
  if (read < layout.dataBytes)
    read += file.read(out + read, layout.dataBytes - read);
  if (std::ferror(file.file))
    return ioError(path + ": read error");
  // Not a regular file (a pipe): the size is known only now.
  unsigned char extra;
  bool trailing = early.size() > fromEarly || file.read(&extra, 1) == 1;
  if (read < layout.dataBytes || trailing)
    return fail(checkDataSize(read + (trailing ? 1 : 0), layout.dataBytes));
  if (layout.dtype == DType::I1)
    if (Status status = checkBools(out, layout.dataBytes); !status.ok())
      return fail(status);
  return tensor;
}

StatusOr<std::vector<uint8_t>> jeet::runtime::encodeNpy(const Tensor &tensor) {
  if (!tensor.defined())
    return invalidArgument("cannot encode an undefined tensor");
  StatusOr<const char *> descr = descrFromDType(tensor.dtype());
  if (!descr.ok())
    return descr.status();
  std::string header = "{'descr': '" + std::string(*descr) +
                       "', 'fortran_order': False, 'shape': (";
  for (int64_t i = 0; i < tensor.rank(); ++i)
    header += (i ? ", " : "") + std::to_string(tensor.shape()[i]);
  if (tensor.rank() == 1)
    header += ","; // "(5,)"
  header += ")";
  header += ", }";
  // Pad with spaces so that the data starts at a multiple of 64; end in '\n'.
  size_t prefix = kMagicSize + 2 + 2;
  bool v2 = prefix + header.size() + 1 > 65535;
  if (v2)
    prefix += 2;
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';

  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(v2 ? 2 : 1);
  out.push_back(0);
  size_t length = header.size();
  out.push_back(length & 0xff);
  out.push_back((length >> 8) & 0xff);
  if (v2) {
    out.push_back((length >> 16) & 0xff);
    out.push_back((length >> 24) & 0xff);
  }
  out.insert(out.end(), header.begin(), header.end());
  StatusOr<std::vector<uint8_t>> data = tensor.toHostBytes();
  if (!data.ok())
    return data.status();
  out.insert(out.end(), data->begin(), data->end());
  return out;
}

Status jeet::runtime::saveNpy(const std::string &path, const Tensor &tensor) {
  StatusOr<std::vector<uint8_t>> bytes = encodeNpy(tensor);
  if (!bytes.ok())
    return bytes.status().withContext(path);
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return ioError(path + ": cannot create: " + std::strerror(errno));
  size_t written = std::fwrite(bytes->data(), 1, bytes->size(), file);
  bool failed = written != bytes->size();
  failed |= std::fclose(file) != 0;
  if (failed)
    return ioError(path + ": write error");
  return Status();
}
