//===- TensorText.cpp - Inline tensor literals ("2x3xf32=1,2,3,...") ------===//

#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Npy.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace jeet::runtime;

static std::string_view trim(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos)
    return {};
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

static Status parseValue(const std::string &token, DType dtype, void *out) {
  auto bad = [&]() {
    return invalidArgument("bad " + std::string(dtypeName(dtype)) + " value '" +
                           token + "'");
  };
  const char *begin = token.c_str();
  char *end = nullptr;
  errno = 0;
  switch (dtype) {
  case DType::F32:
  case DType::F16:
  case DType::BF16: {
    float value = std::strtof(begin, &end);
    if (end == begin || *end != '\0')
      return bad();
    if (dtype == DType::F32) {
      std::memcpy(out, &value, 4);
    } else {
      uint16_t bits =
          dtype == DType::F16 ? floatToHalf(value) : floatToBF16(value);
      std::memcpy(out, &bits, 2);
    }
    return Status();
  }
  case DType::I32:
  case DType::I64: {
    long long value = std::strtoll(begin, &end, 10);
    if (end == begin || *end != '\0' || errno == ERANGE)
      return bad();
    if (dtype == DType::I32) {
      if (value < INT32_MIN || value > INT32_MAX)
        return bad();
      int32_t narrow = static_cast<int32_t>(value);
      std::memcpy(out, &narrow, 4);
    } else {
      int64_t wide = value;
      std::memcpy(out, &wide, 8);
    }
    return Status();
  }
  case DType::I1: {
    uint8_t value;
    if (token == "1" || token == "true" || token == "True")
      value = 1;
    else if (token == "0" || token == "false" || token == "False")
      value = 0;
    else
      return bad();
    std::memcpy(out, &value, 1);
    return Status();
  }
  }
  return bad();
}

StatusOr<Tensor> jeet::runtime::parseTensorLiteral(std::string_view input,
                                                   Device *device) {
  std::string_view text = trim(input);
  size_t eq = text.find('=');
  if (eq == std::string_view::npos)
    return invalidArgument("'" + std::string(text) +
                           "': missing '=<values>' (e.g. 2x3xf32=1,2,3,4,5,6)");
  std::string type(trim(text.substr(0, eq)));
  std::vector<int64_t> shape;
  size_t start = 0;
  while (true) {
    size_t x = type.find('x', start);
    if (x == std::string::npos)
      break;
    std::string dim = type.substr(start, x - start);
    char *end = nullptr;
    errno = 0;
    long long value = std::strtoll(dim.c_str(), &end, 10);
    if (dim.empty() || *end != '\0' || value < 0 || errno == ERANGE)
      return invalidArgument("bad dimension '" + dim + "' in '" + type + "'");
    shape.push_back(value);
    start = x + 1;
  }
  StatusOr<DType> dtype = parseDType(type.substr(start));
  if (!dtype.ok())
    return dtype.status().withContext("'" + type + "'");
  JEET_RETURN_IF_ERROR(
      Tensor::checkShape(shape, *dtype).withContext("'" + type + "'"));
  int64_t count = Tensor::countElements(shape);

  std::string values(text.substr(eq + 1));
  for (char &c : values)
    if (c == ',' || c == '[' || c == ']' || c == '\t' || c == '\n' || c == '\r')
      c = ' ';
  std::vector<std::string> tokens;
  for (size_t pos = 0; pos < values.size();) {
    size_t begin = values.find_first_not_of(' ', pos);
    if (begin == std::string::npos)
      break;
    size_t end = values.find(' ', begin);
    if (end == std::string::npos)
      end = values.size();
    tokens.push_back(values.substr(begin, end - begin));
    pos = end;
  }
  if (static_cast<int64_t>(tokens.size()) != count)
    return invalidArgument("'" + type + "': expected " + std::to_string(count) +
                           " values, given " + std::to_string(tokens.size()));
  size_t elementSize = dtypeSize(*dtype);
  std::vector<uint8_t> bytes(tokens.size() * elementSize);
  for (size_t i = 0; i < tokens.size(); ++i)
    JEET_RETURN_IF_ERROR(
        parseValue(tokens[i], *dtype, bytes.data() + i * elementSize)
            .withContext("'" + type + "' element " + std::to_string(i)));
  return Tensor::fromHost(device ? *device : getHostDevice(), shape, *dtype,
                          bytes.data(), bytes.size());
}

static std::string formatFloat(float value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  char text[48];
  for (int precision = 6; precision <= 9; ++precision) {
    std::snprintf(text, sizeof(text), "%.*g", precision,
                  static_cast<double>(value));
    if (std::strtof(text, nullptr) == value)
      break;
  }
  return text;
}

static std::string formatElement(const uint8_t *data, DType dtype) {
  switch (dtype) {
  case DType::F32: {
    float value;
    std::memcpy(&value, data, 4);
    return formatFloat(value);
  }
  case DType::F16:
  case DType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, data, 2);
    return formatFloat(dtype == DType::F16 ? halfToFloat(bits)
                                           : bf16ToFloat(bits));
  }
  case DType::I32: {
    int32_t value;
    std::memcpy(&value, data, 4);
    return std::to_string(value);
  }
  case DType::I64: {
    int64_t value;
    std::memcpy(&value, data, 8);
    return std::to_string(value);
  }
  case DType::I1:
    return data[0] ? "1" : "0";
  }
  return "?";
}

static void formatDims(std::string &out, const uint8_t *&data,
                       const std::vector<int64_t> &shape, size_t dim,
                       DType dtype) {
  out += '[';
  for (int64_t i = 0; i < shape[dim]; ++i) {
    if (dim + 1 == shape.size()) {
      if (i)
        out += ' ';
      out += formatElement(data, dtype);
      data += dtypeSize(dtype);
    } else {
      formatDims(out, data, shape, dim + 1, dtype);
    }
  }
  out += ']';
}

std::string jeet::runtime::formatTensor(const Tensor &tensor) {
  if (!tensor.defined())
    return "<undefined tensor>";
  StatusOr<std::vector<uint8_t>> bytes = tensor.toHostBytes();
  if (!bytes.ok())
    return tensor.typeString() + "=<" + bytes.status().message() + ">";
  std::string out = tensor.typeString() + "=";
  const uint8_t *data = bytes->data();
  if (tensor.rank() == 0)
    return out + formatElement(data, tensor.dtype());
  // No elements: "[]", without walking the other dimensions (one of them
  // may be huge: 9223372036854775807x0xf32).
  if (tensor.numElements() == 0)
    return out + "[]";
  formatDims(out, data, tensor.shape(), 0, tensor.dtype());
  return out;
}
