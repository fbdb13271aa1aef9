// RUN: jeet-opt %s -verify-diagnostics --jeet-expand-bf16=conversion=fast

// An unknown conversion is named, with the known ones.
// expected-error@unknown {{jeet-expand-bf16: unknown conversion 'fast' (expected integer, hardware or host)}}
func.func @any(%x: f32) -> bf16 {
  %0 = arith.truncf %x : f32 to bf16
  return %0 : bf16
}
