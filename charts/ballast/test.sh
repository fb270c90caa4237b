#!/usr/bin/env bash
# Offline checks of the Ballast chart: CRD copy in sync with crds/, `helm lint --strict` and
# `helm template` over the main value combinations (with assertions on what renders), the rendered
# CRD spec identical to crds/, kubeVersion enforcement, and values.schema.json rejecting unknown
# keys, wrong types and bad enums. Exits non-zero on the first failure, naming it.
#   HELM  helm binary (default: $BALLAST_CACHE/bin/helm from e2e/control-plane/build.sh, else PATH)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${BALLAST_CACHE:-$HOME/.cache/ballast}"
HELM="${HELM:-$( [[ -x "$CACHE/bin/helm" ]] && echo "$CACHE/bin/helm" || command -v helm || true)}"
[[ -n "$HELM" && -x "$HELM" ]] || { echo "test.sh: no helm found; run e2e/control-plane/build.sh helm or set HELM" >&2; exit 1; }
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT

pass=0
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { pass=$((pass + 1)); echo "ok   $*"; }
render() { "$HELM" template t "$HERE" --namespace ballast-system "$@"; }
# count KIND FILE -> number of rendered objects of that kind
count() { grep -c "^kind: \"\{0,1\}$1\"\{0,1\}$" "$2" || true; }
expect_kinds() {  # FILE KIND=N...
  local f="$1"; shift
  for kv in "$@"; do
    local k="${kv%=*}" n="${kv#*=}" got
    got="$(count "$k" "$f")"
    [[ "$got" == "$n" ]] || fail "$(basename "$f"): expected $n $k, rendered $got"
  done
}

echo "helm: $("$HELM" version --short)"

# 1. The chart's CRD copy is the committed one.
"$HERE/sync-crds.sh" --check >/dev/null || fail "files/crds differs from crds/ (run charts/ballast/sync-crds.sh)"
ok "files/crds in sync with crds/"

# 2. Lint, strict (warnings fail), for defaults and the non-default branches.
"$HELM" lint --strict "$HERE" >"$TMP/lint.txt" 2>&1 || { cat "$TMP/lint.txt"; fail "helm lint --strict (defaults)"; }
"$HELM" lint --strict "$HERE" --set metrics.serviceMonitor.enabled=true --set probes.enabled=true \
  --set serviceAccount.create=false --set serviceAccount.name=ops >"$TMP/lint2.txt" 2>&1 \
  || { cat "$TMP/lint2.txt"; fail "helm lint --strict (serviceMonitor, probes, external SA)"; }
ok "helm lint --strict"

# 3. Template combinations.
render >"$TMP/default.yaml" || fail "template with defaults"
expect_kinds "$TMP/default.yaml" CustomResourceDefinition=1 Deployment=1 ServiceAccount=1 ClusterRole=3 \
  ClusterRoleBinding=2 Role=1 RoleBinding=1 Service=1 ServiceMonitor=0 PodMonitor=0
grep -q 'helm.sh/resource-policy: keep' "$TMP/default.yaml" || fail "CRD lacks helm.sh/resource-policy: keep"
grep -q 'name: t-ballast-balancer$' "$TMP/default.yaml" || fail "the balancer ClusterRole <fullname>-balancer is missing"
grep -q 'image: "ghcr.io/ballast-dev/operator:0.1.0"' "$TMP/default.yaml" || fail "operator image does not default its tag to appVersion"
for e in BALLAST_SIDECAR_IMAGE BALLAST_BALANCER_IMAGE QUARKUS_LOG_LEVEL BALLAST_BALANCER_CLUSTER_ROLE BALLAST_LEASE_NAME \
         BALLAST_WATCH_NAMESPACES; do
  grep -q "name: $e" "$TMP/default.yaml" || fail "operator env $e missing"
done
render --show-only templates/deployment.yaml >"$TMP/deploy.yaml"
grep -q 'path: /q/health/ready' "$TMP/deploy.yaml" || fail "readiness probe missing by default"
# The operator passes the restricted Pod Security Standard (docs/security.md), with a writable /tmp.
for s in 'runAsNonRoot: true' 'type: RuntimeDefault' 'allowPrivilegeEscalation: false' 'readOnlyRootFilesystem: true' \
         '- ALL' 'mountPath: /tmp' 'emptyDir: {}'; do
  grep -qF -- "$s" "$TMP/deploy.yaml" || fail "operator Deployment is not restricted: '$s' not rendered"
