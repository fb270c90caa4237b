#!/usr/bin/env bash
# Builds Ballast's OCI images with Jib, without a container engine or a registry (docs/images.md):
#   operator  the operator (operator/, Quarkus fast-jar)
#   agent     the data-path agent, one image for both roles (balancer-sidecar/app)
#   trainer   the trainer side: Python 3.11 and the Ballast Python client (trainer-image/python)
# Names and tag: images/images.properties. Bases: Debian packages pinned by images/debian.lock
# (name, version, sha256) plus a jlink runtime made from the pinned JDK's jmods.
#
# Usage: images/build.sh [--out DIR | --push REGISTRY [--insecure]] [--fresh] [--relock]
#   (no flag)         OCI tarballs in images/target/oci/<name>.tar, digests in images/target/oci/digests
#   --out DIR         the tarballs and digests in DIR instead
#   --push REGISTRY   push to REGISTRY/<name>:<tag> instead (REGISTRY overrides images.properties)
#   --insecure        allow a plain-HTTP registry (a local test registry)
#   --fresh           rebuild the bases and every layer from nothing (no cache): the reproducibility check
#   --relock          pin the versions the Debian mirror serves now into images/debian.lock, then stop
#   BALLAST_CACHE     cache root (default ~/.cache/ballast): downloaded .debs, staged bases, Jib's layers
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
LOCK="$HERE/debian.lock"
CACHE="${BALLAST_CACHE:-$HOME/.cache/ballast}/images"
OUT="$HERE/target/oci"
JDK_DIR=usr/lib/jvm/java-17-openjdk-amd64
# What the two Quarkus apps use of the JDK (jdeps over their jars, plus the modules they load reflectively).
JAVA_MODULES=java.base,java.logging,java.management,java.naming,java.net.http,java.security.jgss,java.sql,java.xml,jdk.crypto.ec,jdk.management,jdk.unsupported,jdk.zipfs
die() { echo "images/build.sh: $*" >&2; exit 1; }

PUSH="" INSECURE=0 FRESH=0 RELOCK=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --push) [[ $# -ge 2 && -n "$2" ]] || die "--push needs a registry, e.g. --push ghcr.io/my-org"; PUSH="$2"; shift ;;
    --out) [[ $# -ge 2 && -n "$2" ]] || die "--out needs a directory"; OUT="$(realpath -m "$2")"; shift ;;
    --insecure) INSECURE=1 ;;
    --fresh) FRESH=1 ;;
    --relock) RELOCK=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
[[ $INSECURE -eq 0 || -n "$PUSH" ]] || die "--insecure only applies with --push"

# --- Debian packages --------------------------------------------------------------------------
# The lock's lines: BASE PACKAGE VERSION SHA256 (BASE: java, jdk or python).
lock_lines() { grep -v '^\s*\(#\|$\)' "$LOCK"; }

relock() {
  command -v apt-cache >/dev/null || die "--relock needs apt (a Debian machine)"
  local tmp; tmp="$(mktemp)"
  sed -n '/^#/p' "$LOCK" >"$tmp"
  local base pkg ver sum
  while read -r base pkg _ _; do
    ver="$(apt-cache policy "$pkg" | sed -n 's/^  Candidate: //p')"
    [[ -n "$ver" && "$ver" != "(none)" ]] || die "the Debian mirror serves no '$pkg' (run apt-get update?)"
    sum="$(apt-cache show "$pkg=$ver" | sed -n 's/^SHA256: //p' | head -1)"
    echo "$base $pkg $ver $sum" >>"$tmp"
  done < <(lock_lines)
  mv "$tmp" "$LOCK"
  echo "images/build.sh: wrote $LOCK"
}

