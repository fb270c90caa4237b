#!/usr/bin/env bash
# Checks the images `bin/ballast images` built (images/target/oci), with real tools and processes:
#  - crane (go-containerregistry) serves a registry on loopback; each OCI tarball is pushed to it and
#    keeps its digest; `crane validate` checks every blob; `bin/ballast images --push` (Jib) pushes
#    the same digests;
#  - each image's config: the non-root user 65532, the org.opencontainers.image.* labels, the tag from
#    images/images.properties, an entrypoint that exists in the image, and no shell in the image;
#  - each image is unpacked (`crane export`) and its entrypoint runs from that root filesystem as the
#    image's user (unshare: own mount and PID namespaces; nsenter: chroot, uid and gid), with the env
#    the operator gives it: the balancer (file mode) and a sidecar answer their health endpoints and
#    the sidecar gets its world from the balancer; the trainer image's Python reports a step to that
#    sidecar with the Ballast client; the reference-trainer image answers --help, then trains a one-pod world
#    of 2 ranks for a few steps with that sidecar (the Java backend: no CUDA driver here), reporting and
#    adopting plans; the operator, installed by the chart on the running cluster,
#    uses the chart's ServiceAccount token as a pod would, answers /q/health/ready and takes its Lease;
#  - when `bin/ballast images --cuda` built reference-trainer-cuda: it is the reference-trainer image plus one
#    layer with cuBLAS and NVIDIA's licence; with `--backend jcuda` its JCuda links cuBLAS and stops only at the
#    missing driver (cudaErrorInsufficientDriver: no GPU here), where the plain image fails to link libJCublas2
#    (libcublas.so.12); with `--backend auto` it falls back to the Java backend, logged once.
# Needs: root (mounts, chroot), `bin/ballast images [--cuda]` run first, a cluster (e2e/cluster/up.sh).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
. "$ROOT/e2e/cluster/env.sh"
OCI="$HERE/target/oci"
WORK="$HERE/target/test"
REL=ballast NS=ballast-images-test
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok   $*"; }

[[ "$(id -u)" -eq 0 ]] || fail "needs root: it mounts /proc and /dev into the unpacked images and chroots into them"
[[ -f "$OCI/digests" ]] || fail "no images in $OCI: run bin/ballast images first"
command -v crane >/dev/null || fail "crane is missing: run e2e/control-plane/build.sh crane"
kubectl get --raw /readyz >/dev/null 2>&1 || fail "no cluster at $KUBECONFIG: run e2e/cluster/up.sh"
helm status "$REL" -n "$NS" >/dev/null 2>&1 && fail "release $REL already installed in $NS; uninstall it first"

PIDS=()
cleanup() {
  local p
  # The image's process first (the PID namespace's init: the rest of the namespace dies with it);
  # unshare --fork ignores SIGTERM, and its --kill-child does not survive the switch to uid 65532.
  for p in "${PIDS[@]}"; do
    kill -KILL $(pgrep -P "$p") "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true   # (no "Killed" notices)
  done
  helm uninstall "$REL" -n "$NS" >/dev/null 2>&1 || true
  kubectl delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
}
trap cleanup EXIT
rm -rf "$WORK"
mkdir -p "$WORK"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_http() {  # URL SECONDS LOG
  local i
  for i in $(seq 1 "$2"); do
    curl -sf "$1" >/dev/null 2>&1 && return 0
    sleep 1
  done
  echo "--- last lines of $3:" >&2; tail -40 "$3" >&2
  return 1
}

