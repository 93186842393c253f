#!/bin/sh
# evict.sh FILE...: writes FILE's pages out and drops them from the page
# cache, so that the next run reads them from disk as an installed program's
# first start does. A program just written by the linker or strip is all in
# the cache, in whatever pieces its writer left, and the kernel maps more of
# it around each fault: RSS read from it is higher and varies (a static hello
# world: 5.2-5.3 MB just stripped, 4.2 MB evicted). measure.sh and
# Benchmarks/Peers/startup.sh evict the programs whose RSS they read.
set -e
sync "$@"
for file; do dd if="$file" iflag=nocache count=0 status=none; done