done
# NetworkPolicies per job: on by default with the RBAC to manage them; off removes both.
grep -q 'networkpolicies' "$TMP/default.yaml" || fail "no RBAC for networkpolicies by default"
grep -A1 'name: BALLAST_NETWORK_POLICIES' "$TMP/deploy.yaml" | grep -q 'value: "true"' || fail "BALLAST_NETWORK_POLICIES not true by default"
render --set networkPolicy.enabled=false >"$TMP/nonetpol.yaml"
grep -q 'networkpolicies' "$TMP/nonetpol.yaml" && fail "RBAC for networkpolicies although networkPolicy.enabled=false"
grep -A1 'name: BALLAST_NETWORK_POLICIES' "$TMP/nonetpol.yaml" | grep -q 'value: "false"' || fail "networkPolicy.enabled=false not passed to the operator"
render --show-only templates/deployment.yaml --set probes.enabled=false >"$TMP/noprobes.yaml"
grep -q 'livenessProbe' "$TMP/noprobes.yaml" && fail "probes rendered although probes.enabled=false"
ok "template: defaults"

render --set crds.install=false --set rbac.create=false --set serviceAccount.create=false \
  --set serviceAccount.name=preexisting --set metrics.enabled=false >"$TMP/minimal.yaml" || fail "template minimal"
expect_kinds "$TMP/minimal.yaml" CustomResourceDefinition=0 Deployment=1 ServiceAccount=0 ClusterRole=0 \
  ClusterRoleBinding=0 Role=0 RoleBinding=0 Service=0
grep -q 'serviceAccountName: preexisting' "$TMP/minimal.yaml" || fail "serviceAccount.name not used"
ok "template: crds/rbac/serviceAccount/metrics off"

render --set metrics.serviceMonitor.enabled=true --set metrics.serviceMonitor.labels.release=prom \
  --set probes.enabled=true --set image.tag=dev --set logLevel=DEBUG --set replicaCount=2 \
  --set nodeSelector.pool=system --set 'tolerations[0].key=dedicated' --set 'tolerations[0].operator=Exists' \
  --set 'extraEnv[0].name=FOO' --set 'extraEnv[0].value=bar' >"$TMP/full.yaml" || fail "template full"
expect_kinds "$TMP/full.yaml" ServiceMonitor=1 Deployment=1
for s in 'image: "ghcr.io/ballast-dev/operator:dev"' 'replicas: 2' 'pool: system' 'key: dedicated' \
         'name: FOO' 'value: "DEBUG"' 'path: /q/health/live' 'release: prom'; do
  grep -qF "$s" "$TMP/full.yaml" || fail "full combination: '$s' not rendered"
done
ok "template: serviceMonitor, probes, scheduling, extraEnv"

render --set fullnameOverride=acme >"$TMP/names.yaml" || fail "template fullnameOverride"
for n in acme-operator acme-operator-cluster acme-balancer; do
  grep -q "name: $n\$" "$TMP/names.yaml" || fail "fullnameOverride not applied to the ClusterRole $n"
done
grep -A1 'name: BALLAST_BALANCER_CLUSTER_ROLE' "$TMP/names.yaml" | grep -q 'value: "acme-balancer"' \
  || fail "the operator is not told the release's balancer ClusterRole"
grep -A1 'name: BALLAST_LEASE_NAME' "$TMP/names.yaml" | grep -q 'value: "acme"' || fail "the Lease is not named after the release"
grep -B1 -A1 'resourceNames:' "$TMP/names.yaml" | grep -q 'acme-balancer' || fail "bind is not limited to acme-balancer"
ok "template: fullnameOverride names every cluster-scoped object and the Lease after the release"

# Least privilege: the operator may get (by name), create and update Secrets, never list or watch them; NetworkPolicies
# only in the namespaced role; the balancer reads no Secret and no pod.
render --show-only templates/rbac-operator.yaml >"$TMP/rbac-op.yaml"
grep -B2 'resources: \[secrets\]' "$TMP/rbac-op.yaml" >/dev/null || fail "no Secret rule"
[[ "$(grep -A1 'resources: \[secrets\]' "$TMP/rbac-op.yaml" | tail -1 | tr -d ' ')" == "verbs:[get,create,update]" ]] \
  || fail "the operator's Secret verbs are not exactly get, create, update"
