// RUN: jeet-opt %s --jeet-emulator-attach-target | FileCheck %s
// RUN: jeet-opt %s --jeet-emulator-attach-target=O=1 | FileCheck %s --check-prefix=O1

// Every gpu.module is compiled for the emulator, whatever target it had.
// CHECK: gpu.module @first [#jeet_emu.target] {
// CHECK: gpu.module @second [#jeet_emu.target] {
// O1: gpu.module @first [#jeet_emu.target<O = 1>] {
// O1: gpu.module @second [#jeet_emu.target<O = 1>] {
module attributes {gpu.container_module} {
  gpu.module @first {
  }
  gpu.module @second [#nvvm.target<chip = "sm_90">] {
  }
}
