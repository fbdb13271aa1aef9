func.func @main(%e: f32) -> vector<4611686018427387904xf32> {
  %v = vector.from_elements %e, %e : vector<4611686018427387904xf32>
  return %v : vector<4611686018427387904xf32>
}