# fetch PKG VERSION SHA256 -> prints the cached .deb's path (downloaded by apt, checked against the lock)
APT_UPDATED=0
fetch_deb() {
  local pkg="$1" ver="$2" sum="$3" deb="$CACHE/debs/$3.deb"
  if [[ ! -f "$deb" ]]; then
    command -v apt-get >/dev/null || die "downloading $pkg needs apt-get (a Debian machine); or copy the .debs into $CACHE/debs"
    if ! apt-cache show "$pkg=$ver" >/dev/null 2>&1 && [[ $APT_UPDATED -eq 0 && $(id -u) -eq 0 ]]; then
      apt-get update -qq >&2 || true
      APT_UPDATED=1
    fi
    apt-cache show "$pkg=$ver" >/dev/null 2>&1 \
      || die "the Debian mirror no longer serves $pkg $ver (Debian replaced it with a newer build); run 'bin/ballast images --relock' and commit images/debian.lock"
    local dl; dl="$(mktemp -d)"
    chmod 777 "$dl"   # apt downloads as its sandbox user when it can
    (cd "$dl" && apt-get download -qq "$pkg=$ver" >&2) || die "apt-get download $pkg=$ver failed"
    local got; got="$(sha256sum "$dl"/*.deb | cut -d' ' -f1)"
    [[ "$got" == "$sum" ]] || die "$pkg $ver: sha256 $got, but images/debian.lock pins $sum"
    mkdir -p "$CACHE/debs"
    mv "$dl"/*.deb "$deb"
    rm -rf "$dl"
  fi
  echo "$deb"
}

# stage_base BASE DIR: unpack the lock's packages of BASE into DIR (dpkg-deb -x, no maintainer scripts).
stage_base() {
  local want="$1" dir="$2" base pkg ver sum
  mkdir -p "$dir/usr/share/ballast"
  while read -r base pkg ver sum; do
    [[ "$base" == "$want" ]] || continue
    dpkg-deb -x "$(fetch_deb "$pkg" "$ver" "$sum")" "$dir"
    echo "$pkg $ver $sum" >>"$dir/usr/share/ballast/debian-packages"
  done < <(lock_lines)
  # What a root filesystem needs that no package ships: the users, a sticky /tmp, the non-root home.
  mkdir -p "$dir/etc" "$dir/tmp" "$dir/home/nonroot"
  chmod 1777 "$dir/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$dir/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$dir/etc/group"
  # Documentation, manuals and locales are of no use in an image.
  rm -rf "$dir/usr/share/doc" "$dir/usr/share/man" "$dir/usr/share/lintian" "$dir/usr/share/locale" "$dir/usr/share/gdb"
}

# The Java runtime: jlink over the pinned JDK's jmods (the host's jlink, JDK 17, only links them);
# the JDK package is listed with the Java base's packages (LIST).
stage_jre() {
  local dir="$1" list="$2" jdk; jdk="$(mktemp -d)"
  local base pkg ver sum
  while read -r base pkg ver sum; do
    [[ "$base" == jdk ]] || continue
    dpkg-deb --fsys-tarfile "$(fetch_deb "$pkg" "$ver" "$sum")" | tar -x -C "$jdk" "./$JDK_DIR/jmods"
    echo "$pkg $ver $sum (jmods only, linked by jlink into /opt/java)" >>"$list"
  done < <(lock_lines)
  command -v jlink >/dev/null || die "jlink is missing: install a JDK 17"
  jlink --module-path "$jdk/$JDK_DIR/jmods" --add-modules "$JAVA_MODULES" --strip-debug --no-header-files \
    --no-man-pages --compress=2 --output "$dir" || die "jlink failed"
  rm -rf "$jdk"
}

[[ $RELOCK -eq 1 ]] && { relock; exit 0; }
[[ -f "$LOCK" ]] || die "$LOCK is missing"

# --- The applications ---------------------------------------------------------------------------
echo "images: building the operator, the agent and the image builder (skipped when up to date)"
"$ROOT/mvnw" -q -B -pl operator,balancer-sidecar/app,images -am package -DskipTests \
  || die "building the applications failed"
"$ROOT/mvnw" -q -B -pl images dependency:build-classpath -Dmdep.outputFile="$HERE/target/classpath.txt" \
  || die "resolving the image builder's classpath failed"

# --- The bases (cached by the lock, this script and the JDK that links the runtime) ---------------
key="$( (cat "$LOCK" "$0"; jlink --version) | sha256sum | cut -c1-16)"
STAGE="$CACHE/base-$key"
JIB_CACHE="$CACHE/jib"
if [[ $FRESH -eq 1 ]]; then
  STAGE="$(mktemp -d)/base" JIB_CACHE="$(mktemp -d)/jib"
fi
if [[ ! -f "$STAGE/.complete" ]]; then
  echo "images: staging the bases from images/debian.lock into $STAGE"
  rm -rf "$STAGE"
  mkdir -p "$STAGE"
  stage_base java "$STAGE/java"
  stage_base python "$STAGE/python"
  stage_jre "$STAGE/jre" "$STAGE/java/usr/share/ballast/debian-packages"
  touch "$STAGE/.complete"
fi

revision="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
[[ -z "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ]] || revision="$revision-dirty"
args=(--names "$HERE/images.properties" --java-root "$STAGE/java" --jre "$STAGE/jre" --python-root "$STAGE/python"
      --operator-app "$ROOT/operator/target/quarkus-app" --agent-app "$ROOT/balancer-sidecar/app/target/quarkus-app"
      --python-client "$ROOT/trainer-image/python/ballast_client" --revision "$revision" --cache "$JIB_CACHE"
      --work "$HERE/target/work")
if [[ -n "$PUSH" ]]; then
  args+=(--push "$PUSH")
  [[ $INSECURE -eq 1 ]] && args+=(--insecure)
else
  rm -rf "$OUT"
  args+=(--out "$OUT")
fi
java -cp "$HERE/target/classes:$(cat "$HERE/target/classpath.txt")" dev.ballast.images.BuildImages "${args[@]}"
[[ $FRESH -eq 1 ]] && rm -rf "$(dirname "$STAGE")" "$(dirname "$JIB_CACHE")"
exit 0
