//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "jeet/Runtime/Npy.h"
#include "jeet/Runtime/Device.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace jeet::runtime;

namespace {
std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "jeet_npy_" + std::to_string(getpid()) + "_" +
         name;
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A .npy file as NumPy writes it (format 1.0).
std::string npyBytes(const std::string &dict, const std::string &data,
                     int major = 1) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  size_t n = header.size();
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (major != 1) {
    out += static_cast<char>((n >> 16) & 0xff);
    out += static_cast<char>((n >> 24) & 0xff);
  }
  return out + header + data;
}

std::string floats(std::initializer_list<float> values) {
  std::string out;
  for (float v : values)
    out.append(reinterpret_cast<const char *>(&v), 4);
  return out;
}

Status loadError(const std::string &name, const std::string &bytes) {
  std::string path = tempPath(name);
  writeFile(path, bytes);
  StatusOr<Tensor> tensor = loadNpy(path);
  std::remove(path.c_str());
  EXPECT_FALSE(tensor.ok());
  return tensor.ok() ? Status() : tensor.status();
}

std::vector<uint8_t> pattern(DType dtype, size_t bytes) {
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i)
    data[i] = dtype == DType::I1 ? (i * 7 + 3) % 2
                                 : static_cast<uint8_t>(i * 37 + 11);
  if (dtype == DType::F16) // avoid NaN payload comparisons: fine bitwise
    for (size_t i = 1; i < bytes; i += 2)
      data[i] &= 0x3b;
  return data;
}
} // namespace

TEST(Npy, RoundTripEveryDTypeAndRank) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {5}, {2, 3}, {2, 1, 4}, {2, 3, 1, 2}, {0, 3}};
  for (DType dtype :
       {DType::F32, DType::F16, DType::I32, DType::I64, DType::I1}) {
    for (const auto &shape : shapes) {
      size_t bytes = Tensor::countElements(shape) * dtypeSize(dtype);
      std::vector<uint8_t> data = pattern(dtype, bytes);
      StatusOr<Tensor> tensor = Tensor::fromHost(getHostDevice(), shape, dtype,
                                                 data.data(), data.size());
      ASSERT_TRUE(tensor.ok()) << tensor.status().toString();
      std::string path = tempPath("roundtrip.npy");
      ASSERT_TRUE(saveNpy(path, *tensor).ok());
      StatusOr<Tensor> loaded = loadNpy(path);
      std::remove(path.c_str());
      ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
      EXPECT_EQ(loaded->shape(), shape);
      EXPECT_EQ(loaded->dtype(), dtype);
      StatusOr<std::vector<uint8_t>> back = loaded->toHostBytes();
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(*back, data) << tensor->typeString();
    }
  }
}

TEST(Npy, HeaderIsNumPyCompatible) {
  float values[] = {1, 2, 3, 4, 5, 6};
  StatusOr<Tensor> tensor =
      Tensor::fromHost(getHostDevice(), {2, 3}, DType::F32, values, 24);
  ASSERT_TRUE(tensor.ok());
  StatusOr<std::vector<uint8_t>> bytes = encodeNpy(*tensor);
  ASSERT_TRUE(bytes.ok());
  std::string text(bytes->begin(), bytes->end());
  EXPECT_EQ(text.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t headerEnd = text.find('\n');
  EXPECT_EQ((headerEnd + 1) % 64, 0u);
  EXPECT_NE(text.find("{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (2, 3), }"),
            std::string::npos);
  EXPECT_EQ(bytes->size(), headerEnd + 1 + 24);

  StatusOr<Tensor> vector =
      Tensor::fromHost(getHostDevice(), {6}, DType::F32, values, 24);
  ASSERT_TRUE(vector.ok());
  bytes = encodeNpy(*vector);
  text.assign(bytes->begin(), bytes->end());
  EXPECT_NE(text.find("'shape': (6,)"), std::string::npos);

  StatusOr<Tensor> scalar =
      Tensor::fromHost(getHostDevice(), {}, DType::F32, values, 4);
  ASSERT_TRUE(scalar.ok());
  bytes = encodeNpy(*scalar);
  text.assign(bytes->begin(), bytes->end());
  EXPECT_NE(text.find("'shape': ()"), std::string::npos);
}

TEST(Npy, ReadsFormat1And2) {
  std::string data = floats({1.5f, -2.0f});
  for (int major : {1, 2, 3}) {
    std::string bytes =
        npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                 data, major);
    StatusOr<Tensor> tensor = parseNpy(bytes.data(), bytes.size(), "x.npy");
    ASSERT_TRUE(tensor.ok()) << tensor.status().toString();
    EXPECT_EQ(formatTensor(*tensor), "2xf32=[1.5 -2]");
  }
}

