//===- CAPITest.cpp - The C API -------------------------------------------===//

#include "FakeCuda.h"

#include "jeet-c/Runtime.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <string>
#include <unistd.h>

TEST(CAPI, HostTensorRoundTrip) {
  jeet_rt_device *host = jeet_rt_host_device();
  EXPECT_STREQ(jeet_rt_device_name(host), "host");
  EXPECT_EQ(jeet_rt_device_kind_of(host), JEET_RT_DEVICE_HOST);
  EXPECT_EQ(jeet_rt_current_device(), host);
  jeet_rt_memory_stats before;
  ASSERT_EQ(jeet_rt_memory_stats_get(host, &before), JEET_RT_OK);

  int64_t shape[2] = {2, 3};
  float data[6] = {1, 2, 3, 4, 5, 6};
  jeet_rt_tensor *tensor = nullptr;
  ASSERT_EQ(jeet_rt_tensor_from_host(host, shape, 2, JEET_RT_F32, data,
                                     sizeof(data), &tensor),
            JEET_RT_OK);
  EXPECT_EQ(jeet_rt_tensor_rank(tensor), 2u);
  EXPECT_EQ(jeet_rt_tensor_shape(tensor)[1], 3);
  EXPECT_EQ(jeet_rt_tensor_dtype(tensor), JEET_RT_F32);
  EXPECT_EQ(jeet_rt_tensor_byte_size(tensor), 24u);
  EXPECT_EQ(jeet_rt_tensor_device(tensor), host);
  EXPECT_NE(jeet_rt_tensor_data(tensor), nullptr);

  char text[64];
  size_t length = jeet_rt_tensor_format(tensor, text, sizeof(text));
  EXPECT_STREQ(text, "2x3xf32=[[1 2 3][4 5 6]]");
  EXPECT_EQ(length, 24u);
  char small[5];
  jeet_rt_tensor_format(tensor, small, sizeof(small));
  EXPECT_STREQ(small, "2x3x");

  jeet_rt_tensor *alias = jeet_rt_tensor_retain(tensor);
  jeet_rt_tensor_release(tensor);
  float back[6] = {0};
  ASSERT_EQ(jeet_rt_tensor_to_host(alias, back, sizeof(back)), JEET_RT_OK);
  EXPECT_EQ(back[5], 6);
  jeet_rt_tensor_release(alias);

  jeet_rt_memory_stats after;
  ASSERT_EQ(jeet_rt_memory_stats_get(host, &after), JEET_RT_OK);
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(after.num_allocs, before.num_allocs + 1);
  EXPECT_EQ(after.num_frees, before.num_frees + 1);
  jeet_rt_memory_reset_peak(host);
  jeet_rt_empty_cache(host);
  ASSERT_EQ(jeet_rt_memory_stats_get(host, &after), JEET_RT_OK);
  EXPECT_EQ(after.reserved_bytes, 0u);
}

