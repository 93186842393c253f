import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// A network namespace held open. The fd stays valid for as long as anyone
/// holds the handle — an evaluator, a prober, a resolver thread still in
/// getaddrinfo after its caller timed out — so no thread ever enters
/// whatever a recycled fd number names.
package final class NamespaceHandle: Sendable {
    let namespace: NetworkNamespace
    /// -1 for the current namespace (and a simulated one).
    package let fd: Int32
    /// The simulated kernel that answers instead of one, nil for a real namespace.
    @inline(__always)
    package var simulation: (any KernelSimulation)? { namespace.simulation }

    package init(_ namespace: NetworkNamespace) throws(ReachabilityError) {
        self.namespace = namespace
        fd = try namespace.open()
    }

    deinit { if fd >= 0 { close(fd) } }

    /// The name `ip netns exec` would find configuration for (/etc/netns/NAME).
    var configurationName: String? { if case let .named(name) = namespace { name } else { nil } }

    /// Moves the calling thread (one the library owns, for the resolver)
    /// into the namespace, with its /etc/netns/NAME files bind-mounted over
    /// /etc as `ip netns exec` shows them; false with errno set on failure.
    /// Nothing to do for the current namespace.
    package func enterOnThisThreadWithConfiguration() -> Bool {
        simulation != nil || fd < 0 || creach_netns_enter_thread_config(fd, configurationName) == 0
    }
}
