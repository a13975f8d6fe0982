#!/usr/bin/env bash
# Build a minimal Debian root filesystem offline (no registry) and import it as a Docker image.
#   bootstrap_base.sh TAG [SUITE] [MIRROR]
# Needs root and debootstrap (`apt-get install -y debootstrap`). About a minute.
set -euo pipefail
tag=${1:?usage: bootstrap_base.sh TAG [SUITE] [MIRROR]}
suite=${2:-bookworm}
mirror=${3:-http://deb.debian.org/debian}
include=${CODEGYM_BASE_PACKAGES:-python3,git,python3-pytest,ca-certificates,procps}
root=$(mktemp -d /tmp/codegym-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase --include="$include" "$suite" "$root" "$mirror" >&2
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar --numeric-owner -C "$root" -c . | docker import --change 'CMD ["/bin/bash"]' - "$tag" >&2
echo "$tag"
