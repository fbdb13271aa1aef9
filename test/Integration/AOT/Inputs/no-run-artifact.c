/* A signature without the entry point. */
const char jeet_artifact_signature[] =
    "v2 entry=main device=cpu inputs=2xf32 outputs=2xf32 kernels=1 arena=0";
