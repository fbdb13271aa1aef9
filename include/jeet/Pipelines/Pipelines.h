//===- Pipelines.h - Jeet's named pass pipelines ----------------*- C++ -*-===//
//
// Part of the Jeet project.
//
// One definition of each pipeline, in C++, as a list of named stages
// (Stages.h): jeet-opt runs them by name, and the compiler library, jeet-run,
// jeet-compile, jeet-translate and Python run their stages one by one
// (PipelineRunner.h).
//
//===----------------------------------------------------------------------===//

#ifndef JEET_PIPELINES_PIPELINES_H
#define JEET_PIPELINES_PIPELINES_H

#include "jeet/Pipelines/CpuPipeline.h"
#include "jeet/Pipelines/GpuPipeline.h"
#include "jeet/Pipelines/PipelineRunner.h"
#include "jeet/Pipelines/Stages.h"

namespace jeet {

/// Registers `jeet-bufferize-pipeline` and `jeet-cpu-pipeline` (the GPU
/// pipelines: registerJeetGpuPipelines).
void registerJeetPipelines();

} // namespace jeet

#endif // JEET_PIPELINES_PIPELINES_H
