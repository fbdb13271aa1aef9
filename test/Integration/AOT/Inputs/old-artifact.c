/* An artifact of ABI version 1: its entry took no arena and no stream. */
const char jeet_artifact_signature[] =
    "v1 entry=main device=cpu inputs=2xf32 outputs=2xf32 kernels=1";
void jeet_artifact_init(void) {}
void jeet_artifact_fini(void) {}
void jeet_artifact_run(void **args) { (void)args; }
