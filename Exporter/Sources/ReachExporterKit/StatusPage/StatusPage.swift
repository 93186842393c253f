import LinuxReachability

/// The status page (`GET /`): one self-contained HTML page for an operator
/// who opens the exporter through an SSH tunnel, on a laptop or a phone.
/// Every target and uplink with its state, the last changes, the push queue,
/// ModemManager's modems, the build and the configuration. Inline CSS, no
/// script, no external asset; every value is HTML-escaped; no password or
/// token is ever written (URLs lose their user information).
///
/// States carry attributes for tests and scripts: `data-target`/`data-status`/
/// `data-accessibility` on each target's row, `data-uplink`/`data-state`/
/// `data-score`/`data-verdict` on each uplink's (and `data-detail` when the
/// verdict has one), `data-remote`/`data-pending` on each
/// receiver's, `data-change` on each change. The names are those of the
/// `/metrics` series' labels.
struct StatusPage {
    var version: String
    var configuration: ExporterConfiguration
    var snapshot: StatusSnapshot
    var remotes: [RemoteWriteStatus]
    var ready: Bool
    /// Unix seconds, for ages ("3 min ago") and the uptime.
    var now: Double
    var hostName: String
    /// Tracked uplinks whose interface the namespace did not have at start (`missingUplinkInterfaces`).
    var missingInterfaces: [String] = []

    /// The page of a collection (``SeriesSnapshot/status`` and
    /// ``SeriesSnapshot/remotes``, at its time), with `exporter`'s
    /// configuration and readiness.
    init(snapshot collected: SeriesSnapshot, exporter: Exporter, version: String) {
        self.init(version: version, configuration: exporter.configuration, snapshot: collected.status,
                  remotes: collected.remotes, ready: exporter.isReady, now: Double(collected.timestamp) / 1000,
                  hostName: Self.hostName(), missingInterfaces: exporter.missingInterfaces)
    }

    init(version: String, configuration: ExporterConfiguration, snapshot: StatusSnapshot, remotes: [RemoteWriteStatus],
         ready: Bool, now: Double, hostName: String, missingInterfaces: [String] = []) {
        self.missingInterfaces = missingInterfaces
        self.version = version
        self.configuration = configuration
        self.snapshot = snapshot
        self.remotes = remotes
        self.ready = ready
        self.now = now
        self.hostName = hostName
    }

    /// How often the page reloads itself (`<meta http-equiv=refresh>`), in seconds.
    static let refreshSeconds = 15

    func render() -> String {
        var page = HTMLBuilder()
        page.reserve(4096 + snapshot.targets.count * 600 + snapshot.uplinks.count * 600)
        page.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        page.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        page.raw("<meta http-equiv=\"refresh\" content=\"\(Self.refreshSeconds)\">\n")
        page.raw("<title>"); page.text("reach-exporter · \(hostName)"); page.raw("</title>\n")
        page.raw("<style>\(Self.style)</style>\n</head>\n<body>\n")
        header(&page)
        targets(&page)
        uplinks(&page)
        push(&page)
        changes(&page)
        if configuration.modemManager { modems(&page) }
        build(&page)
        page.raw("<footer>Reloads every \(Self.refreshSeconds) s · <a href=\"/metrics\">/metrics</a> · ")
        page.raw("<a href=\"/-/ready\">/-/ready</a> · <a href=\"/-/healthy\">/-/healthy</a></footer>\n</body>\n</html>\n")
        return page.html
    }

    // MARK: - Sections

    private func header(_ page: inout HTMLBuilder) {
        // Reachable and not restricted: a target whose route is prohibited, or
        // whose validation failed, is not one an application can use.
        let restricted = snapshot.targets.count { $0.status.hasPrefix("reachable") && $0.accessibility.hasPrefix("restricted") }
        let reachable = snapshot.targets.count { $0.status.hasPrefix("reachable") } - restricted
        let usable = snapshot.uplinks.count { $0.state == "online" || $0.state == "disconnecting" }
        page.raw("<header>\n<h1>reach-exporter <span class=\"host\">"); page.text(hostName); page.raw("</span></h1>\n")
        page.raw("<p class=\"summary\">")
        page.badge(ready ? "ready" : "starting", ready ? "ok" : "warn")
        page.raw(" <span>\(reachable)/\(snapshot.targets.count) targets reachable\(restricted > 0 ? ", \(restricted) restricted" : "")</span>")
        if !snapshot.uplinks.isEmpty { page.raw(" <span>\(usable)/\(snapshot.uplinks.count) uplinks usable</span>") }
        page.raw(remotes.contains { $0.lastError != nil } ? " <span class=\"error\">" : " <span>")
        page.text(pushSummary); page.raw("</span></p>\n")
        page.raw("<p class=\"meta\">"); page.text("version \(version) · up \(Self.age(now - snapshot.started)) · ")
        page.time(now); page.raw("</p>\n</header>\n")
    }

