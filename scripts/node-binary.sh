#!/bin/sh
# Prints the path of a Node binary of major version $1 (22, 24, ...), for BENCH_NODES:
#   BENCH_NODES="$(scripts/node-binary.sh 22):$(scripts/node-binary.sh 24)" npm run bench -- bills
# The binary comes from the `node` package of the npm registry, through npx's cache (downloaded
# once, about 30 MB a version); nothing is installed in the project.
set -e
exec npx -y -p "node@$1" node -p process.execPath
