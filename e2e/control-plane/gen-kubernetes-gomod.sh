#!/usr/bin/env bash
# Regenerates kubernetes/go.mod and go.sum for a Kubernetes release, e.g. to move to a new patch:
#   e2e/control-plane/gen-kubernetes-gomod.sh v1.37.3
# k8s.io/kubernetes points its staging modules (k8s.io/api, k8s.io/client-go, ...) at ./staging,
# which a module that depends on it cannot use; each one is replaced here with the published tag
# of the same release (Kubernetes vX.Y.Z publishes its staging modules as v0.Y.Z). Only the Go
# module proxy is contacted. Then run build.sh --force to rebuild the binaries.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MOD="$HERE/kubernetes"
[[ $# -eq 1 && "$1" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] \
  || { echo "usage: $0 v1.MINOR.PATCH (a Kubernetes release tag)" >&2; exit 2; }
KV="$1"
STAGING="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
cd "$MOD"
go mod edit -require "k8s.io/kubernetes@$KV"
# The staging modules are exactly the ones k8s.io/kubernetes's own go.mod replaces with ./staging paths.
upstream="$(go mod download -json "k8s.io/kubernetes@$KV" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
[[ -f "$upstream" ]] || { echo "$0: could not download k8s.io/kubernetes@$KV's go.mod" >&2; exit 1; }
mapfile -t staging < <(sed -n 's#^\s*\(k8s\.io/[^ ]*\) => \./staging/.*#\1#p' "$upstream")
[[ ${#staging[@]} -gt 0 ]] || { echo "$0: no staging replacements found in $upstream" >&2; exit 1; }
for m in "${staging[@]}"; do go mod edit -replace "$m=$m@$STAGING"; done
go mod tidy
echo "kubernetes/go.mod: k8s.io/kubernetes $KV with ${#staging[@]} staging modules at $STAGING"