    private var pushSummary: String {
        if remotes.isEmpty { return "push: not configured" }
        let failing = remotes.count { $0.lastError != nil }
        let pending = remotes.reduce(0) { $0 + $1.pending }
        return failing > 0 ? "push: \(failing) of \(remotes.count) failing, \(pending) pending"
            : "push: \(remotes.count) receiver\(remotes.count == 1 ? "" : "s"), \(pending) pending"
    }

    private func targets(_ page: inout HTMLBuilder) {
        page.raw("<section id=\"targets\">\n<h2>Targets</h2>\n<table class=\"rows\">\n")
        page.raw("<thead><tr><th>Target</th><th>Status</th><th>Accessibility</th><th>Interface</th><th>Flags</th><th>Last change</th><th>Changes</th></tr></thead>\n<tbody>\n")
        for row in snapshot.targets {
            page.raw("<tr"); page.attribute("data-target", row.target); page.attribute("data-status", row.status)
            page.attribute("data-accessibility", row.accessibility); page.attribute("data-interface", row.interface ?? "")
            page.raw(">")
            page.cell("Target", title: true) { $0.text(row.target) }
            page.cell("Status") { $0.badge(row.status, Self.tone(status: row.status)) }
            page.cell("Accessibility") { $0.badge(row.accessibility, Self.tone(accessibility: row.accessibility)) }
            page.cell("Interface") { $0.text(row.interface ?? "–") }
            page.cell("Flags") { $0.raw("<code>"); $0.text(row.flags ?? "–"); $0.raw("</code>") }
            page.cell("Last change") { $0.when(row.lastChange, now: now) }
            page.cell("Changes") { $0.text(String(row.changes)) }
            page.raw("</tr>\n")
        }
        page.raw("</tbody>\n</table>\n</section>\n")
    }

    private func uplinks(_ page: inout HTMLBuilder) {
        page.raw("<section id=\"uplinks\">\n<h2>Uplinks</h2>\n")
        guard !configuration.uplinks.isEmpty else {
            page.raw("<p class=\"none\">No uplink is tracked (<code>uplinks</code> in the configuration).</p>\n</section>\n")
            return
        }
        for interface in missingInterfaces {
            page.raw("<p class=\"error\" data-missing-interface=\""); page.text(interface); page.raw("\">")
            page.text(missingInterfaceWarning(interface, namespace: configuration.namespace)); page.raw("</p>\n")
        }
        let best = configuration.uplinks.first.map { $0.down + $0.up }
        page.raw("<table class=\"rows\">\n<thead><tr><th>Uplink</th><th>State</th><th>Verdict</th><th>Score</th><th>Probes</th><th>Last RTT</th><th>Last change</th></tr></thead>\n<tbody>\n")
        for (index, row) in snapshot.uplinks.enumerated() {
            let full = index < configuration.uplinks.count ? configuration.uplinks[index].down + configuration.uplinks[index].up : best
            page.raw("<tr"); page.attribute("data-uplink", row.interface); page.attribute("data-state", row.state)
            page.attribute("data-score", row.score.map(String.init) ?? ""); page.attribute("data-verdict", row.verdict)
            if let detail = row.detail { page.attribute("data-detail", detail) }
            page.raw(">")
            page.cell("Uplink", title: true) { $0.text(row.interface) }
            page.cell("State") { $0.badge(row.state, Self.tone(uplink: row.state)) }
            page.cell("Verdict") {
                $0.badge(row.verdict, Self.tone(verdict: row.verdict))
                if let detail = row.detail { $0.raw("<br><small>"); $0.text(detail); $0.raw("</small>") }
                if row.failovers > 0 { $0.raw("<br><small>"); $0.text("\(row.failovers) failover\(row.failovers == 1 ? "" : "s")"); $0.raw("</small>") }
            }
            page.cell("Score") { $0.text(row.score.map { score in full.map { "\(score) of \($0)" } ?? String(score) } ?? "–") }
            page.cell("Probes") {
                $0.text("\(row.answered) answered, \(row.failed) failed")
                if let error = row.lastError { $0.raw("<br><small class=\"error\">"); $0.text(error); $0.raw("</small>") }
            }
            page.cell("Last RTT") {
                $0.text(row.lastRoundTrip.map(Self.milliseconds) ?? "–")
                if row.lossRatio != nil || row.medianLatency != nil {
                    // The quality window: median and loss, as reach_uplink_latency_seconds and reach_uplink_loss_ratio.
                    let median = row.medianLatency.map { "median \(Self.milliseconds($0))" }
                    let loss = row.lossRatio.map { "loss \(Int(($0 * 100).rounded())) %" }
                    $0.raw("<br><small>"); $0.text([median, loss].compactMap { $0 }.joined(separator: ", ")); $0.raw("</small>")
                }
            }
            page.cell("Last change") { $0.when(row.lastChange, now: now) }
            page.raw("</tr>\n")
        }
        page.raw("</tbody>\n</table>\n</section>\n")
    }

