#!/usr/bin/env bash
# Builds the real Kubernetes control plane and its tools from Go modules, once, into a cache
# directory outside the repository:
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubectl  (k8s.io/kubernetes)
#   etcd                                                              (go.etcd.io/etcd/server/v3)
#   kwok, kwokctl                                                     (sigs.k8s.io/kwok)
#   helm                                                              (helm.sh/helm/v3)
#   crane                                   (github.com/google/go-containerregistry/cmd/crane)
#   prometheus                              (github.com/prometheus/prometheus/cmd/prometheus)
#   dashboard-check     (dashboard-check/main.go: Grafana's dashboard schema, grafana-foundation-sdk)
#   kstatus-check       (kstatus-check/main.go: the health Flux computes, github.com/fluxcd/cli-utils)
# Versions are pinned by the wrapper modules next to this script (their go.mod/go.sum are the
# single source of truth). Each binary gets the version ldflags its upstream release build sets,
# so `kubectl version`, `etcd --version`, `helm version` report the real version.
#
# Usage: e2e/control-plane/build.sh [--force] [binary...]
#   BALLAST_CACHE   cache root (default ~/.cache/ballast); binaries land in $BALLAST_CACHE/bin
#   BALLAST_BUILD_P parallelism for `go build -p` (default: number of CPUs)
# Go's module and build caches stay where `go env GOMODCACHE/GOCACHE` say; set those to measure a
# cold build. Only the Go module proxy is contacted (GOPROXY, default proxy.golang.org).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${BALLAST_CACHE:-$HOME/.cache/ballast}"
BIN="$CACHE/bin"
STAMPS="$BIN/.stamps"
GO_MIN="1.26.7"
ALL=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok kwokctl helm crane prometheus dashboard-check
  kstatus-check)

die() { echo "build.sh: $*" >&2; exit 1; }

FORCE=0
WANT=()
for a in "$@"; do
  case "$a" in
    --force) FORCE=1 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) [[ " ${ALL[*]} " == *" $a "* ]] || die "unknown binary '$a' (known: ${ALL[*]})"; WANT+=("$a") ;;
  esac