# --- a registry on loopback; the tarballs go in unchanged ---------------------------------------
REG="127.0.0.1:$(free_port)"
crane registry serve --address "$REG" >"$WORK/registry.log" 2>&1 &
PIDS+=($!)
wait_http "http://$REG/v2/" 20 "$WORK/registry.log" || fail "crane registry did not start"
TAG="$(sed -n 's/^tag=//p' "$HERE/images.properties")"
declare -A REF DIGEST
while read -r name ref digest; do
  mkdir -p "$WORK/layout/$name"
  tar -xf "$OCI/$name.tar" -C "$WORK/layout/$name"
  REF[$name]="$REG/${ref#*/}"   # ghcr.io/ballast-dev/agent:0.1.0 -> 127.0.0.1:PORT/ballast-dev/agent:0.1.0
  DIGEST[$name]="$digest"
  pushed="$(crane push --insecure "$WORK/layout/$name" "${REF[$name]}" 2>>"$WORK/registry.log")"
  [[ "${pushed#*@}" == "$digest" ]] || fail "$name: pushed as ${pushed#*@}, but bin/ballast images reported $digest"
  crane validate --insecure --remote "${REF[$name]}" >/dev/null || fail "$name: crane validate"
done <"$OCI/digests"
CUDA=()   # the flag that built the CUDA image, for the rebuilds below
[[ -n "${REF[reference-trainer-cuda]:-}" ]] && CUDA=(--cuda)
[[ ${#REF[@]} -eq $((4 + ${#CUDA[@]})) ]] || fail "expected $((4 + ${#CUDA[@]})) images in $OCI/digests, found ${#REF[@]}"
ok "${#REF[@]} OCI tarballs pushed to a crane registry with the digests bin/ballast images reported; crane validate"

# Jib's own push (bin/ballast images --push) gives the images the tarballs hold. Both are built here,
# from the same commit (the revision label), not compared with an older bin/ballast images.
"$HERE/build.sh" --no-package "${CUDA[@]}" --out "$WORK/tarballs" >"$WORK/jib-push.log" 2>&1 \
  && "$HERE/build.sh" --no-package "${CUDA[@]}" --push "$REG/jib" --insecure >>"$WORK/jib-push.log" 2>&1 \
  || { cat "$WORK/jib-push.log" >&2; fail "bin/ballast images --push $REG/jib failed"; }
while read -r name _ digest; do
  got="$(crane digest --insecure "$REG/jib/$name:$TAG")"
  [[ "$got" == "$digest" ]] || fail "$name: --push gave $got, the tarball $digest"
done <"$WORK/tarballs/digests"
ok "bin/ballast images --push (Jib) to the registry: the tarballs' digests"

# --- configs -------------------------------------------------------------------------------------
for name in "${!REF[@]}"; do
  crane config --insecure "${REF[$name]}" >"$WORK/$name.config.json"
  c="$WORK/$name.config.json"
  [[ "$(jq -r .config.User "$c")" == 65532:65532 ]] || fail "$name: user $(jq -r .config.User "$c"), want 65532:65532"
  for l in title description version revision vendor base.name; do
    [[ -n "$(jq -r --arg l "org.opencontainers.image.$l" '.config.Labels[$l] // empty' "$c")" ]] \
      || fail "$name: label org.opencontainers.image.$l is missing"
  done
  [[ "$(jq -r '.config.Labels["org.opencontainers.image.version"]' "$c")" == "$TAG" ]] || fail "$name: version label is not $TAG"
  mkdir -p "$WORK/root/$name"
  crane export --insecure "${REF[$name]}" - | tar -x --warning=no-unknown-keyword -C "$WORK/root/$name"
  r="$WORK/root/$name"
  for sh in bin/sh bin/bash bin/dash usr/bin/sh usr/bin/bash usr/bin/dash bin/busybox; do
    [[ ! -e "$r/$sh" && ! -L "$r/$sh" ]] || fail "$name: the image has a shell ($sh)"
  done
  entry="$(jq -r '.config.Entrypoint[0]' "$c")"
  [[ -x "$r$entry" ]] || fail "$name: entrypoint $entry is not an executable in the image"
  [[ "$(stat -c %u:%g "$r/home/nonroot")" == 65532:65532 ]] || fail "$name: /home/nonroot is not the user's"
  [[ "$(stat -c %a "$r/tmp")" == 1777 ]] || fail "$name: /tmp is not 1777"
done
ok "configs: user 65532:65532, OCI labels (version $TAG), entrypoints present, no shell; unpacked with crane export"

# --- run entrypoints from the unpacked roots -----------------------------------------------------
# start NAME LOG [VAR=VALUE...] -- [ARG...]: the image's entrypoint and env, plus VARs and ARGs, in its
# root, as its user, in new mount and PID namespaces with its own /tmp (the host's network: the test
# reaches it on loopback).
start() {
  local name="$1" log="$2" c="$WORK/$1.config.json" r="$WORK/root/$1"
  shift 2
  local env=() entry=()
  mapfile -t env < <(jq -r '.config.Env[]' "$c")
  while [[ $# -gt 0 && "$1" != -- ]]; do env+=("$1"); shift; done
  [[ $# -gt 0 ]] && shift
  mapfile -t entry < <(jq -r '.config.Entrypoint[]' "$c")
  local user wd
  user="$(jq -r .config.User "$c")" wd="$(jq -r '.config.WorkingDir // "/"' "$c")"
  mkdir -p "$r/proc" "$r/dev"
  unshare --mount --pid --fork --kill-child --propagation private -- \
    /usr/bin/env -i "${env[@]}" /bin/bash -c \
    'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && mount -t tmpfs -o mode=1777 tmpfs "$0/tmp" && exec /usr/bin/nsenter --root="$0" --wd="$0$1" -S "$2" -G "$3" -- "${@:4}"' \
    "$r" "$wd" "${user%:*}" "${user#*:}" "${entry[@]}" "$@" >"$log" 2>&1 &
  PIDS+=($!)
}

JOB=imgjob TOKEN=image-test-token
GRPC="$(free_port)" BHTTP="$(free_port)" SIDECAR="$(free_port)" BHEALTH="$(free_port)" SHEALTH="$(free_port)"
mkdir -p "$WORK/root/agent/run/ballast"
# One world document (docs/contracts.md): the workers and the spec frozen at commit.
cat >"$WORK/root/agent/run/ballast/world.json" <<EOF
{"job": "$JOB", "namespace": "default", "generation": 1, "gpusPerWorker": 2,
 "spec": {"parallelism": {"expert": 2, "pipeline": 1},
  "model": {"moeLayers": 2, "experts": 8, "topK": 2, "sharedExperts": 0, "hiddenSize": 2048, "ffnHiddenSize": 1024,
            "bytesPerParam": 2},
  "balancer": {"mode": "replicate", "planner": "ballast", "redundantSlotsPerGpu": 1, "replanEverySteps": 3,
               "memoryBudgetBytes": 0}},
 "nodes": [{"index": 0, "pod": "$JOB-worker-0", "nodeRank": 0, "node": "n0", "domain": "d0", "rack": "r0"}]}
EOF
chown -R 65532:65532 "$WORK/root/agent/run/ballast"
common=(BALLAST_JOB="$JOB" BALLAST_NAMESPACE=default BALLAST_TOKEN="$TOKEN" BALLAST_BIND_ADDRESS=127.0.0.1)
# each agent's health listener on its own port (they share this host's network); the sidecar's trainer API on loopback
start agent "$WORK/balancer.log" "${common[@]}" BALLAST_ROLE=balancer BALLAST_GRPC_PORT="$GRPC" BALLAST_HTTP_PORT="$BHTTP" \
  BALLAST_HEALTH_PORT="$BHEALTH" \
  BALLAST_WORLD_FILE=/run/ballast/world.json \
  BALLAST_STATUS_FILE=/run/ballast/status.json -- balancer
start agent "$WORK/sidecar.log" "${common[@]}" BALLAST_ROLE=sidecar BALLAST_POD_INDEX=0 BALLAST_GPUS_PER_WORKER=2 \
  BALLAST_POD_NAME="$JOB-worker-0" BALLAST_SIDECAR_PORT="$SIDECAR" BALLAST_HEALTH_PORT="$SHEALTH" \
  BALLAST_BALANCER_ADDRESS="127.0.0.1:$GRPC" -- sidecar
wait_http "http://127.0.0.1:$BHEALTH/q/health/ready" 90 "$WORK/balancer.log" || fail "the balancer (agent image) is not ready"
ok "agent image, balancer role: /q/health/ready answers 200 on the health port"
wait_http "http://127.0.0.1:$SHEALTH/q/health/ready" 90 "$WORK/sidecar.log" || fail "the sidecar (agent image) is not ready"
wait_http "http://127.0.0.1:$SIDECAR/healthz" 90 "$WORK/sidecar.log" || fail "the sidecar's trainer API (agent image) does not answer"
ok "agent image, sidecar role: /q/health/ready on the health port, the trainer API's /healthz on loopback"
for p in "${PIDS[@]:1}"; do   # the two unshare processes; each one's child is the image's entrypoint
  child="$(pgrep -P "$p")" || fail "an agent process is gone"
  ids="$(awk '/^Uid:|^Gid:/{printf "%s ", $2} /^Groups:/{printf "[%s]", $2}' "/proc/$child/status")"
  [[ "$ids" == "65532 65532 []" ]] || fail "an agent process runs as uid gid [groups] $ids, want 65532 65532 []"
  [[ "$(readlink "/proc/$child/root")" == "$WORK/root/agent" ]] || fail "an agent process is not chrooted into the image"
done
ok "agent processes run as uid 65532, gid 65532, no supplementary groups, rooted in the unpacked image"

start trainer "$WORK/trainer.log" BALLAST_SIDECAR_URL="http://127.0.0.1:$SIDECAR" -- -c '
import os, time
from ballast_client import SidecarClient, SidecarError
sidecar = SidecarClient()
def world_nodes():
    try:
        return sidecar.world().get("nodes")
    except SidecarError as e:                    # 503 until the balancer has sent the world over gRPC
        if e.status != 503:
            raise
        return None
deadline = time.time() + 60
while not world_nodes():
    if time.time() > deadline:
        raise SystemExit("the sidecar has no world from the balancer")
    time.sleep(0.5)
sidecar.send_report_now(1, 0, 0, [[3, 1, 0, 0, 2, 0, 1, 1], [0, 2, 2, 0, 1, 1, 1, 1]])
print("trainer image: uid", os.getuid(), "reported step 0 to the sidecar")
'
trainer_pid="${PIDS[-1]}"
wait "$trainer_pid" || { cat "$WORK/trainer.log" >&2; fail "the trainer image's client could not report to the sidecar"; }
grep -q "uid 65532 reported step 0" "$WORK/trainer.log" || { cat "$WORK/trainer.log" >&2; fail "trainer image: unexpected output"; }
ok "trainer image: python3 with ballast_client, as uid 65532, got the world and reported a step to the sidecar"

# The reference trainer: its usage, then a world of one pod with 2 ranks (NPROC_PER_NODE) as the operator's env
# describes it, with the sidecar above (whose world has 2 GPUs, 2 MoE layers of 8 experts, top-2).
start reference-trainer "$WORK/reference-trainer-help.log" -- --help
wait "${PIDS[-1]}" || { cat "$WORK/reference-trainer-help.log" >&2; fail "reference-trainer image: --help failed"; }
grep -q -- "--routing-skew" "$WORK/reference-trainer-help.log" || fail "reference-trainer image: --help printed no usage"
MASTER="$(free_port)"
start reference-trainer "$WORK/reference-trainer.log" MASTER_ADDR=127.0.0.1 MASTER_PORT="$MASTER" NNODES=1 NODE_RANK=0 \
  NPROC_PER_NODE=2 BALLAST_WORLD_GENERATION=1 BALLAST_POD_IP=127.0.0.1 BALLAST_SIDECAR_URL="http://127.0.0.1:$SIDECAR" \
  HOSTNAME="$JOB-worker-0" -- --steps 8 --batch 32 --dim 16 --ffn-dim 32 --layers 2 --experts 8 --top-k 2 --routing-skew 2
wait "${PIDS[-1]}" || { cat "$WORK/reference-trainer.log" >&2; fail "reference-trainer image: the run failed"; }
for want in "CUDA not available" "data /usr/share/common-licenses" "backend java-vector" "2 ranks on 1 pods" \
    "plans from the sidecars" "rank 0 (pod 0) finished step 8" "rank 1 (pod 0) finished step 8"; do
  grep -qF "$want" "$WORK/reference-trainer.log" \
    || { cat "$WORK/reference-trainer.log" >&2; fail "reference-trainer image: no '$want' in its output"; }
done
ok "reference-trainer image: --help; 8 steps of 2 ranks as uid 65532 on the licence texts, Java backend with the Vector API (no CUDA driver: fallback), reporting to the sidecar"

# --- CUDA: reference-trainer-cuda's cuBLAS links; JCuda stops at the driver, which only a GPU node has ----------------
# train_alone NAME LOG RANKS ARG...: one pod of RANKS ranks, no sidecar (the image's entrypoint, the operator's env).
train_alone() {
  local name="$1" log="$2" ranks="$3"
  shift 3
  start "$name" "$log" MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" NNODES=1 NODE_RANK=0 NPROC_PER_NODE="$ranks" \
    BALLAST_WORLD_GENERATION=1 BALLAST_POD_IP=127.0.0.1 HOSTNAME="$JOB-worker-0" -- \
    --steps 2 --batch 8 --dim 8 --ffn-dim 16 --layers 1 --experts 4 --top-k 1 "$@"
  wait "${PIDS[-1]}"
}
train_alone reference-trainer "$WORK/plain-jcuda.log" 1 --backend jcuda && fail "reference-trainer image: --backend jcuda ran without cuBLAS"
grep -qF "backend jcuda: no CUDA device or driver (UnsatisfiedLinkError: " "$WORK/plain-jcuda.log" \
  && grep -qF "libcublas.so.12: cannot open shared object file" "$WORK/plain-jcuda.log" \
  || { cat "$WORK/plain-jcuda.log" >&2; fail "reference-trainer image: --backend jcuda did not fail to link cuBLAS"; }
ok "reference-trainer image: --backend jcuda fails to link libJCublas2 (no libcublas.so.12 in the image)"
if [[ ${#CUDA[@]} -eq 0 ]]; then
  echo "skip reference-trainer-cuda: not built (bin/ballast images --cuda)"
else
  plain=() cuda=()
  mapfile -t plain < <(crane manifest --insecure "${REF[reference-trainer]}" | jq -r '.layers[].digest')
  mapfile -t cuda < <(crane manifest --insecure "${REF[reference-trainer-cuda]}" | jq -r '.layers[].digest')
  [[ ${#cuda[@]} -eq $((${#plain[@]} + 1)) && "${cuda[*]:0:${#plain[@]}}" == "${plain[*]}" ]] \
    || fail "reference-trainer-cuda is not reference-trainer's layers plus one (${#plain[@]} and ${#cuda[@]} layers)"
  r="$WORK/root/reference-trainer-cuda"
  for f in usr/lib/x86_64-linux-gnu/libcublas.so.12 usr/lib/x86_64-linux-gnu/libcublasLt.so.12 \
      usr/share/doc/nvidia-cublas-cu12/License.txt; do
    [[ -f "$r/$f" ]] || fail "reference-trainer-cuda: /$f is missing"
  done
  grep -qF "Attachment A" "$r/usr/share/doc/nvidia-cublas-cu12/License.txt" || fail "reference-trainer-cuda: not NVIDIA's licence"
  [[ "$(cat "$r/usr/share/ballast/pypi-packages")" == "$(grep -v '^\s*\(#\|$\)' "$HERE/pypi.lock")" ]] \
    || fail "reference-trainer-cuda: /usr/share/ballast/pypi-packages is not images/pypi.lock's wheel"
  ok "reference-trainer-cuda image: reference-trainer's ${#plain[@]} layers plus one with libcublas.so.12, libcublasLt.so.12, NVIDIA's licence"
  train_alone reference-trainer-cuda "$WORK/cuda-jcuda.log" 1 --backend jcuda \
    && fail "reference-trainer-cuda image: --backend jcuda ran, but this machine has no CUDA driver"
  grep -qF "backend jcuda: no CUDA device or driver (CudaException: cudaErrorInsufficientDriver)" "$WORK/cuda-jcuda.log" \
    && ! grep -q "UnsatisfiedLinkError" "$WORK/cuda-jcuda.log" \
    || { cat "$WORK/cuda-jcuda.log" >&2; fail "reference-trainer-cuda image: --backend jcuda did not stop at the driver"; }
  ok "reference-trainer-cuda image: --backend jcuda links libJCublas2 against the image's cuBLAS and stops at the missing driver (cudaErrorInsufficientDriver)"
  train_alone reference-trainer-cuda "$WORK/cuda-auto.log" 2 --backend auto \
    || { cat "$WORK/cuda-auto.log" >&2; fail "reference-trainer-cuda image: --backend auto failed"; }
  [[ "$(grep -c "CUDA not available: CudaException: cudaErrorInsufficientDriver" "$WORK/cuda-auto.log")" -eq 1 ]] \
    && grep -qF "backend java-vector" "$WORK/cuda-auto.log" && grep -qF "rank 1 (pod 0) finished step 2" "$WORK/cuda-auto.log" \
    || { cat "$WORK/cuda-auto.log" >&2; fail "reference-trainer-cuda image: --backend auto did not fall back to Java, logged once"; }
  ok "reference-trainer-cuda image: --backend auto falls back to the Java backend (logged once for its 2 ranks) and trains 2 steps"
fi

# --- the operator, as the chart's ServiceAccount ----------------------------------------------------
helm install "$REL" "$ROOT/charts/ballast" -n "$NS" --create-namespace >/dev/null || fail "helm install"
sa="$WORK/root/operator/var/run/secrets/kubernetes.io/serviceaccount"
mkdir -p "$sa"
kubectl -n "$NS" create token "$REL" --duration=10m >"$sa/token"
echo -n "$NS" >"$sa/namespace"
kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d >"$sa/ca.crt"
if [[ ! -s "$sa/ca.crt" ]]; then
  cp "$(kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority}')" "$sa/ca.crt"
fi
server="$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')"   # https://127.0.0.1:PORT
hostport="${server#https://}"
OPHTTP="$(free_port)"
# The chart's Deployment env (charts/ballast/templates/deployment.yaml), with the pod's values filled in.
start operator "$WORK/operator.log" KUBERNETES_SERVICE_HOST="${hostport%:*}" KUBERNETES_SERVICE_PORT="${hostport##*:}" \
  POD_NAMESPACE="$NS" POD_NAME="$REL-image-test" QUARKUS_HTTP_PORT="$OPHTTP" QUARKUS_LOG_LEVEL=INFO \
  BALLAST_SIDECAR_IMAGE="$(helm get manifest "$REL" -n "$NS" | sed -n '/BALLAST_SIDECAR_IMAGE/{n;s/.*value: "\(.*\)"/\1/p}')" \
  BALLAST_BALANCER_IMAGE="$(helm get manifest "$REL" -n "$NS" | sed -n '/BALLAST_BALANCER_IMAGE/{n;s/.*value: "\(.*\)"/\1/p}')" --
wait_http "http://127.0.0.1:$OPHTTP/q/health/ready" 120 "$WORK/operator.log" || fail "the operator (operator image) is not ready"
ok "operator image: /q/health/ready answers 200 (in-cluster config: the chart's ServiceAccount token)"
# No other operator runs (the chart's own pod is simulated by KWOK), so a holder is the image's operator.
holder=""
for _ in $(seq 1 30); do
  holder="$(kubectl -n "$NS" get lease ballast-operator -o jsonpath='{.spec.holderIdentity}' 2>/dev/null || true)"
  [[ -n "$holder" ]] && break
  sleep 1
done
[[ -n "$holder" ]] || fail "the operator did not take the Lease ballast-operator in $NS"
ok "operator image: took the Lease ballast-operator in $NS (holder $holder)"
echo "PASS"
