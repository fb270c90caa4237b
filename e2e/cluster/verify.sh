#!/usr/bin/env bash
# Proves the e2e cluster behaves as Ballast's tests assume (run after up.sh; ~30 s):
#  1. the API server is the real, locally built Kubernetes (kubectl version reports its version);
#  2. the fake GPU nodes are Ready with nvidia.com/gpu capacity and topology labels;
#  3. a pod WITHOUT ballast.dev/role is scheduled onto a fake node and KWOK makes it Running;
#  4. pods WITH ballast.dev/role=worker or =balancer are scheduled (real kube-scheduler) but KWOK
#     leaves them alone: Pending, no container statuses, no pod IP, and not removed when deleted;
#  5. a pod with spec.schedulingGates stays unscheduled (SchedulingGated) until the gate is removed;
#  6. admission (ServiceAccount plugin) and RBAC are enforced: an unprivileged ServiceAccount may not list pods.
# Everything runs in a throwaway namespace that is deleted at the end.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/env.sh"
NS="ballast-verify-$$"
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok   $*"; }
cleanup() {
  # The harness pod has no kubelet to confirm its deletion: force it (what the harness does).
  kubectl -n "$NS" delete pod harnessed harnessed-balancer --grace-period=0 --force --wait=false >/dev/null 2>&1 || true
  kubectl delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
}
trap cleanup EXIT

# 1. version
want="$(kubectl version --client -o json | sed -n 's/.*"gitVersion": *"\(v[^"]*\)".*/\1/p' | head -1)"
server="$(kubectl version -o json | sed -n '/serverVersion/,$p' | sed -n 's/.*"gitVersion": *"\(v[^"]*\)".*/\1/p' | head -1)"
[[ -n "$server" && "$server" == "$want" ]] || fail "server version '$server' != locally built '$want'"
ok "server version $server (built from k8s.io/kubernetes)"

# 2. nodes
ready="$(kubectl get nodes -l type=kwok -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True || true)"
[[ "$ready" -ge 1 ]] || fail "no Ready fake node"
gpus="$(kubectl get node rack-0-node-0 -o jsonpath='{.status.allocatable.nvidia\.com/gpu}')"
rack="$(kubectl get node rack-0-node-0 -o jsonpath='{.metadata.labels.topology\.kubernetes\.io/rack}')"
clique="$(kubectl get node rack-0-node-1 -o jsonpath='{.metadata.labels.nvidia\.com/gpu\.clique}')"
[[ "$gpus" -ge 1 && "$rack" == rack-0 && "$clique" == rack-0-nvl-* ]] || fail "node rack-0-node-0/1: gpu=$gpus rack=$rack clique=$clique"
ok "$ready fake nodes Ready; rack-0-node-0 has nvidia.com/gpu=$gpus, rack=$rack; rack-0-node-1 clique=$clique"

kubectl create namespace "$NS" >/dev/null
# The ServiceAccount admission plugin rejects pods until kube-controller-manager made "default".
for _ in $(seq 1 60); do kubectl -n "$NS" get serviceaccount default >/dev/null 2>&1 && break; sleep 0.5; done
pod() {  # NAME LABELS-YAML EXTRA-SPEC-YAML
  cat <<POD | kubectl -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata:
  name: $1
  labels: {app: verify$2}
spec:
  nodeSelector: {type: kwok}
  tolerations: [{operator: Exists}]
$3
  containers:
  - name: main
    image: registry.example/none:0
    resources: {limits: {nvidia.com/gpu: "1"}}
POD
}

# 3 + 4: both pods are scheduled by the real scheduler; only the plain one is run by KWOK.
pod plain "" ""
pod harnessed ", ballast.dev/role: worker" ""
pod harnessed-balancer ", ballast.dev/role: balancer" ""
kubectl -n "$NS" wait --for=jsonpath='{.status.phase}'=Running pod/plain --timeout=60s >/dev/null \
  || fail "unlabelled pod did not become Running: $(kubectl -n "$NS" get pod plain -o wide --no-headers)"
vols="$(kubectl -n "$NS" get pod plain -o jsonpath='{.spec.serviceAccountName} {.spec.volumes[*].name}')"
[[ "$vols" == "default kube-api-access-"* ]] || fail "ServiceAccount admission did not run (serviceAccountName + volumes: '$vols')"
ok "admission on: ServiceAccount plugin defaulted '$vols'"
ok "unlabelled pod Running on $(kubectl -n "$NS" get pod plain -o jsonpath='{.spec.nodeName}') (KWOK pod-ready stage)"
sleep 8   # well past KWOK's pod-ready delay, which the plain pod just went through
for p in harnessed harnessed-balancer; do
  node="$(kubectl -n "$NS" get pod "$p" -o jsonpath='{.spec.nodeName}')"
  [[ -n "$node" ]] || fail "harness pod $p was not scheduled"
  st="$(kubectl -n "$NS" get pod "$p" -o jsonpath='{.status.phase}|{.status.podIP}|{.status.containerStatuses}')"
  [[ "$st" == "Pending||" ]] || fail "harness pod $p (labels $(kubectl -n "$NS" get pod "$p" -o jsonpath="{.metadata.labels}")) was touched by KWOK: phase|podIP|containerStatuses = $st"
  ok "pod $p ($(kubectl -n "$NS" get pod "$p" -o jsonpath='{.metadata.labels.ballast\.dev/role}')) bound to $node and left alone by KWOK (Pending, no podIP, no container status)"
done
# Deletion is the harness's job too: KWOK's pod-delete stage must not remove the pod.
kubectl -n "$NS" delete pod harnessed --wait=false >/dev/null
sleep 3
[[ -n "$(kubectl -n "$NS" get pod harnessed -o jsonpath='{.metadata.deletionTimestamp}')" ]] \
  || fail "deleted harness pod vanished without the harness (KWOK pod-delete stage ran on it)"
ok "deleted harness pod stays Terminating until the harness force-deletes it"

# 5. scheduling gates
pod gated "" "  schedulingGates: [{name: ballast.dev/admission}]"
sleep 3
reason="$(kubectl -n "$NS" get pod gated -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}')"
[[ -z "$(kubectl -n "$NS" get pod gated -o jsonpath='{.spec.nodeName}')" && "$reason" == SchedulingGated ]] \
  || fail "gated pod: nodeName='$(kubectl -n "$NS" get pod gated -o jsonpath='{.spec.nodeName}')' reason='$reason'"
ok "gated pod unscheduled (PodScheduled reason $reason)"
kubectl -n "$NS" patch pod gated --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]' >/dev/null
kubectl -n "$NS" wait --for=jsonpath='{.status.phase}'=Running pod/gated --timeout=60s >/dev/null \
  || fail "pod did not run after its gate was removed"
ok "gate removed -> scheduled to $(kubectl -n "$NS" get pod gated -o jsonpath='{.spec.nodeName}') and Running"

# 6. RBAC
kubectl -n "$NS" create serviceaccount nobody >/dev/null
can="$(kubectl auth can-i list pods -n "$NS" --as="system:serviceaccount:$NS:nobody" || true)"
[[ "$can" == no ]] || fail "RBAC not enforced: unprivileged ServiceAccount can list pods ($can)"
ok "RBAC enforced (unprivileged ServiceAccount cannot list pods)"
echo "PASS"
