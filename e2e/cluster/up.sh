#!/usr/bin/env bash
# Brings up (or reuses) the Ballast e2e cluster: a real kube-apiserver, etcd, kube-controller-manager
# and kube-scheduler, run by `kwokctl --runtime binary` from the binaries e2e/control-plane/build.sh
# built, with RBAC and admission on, KWOK simulating the fake GPU nodes from nodes.sh, and KWOK's
# pod stages skipping pods labelled ballast.dev/role=worker|balancer (kwok-stages.yaml).
#   BALLAST_CACHE, BALLAST_CLUSTER (default ballast); node layout env: see nodes.sh.
#   BALLAST_SKIP_BUILD=1  don't run build.sh first (it is a no-op when the binaries are current).
#   BALLAST_KWOK_ALL_PODS=1  KWOK plays Ballast's pods too (scale runs, without the process kubelet).
# Prints the kubeconfig path at the end; `eval "$(e2e/cluster/env.sh)"` exports it.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/env.sh"
NAME="${BALLAST_CLUSTER:-ballast}"
log() { echo "up.sh: $*"; }
die() { echo "up.sh: $*" >&2; exit 1; }

if [[ "${BALLAST_SKIP_BUILD:-0}" != 1 ]]; then
  "$HERE/../control-plane/build.sh" kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok kwokctl
fi
for b in kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok kwokctl; do
  [[ -x "$BALLAST_BIN/$b" ]] || die "$BALLAST_BIN/$b is missing: run e2e/control-plane/build.sh"
done

# kwokctl reads these; flags would work too, but env also covers `kwokctl start/kubectl` later.
export KWOK_KUBE_APISERVER_BINARY="$BALLAST_BIN/kube-apiserver"
export KWOK_KUBE_CONTROLLER_MANAGER_BINARY="$BALLAST_BIN/kube-controller-manager"
export KWOK_KUBE_SCHEDULER_BINARY="$BALLAST_BIN/kube-scheduler"
export KWOK_KUBECTL_BINARY="$BALLAST_BIN/kubectl"
export KWOK_ETCD_BINARY="$BALLAST_BIN/etcd"
export KWOK_CONTROLLER_BINARY="$BALLAST_BIN/kwok"
export KWOK_RUNTIME=binary

healthy() { [[ -f "$KUBECONFIG" ]] && kubectl get --raw /readyz >/dev/null 2>&1; }

# (no `kwokctl ... | grep -q`: with pipefail, grep quitting early fails the pipeline)
clusters="$(kwokctl get clusters 2>/dev/null || true)"
# kwokctl copies the stages into the cluster at creation; a cluster made from an older
# kwok-stages.yaml would silently apply old pod semantics, so it is recreated.
STAGES="$HERE/kwok-stages.yaml"
if [[ "${BALLAST_KWOK_ALL_PODS:-0}" == 1 ]]; then
  # scale runs (bin/ballast scale): KWOK plays every pod, Ballast's too, and no process kubelet runs: the same stages
  # without the Ballast exclusion
  STAGES="$KWOK_WORKDIR/ballast-stages-all-pods.yaml"
  mkdir -p "$KWOK_WORKDIR"
  sed "/# Ballast: Ballast's own pods/,/- 'balancer'/d" "$HERE/kwok-stages.yaml" >"$STAGES"
  ! grep -q 'labels\["ballast.dev/role"\]' "$STAGES" || die "could not remove the Ballast exclusion from kwok-stages.yaml"
fi
# KWOK's PortForward CRD: `kubectl port-forward` to a pod on a KWOK node reaches the kwok controller, which forwards by
# these objects (the process kubelet makes one per pod it runs). Part of the fingerprint: a cluster made without it is
# recreated like one made from other stages.
CRDS=PortForward
STAGES_SUM="$( (cat "$STAGES"; echo "crds=$CRDS") | sha256sum | cut -d' ' -f1)"
SUM_FILE="$KWOK_WORKDIR/clusters/$NAME/ballast-stages.sha256"
if grep -qx "$NAME" <<<"$clusters" && [[ "$(cat "$SUM_FILE" 2>/dev/null)" != "$STAGES_SUM" ]]; then
  log "cluster '$NAME' was created from a different kwok-stages.yaml or CRD list; recreating it"
  kwokctl delete cluster --name "$NAME" --kubeconfig "$KUBECONFIG" >/dev/null  # never touch ~/.kube/config
  clusters=""
fi
if grep -qx "$NAME" <<<"$clusters"; then
  if healthy; then
    log "reusing running cluster '$NAME'"
  else
    log "cluster '$NAME' exists but is not serving; starting it"
    kwokctl start cluster --name "$NAME" --wait 2m
    restarted=1
  fi
else
  log "creating cluster '$NAME' (kwokctl --runtime binary, workdir $KWOK_WORKDIR)"
  t0=$SECONDS
  # --kubeconfig "": leave ~/.kube/config alone; the cluster's own kubeconfig is $KUBECONFIG.
  kwokctl create cluster \
    --name "$NAME" \
    --runtime binary \
    --config "$STAGES" \
    --kube-authorization=true \
    --kube-admission=true \
    --enable-crds="$CRDS" \
    --kubeconfig "" \
    --wait 3m
  echo "$STAGES_SUM" >"$SUM_FILE"
  log "cluster created in $((SECONDS - t0))s"
fi
healthy || die "the API server of '$NAME' does not answer /readyz (logs: kwokctl logs kube-apiserver --name $NAME)"

if [[ "${restarted:-0}" == 1 ]]; then
  # kwok v0.8.0 after a restart: the node Leases still name the previous kwok-controller as holder
  # and the new one never takes them over, so it manages no node (pods stay Pending). Deleting the
  # Leases lets it create its own within a few seconds.
  kubectl -n kube-node-lease delete lease $(kubectl get nodes -l type=kwok -o name | sed 's#^node/##') \
    --ignore-not-found >/dev/null 2>&1 || true
  for _ in $(seq 1 120); do
    missing=0
    for n in $(kubectl get nodes -l type=kwok -o name | sed 's#^node/##'); do
      kubectl -n kube-node-lease get lease "$n" >/dev/null 2>&1 || { missing=1; break; }
    done
    [[ $missing == 0 ]] && break
    sleep 0.5
  done
  [[ $missing == 0 ]] || die "kwok-controller did not re-acquire the node leases after the restart"
  log "kwok-controller holds the node leases again"
fi

log "applying fake GPU nodes"
"$HERE/nodes.sh" | kubectl apply -f - >/dev/null
want=$(( ${BALLAST_RACKS:-4} * ${BALLAST_NODES_PER_RACK:-4} ))
kubectl wait --for=condition=Ready node -l type=kwok --timeout=120s >/dev/null \
  || die "fake nodes did not become Ready (is kwok-controller running? kwokctl logs kwok-controller --name $NAME)"
have=$(kubectl get nodes -l type=kwok --no-headers | wc -l)
[[ "$have" -ge "$want" ]] || die "expected $want fake nodes, found $have"
log "$have fake GPU nodes Ready; server $(kubectl version -o json | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p' | tail -1)"
log "KUBECONFIG=$KUBECONFIG"
