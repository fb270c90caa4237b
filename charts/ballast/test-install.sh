#!/usr/bin/env bash
# Installs the chart on the running e2e cluster (e2e/cluster/up.sh) and checks, against the real
# API server with RBAC and admission on:
#  - `helm install --wait`: the operator Deployment becomes Available (its pod is simulated by KWOK);
#  - the TrainingJob CRD is Established and accepts crds/examples/minimal.yaml;
#  - the operator's ServiceAccount may bind ballast-balancer in a job namespace, but not cluster-admin
#    or edit (bind is limited to that one ClusterRole), and may not escalate;
#  - the operator SA can do what reconciling needs and nothing obviously more (spot checks);
#  - `helm upgrade` works; `helm uninstall` keeps the CRD and the TrainingJob (resource-policy keep).
# Cleans up after itself (release, namespaces, CRD). Needs a cluster with no `ballast` release.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
. "$ROOT/e2e/cluster/env.sh"
REL=ballast NS=ballast-system JOBNS="ballast-install-test-$$"
SA="system:serviceaccount:$NS:$REL"
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok   $*"; }
cleanup() {
  helm uninstall "$REL" -n "$NS" >/dev/null 2>&1 || true
  kubectl delete namespace "$JOBNS" "$NS" --wait=false >/dev/null 2>&1 || true
  kubectl delete crd trainingjobs.ballast.dev --wait=false >/dev/null 2>&1 || true
}
kubectl get --raw /readyz >/dev/null 2>&1 || fail "no cluster at $KUBECONFIG: run e2e/cluster/up.sh"
helm status "$REL" -n "$NS" >/dev/null 2>&1 && fail "release $REL already installed in $NS; uninstall it first"
trap cleanup EXIT

helm install "$REL" "$HERE" -n "$NS" --create-namespace --wait --timeout 2m >/dev/null || fail "helm install"
kubectl -n "$NS" wait --for=condition=Available deployment/"$REL" --timeout=60s >/dev/null || fail "operator Deployment not Available"
ok "helm install: Deployment $REL Available (pod on $(kubectl -n "$NS" get pods -l app.kubernetes.io/instance=$REL -o jsonpath='{.items[0].spec.nodeName}'))"

kubectl wait --for=condition=Established crd/trainingjobs.ballast.dev --timeout=30s >/dev/null || fail "CRD not Established"
[[ "$(kubectl get crd trainingjobs.ballast.dev -o jsonpath='{.metadata.annotations.helm\.sh/resource-policy}')" == keep ]] \
  || fail "CRD lacks helm.sh/resource-policy=keep"
kubectl create namespace "$JOBNS" >/dev/null
kubectl -n "$JOBNS" apply -f "$ROOT/crds/examples/minimal.yaml" >/dev/null || fail "CRD rejected crds/examples/minimal.yaml"
ok "CRD Established (keep policy) and accepts crds/examples/minimal.yaml"

can() { kubectl auth can-i "$@" --as="$SA" 2>/dev/null || true; }
for check in "yes:list trainingjobs.ballast.dev -A" "yes:patch trainingjobs.ballast.dev --subresource=status -n $JOBNS" \
             "no:update trainingjobs.ballast.dev --subresource=status -n $JOBNS" \
             "yes:update trainingjobs.ballast.dev --subresource=finalizers -n $JOBNS" "yes:create pods -n $JOBNS" \
             "yes:patch pods -n $JOBNS" "yes:list pods -A" "no:update pods -n $JOBNS" \
             "yes:update services -n $JOBNS" "no:delete services -n $JOBNS" "yes:watch nodes" "yes:create rolebindings -n $JOBNS" \
             "yes:create secrets -n $JOBNS" "yes:get secrets -n $JOBNS" "no:list secrets -A" "no:delete secrets -n $JOBNS" \
             "yes:create events -n $JOBNS" "yes:update leases.coordination.k8s.io -n $NS" "yes:patch leases.coordination.k8s.io -n $NS" \
             "no:update leases.coordination.k8s.io -n $JOBNS" "no:delete nodes" "yes:delete trainingjobs.ballast.dev -n $JOBNS" "no:update trainingjobs.ballast.dev -n $JOBNS" \
             "no:create clusterrolebindings" "no:create customresourcedefinitions.apiextensions.k8s.io" \
             "no:bind clusterroles/cluster-admin" "yes:bind clusterroles/ballast-balancer" \
             "yes:watch resourcequotas -n $JOBNS" "yes:list limitranges -n $JOBNS" "no:update resourcequotas -n $JOBNS"; do
  want="${check%%:*}"; args="${check#*:}"
  # shellcheck disable=SC2086
  got="$(can $args)"
  [[ "$got" == "$want" ]] || fail "operator SA: can-i $args -> '$got', expected $want"
done
ok "operator RBAC spot checks (30 can-i)"

kubectl -n "$JOBNS" create rolebinding balancer --clusterrole=ballast-balancer --serviceaccount="$JOBNS:default" --as="$SA" >/dev/null \
  || fail "operator SA could not bind ballast-balancer"
if kubectl -n "$JOBNS" create rolebinding escalate --clusterrole=edit --serviceaccount="$JOBNS:default" --as="$SA" >/dev/null 2>&1; then
  fail "operator SA could bind 'edit' (escalation)"
fi
BSA="system:serviceaccount:$JOBNS:default"
# The authorizer sees new RoleBindings through an informer: allow it a moment.
for _ in $(seq 1 20); do
  [[ "$(kubectl auth can-i patch trainingjobs.ballast.dev --subresource=status -n "$JOBNS" --as="$BSA" 2>/dev/null || true)" == yes ]] && break
  sleep 0.5
done
[[ "$(kubectl auth can-i patch trainingjobs.ballast.dev --subresource=status -n "$JOBNS" --as="$BSA" 2>/dev/null || true)" == yes ]] || fail "bound balancer cannot patch status"
[[ "$(kubectl auth can-i list secrets -n "$JOBNS" --as="$BSA" 2>/dev/null || true)" == no ]] || fail "balancer may list secrets"
[[ "$(kubectl auth can-i get pods -n "$JOBNS" --as="$BSA" 2>/dev/null || true)" == no ]] || fail "balancer may read pods"
[[ "$(kubectl auth can-i get configmaps -n default --as="$BSA" 2>/dev/null || true)" == no ]] || fail "balancer sees other namespaces"
ok "operator binds ballast-balancer per namespace, cannot bind 'edit'; balancer scoped to its namespace"

helm upgrade "$REL" "$HERE" -n "$NS" --set logLevel=DEBUG --wait --timeout 2m >/dev/null || fail "helm upgrade"
[[ "$(kubectl -n "$NS" get deploy "$REL" -o jsonpath='{.spec.template.spec.containers[0].env[?(@.name=="QUARKUS_LOG_LEVEL")].value}')" == DEBUG ]] \
  || fail "upgrade did not change the log level"
ok "helm upgrade (logLevel=DEBUG rolled out)"

helm uninstall "$REL" -n "$NS" --wait >/dev/null || fail "helm uninstall"
kubectl get crd trainingjobs.ballast.dev >/dev/null 2>&1 || fail "uninstall deleted the CRD"
kubectl -n "$JOBNS" get trainingjob olmoe-minimal >/dev/null 2>&1 || fail "uninstall deleted a TrainingJob"
kubectl get clusterrole ballast-balancer >/dev/null 2>&1 && fail "uninstall left the ballast-balancer ClusterRole"
ok "helm uninstall keeps the CRD and TrainingJobs, removes the rest"
echo "PASS"