TEST(CAPI, Errors) {
  jeet_rt_tensor *tensor = nullptr;
  int64_t shape[1] = {2};
  float one = 1;
  EXPECT_EQ(jeet_rt_tensor_from_host(jeet_rt_host_device(), shape, 1,
                                     JEET_RT_F32, &one, 4, &tensor),
            JEET_RT_INVALID_ARGUMENT);
  char message[256];
  EXPECT_EQ(jeet_rt_take_last_error(message, sizeof(message)),
            JEET_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(message, "2xf32 needs 8 bytes, 4 given");
  EXPECT_EQ(jeet_rt_take_last_error(message, sizeof(message)), JEET_RT_OK);
  EXPECT_STREQ(message, "");
  EXPECT_STREQ(jeet_rt_status_name(JEET_RT_OUT_OF_MEMORY), "OutOfMemory");

  EXPECT_EQ(jeet_rt_tensor_parse("2xf32=1", &tensor), JEET_RT_INVALID_ARGUMENT);
  EXPECT_EQ(jeet_rt_take_last_error(message, sizeof(message)),
            JEET_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(message).find("expected 2 values, given 1"),
            std::string::npos);
  EXPECT_EQ(jeet_rt_tensor_load_npy("/nonexistent.npy", &tensor),
            JEET_RT_IO_ERROR);
  jeet_rt_take_last_error(nullptr, 0);
}

TEST(CAPI, NpyAndParse) {
  jeet_rt_tensor *tensor = nullptr;
  ASSERT_EQ(jeet_rt_tensor_parse("2x2xi32=1,2,3,4", &tensor), JEET_RT_OK);
  std::string path =
      ::testing::TempDir() + "jeet_capi_" + std::to_string(getpid()) + ".npy";
  ASSERT_EQ(jeet_rt_tensor_save_npy(tensor, path.c_str()), JEET_RT_OK);
  jeet_rt_tensor *loaded = nullptr;
  ASSERT_EQ(jeet_rt_tensor_load_npy(path.c_str(), &loaded), JEET_RT_OK);
  std::remove(path.c_str());
  char text[64];
  jeet_rt_tensor_format(loaded, text, sizeof(text));
  EXPECT_STREQ(text, "2x2xi32=[[1 2][3 4]]");
  jeet_rt_tensor_release(tensor);
  jeet_rt_tensor_release(loaded);
}

TEST(CAPI, DevicesAndFakeCuda) {
  jeet_rt_set_cuda_driver_path("/nonexistent/libcuda.so.1");
  jeet_rt_device_info infos[4];
  size_t count = jeet_rt_devices(infos, 4);
  ASSERT_EQ(count, 2u);
  EXPECT_STREQ(infos[0].name, "host");
  EXPECT_EQ(infos[1].available, 0);
  EXPECT_NE(std::string(infos[1].reason).find("no CUDA driver"),
            std::string::npos);
  EXPECT_EQ(jeet_rt_cuda_device(0), nullptr);
  EXPECT_EQ(jeet_rt_take_last_error(nullptr, 0), JEET_RT_DEVICE_UNAVAILABLE);

  fake_cuda_reset();
  jeet_rt_set_cuda_driver_path(JEET_FAKE_CUDA_PATH);
  EXPECT_EQ(jeet_rt_devices(nullptr, 0), 2u);
  jeet_rt_device *cuda = jeet_rt_cuda_device(0);
  ASSERT_NE(cuda, nullptr);
  EXPECT_STREQ(jeet_rt_device_name(cuda), "cuda:0");
  EXPECT_EQ(jeet_rt_device_kind_of(cuda), JEET_RT_DEVICE_CUDA);

  jeet_rt_reset_kernels_launched(cuda);
  jeet_rt_tensor *host = nullptr, *device = nullptr, *back = nullptr;
  ASSERT_EQ(jeet_rt_tensor_parse("3xf32=1,2,3", &host), JEET_RT_OK);
  ASSERT_EQ(jeet_rt_tensor_to_device(host, cuda, &device), JEET_RT_OK);
  EXPECT_EQ(jeet_rt_tensor_device(device), cuda);
  ASSERT_EQ(jeet_rt_tensor_to_device(device, jeet_rt_host_device(), &back),
            JEET_RT_OK);
  char text[64];
  jeet_rt_tensor_format(back, text, sizeof(text));
  EXPECT_STREQ(text, "3xf32=[1 2 3]");
  EXPECT_EQ(jeet_rt_device_synchronize(cuda), JEET_RT_OK);
  EXPECT_EQ(jeet_rt_kernels_launched(cuda), 0u);
  // To the device and back: 12 bytes each way; the way back waited once,
  // and so did the synchronisation.
  jeet_rt_execution_stats executed;
  ASSERT_EQ(jeet_rt_execution_stats_get(cuda, &executed), JEET_RT_OK);
  EXPECT_EQ(executed.h2d_bytes, 12u);
  EXPECT_EQ(executed.d2h_bytes, 12u);
  EXPECT_EQ(executed.synchronizations, 2u);
  EXPECT_EQ(executed.kernels_launched + executed.graph_launches, 0u);
  EXPECT_EQ(jeet_rt_execution_stats_get(cuda, nullptr),
            JEET_RT_INVALID_ARGUMENT);
  EXPECT_EQ(jeet_rt_take_last_error(nullptr, 0), JEET_RT_INVALID_ARGUMENT);
  jeet_rt_reset_kernels_launched(cuda);
  ASSERT_EQ(jeet_rt_execution_stats_get(cuda, &executed), JEET_RT_OK);
  EXPECT_EQ(executed.h2d_bytes + executed.d2h_bytes + executed.synchronizations,
            0u);

  jeet_rt_set_memory_limit(cuda, 1024);
  jeet_rt_tensor *big = nullptr;
  int64_t shape[1] = {1 << 20};
  EXPECT_EQ(jeet_rt_tensor_create(cuda, shape, 1, JEET_RT_F32, &big),
            JEET_RT_OUT_OF_MEMORY);
  char message[512];
  jeet_rt_take_last_error(message, sizeof(message));
  EXPECT_NE(std::string(message).find("4194304 bytes"), std::string::npos)
      << message;
  jeet_rt_set_memory_limit(cuda, 0);

  jeet_rt_tensor_release(host);
  jeet_rt_tensor_release(device);
  jeet_rt_tensor_release(back);
  jeet_rt_memory_stats stats;
  ASSERT_EQ(jeet_rt_memory_stats_get(cuda, &stats), JEET_RT_OK);
  EXPECT_EQ(stats.allocated_bytes, 0u);
  jeet_rt_set_cuda_driver_path(nullptr);
}

TEST(CAPI, HostAbiSymbols) {
  size_t count = 0;
  const jeet_rt_host_symbol *symbols = jeet_rt_host_abi_symbols(&count);
  ASSERT_EQ(count, 24u);
  EXPECT_STREQ(symbols[0].name, "mgpuModuleLoad");
}
