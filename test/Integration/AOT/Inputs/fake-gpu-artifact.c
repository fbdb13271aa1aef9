/* A hand-written artifact that claims to run on the GPU: the runner must
 * refuse it with the runtime's reason when there is no usable GPU. */
const char jeet_artifact_signature[] =
    "v2 entry=main device=gpu inputs=2xf32 outputs=2xf32 kernels=1 arena=0";
void jeet_artifact_init(void) {}
void jeet_artifact_fini(void) {}
void jeet_artifact_run(void **args) { (void)args; }