awk '/^kind: ClusterRole$/{getline; getline; name=$2} /networkpolicies/{print name}' "$TMP/rbac-op.yaml" \
  | grep -qx 't-ballast-operator' || fail "networkpolicies are not in the namespaced ClusterRole t-ballast-operator"
render --show-only templates/rbac-balancer.yaml >"$TMP/rbac-bal.yaml"
grep -Eq 'secrets|pods' "$TMP/rbac-bal.yaml" && fail "the balancer's ClusterRole names secrets or pods"
ok "rbac: operator Secrets get/create/update only, NetworkPolicies namespaced; balancer without secrets or pods"

# watchNamespaces: the namespaced permissions only in those namespaces; the cluster-wide reads stay.
render --set 'watchNamespaces={team-a,team-b}' >"$TMP/watch.yaml" || fail "template watchNamespaces"
expect_kinds "$TMP/watch.yaml" ClusterRole=3 ClusterRoleBinding=1 Role=1 RoleBinding=3
for ns in team-a team-b; do
  grep -B3 -A8 'kind: RoleBinding' "$TMP/watch.yaml" | grep -q "namespace: $ns" || fail "no RoleBinding in $ns"
done
grep -A1 'name: BALLAST_WATCH_NAMESPACES' "$TMP/watch.yaml" | grep -q 'value: "team-a,team-b"' \
  || fail "watchNamespaces not passed to the operator"
grep -q 'name: t-ballast-operator-cluster' "$TMP/watch.yaml" || fail "the cluster-wide reads are missing"
ok "template: watchNamespaces binds the operator in those namespaces only"

if render --set metrics.enabled=false --set metrics.serviceMonitor.enabled=true >/dev/null 2>"$TMP/err"; then
  fail "serviceMonitor without metrics Service was accepted"
fi
ok "template: serviceMonitor needs metrics.enabled"

render --set metrics.balancerPodMonitor.enabled=true --set metrics.balancerPodMonitor.labels.release=prom \
  --set metrics.balancerPodMonitor.interval=15s >"$TMP/podmon.yaml" || fail "template balancerPodMonitor"
expect_kinds "$TMP/podmon.yaml" PodMonitor=1
for s in 'ballast.dev/role: balancer' 'app.kubernetes.io/managed-by: ballast-operator' 'any: true' \
         'port: health' 'path: /q/metrics' 'interval: 15s' 'release: prom' 'honorLabels: true'; do
  grep -qF "$s" "$TMP/podmon.yaml" || fail "balancer PodMonitor: '$s' not rendered"
done
render --set metrics.balancerPodMonitor.enabled=true --set 'watchNamespaces={team-a}' >"$TMP/podmon-ns.yaml" \
  || fail "template balancerPodMonitor with watchNamespaces"
grep -A2 'matchNames:' "$TMP/podmon-ns.yaml" | grep -q -- '- team-a' || fail "PodMonitor not limited to watchNamespaces"
grep -q 'any: true' "$TMP/podmon-ns.yaml" && fail "PodMonitor selects every namespace despite watchNamespaces"
ok "template: balancer PodMonitor (balancers by label, in watchNamespaces or any)"

# The Grafana dashboard: off by default; on, a ConfigMap with the sidecar's label holding dashboards/ballast.json as
# it is, which Grafana's dashboard schema accepts (dashboard-check, built by e2e/control-plane/build.sh).
grep -q 'grafana_dashboard' "$TMP/default.yaml" && fail "Grafana dashboard ConfigMap rendered by default"
render --set grafana.dashboards.enabled=true --set grafana.dashboards.namespace=monitoring \
  --set grafana.dashboards.annotations.grafana_folder=Ballast --show-only templates/grafana-dashboard.yaml >"$TMP/dash.yaml" \
  || fail "template grafana.dashboards"
for s in 'kind: ConfigMap' 'namespace: monitoring' 'grafana_dashboard: "1"' 'grafana_folder: Ballast' 'ballast.json: |-'; do
  grep -qF "$s" "$TMP/dash.yaml" || fail "Grafana dashboard ConfigMap: '$s' not rendered"
