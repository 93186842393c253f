import ReachabilityCore

// Every description the library gives, for measure.sh --check: built once as
// a normal program and once with firmware-flags.sh --minimal (no reflection
// metadata, runtime records only for what is used), it must print the same
// lines. A description that leaned on reflection (an enum interpolated
// without a description of its own) prints its type's name in the minimal build.
// Values are printed through their description, as the minimal build's
// price says a program must (firmware-minimal.flags).
func show<Value: CustomStringConvertible>(_ values: [Value]) { for value in values { print("\(value)") } }
/// A parsed value's description, or the error's.
func parse<Value: CustomStringConvertible>(_ texts: [String], _ make: (String) throws(ReachabilityError) -> Value) {
    for text in texts {
        do throws(ReachabilityError) { show([try make(text)]) } catch { show([error]) }
    }
}

show(InterfaceKind.allCases); show(UplinkState.allCases); show(RadioGeneration.allCases); show(RadioTechnology.allCases)
show(ProbeVerdict.allCases); show(RestrictionReason.allCases); show(UnsatisfiedReason.allCases)
show([OperState.unknown, .notPresent, .down, .lowerLayerDown, .testing, .dormant, .up])
show([RouteVerdict.unicast, .local, .broadcast, .multicast, .anycast, .unreachable, .blackhole, .prohibit,
      .noRoute, .throw, .failed])
show([NetworkStatus.notReachable, .reachableViaWiFi, .reachableViaWWAN])
show([PathStatus.satisfied, .unsatisfied, .requiresConnection])
show([DNSRecordType.a, .aaaa]); show([IPAddress.Family.v4, .v6])
show([ProbeTransport.icmpRaw, .icmpDatagram, .tcpConnect, .http, .dns])
show([ReachabilityStatus.unknown, .notReachable, .reachable(.wifi), .reachable(.wwan)])
show([Accessibility.accessible, .restricted(.wwanRefused), .captive, .noNetwork])
show([ProbeOutcome.answered, .refused, .captivePortal(status: 302, location: "http://portal/"),
      .captivePortal(status: 200, location: nil), .unexpectedStatus(503), .noAddress(rcode: 3), .timedOut,
      .unreachable(.networkUnreachable), .malformedAnswer, .canceled])
show([ReachabilityFlags.reachable, [.reachable, .isWWAN, .isDirect], ReachabilityFlags()])
show([ReachabilityMask(flags: [.reachable], kind: .wired, allowsWWAN: true, radio: nil),
      ReachabilityMask(flags: [.reachable, .isWWAN], kind: .wwan, allowsWWAN: true, radio: .g4)])
show([NetworkNamespace.current, .named("blue")])
show([ProbeMethod.dns(name: "example.org", type: .aaaa), .dns(name: "example.org", type: .a), .tcp(port: 22)])
show([ReachabilityError.invalidAddress("x"), .unknownInterface("eth9"), .invalidUID(-1),
      .system(operation: "socket", errno: .networkUnreachable),
      .permissionDenied(operation: "open", needs: "CAP_NET_ADMIN")])
// Good and bad input: an error's reason interpolates values too.
parse(["internet", "192.0.2.1", "2001:db8::1", "example.org", "", "256.1.1.1", "-bad"]) { text throws(ReachabilityError) in
    try Target(parsing: text)
}
parse(["icmp", "tcp:443", "http:http://example.org/generate_204", "http:/generate_204", "dns:example.org",
       "dns:bad..name", "tcp:99999", "http:http://[::1", "carrier-pigeon"]) { text throws(ReachabilityError) in
    try ProbeMethod(parsing: text, defaultName: "example.org")
}
parse(["http:http://example.org/204", "dns:example.org", "dns@192.0.2.53", "icmp:192.0.2.1", "tcp:[2001:db8::1]:443",
       "tcp:host", "ftp:x"]) { text throws(ReachabilityError) in
    try Validation(parsing: text)
}
parse(["wwan*=wwan", "=wifi", "eth*=laser"]) { text throws(ReachabilityError) in try InterfaceKindOverride(parsing: text) }
parse(["192.0.2.1", "fe80::1%2", "10.0.0.300"]) { text throws(ReachabilityError) in try IPAddress(parsing: text) }
