"""Environment variables the operator sets in the trainer container, and the sidecar's default port: the names of the
Java contracts' ProcessEnv (checked against contracts/vectors/environment.json)."""

JOB = "BALLAST_JOB"
NAMESPACE = "BALLAST_NAMESPACE"
POD_INDEX = "BALLAST_POD_INDEX"
WORLD_GENERATION = "BALLAST_WORLD_GENERATION"
GPUS_PER_WORKER = "BALLAST_GPUS_PER_WORKER"
CHECKPOINT_DIR = "BALLAST_CHECKPOINT_DIR"
CHECKPOINT_TIMEOUT_SECONDS = "BALLAST_CHECKPOINT_TIMEOUT_SECONDS"
SIDECAR_URL = "BALLAST_SIDECAR_URL"

SIDECAR_PORT = 8470
DEFAULT_SIDECAR_URL = f"http://127.0.0.1:{SIDECAR_PORT}"