done
sed -n '/ballast.json: |-/,$p' "$TMP/dash.yaml" | tail -n +2 | sed 's/^    //' >"$TMP/dash.json"
diff <(cat "$HERE/dashboards/ballast.json") "$TMP/dash.json" >/dev/null || fail "the ConfigMap's ballast.json differs from dashboards/ballast.json"
render --set grafana.dashboards.enabled=true --set grafana.dashboards.label=dashboards --set grafana.dashboards.labelValue=ballast \
  --show-only templates/grafana-dashboard.yaml | grep -qF 'dashboards: "ballast"' || fail "grafana.dashboards.label/labelValue not used"
ok "template: Grafana dashboard ConfigMap (off by default; label, namespace, annotations)"
CHECK="$CACHE/bin/dashboard-check"
[[ -x "$CHECK" ]] || fail "no $CHECK; run e2e/control-plane/build.sh dashboard-check"
"$CHECK" "$HERE/dashboards/ballast.json" >/dev/null || fail "dashboards/ballast.json is not a valid Grafana dashboard (above)"
sed 's/"graphTooltip": 1,/"graphTooltip": 1, "graphTooltipp": 1,/' "$HERE/dashboards/ballast.json" >"$TMP/bad-dash.json"
"$CHECK" "$TMP/bad-dash.json" 2>"$TMP/bad-dash.err" && fail "dashboard-check accepted an unknown dashboard field"
grep -q "unexpected field 'graphTooltipp'" "$TMP/bad-dash.err" || { cat "$TMP/bad-dash.err"; fail "dashboard-check: not the expected error"; }
ok "dashboards/ballast.json valid for Grafana's dashboard schema (and an unknown field is not)"

# 4. The rendered CRD spec is byte-identical to crds/ (only metadata is rebuilt by the template).
render --show-only templates/crds/trainingjobs.ballast.dev.yaml >"$TMP/crd.yaml"
diff <(sed -n '/^spec:/,$p' "$ROOT/crds/trainingjobs.ballast.dev.yaml") <(sed -n '/^spec:/,$p' "$TMP/crd.yaml") >"$TMP/crd.diff" \
  || { head -20 "$TMP/crd.diff"; fail "rendered CRD spec differs from crds/trainingjobs.ballast.dev.yaml"; }
ok "rendered CRD spec == crds/ ($(wc -l <"$TMP/crd.yaml") lines)"

# 5. kubeVersion >= 1.29.
render --kube-version 1.28.9 >/dev/null 2>&1 && fail "kubeVersion 1.28 accepted"
render --kube-version 1.29.0 >/dev/null || fail "kubeVersion 1.29.0 rejected"
ok "kubeVersion: 1.28 rejected, 1.29 accepted"

# 6. values.schema.json rejects bad values; each case must fail with a schema error.
reject() {  # DESCRIPTION helm-args...
  local what="$1"; shift
  if render "$@" >/dev/null 2>"$TMP/err"; then fail "schema accepted $what ($*)"; fi
  grep -qi "schema" "$TMP/err" || { cat "$TMP/err"; fail "$what failed, but not with a schema error"; }
  ok "schema rejects $what"
}
reject "an unknown top-level key" --set imagee.tag=x
reject "an unknown nested key" --set image.tagg=x
reject "an unknown key in serviceAccount" --set serviceAccount.nmae=x
reject "a string for an integer" --set replicaCount=two
reject "a string for a boolean" --set-string rbac.create=yes
reject "a number for a string" --set image.repository=5
reject "a bad enum (logLevel)" --set logLevel=LOUD
reject "a bad enum (pullPolicy)" --set image.pullPolicy=Sometimes
reject "an out-of-range port" --set metrics.port=70000
reject "a malformed resource quantity" --set resources.requests.cpu=lots
reject "an unknown toleration field" --set 'tolerations[0].keyy=a'
reject "a malformed duration" --set metrics.serviceMonitor.interval=often
reject "a namespace name that is not a DNS label" --set 'watchNamespaces={Team_A}'
reject "a namespace listed twice" --set 'watchNamespaces={a,a}'
reject "an unknown key in grafana.dashboards" --set grafana.dashboards.enable=true

echo "PASS: $pass checks"
