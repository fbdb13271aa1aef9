/* A shared object that is not a Jeet artifact. */
int answer(void) { return 42; }
