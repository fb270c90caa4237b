#!/usr/bin/env bash
# Paths of the Ballast e2e cluster. Source it (`. e2e/cluster/env.sh`) to get KUBECONFIG and the
# locally built binaries on PATH, or run it to print `export` lines:
#   eval "$(e2e/cluster/env.sh)"
#   BALLAST_CACHE    cache root (default ~/.cache/ballast); binaries in $BALLAST_CACHE/bin
#   BALLAST_CLUSTER  cluster name (default ballast)
_ballast_cache="${BALLAST_CACHE:-$HOME/.cache/ballast}"
_ballast_cluster="${BALLAST_CLUSTER:-ballast}"
BALLAST_BIN="$_ballast_cache/bin"
# kwokctl keeps each cluster's state, logs, PKI and kubeconfig under $KWOK_WORKDIR/clusters/<name>.
KWOK_WORKDIR="$_ballast_cache/kwok"
BALLAST_KUBECONFIG="$KWOK_WORKDIR/clusters/$_ballast_cluster/kubeconfig.yaml"
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  echo "export KWOK_WORKDIR='$KWOK_WORKDIR'"
  echo "export KUBECONFIG='$BALLAST_KUBECONFIG'"
  echo "export PATH='$BALLAST_BIN':\"\$PATH\""
else
  export KWOK_WORKDIR BALLAST_BIN BALLAST_KUBECONFIG
  export KUBECONFIG="$BALLAST_KUBECONFIG"
  case ":$PATH:" in *":$BALLAST_BIN:"*) ;; *) export PATH="$BALLAST_BIN:$PATH" ;; esac
fi
unset _ballast_cache _ballast_cluster