    private func push(_ page: inout HTMLBuilder) {
        page.raw("<section id=\"push\">\n<h2>Push (remote write)</h2>\n")
        guard !remotes.isEmpty else {
            page.raw("<p class=\"none\" data-remote-none=\"\">push: not configured</p>\n</section>\n")
            return
        }
        page.raw("<table class=\"rows\">\n<thead><tr><th>Receiver</th><th>State</th><th>Last error</th><th>Pending</th><th>Lag</th><th>Sent</th><th>Retried</th><th>Dropped</th><th>Last success</th></tr></thead>\n<tbody>\n")
        for remote in remotes {
            let state = remote.lastError != nil ? "failing" : remote.pending > 0 ? "sending" : "idle"
            page.raw("<tr"); page.attribute("data-remote", remote.name); page.attribute("data-state", state)
            page.attribute("data-pending", String(remote.pending)); page.attribute("data-dropped", String(remote.dropped))
            page.raw(">")
            page.cell("Receiver", title: true) {
                $0.text(remote.name); $0.raw("<br><small>"); $0.text(Self.redacted(remote.url)); $0.raw("</small>")
            }
            page.cell("State") { $0.badge(state, remote.lastError != nil ? "bad" : remote.pending > 0 ? "warn" : "ok") }
            page.cell("Last error", wide: remote.lastError != nil) {
                if let error = remote.lastError { $0.raw("<span class=\"error\">"); $0.text(error); $0.raw("</span>") } else { $0.text("–") }
            }
            page.cell("Pending") { $0.text(String(remote.pending)) }
            page.cell("Lag") { $0.text(remote.pending > 0 ? Self.age(remote.lagSeconds) : "–") }
            page.cell("Sent") { $0.text(String(remote.sent)) }
            page.cell("Retried") { $0.text(String(remote.retried)) }
            page.cell("Dropped") { $0.text(String(remote.dropped)) }
            page.cell("Last success") { $0.when(remote.lastSuccess, now: now, never: "never") }
            page.raw("</tr>\n")
        }
        page.raw("</tbody>\n</table>\n</section>\n")
    }

    private func changes(_ page: inout HTMLBuilder) {
        let changes = snapshot.changes.newestFirst
        page.raw("<section id=\"changes\">\n<h2>Last changes</h2>\n")
        guard !changes.isEmpty else {
            page.raw("<p class=\"none\">No change since the start (")
            page.time(snapshot.started); page.raw(").</p>\n</section>\n")
            return
        }
        if snapshot.changes.total > changes.count {
            page.raw("<p class=\"meta\">The last \(changes.count) of \(snapshot.changes.total), newest first.</p>\n")
        }
        page.raw("<ol class=\"changes\">\n")
        for change in changes {
            page.raw("<li"); page.attribute("data-change", change.kind.rawValue); page.attribute("data-name", change.name)
            page.attribute("data-from", change.from); page.attribute("data-to", change.to); page.raw(">")
            page.raw("<div class=\"when\">"); page.time(change.time)
            page.raw(" · \(change.kind.rawValue)</div><div><b>"); page.text(change.name)
            page.raw("</b> ")
            if change.isAccessibility {
                page.raw("accessibility ")
                page.badge(change.from, Self.tone(accessibility: change.from)); page.raw(" → ")
                page.badge(change.to, Self.tone(accessibility: change.to))
            } else if change.isVerdict {
                page.raw("verdict ")
                page.badge(change.from, Self.tone(verdict: change.from)); page.raw(" → ")
                page.badge(change.to, Self.tone(verdict: change.to))
            } else {
                page.badge(change.from, Self.tone(change.kind, change.from)); page.raw(" → ")
                page.badge(change.to, Self.tone(change.kind, change.to))
            }
            page.raw("</div><small>"); page.text(change.detail)
            if let flags = change.flags { page.raw(" · flags <code>"); page.text(flags); page.raw("</code>") }
            page.raw("</small></li>\n")
        }
        page.raw("</ol>\n</section>\n")
    }

