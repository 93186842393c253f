import LinuxReachability

#if canImport(Glibc)
import Glibc
#endif

/// The status page (`GET /`): one self-contained HTML page for an operator
/// who opens the exporter through an SSH tunnel, on a laptop or a phone.
/// Every target and uplink with its state, the last changes, the push queue,
/// ModemManager's modems, the build and the configuration. Inline CSS, no
/// script, no external asset; every value is HTML-escaped; no password or
/// token is ever written (URLs lose their user information).
///
/// States carry attributes for tests and scripts: `data-target`/`data-status`/
/// `data-accessibility` on each target's row, `data-uplink`/`data-state`/
/// `data-score` on each uplink's, `data-remote`/`data-pending` on each
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
        page.raw("<table class=\"rows\">\n<thead><tr><th>Uplink</th><th>State</th><th>Score</th><th>Probes</th><th>Last RTT</th><th>Last change</th></tr></thead>\n<tbody>\n")
        for (index, row) in snapshot.uplinks.enumerated() {
            let full = index < configuration.uplinks.count ? configuration.uplinks[index].down + configuration.uplinks[index].up : best
            page.raw("<tr"); page.attribute("data-uplink", row.interface); page.attribute("data-state", row.state)
            page.attribute("data-score", row.score.map(String.init) ?? ""); page.raw(">")
            page.cell("Uplink", title: true) { $0.text(row.interface) }
            page.cell("State") { $0.badge(row.state, Self.tone(uplink: row.state)) }
            page.cell("Score") { $0.text(row.score.map { score in full.map { "\(score) of \($0)" } ?? String(score) } ?? "–") }
            page.cell("Probes") {
                $0.text("\(row.answered) answered, \(row.failed) failed")
                if let error = row.lastError { $0.raw("<br><small class=\"error\">"); $0.text(error); $0.raw("</small>") }
            }
            page.cell("Last RTT") { $0.text(row.lastRoundTrip.map(Self.milliseconds) ?? "–") }
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

    // MARK: - Values

    /// A URL (or any text holding one) without user information and without
    /// its query's values (`?api_key=...` is a credential as often as not):
    /// `https://u:p@host/w?api_key=k` → `https://host/w?api_key=***`.
    static func redacted(_ text: String) -> String {
        var result = Substring(text), output = ""
        while let schemeEnd = endOfScheme(in: result) {
            output += result[..<schemeEnd]
            let rest = result[schemeEnd...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" || $0 == " " } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                result = rest[rest.index(after: at)...]
            } else {
                result = rest
            }
            // The path as it is, then each query value replaced, up to the fragment or the URL's end.
            let urlEnd = result.firstIndex(of: " ") ?? result.endIndex
            guard let question = result[..<urlEnd].firstIndex(of: "?") else { continue }
            output += result[...question]
            let queryEnd = result[question ..< urlEnd].firstIndex(of: "#") ?? urlEnd
            var inValue = false
            for character in result[result.index(after: question) ..< queryEnd] {
                switch character {
                case "=" where !inValue: inValue = true; output += "=***"
                case "&", ";": inValue = false; output.append(character)
                default: if !inValue { output.append(character) }
                }
            }
            result = result[queryEnd...]
        }
        return output + result
    }

    /// Where the first `://` of `text` ends. (By hand: the standard
    /// library's `firstRange(of:)` is _StringProcessing's, which would link
    /// the regex engine into the program, about 1 MB.)
    private static func endOfScheme(in text: Substring) -> Substring.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].starts(with: "://") { return text.index(index, offsetBy: 3) }
            index = text.index(after: index)
        }
        return nil
    }

    /// A round trip in milliseconds to two places: `1.23 ms`.
    static func milliseconds(_ duration: Duration) -> String {
        let microseconds = duration.clampedNanoseconds / 1000
        return "\(microseconds / 1000).\(String(microseconds % 1000 / 10).leftPadded(to: 2)) ms"
    }

    /// An age or uptime: `42 s`, `5 min 3 s`, `3 h 12 min`, `2 d 4 h`.
    static func age(_ seconds: Double) -> String {
        let total = seconds.isFinite ? max(0, Int(seconds)) : 0
        let (days, hours, minutes, rest) = (total / 86_400, total % 86_400 / 3600, total % 3600 / 60, total % 60)
        if days > 0 { return "\(days) d \(hours) h" }
        if hours > 0 { return "\(hours) h \(minutes) min" }
        if minutes > 0 { return "\(minutes) min \(rest) s" }
        return "\(rest) s"
    }

    /// Unix seconds as UTC: (`2026-11-29 06:32:14`, `2026-11-29T06:32:14Z`).
    static func utc(_ unix: Double) -> (text: String, machine: String) {
        var seconds = time_t(unix.isFinite ? unix.rounded(.down) : 0)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { String(value).leftPadded(to: 2) }
        let date = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        let time = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        return ("\(date) \(time)", "\(date)T\(time)Z")
    }

    static func hostName() -> String {
        var bytes = [CChar](repeating: 0, count: 256)
        guard gethostname(&bytes, bytes.count - 1) == 0 else { return "" }
        return String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // Colours: ok (green), warn (amber), bad (red), unknown (grey).
    static func tone(status: String) -> String {
        status.hasPrefix("reachable") ? "ok" : status == "notReachable" ? "bad" : "unknown"
    }

    static func tone(accessibility: String) -> String {
        switch accessibility {
        case "accessible": return "ok"
        case "unknown": return "unknown"
        case "noNetwork": return "bad"
        default: return "warn"
        }
    }

    static func tone(uplink: String) -> String {
        switch uplink {
        case "online": return "ok"
        case "offline": return "bad"
        case "unknown": return "unknown"
        default: return "warn"
        }
    }

    static func tone(_ kind: StatusSnapshot.Change.Kind, _ state: String) -> String {
        kind == .target ? tone(status: state) : tone(uplink: state)
    }

    static let style = """
        :root{--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#d8dde3;--card:#f6f8fa;\
        --ok:#1a7f37;--ok-bg:#dafbe1;--warn:#9a6700;--warn-bg:#fff8c5;--bad:#cf222e;--bad-bg:#ffebe9;\
        --unknown:#57606a;--unknown-bg:#eaeef2;color-scheme:light dark}
        @media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;--line:#30363d;\
        --card:#161b22;--ok:#3fb950;--ok-bg:#12261e;--warn:#d29922;--warn-bg:#272115;--bad:#f85149;\
        --bad-bg:#2d1517;--unknown:#8d96a0;--unknown-bg:#21262d}}
        *{box-sizing:border-box}
        body{margin:0 auto;max-width:72rem;padding:.75rem;background:var(--bg);color:var(--fg);\
        font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
        h1{font-size:1.3rem;margin:.2rem 0}h1 .host{color:var(--muted);font-weight:400}
        h2{font-size:1.05rem;margin:1.3rem 0 .5rem;padding-bottom:.2rem;border-bottom:1px solid var(--line)}
        p{margin:.35rem 0}.meta,.none,small,footer{color:var(--muted)}small{font-size:.85em}
        .summary{display:flex;flex-wrap:wrap;gap:.3rem .8rem;align-items:center}
        code{font:13px/1.3 ui-monospace,"DejaVu Sans Mono",monospace}
        .badge{display:inline-block;padding:0 .45rem;border-radius:1rem;font-size:.85em;font-weight:600;white-space:nowrap}
        .ok{color:var(--ok);background:var(--ok-bg)}.warn{color:var(--warn);background:var(--warn-bg)}
        .bad{color:var(--bad);background:var(--bad-bg)}.unknown{color:var(--unknown);background:var(--unknown-bg)}
        .error{color:var(--bad)}
        table{border-collapse:collapse;width:100%}
        th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
        th{font-size:.8rem;color:var(--muted);font-weight:600}
        ol.changes{list-style:none;margin:0;padding:0}
        ol.changes li{padding:.3rem 0;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
        ol.changes .when{font:13px ui-monospace,"DejaVu Sans Mono",monospace;color:var(--muted)}
        ol.changes b{margin-right:.2rem}code{white-space:pre}
        dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem .9rem;margin:0}
        dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
        footer{margin:1.5rem 0 .5rem;font-size:.85rem}a{color:inherit}
        @media (max-width:40rem){
        table.rows thead{display:none}
        table.rows,table.rows tbody,table.rows tr{display:block}
        table.rows tr{background:var(--card);border:1px solid var(--line);border-radius:.5rem;margin:0 0 .6rem;padding:.35rem .7rem}
        table.rows td{display:flex;justify-content:space-between;gap:1rem;border:0;padding:.15rem 0;text-align:right;overflow-wrap:anywhere}
        table.rows td::before{content:attr(data-label);color:var(--muted);text-align:left;white-space:nowrap}
        table.rows td.title{display:block;text-align:left;font-weight:600;font-size:1.05rem;padding:.1rem 0 .25rem}
        table.rows td.title::before{content:none}table.rows td.title small{font-weight:400}
        table.rows td.wide{display:block;text-align:left}table.rows td.wide::before{display:block}
        }
        """
}
