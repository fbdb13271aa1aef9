//===- Npy.cpp - NumPy .npy files -----------------------------------------===//

#include "jeet/Runtime/Npy.h"
#include "jeet/Runtime/Device.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

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
        if (value > (int64_t(1) << 50))
          return error("dimension too large");
        value = value * 10 + (text_[pos_++] - '0');
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
  return invalidArgument("unsupported dtype '" + descr +
                         "' (supported: <f4, <f2, <i4, <i8, |b1)");
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

StatusOr<Tensor> jeet::runtime::parseNpy(const void *data, size_t size,
                                         const std::string &name) {
  const unsigned char *bytes = static_cast<const unsigned char *>(data);
  auto fail = [&](const std::string &what) {
    return invalidArgument(name + ": " + what);
  };
  if (size < kMagicSize || std::memcmp(bytes, kMagic, kMagicSize) != 0)
    return fail("not a .npy file (bad magic)");
  if (size < kMagicSize + 2)
    return fail("truncated header");
  int major = bytes[6], minor = bytes[7];
  size_t headerLength, headerStart;
  if (major == 1) {
    if (size < 10)
      return fail("truncated header");
    headerLength = bytes[8] | (size_t(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      return fail("truncated header");
    headerLength = bytes[8] | (size_t(bytes[9]) << 8) |
                   (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
    headerStart = 12;
  } else {
    return fail("unsupported .npy format version " + std::to_string(major) +
                "." + std::to_string(minor));
  }
  if (size < headerStart + headerLength)
    return fail("truncated header: expected " + std::to_string(headerLength) +
                " header bytes, file has " +
                std::to_string(size - headerStart));
  std::string_view text(reinterpret_cast<const char *>(bytes) + headerStart,
                        headerLength);
  Header header;
  if (Status status = HeaderParser(text).parse(header); !status.ok())
    return fail(status.message());
  if (header.fortranOrder)
    return fail("Fortran order is not supported");
  StatusOr<DType> dtype = dtypeFromDescr(header.descr);
  if (!dtype.ok())
    return fail(dtype.status().message());
  int64_t count = Tensor::countElements(header.shape);
  if (count < 0)
    return fail("malformed header: bad shape");
  size_t expected = static_cast<size_t>(count) * dtypeSize(*dtype);
  size_t available = size - headerStart - headerLength;
  if (available < expected)
    return fail("truncated: expected " + std::to_string(expected) +
                " bytes of data, file has " + std::to_string(available));
  if (available > expected)
    return fail("trailing data: expected " + std::to_string(expected) +
                " bytes of data, file has " + std::to_string(available));
  const unsigned char *payload = bytes + headerStart + headerLength;
  if (*dtype == DType::I1)
    for (size_t i = 0; i < expected; ++i)
      if (payload[i] > 1)
        return fail("bool element " + std::to_string(i) +
                    " is neither 0 nor 1");
  StatusOr<Tensor> tensor = Tensor::fromHost(getHostDevice(), header.shape,
                                             *dtype, payload, expected);
  if (!tensor.ok())
    return tensor.status().withContext(name);
  return tensor;
}

StatusOr<Tensor> jeet::runtime::loadNpy(const std::string &path) {
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return ioError(path + ": cannot open: " + std::strerror(errno));
  std::vector<unsigned char> bytes;
  unsigned char chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
    bytes.insert(bytes.end(), chunk, chunk + n);
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed)
    return ioError(path + ": read error");
  return parseNpy(bytes.data(), bytes.size(), path);
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
