#!/usr/bin/env bash
# Packages that depend on this checkout beside the libraries it re-creates,
# each built and run as a user's would be (make consumers, part of make test).
# SwiftPM wants every target name unique across a package graph, so each of
# these fails to resolve if a target of ours takes an original's name:
#
#   AlamofireApp, ReachabilitySwiftApp, AFNetworkingApp
#       an app shared with iOS: the original for Apple's platforms, our
#       compat module for Linux (conditional product dependencies);
#   AlamofireServer
#       a Linux server with Alamofire for HTTP and our
#       NetworkReachabilityManager, both imported in one file;
#   CoreOnly
#       only the front door: its build must hold no compat module, no test
#       support and no program of ours.
#
# The originals are stand-ins (StandIns/): their real package names, product
# names, target names and paths, and one line of source each, since CI cannot
# fetch the originals and the graph rule is about names. Each consumer prints
# what it answered for 127.0.0.1; the lines are checked below.
set -uo pipefail
cd "$(dirname "$0")"
SWIFT=${SWIFT:-swift}
failures=0

fail() { echo "consumers: $*" >&2; failures=$((failures + 1)); }

# The five are packages of their own, so they build side by side (a debug
# build leaves part of the CPUs idle); each is then run and checked in turn.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
declare -A builds
for name in AlamofireApp ReachabilitySwiftApp AFNetworkingApp AlamofireServer CoreOnly; do
    (cd "$name" && $SWIFT build >"$logs/$name.log" 2>&1) &
    builds[$name]=$!
done

# NAME PATTERN...: waits for NAME's build, runs its program, and checks that
# its output has a line matching each extended regular expression.
consumer() {
    local name=$1 bin out pattern
    shift
    if ! wait "${builds[$name]}"; then
        fail "$name does not build:"; grep -E "error|warning: .*(conflict|duplicate)" "$logs/$name.log" | head -20 >&2
        return 1
    fi
    bin=$(cd "$name" && $SWIFT build --show-bin-path)
    if ! out=$("$bin/$name" 2>&1); then fail "$name exited with an error:"; echo "$out" >&2; return 1; fi
    echo "$out"
    for pattern in "$@"; do
        grep -qE "$pattern" <<<"$out" || fail "$name printed no line matching '$pattern'"
    done
}

consumer AlamofireApp \
    '^AlamofireApp: AlamofireReachability\.NetworkReachabilityManager: 127\.0\.0\.1 is .*reachable.*ethernetOrWiFi'
consumer ReachabilitySwiftApp \
    '^ReachabilitySwiftApp: ReachabilitySwift\.Reachability: 127\.0\.0\.1 is WiFi$'
consumer AFNetworkingApp \
    '^AFNetworkingApp: AFNetworkReachability\.AFNetworkReachabilityManager: 127\.0\.0\.1 is Reachable via WiFi$'
if consumer AlamofireServer \
        '^AlamofireServer: Alamofire 5\.12\.0 \(stand-in\) beside AlamofireReachability\.NetworkReachabilityManager$' \
        '^AlamofireServer: 127\.0\.0\.1 is .*reachable.*ethernetOrWiFi'; then
    # Alamofire's `#if canImport(SystemConfiguration)` and `canImport(Network)`
    # look in the one build folder: no module of those names may be there.
    bin=$(cd AlamofireServer && $SWIFT build --show-bin-path)
    for module in SystemConfiguration Network CoreTelephony; do
        [ -e "$bin/Modules/$module.swiftmodule" ] || [ -e "$bin/$module.swiftmodule" ] &&
            fail "AlamofireServer's build holds a module named $module, which Alamofire's canImport would find"
    done
fi

# The core-only graph: the packages SwiftPM resolved, the targets it planned
# (every target of every product in the graph) and the ones it compiled.
if consumer CoreOnly '^CoreOnly: 127\.0\.0\.1 is reachable'; then
    bin=$(cd CoreOnly && $SWIFT build --show-bin-path)
    packages=$(cd CoreOnly && $SWIFT package show-dependencies --format flatlist 2>/dev/null | tr '\n' ' ')
    compiled=() planned=()
    for dir in "$bin"/*.build; do
        target=$(basename "$dir" .build)
        if [ -n "$(find "$dir" -name '*.o' -print -quit)" ]; then compiled+=("$target"); else planned+=("$target"); fi
    done
    programs=$(cd "$bin" && find . -maxdepth 1 -type f -perm -u+x -printf '%f\n' | sort | tr '\n' ' ')
    echo "CoreOnly: packages resolved: ${packages:-none}"
    echo "CoreOnly: targets compiled: ${compiled[*]}"
    echo "CoreOnly: targets in the graph, not compiled: ${planned[*]}"
    echo "CoreOnly: programs linked: $programs"
    for target in "${compiled[@]}"; do
        case $target in
            CoreOnly|LinuxReachability|ReachabilityCore|ReachabilityKernel|ReachabilityModel|CReachability) ;;
            *) fail "CoreOnly's build compiled $target (only the front door and what it stands on belong there)" ;;
        esac
    done
    [ "$programs" = "CoreOnly " ] || fail "CoreOnly's build holds programs besides its own: $programs"
fi

if [ $failures -gt 0 ]; then echo "consumers: $failures failure(s)" >&2; exit 1; fi
echo "consumers: 5 packages built and run beside the originals' names"
