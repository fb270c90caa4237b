#!/usr/bin/env bash
# Prints Node manifests for fake GPU nodes that KWOK manages (annotation kwok.x-k8s.io/node=fake).
# Layout: BALLAST_RACKS racks x BALLAST_NODES_PER_RACK nodes; consecutive nodes of a rack share an
# NVLink domain of BALLAST_NODES_PER_NVLINK nodes. Names: rack-<r>-node-<n>.
#   BALLAST_RACKS=4 BALLAST_NODES_PER_RACK=4 BALLAST_GPUS_PER_NODE=8 BALLAST_NODES_PER_NVLINK=2
#   BALLAST_NODE_CPU=96 BALLAST_NODE_MEMORY=1024Gi BALLAST_NODE_PODS=110
#   BALLAST_GPU_PRODUCT=NVIDIA-H100-80GB-HBM3
#   BALLAST_NODE_TAINT   optional taint key=value:Effect on every node (e.g. nvidia.com/gpu=present:NoSchedule)
#   BALLAST_FIRST_RACK=0 BALLAST_FIRST_NODE=0  numbers of the first rack and of the first node in each rack (tests add
#                        nodes beside the suite's: BALLAST_FIRST_RACK=20 BALLAST_RACKS=1 BALLAST_FIRST_NODE=2 BALLAST_NODES_PER_RACK=1)
#   BALLAST_NODE_LABELS  optional extra labels key=value[,key=value...] on every node (e.g. a test's pool)
set -euo pipefail
RACKS="${BALLAST_RACKS:-4}"
PER_RACK="${BALLAST_NODES_PER_RACK:-4}"
GPUS="${BALLAST_GPUS_PER_NODE:-8}"
PER_NVL="${BALLAST_NODES_PER_NVLINK:-2}"
CPU="${BALLAST_NODE_CPU:-96}"
MEM="${BALLAST_NODE_MEMORY:-1024Gi}"
PODS="${BALLAST_NODE_PODS:-110}"
PRODUCT="${BALLAST_GPU_PRODUCT:-NVIDIA-H100-80GB-HBM3}"
TAINT="${BALLAST_NODE_TAINT:-}"
FIRST_RACK="${BALLAST_FIRST_RACK:-0}"
FIRST_NODE="${BALLAST_FIRST_NODE:-0}"
EXTRA_LABELS="${BALLAST_NODE_LABELS:-}"

for v in RACKS PER_RACK GPUS PER_NVL PODS FIRST_RACK FIRST_NODE; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || { echo "nodes.sh: $v must be a non-negative integer, got '${!v}'" >&2; exit 2; }
done
[[ "$PER_NVL" -ge 1 ]] || { echo "nodes.sh: BALLAST_NODES_PER_NVLINK must be >= 1" >&2; exit 2; }
taint_yaml=""
if [[ -n "$TAINT" ]]; then
  [[ "$TAINT" =~ ^([^=:]+)(=([^:]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$ ]] \
    || { echo "nodes.sh: BALLAST_NODE_TAINT must look like key[=value]:Effect, got '$TAINT'" >&2; exit 2; }
  taint_yaml="  taints:
  - key: \"${BASH_REMATCH[1]}\"
    value: \"${BASH_REMATCH[3]}\"
    effect: ${BASH_REMATCH[4]}"
fi

labels_yaml=""
if [[ -n "$EXTRA_LABELS" ]]; then
  IFS=, read -ra pairs <<<"$EXTRA_LABELS"
  for pair in "${pairs[@]}"; do
    [[ "$pair" =~ ^([A-Za-z0-9./_-]+)=([A-Za-z0-9._-]*)$ ]] \
      || { echo "nodes.sh: BALLAST_NODE_LABELS must be key=value[,key=value...], got '$pair'" >&2; exit 2; }
    labels_yaml+="    ${BASH_REMATCH[1]}: \"${BASH_REMATCH[2]}\"
"
  done
fi

res="    cpu: \"$CPU\"
    memory: $MEM
    pods: \"$PODS\"
    ephemeral-storage: 1Ti
    nvidia.com/gpu: \"$GPUS\""

for ((r = FIRST_RACK; r < FIRST_RACK + RACKS; r++)); do
  for ((n = FIRST_NODE; n < FIRST_NODE + PER_RACK; n++)); do
    name="rack-$r-node-$n"
    clique="rack-$r-nvl-$((n / PER_NVL))"
    cat <<NODE
---
apiVersion: v1
kind: Node
metadata:
  name: $name
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    type: kwok
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: $name
    topology.kubernetes.io/rack: rack-$r
    nvidia.com/gpu.clique: $clique
    nvidia.com/gpu.present: "true"
    nvidia.com/gpu.count: "$GPUS"
    nvidia.com/gpu.product: $PRODUCT
${labels_yaml}spec:
${taint_yaml:-  {\}}
status:
  allocatable:
$res
  capacity:
$res
  nodeInfo:
    architecture: amd64
    operatingSystem: linux
    kubeletVersion: fake
    kubeProxyVersion: fake
  phase: Running
NODE
  done
done
