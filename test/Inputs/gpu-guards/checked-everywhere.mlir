// Every prefix a guarded line checks is checked on the emulator too.
// RUN: %on_emulator jeet-run %s --device=gpu | FileCheck %s
// RUN: %if cuda-driver %{ jeet-run %s --device=gpu | FileCheck %s %}
// CHECK: 2xf32=[1 2]
