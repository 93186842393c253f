// Whether this process can build a sandbox, probed for real once: a scratch
// namespace gets a veth with an address, brought up. What the probe saw is
// read by a pure function (`diagnose`), so every reason and remedy is tested
// without the machine that would produce it.

import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension NetworkSandbox {
    /// Whether this process can build a sandbox, and if not, why and what to do.
    public enum Availability: Hashable, Sendable, CustomStringConvertible {
        /// It can: the probe made a namespace with a veth, an address and a link up.
        case available
        /// It cannot: `reason` says what failed, `remedy` what makes it work.
        case unavailable(reason: String, remedy: String)

        /// Whether a sandbox can be built.
        public var isAvailable: Bool { self == .available }

        /// `available`, or the reason and the remedy, as a skipped test should say them.
        public var description: String {
            switch self {
            case .available: return "NetworkSandbox is available"
            case let .unavailable(reason, remedy): return "NetworkSandbox is unavailable: \(reason). \(remedy)"
            }
        }
    }

    /// Whether this process can build a sandbox: probed once, for real (a
    /// scratch namespace, a veth in it, an address, the link up), the first
    /// time it is read. Skip a test with its description when it is not
    /// `.available` (see ``NetworkSandbox``).
    public static let availability: Availability = AvailabilityFacts.probe().diagnosis
}

