// A file that would pass without a GPU with its checks skipped: CHECK is
// checked only on hardware, and a guarded line checks nothing at all.
// RUN: jeet-opt %s | FileCheck %s --check-prefix=PARSE
// RUN: %if cuda-driver %{ jeet-run %s --device=gpu | FileCheck %s %}
// RUN: %if cuda-driver %{ jeet-run %s --device=gpu %}
// RUN: %if cuda-driver %{ jeet-run %s --device=gpu | FileCheck %s --check-prefixes=PARSE,HW %}
// PARSE: func.func @main
// CHECK: 2xf32=[1 2]
// HW: 2xf32
