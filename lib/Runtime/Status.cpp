//===- Status.cpp ---------------------------------------------------------===//

#include "jeet/Runtime/Status.h"

using namespace jeet::runtime;

const char *jeet::runtime::statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "Ok";
  case StatusCode::InvalidArgument:
    return "InvalidArgument";
  case StatusCode::DeviceUnavailable:
    return "DeviceUnavailable";
  case StatusCode::OutOfMemory:
    return "OutOfMemory";
  case StatusCode::DriverError:
    return "DriverError";
  case StatusCode::IoError:
    return "IoError";
  case StatusCode::Internal:
    return "Internal";
  }
  return "Unknown";
}

std::string Status::toString() const {
  if (ok())
    return "Ok";
  return std::string(statusCodeName(code_)) + ": " + message_;
}

Status Status::withContext(const std::string &prefix) const {
  if (ok())
    return *this;
  return Status(code_, prefix + ": " + message_);
}