TEST(Npy, ReadsHeadersWithOtherKeyOrderAndQuotes) {
  std::string bytes = npyBytes(
      "{\"shape\": (1, 2), \"fortran_order\": False, \"descr\": \"<i8\"}",
      std::string("\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0", 16));
  StatusOr<Tensor> tensor = parseNpy(bytes.data(), bytes.size(), "x.npy");
  ASSERT_TRUE(tensor.ok()) << tensor.status().toString();
  EXPECT_EQ(formatTensor(*tensor), "1x2xi64=[[1 2]]");
}

TEST(Npy, BF16HasNoNumPyDType) {
  uint16_t values[2] = {0, 0};
  StatusOr<Tensor> tensor =
      Tensor::fromHost(getHostDevice(), {2}, DType::BF16, values, 4);
  ASSERT_TRUE(tensor.ok());
  Status status = saveNpy(tempPath("bf16.npy"), *tensor);
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(status.message().find("bf16 has no NumPy dtype"),
            std::string::npos);
}

TEST(Npy, BadMagic) {
  Status status = loadError("a.npy", "PK\x03\x04 not numpy at all");
  EXPECT_NE(status.message().find("a.npy: not a .npy file (bad magic)"),
            std::string::npos)
      << status.message();
}

TEST(Npy, EmptyFile) {
  Status status = loadError("empty.npy", "");
  EXPECT_NE(status.message().find("not a .npy file (bad magic)"),
            std::string::npos);
}

TEST(Npy, FortranOrder) {
  Status status =
      loadError("f.npy", npyBytes("{'descr': '<f4', 'fortran_order': True, "
                                  "'shape': (2, 2), }",
                                  floats({1, 2, 3, 4})));
  EXPECT_NE(status.message().find("f.npy: Fortran order is not supported"),
            std::string::npos)
      << status.message();
}

TEST(Npy, UnsupportedDType) {
  for (const char *descr : {">f8", "<f8", ">f4", "<u1", "<c8"}) {
    Status status = loadError(
        "d.npy", npyBytes(std::string("{'descr': '") + descr +
                              "', 'fortran_order': False, 'shape': (1,), }",
                          std::string(8, '\0')));
    EXPECT_NE(
        status.message().find(std::string("unsupported dtype '") + descr + "'"),
        std::string::npos)
        << status.message();
  }
}

TEST(Npy, TruncatedData) {
  Status status =
      loadError("t.npy", npyBytes("{'descr': '<f4', 'fortran_order': False, "
                                  "'shape': (2, 3), }",
                                  floats({1, 2})));
  EXPECT_NE(status.message().find(
                "t.npy: truncated: expected 24 bytes of data, file has 8"),
            std::string::npos)
      << status.message();
}

TEST(Npy, TrailingData) {
  Status status =
      loadError("t.npy", npyBytes("{'descr': '<f4', 'fortran_order': False, "
                                  "'shape': (1,), }",
                                  floats({1, 2})));
  EXPECT_NE(status.message().find("expected 4 bytes of data, file has 8"),
            std::string::npos)
      << status.message();
}

TEST(Npy, TruncatedHeader) {
  std::string bytes =
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "");
  Status status = loadError("h.npy", bytes.substr(0, 30));
  EXPECT_NE(status.message().find("h.npy: truncated header"), std::string::npos)
      << status.message();
  status = loadError("h2.npy", bytes.substr(0, 7));
  EXPECT_NE(status.message().find("truncated header"), std::string::npos);
}

TEST(Npy, MalformedHeader) {
  for (const char *dict :
       {"{'descr': '<f4', 'shape': (1,), }",
        "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (a,), }",
        "not a dict"}) {
    Status status = loadError("m.npy", npyBytes(dict, floats({1})));
    EXPECT_NE(status.message().find("m.npy: malformed header"),
              std::string::npos)
        << status.message();
  }
}