/// What the availability probe saw; `diagnosis` reads it.
package struct AvailabilityFacts: Sendable {
    /// Who the process is.
    package enum Context: Hashable, Sendable {
        /// Root in the machine's initial user namespace.
        case root
        /// Inside a user namespace (`unshare -Urnm`).
        case userNamespace
        /// Neither: a normal user, who cannot make namespaces from a multithreaded process.
        case unprivileged
    }

    /// The step of the probe that failed.
    package enum Step: String, Hashable, Sendable {
        case unshare = "creating a user namespace (unshare -Urn)"
        case mount = "mounting a private /run/netns"
        case namespace = "creating a network namespace"
        case veth = "creating a veth pair"
        case address = "adding an address"
        case linkUp = "bringing a link up"
    }

    package var context: Context
    /// Programs not found, each with the Debian package that provides it.
    package var missingPrograms: [(program: String, package: String)] = []
    /// The failed step and what the failing command printed; nil when every step worked.
    package var failure: (step: Step, message: String)?
    /// /proc/sys/user/max_user_namespaces.
    package var maxUserNamespaces: Int?
    /// /proc/sys/kernel/apparmor_restrict_unprivileged_userns is 1 (Ubuntu 23.10 and later).
    package var appArmorRestrictsUserNamespaces = false
    /// /proc/sys/kernel/unprivileged_userns_clone is 0 (Debian's older kernels' switch).
    package var unprivilegedUserNamespacesDisabled = false
    /// A seccomp filter is installed (/proc/self/status `Seccomp: 2`), as Docker's default profile does.
    package var seccompFiltered = false
    /// The process runs in a container (/.dockerenv, /run/.containerenv).
    package var inContainer = false

    package init(context: Context) { self.context = context }

    static let wrapper = "run the whole suite inside a user, network and mount namespace: "
        + "`swift build --build-tests && unshare -Urnm swift test --skip-build`, or run it as root"

    /// The availability these facts mean, with the reason and the remedy in the user's words.
    package var diagnosis: NetworkSandbox.Availability {
        if !missingPrograms.isEmpty {
            let packages = Set(missingPrograms.map(\.package)).sorted().joined(separator: " ")
            return .unavailable(reason: "\(missingPrograms.map(\.program).joined(separator: ", ")) not installed",
                                remedy: "Install them: apt-get install \(packages) (Debian, Ubuntu)")
        }
        guard let (step, message) = failure else {
            if context == .unprivileged {
                return .unavailable(
                    reason: "not root and not inside a user namespace (euid \(geteuid())); a multithreaded test process "
                        + "cannot make one itself, but unprivileged user namespaces work on this machine",
                    remedy: "To use them, " + Self.wrapper)
            }
            return .available
        }
        let orRoot = context == .root ? "" : ", or run the suite as root"
        let refused = ["operation not permitted", "permission denied"].contains { message.lowercased().contains($0) }
        if maxUserNamespaces == 0 || (step == .unshare && message.contains("No space left on device")) {
            return .unavailable(reason: "user namespaces are switched off: user.max_user_namespaces is \(maxUserNamespaces ?? 0)",
                                remedy: "As root: sysctl -w user.max_user_namespaces=15000" + orRoot)
        }
        if step == .unshare && unprivilegedUserNamespacesDisabled {
            return .unavailable(reason: "unprivileged user namespaces are switched off: kernel.unprivileged_userns_clone is 0",
                                remedy: "As root: sysctl -w kernel.unprivileged_userns_clone=1" + orRoot)
        }
        if refused && context != .root && appArmorRestrictsUserNamespaces {
            return .unavailable(
                reason: "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1, "
                    + "Ubuntu 23.10 and later): the namespace is made but has no power, so \(step.rawValue) was refused (\(message))",
                remedy: "As root: sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or give the test binary and "
                    + "unshare an AppArmor profile that allows `userns,` (as /etc/apparmor.d/ does for some programs)" + orRoot)
        }
        if refused && (seccompFiltered || inContainer) {
            return .unavailable(
                reason: "\(step.rawValue) was refused (\(message)): this is a container whose seccomp profile (Docker's "
                    + "default) refuses unshare, setns and mount, or that lacks CAP_SYS_ADMIN and CAP_NET_ADMIN",
                remedy: "Run the container with --security-opt seccomp=unconfined --cap-add NET_ADMIN --cap-add SYS_ADMIN, "
                    + "or with --privileged")
        }
        if refused && step == .mount {
            return .unavailable(reason: "\(step.rawValue) was refused (\(message)): this user namespace has no mount namespace of its own",
                                remedy: "Start the suite with `unshare -Urnm` (the m gives it one)" + orRoot)
        }
        if step == .veth && (message.contains("Unknown device type") || message.contains("not supported")
                             || message.contains("No such device")) {
            return .unavailable(reason: "the kernel cannot make veth pairs (\(message))",
                                remedy: "As root: modprobe veth, or use a kernel built with CONFIG_VETH")
        }
        if step == .namespace && (message.contains("Invalid argument") || message.contains("not supported")) {
            return .unavailable(reason: "the kernel cannot make network namespaces (\(message))",
                                remedy: "Use a kernel built with CONFIG_NET_NS")
        }
        return .unavailable(reason: "\(step.rawValue) failed: \(message)",
                            remedy: context == .root ? "Check that this root may make network namespaces (CAP_SYS_ADMIN, CAP_NET_ADMIN)"
                                : "Run the suite as root, or " + Self.wrapper)
    }

    // MARK: The probe

    /// Looks at the machine and tries the steps a sandbox takes.
    static func probe() -> AvailabilityFacts {
        let context: Context = NetworkSandbox.runsInUserNamespace ? .userNamespace : geteuid() == 0 ? .root : .unprivileged
        var facts = AvailabilityFacts(context: context)
        facts.maxUserNamespaces = readInteger("/proc/sys/user/max_user_namespaces")
        facts.appArmorRestrictsUserNamespaces = readInteger("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1
        facts.unprivilegedUserNamespacesDisabled = readInteger("/proc/sys/kernel/unprivileged_userns_clone") == 0
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        facts.seccompFiltered = status.split(separator: "\n").contains { $0.hasPrefix("Seccomp:") && $0.hasSuffix("2") }
        facts.inContainer = access("/.dockerenv", F_OK) == 0 || access("/run/.containerenv", F_OK) == 0
        let programs: [(String, String, URL?)] = [("ip", "iproute2", ipExecutable), ("nginx", "nginx-light", Nginx.executable),
                                                  ("dnsmasq", "dnsmasq-base", Dnsmasq.executable)]
            + (context == .unprivileged ? [("unshare", "util-linux", findExecutable("unshare"))] : [])
        facts.missingPrograms = programs.filter { $0.2 == nil }.map { ($0.0, $0.1) }
        guard facts.missingPrograms.isEmpty, let ip = ipExecutable else { return facts }
        facts.failure = context == .unprivileged ? tryUserNamespace(ip) : tryNamespace(ip)
        return facts
    }

    private static let scratchLink = ["link", "add", "sbxprobe0", "type", "veth", "peer", "name", "sbxprobe1"]
    private static let scratchAddress = ["addr", "add", "192.0.2.1/24", "dev", "sbxprobe0"]
    private static let scratchUp = ["link", "set", "sbxprobe0", "up"]

    /// As root or inside a user namespace: what a sandbox does, in a scratch namespace.
    private static func tryNamespace(_ ip: URL) -> (step: Step, message: String)? {
        if let error = SandboxCore.hostPreparation { return (.mount, error.description) }
        let name = "\(SandboxCore.prefix)\(getpid())-probe"
        func run(_ step: Step, _ arguments: [String]) -> (step: Step, message: String)? {
            guard let result = try? runCommand(ip, arguments) else { return (step, "cannot run ip") }
            return result.status == 0 ? nil : (step, result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        if let failure = run(.namespace, ["netns", "add", name]) { return failure }
        defer { _ = try? runCommand(ip, ["netns", "delete", name]) }
        return run(.veth, ["-n", name] + scratchLink) ?? run(.address, ["-n", name] + scratchAddress)
            ?? run(.linkUp, ["-n", name] + scratchUp)
    }

    /// As a normal user: the same steps in a child made by `unshare -Urn`
    /// (single-threaded, so it may make a user namespace), which is what the
    /// suite's wrapper would give.
    private static func tryUserNamespace(_ ip: URL) -> (step: Step, message: String)? {
        guard let unshare = findExecutable("unshare") else { return (.unshare, "unshare is not installed") }
        let batch = [scratchLink, scratchAddress, scratchUp].map { $0.joined(separator: " ") }.joined(separator: "\n") + "\n"
        guard let result = try? runCommand(unshare, ["-Urn", ip.path, "-batch", "-"], input: batch) else {
            return (.unshare, "cannot run unshare")
        }
        guard result.status != 0 else { return nil }
        let message = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        if message.hasPrefix("unshare:") { return (.unshare, message) }
        // ip -batch: "Command failed -:N", N the line of the failed command.
        let steps: [Step] = [.veth, .address, .linkUp]
        let line = message.range(of: "Command failed -:").flatMap { Int(message[$0.upperBound...].prefix(while: \.isNumber)) }
        return (line.map { steps[max(0, min($0 - 1, 2))] } ?? .veth, message)
    }

    private static func readInteger(_ path: String) -> Int? {
        (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
