//===- Runtime.h - Everything of the Jeet runtime ---------------*- C++ -*-===//

#ifndef JEET_RUNTIME_RUNTIME_H
#define JEET_RUNTIME_RUNTIME_H

#include "jeet/Runtime/Allocator.h"
#include "jeet/Runtime/Cache.h"
#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/CudaDriver.h"
#include "jeet/Runtime/DType.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/HostABI.h"
#include "jeet/Runtime/Npy.h"
#include "jeet/Runtime/OpenMP.h"
#include "jeet/Runtime/Status.h"
#include "jeet/Runtime/Tensor.h"

#endif // JEET_RUNTIME_RUNTIME_H
