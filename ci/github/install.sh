#!/usr/bin/env bash
# The action's install step: bk from the tarball a workflow built (npm pack) or downloaded, into a
# folder of the runner's own, put on PATH for the following steps (GITHUB_PATH).
set -euo pipefail
: "${BK_TARBALL:?the action input tarball is required (the bk-X.Y.Z.tgz that npm pack makes)}"
[ -f "$BK_TARBALL" ] || { echo "::error title=bk action::tarball $BK_TARBALL does not exist" >&2; exit 1; }
prefix="${RUNNER_TEMP:?}/bk"
npm install -g --prefix "$prefix" --no-audit --no-fund --loglevel=error "$BK_TARBALL" >/dev/null
echo "$prefix/bin" >>"${GITHUB_PATH:?}"
"$prefix/bin/bk" --version
