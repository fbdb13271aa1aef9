//===- Status.h - Error reporting without exceptions ------------*- C++ -*-===//
//
// Status (a code and a message) and StatusOr<T> (a value or an error status).
// The runtime's public API never throws: every fallible call returns one of
// these.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_RUNTIME_STATUS_H
#define JEET_RUNTIME_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace jeet {
namespace runtime {

enum class StatusCode {
  Ok = 0,
  InvalidArgument = 1,
  DeviceUnavailable = 2,
  OutOfMemory = 3,
  DriverError = 4,
  IoError = 5,
  Internal = 6,
};

/// Returns the code's name, e.g. "OutOfMemory".
const char *statusCodeName(StatusCode code);

class [[nodiscard]] Status {
public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status success() { return Status(); }

  bool ok() const { return code_ == StatusCode::Ok; }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }

  /// "OutOfMemory: <message>", or "Ok".
  std::string toString() const;

  /// Returns this status with `prefix + ": "` prepended to the message.
  Status withContext(const std::string &prefix) const;

  /// Marks an intentionally ignored status.
  void ignore() const {}

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

inline Status invalidArgument(std::string message) {
  return Status(StatusCode::InvalidArgument, std::move(message));
}
inline Status deviceUnavailable(std::string message) {
  return Status(StatusCode::DeviceUnavailable, std::move(message));
}
inline Status outOfMemory(std::string message) {
  return Status(StatusCode::OutOfMemory, std::move(message));
}
inline Status driverError(std::string message) {
  return Status(StatusCode::DriverError, std::move(message));
}
inline Status ioError(std::string message) {
  return Status(StatusCode::IoError, std::move(message));
}
inline Status internalError(std::string message) {
  return Status(StatusCode::Internal, std::move(message));
}

/// A value of type T, or the error status explaining why there is none.
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(const T &value) : value_(value) {}
  StatusOr(T &&value) : value_(std::move(value)) {}
  StatusOr(Status status) : status_(std::move(status)) {
    assert(!status_.ok() && "StatusOr built from an Ok status");
    if (status_.ok())
      status_ = internalError("StatusOr built from an Ok status");
  }

  bool ok() const { return value_.has_value(); }
  const Status &status() const { return status_; }

  T &value() & {
    assert(ok() && "value() of an error StatusOr");
    return *value_;
  }
  const T &value() const & {
    assert(ok() && "value() of an error StatusOr");
    return *value_;
  }
  T &&value() && {
    assert(ok() && "value() of an error StatusOr");
    return std::move(*value_);
  }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T &&operator*() && { return std::move(*this).value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace runtime
} // namespace jeet

/// Returns from the enclosing function if `expr` (a Status) is an error.
#define JEET_RETURN_IF_ERROR(expr)                                             \
  do {                                                                         \
    ::jeet::runtime::Status jeetStatus_ = (expr);                              \
    if (!jeetStatus_.ok())                                                     \
      return jeetStatus_;                                                      \
  } while (false)

#endif // JEET_RUNTIME_STATUS_H
