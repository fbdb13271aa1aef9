//===- Devices.cpp - The device registry ----------------------------------===//

#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"

#include <cstdlib>
#include <map>
#include <mutex>

using namespace jeet::runtime;

namespace {
struct Registry {
  std::mutex mutex;
  bool optionsSet = false;
  CudaOptions options;
  std::map<int, std::unique_ptr<CudaDevice>> devices;
  std::map<int, Status> failures;
};

// Never destroyed: devices outlive static destructors of other libraries
// (JIT'ed modules unload in global destructors).
Registry &registry() {
  static Registry *instance = new Registry();
  return *instance;
}

thread_local Device *current = nullptr;
} // namespace

Device &jeet::runtime::getHostDevice() {
  static HostDevice *host = new HostDevice();
  return *host;
}

StatusOr<CudaDevice *> jeet::runtime::getCudaDevice(int ordinal) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.devices.find(ordinal);
  if (it != r.devices.end())
    return it->second.get();
  auto failed = r.failures.find(ordinal);
  if (failed != r.failures.end())
    return failed->second;
  CudaOptions options = r.options;
  if (!r.optionsSet)
    if (const char *path = std::getenv("JEET_CUDA_DRIVER"); path && *path)
      options.driverPath = path;
  options.ordinal = ordinal;
  StatusOr<std::unique_ptr<CudaDevice>> device = CudaDevice::open(options);
  if (!device.ok()) {
    r.failures[ordinal] = device.status();
    return device.status();
  }
  CudaDevice *raw = device->get();
  r.devices[ordinal] = std::move(*device);
  return raw;
}

void jeet::runtime::setCudaOptions(const CudaOptions &options) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto &entry : r.devices)
    if (current == entry.second.get())
      current = nullptr;
  r.devices.clear();
  r.failures.clear();
  r.options = options;
  r.optionsSet = true;
}

Device &jeet::runtime::currentDevice() {
  return current ? *current : getHostDevice();
}

void jeet::runtime::setCurrentDevice(Device *device) { current = device; }

std::vector<DeviceInfo> jeet::runtime::listDevices() {
  std::vector<DeviceInfo> infos;
  infos.push_back({"host", DeviceKind::Host, true, "", "CPU"});
  StatusOr<CudaDevice *> first = getCudaDevice(0);
  if (!first.ok()) {
    infos.push_back(
        {"cuda:0", DeviceKind::Cuda, false, first.status().message(), ""});
    return infos;
  }
  int count = 1;
  const CudaDriver &driver = (*first)->driver();
  if (driver.cuDeviceGetCount(&count) != cu::CUDA_SUCCESS || count < 1)
    count = 1;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    StatusOr<CudaDevice *> device = getCudaDevice(ordinal);
    std::string name = "cuda:" + std::to_string(ordinal);
    if (device.ok())
      infos.push_back({name, DeviceKind::Cuda, true, "",
                       (*device)->description(), (*device)->isEmulator()});
    else
      infos.push_back(
          {name, DeviceKind::Cuda, false, device.status().message(), ""});
  }
  return infos;
}
