/* Jeet from C: compile a two-layer perceptron written as MLIR text, run it on
 * host tensors, and check it against the same MLP computed here in double.
 * Exits 0 when the largest error is within float32 rounding, 1 otherwise. */

#include "jeet-c/Compiler.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BATCH = 8, IN = 16, HIDDEN = 32, OUT = 4, NUM_INPUTS = 5 };
#define TOLERANCE 1e-5
#define GRAPH_CAPACITY 2048

/* Prints a failed call's status and exits. */
static void check(jeet_status *status, const char *what) {
  if (!status)
    return;
  fprintf(stderr, "%s: %s: %s\n", what,
          jeet_status_code_name(jeet_status_get_code(status)),
          jeet_status_get_message(status));
  jeet_status_destroy(status);
  exit(1);
}

static void checkRuntime(jeet_rt_status status, const char *what) {
  char message[512];
  if (status == JEET_RT_OK)
    return;
  jeet_rt_take_last_error(message, sizeof(message));
  fprintf(stderr, "%s: %s\n", what, message);
  exit(1);
}

/* "tensor<AxBxf32>", or "tensor<Axf32>" when cols is 0. */
static void tensorType(char *text, size_t capacity, int rows, int cols) {
  if (cols)
    snprintf(text, capacity, "tensor<%dx%dxf32>", rows, cols);
  else
    snprintf(text, capacity, "tensor<%dxf32>", rows);
}

/* relu(x @ w1 + b1) @ w2 + b2, then a softmax over each row. */
static void writeGraph(char *text, size_t capacity) {
  enum { TYPE_CAPACITY = 32 };
  char x[TYPE_CAPACITY], w1[TYPE_CAPACITY], b1[TYPE_CAPACITY],
      w2[TYPE_CAPACITY], b2[TYPE_CAPACITY], h[TYPE_CAPACITY], y[TYPE_CAPACITY];
  tensorType(x, TYPE_CAPACITY, BATCH, IN);
  tensorType(w1, TYPE_CAPACITY, IN, HIDDEN);
  tensorType(b1, TYPE_CAPACITY, HIDDEN, 0);
  tensorType(w2, TYPE_CAPACITY, HIDDEN, OUT);
  tensorType(b2, TYPE_CAPACITY, OUT, 0);
  tensorType(h, TYPE_CAPACITY, BATCH, HIDDEN);
  tensorType(y, TYPE_CAPACITY, BATCH, OUT);
  snprintf(text, capacity,
           "func.func @main(%%x: %s, %%w1: %s, %%b1: %s, %%w2: %s, %%b2: %s)"
           " -> %s {\n"
           "  %%0 = jeet.matmul %%x, %%w1 : %s, %s -> %s\n"
           "  %%1 = jeet.add %%0, %%b1 : %s, %s -> %s\n"
           "  %%2 = jeet.relu %%1 : %s\n"
           "  %%3 = jeet.matmul %%2, %%w2 : %s, %s -> %s\n"
           "  %%4 = jeet.add %%3, %%b2 : %s, %s -> %s\n"
           "  %%5 = jeet.softmax %%4 {axis = 1 : i64} : %s\n"
           "  return %%5 : %s\n"
           "}\n",
           x, w1, b1, w2, b2, y, x, w1, h, h, b1, h, h, h, w2, y, y, b2, y, y,
           y);
}

/* Reproducible values in [-1, 1) (a linear congruential generator). */
static float nextValue(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)((*state >> 8) / (double)(1u << 24) * 2.0 - 1.0);
}