done
[[ ${#WANT[@]} -gt 0 ]] || WANT=("${ALL[@]}")

# --- Go toolchain check ------------------------------------------------------------------------
command -v go >/dev/null 2>&1 || die "Go is not installed or not on PATH; install Go >= $GO_MIN (https://go.dev/dl/)"
GOVER="$(go env GOVERSION)"            # e.g. go1.26.8
v="${GOVER#go}"; v="${v%%[!0-9.]*}"    # strip prerelease suffixes such as rc1
ver_ge() { [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" == "$2" ]]; }
ver_ge "$v" "$GO_MIN" || die "Go $v is too old: the pinned modules need Go >= $GO_MIN (found $GOVER at $(command -v go))"

# Never let `go` fetch another toolchain, never build with cgo (static, portable binaries), and
# refuse to change the committed go.mod/go.sum.
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=readonly ${GOFLAGS:-}"
P="${BALLAST_BUILD_P:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}"
mkdir -p "$BIN" "$STAMPS"

# modver DIR MODULE -> the version DIR's go.mod selects for MODULE (e.g. v1.37.2)
modver() { (cd "$HERE/$1" && go list -m -f '{{.Version}}' "$2"); }
# modtime DIR MODULE -> the module version's publication time, used as a reproducible build date
modtime() { (cd "$HERE/$1" && go list -m -f '{{if .Time}}{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}{{end}}' "$2"); }

# fetch DIR: download the wrapper module's dependencies once per run (timed apart from compiling).
declare -A FETCHED=()
fetch() {
  [[ -n "${FETCHED[$1]:-}" ]] && return
  local t0=$SECONDS
  echo "==> downloading modules of $1/go.mod (no-op when GOMODCACHE has them)"
  (cd "$HERE/$1" && go mod download) || die "downloading the modules of $1/go.mod failed (is the Go module proxy, $(go env GOPROXY), reachable?)"
  echo "    $1 modules ready in $((SECONDS - t0))s ($(go env GOMODCACHE))"
  FETCHED[$1]=1
}

# build NAME DIR PACKAGE TAGS LDFLAGS: skip when the stamp (version + flags + Go) is unchanged.
build() {
  local name="$1" dir="$2" pkg="$3" tags="$4" ldflags="$5"
  # go.sum pins every dependency: a changed go.sum (e.g. a bumped replace) means a rebuild even
  # when the headline version in the ldflags stays the same.
  local sum; sum="$(cksum <"$HERE/$dir/go.sum" | cut -d' ' -f1)"
  local stamp="$name pkg=$pkg go=$GOVER gosum=$sum tags=$tags ldflags=$ldflags"
  if [[ $FORCE -eq 0 && -x "$BIN/$name" && -f "$STAMPS/$name" && "$(cat "$STAMPS/$name")" == "$stamp" ]]; then
    echo "==> $name: up to date ($BIN/$name)"
    return
  fi
  fetch "$dir"
  echo "==> $name: building $pkg"
  local t0=$SECONDS
  rm -f "$STAMPS/$name"
  (cd "$HERE/$dir" && go build -trimpath -p "$P" ${tags:+-tags "$tags"} -ldflags "$ldflags" -o "$BIN/$name.tmp" "$pkg") \
    || die "building $name failed (see the go output above)"
  mv -f "$BIN/$name.tmp" "$BIN/$name"
  printf '%s' "$stamp" > "$STAMPS/$name"
  echo "    $name done in $((SECONDS - t0))s"
}

want() { [[ " ${WANT[*]} " == *" $1 "* ]]; }
T_ALL=$SECONDS
echo "build.sh: $GOVER, -p $P, binaries -> $BIN"

# --- Kubernetes ---------------------------------------------------------------------------------
if want kube-apiserver || want kube-controller-manager || want kube-scheduler || want kubectl; then
  KV="$(modver kubernetes k8s.io/kubernetes)"          # v1.37.2
  KDATE="$(modtime kubernetes k8s.io/kubernetes)"
  echo "==> Kubernetes $KV (k8s.io/kubernetes, published $KDATE)"
  KMAJ="${KV#v}"; KMAJ="${KMAJ%%.*}"
  KMIN="${KV#v*.}"; KMIN="${KMIN%%.*}"
  # Same variables hack/lib/version.sh sets; the tree state "archive" is what upstream uses for
  # builds from a source archive (there is no git checkout, hence no commit either).
  kld="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    kld+=" -X $p.gitVersion=$KV -X $p.gitMajor=$KMAJ -X $p.gitMinor=$KMIN"
    kld+=" -X $p.gitCommit= -X $p.gitTreeState=archive -X $p.buildDate=$KDATE"
  done
  for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    want "$b" && build "$b" kubernetes "k8s.io/kubernetes/cmd/$b" "selinux,notest,grpcnotrace" "$kld"
  done
fi

# --- etcd ---------------------------------------------------------------------------------------
if want etcd; then
  EV="$(modver etcd go.etcd.io/etcd/server/v3)"
  # version.Version is already the release number inside the published module; GitSHA is set by
  # etcd's ./build from git, which a module build does not have.
  build etcd etcd . "" "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=module-$EV"
fi

# --- kwok / kwokctl ---------------------------------------------------------------------------------
if want kwok || want kwokctl; then
  WV="$(modver kwok sigs.k8s.io/kwok)"
  # KubeVersion is kwokctl's default cluster version; point it at the Kubernetes we build so that
  # nothing ever asks for a different release.
  KV="${KV:-$(modver kubernetes k8s.io/kubernetes)}"
  wld="-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${WV#v} -X sigs.k8s.io/kwok/pkg/consts.KubeVersion=${KV#v} -X sigs.k8s.io/kwok/pkg/consts.PreRelease=GA"
  want kwok && build kwok kwok sigs.k8s.io/kwok/cmd/kwok "" "$wld"
  want kwokctl && build kwokctl kwok sigs.k8s.io/kwok/cmd/kwokctl "" "$wld"
fi

# --- helm ---------------------------------------------------------------------------------------
if want helm; then
  HV="$(modver helm helm.sh/helm/v3)"
  CGV="$(modver helm k8s.io/client-go)"   # helm's Makefile derives its default Kube version from client-go
  CGMIN="${CGV#v0.}"; CGMIN="${CGMIN%%.*}"
  hld="-s -w -X helm.sh/helm/v3/internal/version.version=$HV -X helm.sh/helm/v3/internal/version.gitTreeState=archive"
  hld+=" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$CGMIN"
  hld+=" -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$CGMIN"
  build helm helm helm.sh/helm/v3/cmd/helm "" "$hld"
fi

# --- crane (inspects, serves and exports the images bin/ballast images builds) -------------------
if want crane; then
  CV="$(modver crane github.com/google/go-containerregistry)"
  build crane crane github.com/google/go-containerregistry/cmd/crane "" \
    "-s -w -X github.com/google/go-containerregistry/cmd/crane/cmd.Version=$CV"
fi

# --- prometheus (scrapes the e2e operator and balancer; evaluates the Grafana dashboard's queries) -
if want prometheus; then
  PV="$(modver prometheus github.com/prometheus/prometheus)"   # v0.316.0 is Prometheus 3.16.0
  PN="${PV#v0.}"; PN="${PN%%.*}"; PREL="$((PN / 100)).$((PN % 100)).${PV##*.}"
  PDATE="$(modtime prometheus github.com/prometheus/prometheus)"
  # Static and file scrape configs only: remove_all_sd leaves out the cloud and Kubernetes service
  # discoveries and their SDKs. No builtinassets: the web UI's assets are not in the module; the
  # HTTP API is.
  pld="-s -w -X github.com/prometheus/common/version.Version=$PREL -X github.com/prometheus/common/version.Revision=module-$PV"
  pld+=" -X github.com/prometheus/common/version.Branch=archive -X github.com/prometheus/common/version.BuildUser=ballast"
  pld+=" -X github.com/prometheus/common/version.BuildDate=$PDATE"
  build prometheus prometheus github.com/prometheus/prometheus/cmd/prometheus "netgo,remove_all_sd" "$pld"
fi

# --- dashboard-check (the chart's Grafana dashboard against Grafana's dashboard schema) ------------
if want dashboard-check; then
  build dashboard-check dashboard-check . "" "-s -w"
fi

# --- kstatus-check (the health Flux's controllers compute for a live object) ------------------------
if want kstatus-check; then
  build kstatus-check kstatus-check . "" "-s -w"
fi

echo "build.sh: done in $((SECONDS - T_ALL))s; binaries in $BIN"
