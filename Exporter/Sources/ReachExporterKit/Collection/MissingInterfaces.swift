import LinuxReachability

/// The tracked uplinks whose interface the namespace does not have now (a
/// misspelled `interface: eth9`, or one that comes later: a modem, a VPN).
/// Not an error: the tracker probes it once it appears, and the uplink is
/// offline until then. nil when the namespace's interfaces cannot be read.
package func missingUplinkInterfaces(_ configuration: ExporterConfiguration) -> [String]? {
    guard !configuration.uplinks.isEmpty else { return [] }
    let names: Set<String>
    do {
        names = Set(try ReachabilityEvaluator(namespace: configuration.namespace).interfaces().map(\.link.name))
    } catch {
        return nil
    }
    return configuration.uplinks.map(\.interface).filter { !names.contains($0) }
}

/// The warning for one: said at start, by `--check-config` and on the status page.
package func missingInterfaceWarning(_ interface: String, namespace: NetworkNamespace) -> String {
    let place = namespace == .current ? "this host" : "network namespace \(namespace)"
    return "uplink \(interface): no interface \(interface) in \(place) (misspelled?); its probes fail until it appears"
}