TEST(Npy, UnsupportedVersion) {
  std::string bytes = npyBytes(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", floats({1}));
  bytes[6] = 9;
  Status status = loadError("v.npy", bytes);
  EXPECT_NE(status.message().find("unsupported .npy format version 9.0"),
            std::string::npos)
      << status.message();
}

TEST(Npy, BadBoolValue) {
  Status status =
      loadError("b.npy", npyBytes("{'descr': '|b1', 'fortran_order': False, "
                                  "'shape': (2,), }",
                                  std::string("\x01\x05", 2)));
  EXPECT_NE(status.message().find("neither 0 nor 1"), std::string::npos);
}

TEST(Npy, MissingFile) {
  StatusOr<Tensor> tensor = loadNpy("/nonexistent/dir/x.npy");
  ASSERT_FALSE(tensor.ok());
  EXPECT_EQ(tensor.status().code(), StatusCode::IoError);
  EXPECT_NE(tensor.status().message().find("/nonexistent/dir/x.npy: cannot "
                                           "open: No such file"),
            std::string::npos)
      << tensor.status().message();
  float v = 1;
  StatusOr<Tensor> scalar =
      Tensor::fromHost(getHostDevice(), {}, DType::F32, &v, 4);
  ASSERT_TRUE(scalar.ok());
  Status status = saveNpy("/nonexistent/dir/y.npy", *scalar);
  EXPECT_EQ(status.code(), StatusCode::IoError);
}

// Shapes beyond Jeet's limits are rejected from the header, before any data
// is read or memory allocated: 2^62 f32 elements (whose byte count wraps to
// 0 in 64 bits) used to load as a tensor with an empty buffer.
TEST(Npy, ShapeBeyondTheLimit) {
  for (const char *shape :
       {"(4611686018427387904,)", "(2, 4611686018427387904)",
        "(0, 9223372036854775807)", "(1099511627777,)"}) {
    std::string header = std::string("{'descr': '<f4', 'fortran_order': "
                                     "False, 'shape': ") +
                         shape + ", }";
    Status status = loadError("big.npy", npyBytes(header, ""));
    EXPECT_NE(status.message().find("big.npy: invalid shape"),
              std::string::npos)
        << status.message();
    std::string bytes = npyBytes(header, "");
    StatusOr<Tensor> parsed = parseNpy(bytes.data(), bytes.size(), "mem.npy");
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.status().message().find("more elements than Jeet's limit"),
              std::string::npos)
        << parsed.status().message();
  }
}

// A header length beyond 1 MiB is refused before the header is read.
TEST(Npy, HeaderTooLong) {
  std::string bytes = "\x93NUMPY";
  bytes += std::string("\x02\x00\x00\x00\x00\x40", 6); // 1 GiB of header.
  Status status = loadError("long.npy", bytes);
  EXPECT_NE(status.message().find("header of 1073741824 bytes is longer than "
                                  "the 1048576 accepted"),
            std::string::npos)
      << status.message();
}

// A big announced size against a small file is an error before allocation
// (the tensor would take 4 GiB).
TEST(Npy, SizeCheckedAgainstTheFileFirst) {
  Status status = loadError(
      "huge.npy", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                           "(1073741824,), }",
                           floats({1})));
  EXPECT_NE(status.message().find(
                "truncated: expected 4294967296 bytes of data, file has 4"),
            std::string::npos)
      << status.message();
}

// Reading from a pipe (no size known in advance): exactly the announced data
// is read; more is "trailing data", less is "truncated", and an endless
// stream is not read to its end.
TEST(Npy, ReadsFromAPipe) {
  std::string path = tempPath("fifo.npy");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  std::string good =
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
               floats({1, 2}));
  for (auto [bytes, expect] :
       {std::pair<std::string, const char *>{good, ""},
        {good + std::string(100000, 'x'), "trailing data"},
        {good.substr(0, good.size() - 2), "truncated: expected 8 bytes"}}) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      std::ofstream out(path, std::ios::binary);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      out.flush();
      ::_exit(0);
    }
    // A writer left with unread bytes ends on SIGPIPE when the reader
    // closes.
    StatusOr<Tensor> tensor = loadNpy(path);
    ::waitpid(child, nullptr, 0);
    if (!*expect) {
      ASSERT_TRUE(tensor.ok()) << tensor.status().toString();
      EXPECT_EQ(tensor->typeString(), "2xf32");
    } else {
      ASSERT_FALSE(tensor.ok());
      EXPECT_NE(tensor.status().message().find(expect), std::string::npos)
          << tensor.status().message();
    }
  }
  std::remove(path.c_str());
}
