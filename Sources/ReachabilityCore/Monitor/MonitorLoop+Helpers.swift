#if canImport(Glibc)
internal import Glibc
#endif

// The event thread's helpers: host-name lookups and validation probes, each
// on a thread of its own, whose answers come back through the core.
extension MonitorLoop {
    // MARK: Validation

    /// After a round: validate a target that became reachable or moved to
    /// another interface; forget the verdict of one that is not reachable.
    func scheduleValidations() {
        guard core.configuration.validation != nil else { return }
        for index in watched.indices {
            guard let evaluation = watched[index].emitted, evaluation.isReachable,
                  let interface = evaluation.primary?.link?.index else {
                watched[index].validation.verdict = nil
                deadlines.clear(.validate, index)
                continue
            }
            let validatedHere = watched[index].validation.verdict?.interfaceIndex == interface
            if !validatedHere && !watched[index].validation.probing {
                // A round scheduled for the interface it left says nothing of this one: validate now.
                deadlines.clear(.validate, index)
                startValidation(index)
            }
        }
    }

    /// Sends the configured probe for target `index` through its output
    /// interface, on a thread of its own; the answer comes back through the core.
    func startValidation(_ index: Int) {
        guard let validation = core.configuration.validation, let probe = core.probe, !watched[index].validation.probing,
              let evaluation = watched[index].emitted, evaluation.isReachable,
              let primary = evaluation.primary, let link = primary.link else { return }
        watched[index].validation.probing = true
        let core = self.core, generation = self.generation
        let target = watched[index].target
        let options = ProbeOptions(interface: link.name, timeout: core.configuration.validationTimeout)
        let cancel = core.probeCancelSignal
        let post: @Sendable (ProbeVerdict, ProbeResult?) -> Void = { verdict, result in
            core.post(MonitorCore.ValidationAnswer(generation: generation, targetIndex: index, interfaceIndex: link.index,
                                                   verdict: verdict, result: result))
        }
        do {
            try startThread(.probe) {
                do throws(ReachabilityError) {
                    let address = try MonitorLoop.validationAddress(validation, target: target, primary: primary.address,
                                                                    core: core)
                    var method = validation.method
                    if case .dns(nil, _) = validation, case let .host(name) = target { method = .dns(name: name, type: .a) }
                    let result = try probe(address, method, options, cancel?.fd ?? -1)
                    post(result.verdict, result)
                } catch {
                    post(.failed, nil)
                }
                _ = cancel   // held until the probe is done
            }
        } catch {
            post(.failed, nil)
        }
    }

    /// Where a validation probe goes: the host it names (resolved in the
    /// namespace), the namespace's name server for DNS, or the target itself.
    static func validationAddress(_ validation: Validation, target: Target, primary: IPAddress,
                                          core: MonitorCore) throws(ReachabilityError) -> IPAddress {
        let host: String?
        switch validation {
        case let .http(url): host = url.host.map { $0.hasPrefix("[") ? String($0.dropFirst().dropLast()) : $0 }
        case let .dns(_, server):
            if let server { return server }
            guard let first = core.evaluator.namespace.nameServers().first else {
                throw .invalidConfiguration("validation dns", reason: "no nameserver in \(core.evaluator.namespace.resolvConfPath)")
            }
            return first
        case let .icmp(name), let .tcp(name, _): host = name
        }
        guard let host else { return primary }
        if let address = IPAddress(host) { return address }
        guard let address = try HostResolver.lookUp(host, in: core.evaluator.namespaceHandle).first else {
            throw .resolutionFailed(host: host, reason: "no address")
        }
        return address
    }

    func applyValidations(into dirty: inout Dirty) {
        let now = clock.now()
        for answer in core.takeValidations() where answer.generation == generation {
            let index = answer.targetIndex
            watched[index].validation.probing = false
            // Meanwhile the target may have moved or gone: a verdict about another
            // interface is dropped (the next round validates the new one).
            guard watched[index].emitted?.primary?.link?.index == answer.interfaceIndex else { continue }
            watched[index].validation.verdict = (answer.verdict, answer.result, answer.interfaceIndex)
            deadlines[.validate, index] = now &+ core.configuration.validationInterval.clampedNanoseconds
            core.updateCounters { $0.validations += 1 }
            dirty.targets.insert(index)
        }
    }

    // MARK: Host names

    func startResolution(_ index: Int) {
        guard case let .host(name) = watched[index].target else { return }
        switch watched[index].name.phase {
        case .inFlight:
            watched[index].name.phase = .inFlight(again: true)
            return
        case .deferred:
            core.updateCounters { $0.deferredResolutions += 1 }
            return
        case .idle:
            break
        }
        // A name is looked up at most once per minimumResolveInterval: a link
        // that flaps asks again and again, and one lookup after it settles answers them all.
        let now = clock.now()
        let interval = core.configuration.minimumResolveInterval.clampedNanoseconds
        if let last = watched[index].name.lastStart, now &- last < interval {
            watched[index].name.phase = .deferred
            deadlines[.resolveStart, index] = last &+ interval
            core.updateCounters { $0.deferredResolutions += 1 }
            return
        }
        watched[index].name.lastStart = now
        watched[index].name.phase = .inFlight(again: false)
        deadlines[.resolveTimeout, index] = now &+ core.configuration.resolveTimeout.clampedNanoseconds
        core.updateCounters { $0.resolutions += 1 }
        let core = self.core, generation = self.generation
        do {
            // The thread holds the namespace handle, so the namespace it enters stays open until it is done.
            watched[index].name.lookUp = try HostResolver.startLookUp(name, in: core.evaluator.namespaceHandle) { result in
                core.post(MonitorCore.Resolution(generation: generation, targetIndex: index, result: result))
            }
        } catch {
            core.post(MonitorCore.Resolution(generation: generation, targetIndex: index, result: .failure(error)))
        }
    }

    func applyResolutions(into dirty: inout Dirty) {
        for resolution in core.takeResolutions() where resolution.generation == generation {
            let index = resolution.targetIndex
            var again = false
            if case let .inFlight(asked) = watched[index].name.phase { again = asked }
            watched[index].name.phase = .idle
            watched[index].name.settled = true
            deadlines.clear(.resolveTimeout, index)
            switch resolution.result {
            case let .success(addresses):
                watched[index].addresses = addresses
                watched[index].name.error = nil
            case let .failure(error):
                // A name that resolved before keeps its addresses: their
                // routes are still facts, and a resolver that fails while the
                // network changes should not hide them.
                if watched[index].addresses.isEmpty { watched[index].name.error = error }
            }
            dirty.targets.insert(index)
            if again { startResolution(index) }
        }
    }
}
