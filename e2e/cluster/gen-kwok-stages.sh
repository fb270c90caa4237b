#!/usr/bin/env bash
# Regenerates kwok-stages.yaml from the kwok module pinned in e2e/control-plane/kwok/go.mod:
# kwok's default node and pod stages, with every Pod stage extended by a selector that skips pods
# labelled ballast.dev/role=worker|balancer (the e2e process kubelet plays kubelet for those), and every
# Node stage by one that skips nodes annotated ballast.dev/e2e-kubelet=down (a node the suite took down).
# `--check` writes nothing and fails when the committed file differs from what would be generated.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$HERE/kwok-stages.yaml"
if [[ "${1:-}" == --check ]]; then OUT="$(mktemp)"; trap 'rm -f "$OUT"' EXIT; fi
KWOK_DIR="$(cd "$HERE/../control-plane/kwok" && GOFLAGS=-mod=mod go mod download sigs.k8s.io/kwok && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)"
KWOK_VER="$(cd "$HERE/../control-plane/kwok" && go list -m -f '{{.Version}}' sigs.k8s.io/kwok)"
python3 - "$KWOK_DIR" "$KWOK_VER" "$OUT" <<'EOF'
import re, sys
m, ver, dest = sys.argv[1:4]
stages = [
    ('node', 'kustomize/stage/node/fast/node-initialize.yaml'),
    ('node', 'kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml'),
    ('pod', 'kustomize/stage/pod/fast/pod-ready.yaml'),
    ('pod', 'kustomize/stage/pod/fast/pod-complete.yaml'),
    ('pod', 'kustomize/stage/pod/fast/pod-delete.yaml'),
]
guard = ("    # Ballast: Ballast's own pods (label ballast.dev/role: worker or balancer) are played by the\n"
         "    # e2e process kubelet, so KWOK must never touch them.\n"
         "    - key: '.metadata.labels[\"ballast.dev/role\"]'\n"
         "      operator: 'NotIn'\n"
         "      values:\n"
         "      - 'worker'\n"
         "      - 'balancer'\n")
node_guard = ("    # Ballast: a node the e2e suite took down (annotation ballast.dev/e2e-kubelet: down) is no longer\n"
              "    # KWOK's: it neither heartbeats it nor sets its Ready condition back to True.\n"
              "    - key: '.metadata.annotations[\"ballast.dev/e2e-kubelet\"]'\n"
              "      operator: 'NotIn'\n"
              "      values:\n"
              "      - 'down'\n")
out = ["# KWOK stages for the Ballast e2e cluster (passed to `kwokctl create cluster --config`).\n",
       f"# Giving kwokctl any Stage replaces ALL its built-in stages, so this file carries kwok {ver}'s\n",
       "# defaults for the binary runtime verbatim (kustomize/stage/node/fast/node-initialize.yaml,\n",
       "# node/heartbeat-with-lease, pod/fast/pod-ready, pod-complete, pod-delete; Apache-2.0, the\n",
       "# Kubernetes Authors), with two changes: every Pod stage also requires the label\n",
       "# ballast.dev/role to be neither \"worker\" nor \"balancer\", and every Node stage the annotation\n",
       "# ballast.dev/e2e-kubelet not to be \"down\". Regenerate with gen-kwok-stages.sh.\n"]
for kind, rel in stages:
    text = open(f"{m}/{rel}").read()
    text, n = re.subn(r"(  selector:\n    matchExpressions:\n)",
                      lambda g: g.group(1) + (guard if kind == 'pod' else node_guard), text, count=1)
    if n != 1:
        sys.exit(f"gen-kwok-stages: no selector.matchExpressions in {rel}; kwok's stage layout changed")
    out.append("---\n" + text + ("" if text.endswith("\n") else "\n"))
open(dest, 'w').write(''.join(out))
print(f"wrote {dest} ({len(stages)} stages from kwok {ver})")
EOF
if [[ "${1:-}" == --check ]]; then
  cmp -s "$OUT" "$HERE/kwok-stages.yaml" \
    || { echo "gen-kwok-stages: kwok-stages.yaml is stale: run e2e/cluster/gen-kwok-stages.sh" >&2; exit 1; }
  echo "gen-kwok-stages: kwok-stages.yaml up to date"
fi
