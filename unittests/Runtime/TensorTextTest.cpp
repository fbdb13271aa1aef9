//===- TensorTextTest.cpp - Inline tensor literals ------------------------===//

#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Npy.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace jeet::runtime;

namespace {
std::string roundTrip(const std::string &text) {
  StatusOr<Tensor> tensor = parseTensorLiteral(text);
  EXPECT_TRUE(tensor.ok()) << text << ": " << tensor.status().toString();
  return tensor.ok() ? formatTensor(*tensor) : "";
}

std::string parseError(const std::string &text) {
  StatusOr<Tensor> tensor = parseTensorLiteral(text);
  EXPECT_FALSE(tensor.ok()) << text;
  if (tensor.ok())
    return "";
  EXPECT_EQ(tensor.status().code(), StatusCode::InvalidArgument);
  return tensor.status().message();
}
} // namespace

TEST(TensorText, Parse2x3) {
  StatusOr<Tensor> tensor = parseTensorLiteral("2x3xf32=1,2,3,4,5,6");
  ASSERT_TRUE(tensor.ok()) << tensor.status().toString();
  EXPECT_EQ(tensor->shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(tensor->dtype(), DType::F32);
  EXPECT_EQ(tensor->device(), &getHostDevice());
  float values[6];
  ASSERT_TRUE(tensor->toHost(values, sizeof(values)).ok());
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(values[i], i + 1);
  EXPECT_EQ(formatTensor(*tensor), "2x3xf32=[[1 2 3][4 5 6]]");
}

TEST(TensorText, Scalars) {
  EXPECT_EQ(roundTrip("f32=5"), "f32=5");
  EXPECT_EQ(roundTrip(" i64 = -7 "), "i64=-7");
  EXPECT_EQ(roundTrip("i1=true"), "i1=1");
}

TEST(TensorText, EveryDType) {
  EXPECT_EQ(roundTrip("3xf32=0.1,-2.5,1e10"), "3xf32=[0.1 -2.5 1e+10]");
  EXPECT_EQ(roundTrip("2xf16=1.5,-0.25"), "2xf16=[1.5 -0.25]");
  EXPECT_EQ(roundTrip("2xbf16=1.5,-3"), "2xbf16=[1.5 -3]");
  EXPECT_EQ(roundTrip("2xi32=2147483647,-2147483648"),
            "2xi32=[2147483647 -2147483648]");
  EXPECT_EQ(roundTrip("2xi64=9223372036854775807,-1"),
            "2xi64=[9223372036854775807 -1]");
  EXPECT_EQ(roundTrip("4xi1=1,0,true,false"), "4xi1=[1 0 1 0]");
  EXPECT_EQ(roundTrip("2xfloat32=1,2"), "2xf32=[1 2]");
}

TEST(TensorText, SeparatorsAndBrackets) {
  EXPECT_EQ(roundTrip("2x2xi32=[[1 2][3 4]]"), "2x2xi32=[[1 2][3 4]]");
  EXPECT_EQ(roundTrip("2x2xi32=1, 2,\n 3 ,4"), "2x2xi32=[[1 2][3 4]]");
}

TEST(TensorText, HigherRanksAndEmpty) {
  EXPECT_EQ(roundTrip("2x1x2xi32=1,2,3,4"), "2x1x2xi32=[[[1 2]][[3 4]]]");
  EXPECT_EQ(roundTrip("0x3xf32="), "0x3xf32=[]");
  EXPECT_EQ(roundTrip("1x1x1x1xi64=9"), "1x1x1x1xi64=[[[[9]]]]");
}

TEST(TensorText, FormatIsParseable) {
  std::string text = roundTrip("2x3xf32=0.1,0.2,0.3,1,2,3");
  EXPECT_EQ(roundTrip(text), text);
}

TEST(TensorText, Errors) {
  EXPECT_NE(parseError("4xf32").find("missing '=<values>'"), std::string::npos);
  EXPECT_NE(parseError("2x3xf32=1,2,3,4,5")
                .find("'2x3xf32': expected 6 values, given 5"),
            std::string::npos);
  EXPECT_NE(parseError("2xf32=1,2,3").find("expected 2 values, given 3"),
            std::string::npos);
  EXPECT_NE(parseError("f32=").find("expected 1 values, given 0"),
            std::string::npos);
  EXPECT_NE(parseError("2xf64=1,2").find("unknown dtype 'f64'"),
            std::string::npos);
  EXPECT_NE(parseError("2xf32=1,abc").find("bad f32 value 'abc'"),
            std::string::npos);
  EXPECT_NE(parseError("2xi32=1,2.5").find("bad i32 value '2.5'"),
            std::string::npos);
  EXPECT_NE(parseError("1xi32=4294967296").find("bad i32 value"),
            std::string::npos);
  EXPECT_NE(parseError("1xi1=2").find("bad i1 value '2'"), std::string::npos);
  EXPECT_NE(parseError("ax2xf32=1,2").find("bad dimension 'a'"),
            std::string::npos);
  EXPECT_NE(parseError("-1xf32=1").find("bad dimension '-1'"),
            std::string::npos);
}

// A tensor with no elements prints without walking its other dimensions
// (9223372036854775807x0x2xf32 used to loop 2^63 times), and shapes beyond
// Jeet's limits are errors naming the shape.
TEST(TensorText, ShapesAtTheLimits) {
  EXPECT_EQ(roundTrip("1099511627776x0xf32="), "1099511627776x0xf32=[]");
  EXPECT_NE(parseError("9223372036854775807x0x2xf32=")
                .find("invalid shape 9223372036854775807x0x2xf32: more "
                      "elements than Jeet's limit of 2^40"),
            std::string::npos);
  EXPECT_NE(parseError("4611686018427387904xf32=").find("invalid shape"),
            std::string::npos);
  EXPECT_NE(parseError("99999999999999999999xf32=")
                .find("bad dimension '99999999999999999999'"),
            std::string::npos);
}