    private func modems(_ page: inout HTMLBuilder) {
        page.raw("<section id=\"modems\">\n<h2>Modems</h2>\n<p data-modemmanager=\"")
        page.text(snapshot.modemManager.split(separator: ":").first.map(String.init) ?? snapshot.modemManager)
        page.raw("\">ModemManager: "); page.text(snapshot.modemManager); page.raw("</p>\n")
        guard !snapshot.modems.isEmpty else { page.raw("</section>\n"); return }
        page.raw("<table class=\"rows\">\n<thead><tr><th>Modem</th><th>Interface</th><th>Technology</th><th>Registration</th><th>Signal</th></tr></thead>\n<tbody>\n")
        for modem in snapshot.modems {
            page.raw("<tr"); page.attribute("data-modem", modem.modem); page.attribute("data-technology", modem.technology); page.raw(">")
            page.cell("Modem", title: true) { $0.text("modem \(modem.modem)") }
            page.cell("Interface") { $0.text(modem.interface.isEmpty ? "–" : modem.interface) }
            page.cell("Technology") { $0.text("\(modem.technology) (\(modem.generation))") }
            page.cell("Registration") { $0.text(modem.registration) }
            page.cell("Signal") { $0.text(modem.signalQuality.map { "\($0) %" } ?? "–") }
            page.raw("</tr>\n")
        }
        page.raw("</tbody>\n</table>\n</section>\n")
    }

    private func build(_ page: inout HTMLBuilder) {
        page.raw("<section id=\"build\">\n<h2>Build and configuration</h2>\n<dl>\n")
        page.entry("Version") { $0.text(version) }
        page.entry("Started") { $0.time(snapshot.started); $0.text(" (up \(Self.age(now - snapshot.started)))") }
        page.entry("Listen") { $0.text(configuration.listen.description) }
        page.entry("Namespace") { $0.text(configuration.namespace.description) }
        page.entry("Targets") { $0.text(configuration.targets.map(\.description).joined(separator: ", ")) }
        page.entry("Validation") {
            if let validation = configuration.validation {
                $0.text(Self.redacted(validation.description))
                if let interval = configuration.validationInterval { $0.text(" every \(interval.configurationText)") }
            } else {
                $0.text("off")
            }
        }
        if let timeout = configuration.resolveTimeout { page.entry("Resolve timeout") { $0.text(timeout.configurationText) } }
        page.entry("Uplinks") {
            if configuration.uplinks.isEmpty { $0.text("none") }
            for (index, uplink) in configuration.uplinks.enumerated() {
                if index > 0 { $0.raw("<br>") }
                $0.raw("<b>"); $0.text(uplink.interface); $0.raw("</b> ")
                $0.text("\(uplink.method) to \(uplink.hosts.map(\.description).joined(separator: ", ")) every \(uplink.interval.configurationText), down \(uplink.down), up \(uplink.up)")
            }
        }
        page.entry("ModemManager") { $0.text(configuration.modemManager ? "on" : "off") }
        // The receivers' names and URLs, and which kind of credential each
        // sends: never the credential, nor a header's value.
        page.entry("remote_write") {
            if configuration.remoteWrites.isEmpty { $0.text("not configured") }
            for (index, remote) in configuration.remoteWrites.enumerated() {
                if index > 0 { $0.raw("<br>") }
                $0.raw("<b>"); $0.text(remote.name); $0.raw("</b> "); $0.text(Self.redacted(remote.url.description))
                switch remote.authorization {
                case .basic?: $0.text(" (basic_auth)")
                case .bearer?: $0.text(" (bearer_token)")
                case nil: break
                }
            }
        }
        if !configuration.remoteWrites.isEmpty {
            page.entry("push_interval") { $0.text(configuration.pushInterval.configurationText) }
            if !configuration.externalLabels.isEmpty {
                page.entry("external_labels") {
                    $0.text(configuration.externalLabels.map { "\($0.name)=\($0.value)" }.joined(separator: ", "))
                }
            }
        }
        page.raw("</dl>\n</section>\n")
    }
}
