//===- jeet-compile.cpp - Compile a graph into an artifact ----------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Tools/JeetCompileMain.h"

int main(int argc, char **argv) { return jeet::jeetCompileMain(argc, argv); }