/* The MLP in double. */
static void reference(float *const in[NUM_INPUTS], double out[BATCH][OUT]) {
  const float *x = in[0], *w1 = in[1], *b1 = in[2], *w2 = in[3], *b2 = in[4];
  for (int r = 0; r < BATCH; ++r) {
    double hidden[HIDDEN], top = -INFINITY, total = 0;
    for (int h = 0; h < HIDDEN; ++h) {
      double sum = b1[h];
      for (int i = 0; i < IN; ++i)
        sum += (double)x[r * IN + i] * w1[i * HIDDEN + h];
      hidden[h] = sum > 0 ? sum : 0;
    }
    for (int o = 0; o < OUT; ++o) {
      double sum = b2[o];
      for (int h = 0; h < HIDDEN; ++h)
        sum += hidden[h] * w2[h * OUT + o];
      out[r][o] = sum;
      top = sum > top ? sum : top;
    }
    for (int o = 0; o < OUT; ++o)
      total += exp(out[r][o] - top);
    for (int o = 0; o < OUT; ++o)
      out[r][o] = exp(out[r][o] - top) / total;
  }
}

int main(void) {
  if (strcmp(jeet_version(), JEET_VERSION_STRING) != 0) {
    fprintf(stderr, "headers of Jeet %s, library of Jeet %s\n",
            JEET_VERSION_STRING, jeet_version());
    return 1;
  }
  char graph[GRAPH_CAPACITY];
  writeGraph(graph, sizeof(graph));

  jeet_compiler *compiler = NULL;
  jeet_compile_options *options = NULL;
  jeet_executable *mlp = NULL;
  check(jeet_compiler_create(&compiler), "create the compiler");
  check(jeet_compile_options_create(&options), "create options");
  check(jeet_compile_options_set_device(options, "cpu"), "set the device");
  check(jeet_compiler_compile(compiler, graph, "mlp.mlir", options, &mlp),
        "compile the MLP");
  size_t numKernels = 0;
  check(jeet_executable_get_num_kernels(mlp, &numKernels), "count kernels");

  /* One host tensor per graph input, of seeded random data. */
  jeet_rt_device *host = jeet_rt_host_device();
  jeet_rt_tensor *inputs[NUM_INPUTS], *output = NULL;
  float *data[NUM_INPUTS];
  unsigned seed = 2024;
  for (size_t i = 0; i < NUM_INPUTS; ++i) {
    jeet_tensor_spec spec;
    check(jeet_executable_get_input(mlp, i, &spec), "read an input's type");
    size_t count = 1;
    for (size_t d = 0; d < spec.rank; ++d)
      count *= (size_t)spec.shape[d];
    data[i] = malloc(count * sizeof(float));
    for (size_t k = 0; k < count; ++k)
      data[i][k] = nextValue(&seed);
    checkRuntime(jeet_rt_tensor_from_host(host, spec.shape, spec.rank,
                                          spec.dtype, data[i],
                                          count * sizeof(float), &inputs[i]),
                 "make an input tensor");
  }
  jeet_tensor_spec outSpec;
  check(jeet_executable_get_output(mlp, 0, &outSpec), "read the output type");
  checkRuntime(jeet_rt_tensor_create(host, outSpec.shape, outSpec.rank,
                                     outSpec.dtype, &output),
               "make the output tensor");

  check(jeet_executable_run(mlp, inputs, NUM_INPUTS, &output, 1), "run");

  float result[BATCH * OUT];
  double expected[BATCH][OUT], error = 0;
  checkRuntime(jeet_rt_tensor_to_host(output, result, sizeof(result)),
               "read the output");
  reference(data, expected);
  for (int r = 0; r < BATCH; ++r)
    for (int o = 0; o < OUT; ++o)
      error = fmax(error, fabs(result[r * OUT + o] - expected[r][o]));
  printf("Jeet %s, C API: MLP %dx%d -> %d -> %d in %zu kernel(s), max error "
         "vs double %.2e\n",
         jeet_version(), BATCH, IN, HIDDEN, OUT, numKernels, error);

  for (size_t i = 0; i < NUM_INPUTS; ++i) {
    jeet_rt_tensor_release(inputs[i]);
    free(data[i]);
  }
  jeet_rt_tensor_release(output);
  check(jeet_executable_destroy(mlp), "destroy the executable");
  check(jeet_compile_options_destroy(options), "destroy the options");
  check(jeet_compiler_destroy(compiler), "destroy the compiler");
  if (!(error <= TOLERANCE)) {
    fprintf(stderr, "FAIL: max error %.2e exceeds %.0e\n", error, TOLERANCE);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
