extension ReachabilityMonitor {
    /// How the monitor waits, resolves, retries and validates. The defaults suit a gateway; creating
    /// a monitor with a value out of range throws `ReachabilityError.invalidConfiguration(_:reason:)`.
    public struct Configuration: Sendable {
        /// How long a host-name lookup may take before the target is reported
        /// as unresolved (the lookup's late answer is still used).
        public var resolveTimeout: Duration = .seconds(5)
        /// A host name is looked up again after a link, address or rule change,
        /// but at most once per this interval (a flapping link or a burst of
        /// changes gives one lookup once it settles; ``MonitorCounters/deferredResolutions``
        /// counts the requests put off). Zero looks up after every change.
        public var minimumResolveInterval: Duration = .seconds(1)
        /// After a notification, wait this long for the burst to go quiet
        /// before evaluating, so one `ip link set down` (which sends several
        /// notifications) gives one change. A link's own state change
        /// (RTM_NEWLINK) is also evaluated as soon as it is read, whether it
        /// opens the burst or comes in the middle of one, and the answers the
        /// rest of the burst cannot change are published then; the evaluation
        /// after the burst publishes only what differs from them. Zero
        /// evaluates every notification at once...
        public var settleTime: Duration = .microseconds(300)
        /// ...but never longer than this in all. It also bounds how long an
        /// answer routed over a link that was set down is held back while the
        /// kernel flushes that link's routes, and how long a change read while
        /// an interface is coming up (carrier, its operstate not yet up: the
        /// kernel sends that a moment later) is held back until it is
        /// (``settleTime``, at least 0.1 ms, between two looks). Past it, what
        /// the kernel says is the answer.
        public var maximumSettleTime: Duration = .milliseconds(20)
        /// `SO_RCVBUF` of the event socket; nil keeps the system default.
        public var receiveBufferSize: Int?
        /// When asking the kernel failed, ask again after this long.
        public var retryInterval: Duration = .seconds(1)
        /// Validate reachable targets with an active probe through their output
        /// interface (off by default: nil). See ``Validation``.
        public var validation: Validation? {
            get { validationProbe?.validation }
            set { validationProbe = newValue.map(ValidationProbe.init) }
        }
        /// The validation and what sends its probes. Only this setter names the
        /// prober, so a program that never sets `validation` links none of the
        /// probes ("Firmware builds and footprint" has what they add).
        var validationProbe: ValidationProbe?
        /// How often a reachable target is validated again (besides after every
        /// change to reachable).
        public var validationInterval: Duration = .seconds(60)
        /// How long one validation probe may take.
        public var validationTimeout: Duration = .seconds(5)

        /// The defaults: resolve timeout 5 s, a host name looked up again at most once a second, settle
        /// time 300 µs (at most 20 ms in all), retry after 1 s, the system's receive buffer, no validation.
        public init() {}

        func validate() throws(ReachabilityError) {
            if let size = receiveBufferSize, size <= 0 || size > Int(Int32.max) {
                throw .invalidConfiguration("receiveBufferSize \(size)", reason: "must be 1...\(Int32.max) bytes")
            }
            let zero = Duration.zero
            guard resolveTimeout > zero else { throw .invalidConfiguration("resolveTimeout \(resolveTimeout)", reason: "must be positive") }
            guard minimumResolveInterval >= zero, minimumResolveInterval <= .seconds(3600) else {
                throw .invalidConfiguration("minimumResolveInterval \(minimumResolveInterval)", reason: "must be 0...3600 s")
            }
            guard retryInterval > zero else { throw .invalidConfiguration("retryInterval \(retryInterval)", reason: "must be positive") }
            guard settleTime >= zero, maximumSettleTime >= settleTime else {
                throw .invalidConfiguration("settleTime \(settleTime)", reason: "must be 0...maximumSettleTime (\(maximumSettleTime))")
            }
            guard validationInterval >= .milliseconds(100) else {
                throw .invalidConfiguration("validationInterval \(validationInterval)", reason: "must be at least 0.1 s")
            }
            guard validationTimeout > zero, validationTimeout <= .seconds(3600) else {
                throw .invalidConfiguration("validationTimeout \(validationTimeout)", reason: "must be more than 0 and at most 3600 s")
            }
            if let validation { try validation.method.validate() }
        }

        /// A `.dns` validation without a name asks for the target's own name.
        func validate(for targets: [Target]) throws(ReachabilityError) {
            try validate()
            if case .dns(nil, _)? = validation, let target = targets.first(where: { if case .host = $0 { false } else { true } }) {
                throw .invalidConfiguration("validation dns", reason: "needs a name (dns:NAME) to validate \(target), which is not a host name")
            }
        }
    }
}
