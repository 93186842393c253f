// The package's version: the one place it is written. `reach --version`,
// `reach-exporter --version`, the exporter's `reach_build_info{version}` and
// the Debian package (`make deb`, which reads this line) all take it from
// here; `make deb` refuses a version that CHANGELOG.md has no entry for.

/// This package's release.
public enum ReachabilityPackage {
    /// The version of this release of swift-reachability (`major.minor.patch`),
    /// as `reach --version`, `reach-exporter --version`, the exporter's
    /// `reach_build_info{version}` metric and the Debian package `reach` give it.
    public static let version = "0.10.0"
}
