#!/usr/bin/env bash
# Deletes the Ballast e2e cluster (all its processes, etcd data, logs and PKI). The built binaries
# in $BALLAST_CACHE/bin stay. `down.sh --stop` only stops the processes; up.sh restarts them.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/env.sh"
NAME="${BALLAST_CLUSTER:-ballast}"
command -v kwokctl >/dev/null || { echo "down.sh: $BALLAST_BIN/kwokctl is missing (nothing to delete)"; exit 0; }
# (no `kwokctl ... | grep -q`: with pipefail, grep quitting early fails the pipeline)
clusters="$(kwokctl get clusters 2>/dev/null || true)"
if ! grep -qx "$NAME" <<<"$clusters"; then
  echo "down.sh: no cluster '$NAME'"
  exit 0
fi
case "${1:-}" in
  --stop) kwokctl stop cluster --name "$NAME" ;;
  "") kwokctl delete cluster --name "$NAME" --kubeconfig "$KUBECONFIG" ;;  # never touch ~/.kube/config
  *) echo "usage: $0 [--stop]" >&2; exit 2 ;;
esac
