//===- jeet-run.cpp - Compile and execute a jeet graph --------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Tools/JeetRunMain.h"

int main(int argc, char **argv) { return jeet::jeetRunMain(argc, argv); }
