// The servers of a sandbox's "internet" (and of our own integration tests):
// nginx and dnsmasq started as daemons inside a network namespace with
// `ip netns exec`, each known by the pid file it writes into a directory of
// its own. Not `Process` children: Foundation's child reaper blocked in wait4
// on one long-running child while another exited, and a daemon outlives a
// crashed test process, so a later run finds it by its directory and ends it.
// The launcher runs with none of our descriptors (`runLauncher`).

import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A server daemon running in a network namespace; `stop()` (idempotent, also
/// run by deinit) ends it and removes its directory.
package final class ServerDaemon: Sendable {
    /// The program's name, for messages.
    package let name: String
    /// The directory holding its configuration, pid file and logs.
    package let directory: URL
    /// The daemon's process id, read from its pid file.
    package let pid: pid_t
    private let stopped = Mutex(false)

    /// Runs `ip netns exec NAMESPACE PROGRAM ARGUMENTS...`, which must fork a
    /// daemon that writes its pid into `pidFile`, and returns once it did.
    package init(_ name: String, namespace: String, program: URL, arguments: [String], directory: URL,
                 pidFile: String) throws {
        guard let ip = ipExecutable else { throw SandboxError("iproute2's ip is not installed") }
        self.name = name
        self.directory = directory
        let output = directory.appendingPathComponent("launcher.log").path
        let status = try runLauncher(ip, ["netns", "exec", namespace, program.path] + arguments, output: output)
        // The launcher exits once the daemon forked; nginx writes its pid file right after.
        var pid: pid_t?
        let deadline = Date().addingTimeInterval(5)
        while status == 0, pid == nil, Date() < deadline {
            pid = (try? String(contentsOfFile: pidFile, encoding: .utf8))
                .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if pid == nil { usleep(5_000) }
        }
        guard let pid else {
            let text = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            throw SandboxError("\(name) did not start in \(namespace) (exit \(status)): \(text)")
        }
        self.pid = pid
    }

    /// Whether the daemon still runs.
    package var isRunning: Bool { !processIsGone(pid) }

    /// Sends `signal` (SIGHUP: read the configuration again).
    package func send(_ signal: Int32) { kill(pid, signal) }

    /// The text of `file` in the daemon's directory, "" when there is none (for failure messages).
    package func log(_ file: String) -> String {
        (try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)) ?? ""
    }

    /// SIGTERM, up to 5 s for the daemon to exit, then SIGKILL; removes the directory. Idempotent.
    package func stop() {
        let already = stopped.withLock { done -> Bool in
            defer { done = true }
            return done
        }
        guard !already else { return }
        Self.terminate(pid)
        try? FileManager.default.removeItem(at: directory)
    }

    /// SIGTERM, up to 5 s, then SIGKILL.
    package static func terminate(_ pid: pid_t) {
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while !processIsGone(pid) && Date() < deadline { usleep(5_000) }
        if !processIsGone(pid) { kill(pid, SIGKILL) }
    }

    /// Ends the daemons a crashed run left behind in `directory`: each pid file
    /// whose process still runs with this directory on its command line.
    package static func terminateLeftovers(in directory: URL) {
        guard let files = FileManager.default.enumerator(atPath: directory.path) else { return }
        for case let file as String in files where file.hasSuffix(".pid") {
            guard let text = try? String(contentsOfFile: directory.path + "/" + file, encoding: .utf8),
                  let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                  let commandLine = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")),
                  String(decoding: commandLine, as: UTF8.self).contains(directory.path) else { continue }
            terminate(pid)
        }
    }

    deinit { stop() }
}

/// Debian's `nginx-light`, as our servers run it: one process (no master:
/// inside a user namespace it could not switch its worker to another user),
/// as a daemon, its logs, temporary files and pid in its directory. A single
/// nginx stops listening when told to read its configuration again (SIGHUP),
/// so a new configuration means a new nginx.
package enum Nginx {
    /// The nginx binary, or nil.
    package static let executable: URL? = findExecutable("nginx")

    /// A configuration serving `locations` (exact paths and their directives)
    /// on each of `addresses` (IPv4 or IPv6 literals) at `port`, with
    /// `directory`/www as its document root. With `reusePort`, another nginx
    /// may listen on the same addresses at once (`SO_REUSEPORT`): a
    /// replacement starts before the one it replaces stops.
    package static func config(directory: String, addresses: [String], port: UInt16,
                               locations: [(path: String, directives: String)], reusePort: Bool = false) -> String {
        let listens = addresses.map {
            "        listen \($0.contains(":") ? "[\($0)]" : $0):\(port)\(reusePort ? " reuseport" : "");"
        }
        let locations = locations.map { "        location = \($0.path) { \($0.directives) }" }
        return ([
            // Temporary paths are chowned to `user`: root, the one user a user namespace maps.
            "user root root;",
            "master_process off;",
            "daemon on;",
            "pid \(directory)/nginx.pid;",
            "error_log \(directory)/error.log info;",
            "events { worker_connections 64; }",
            "http {",
            "    access_log off;",
            "    default_type text/plain;",
            "    client_body_temp_path \(directory)/client_body;",
            "    proxy_temp_path \(directory)/proxy;",
            "    fastcgi_temp_path \(directory)/fastcgi;",
            "    uwsgi_temp_path \(directory)/uwsgi;",
            "    scgi_temp_path \(directory)/scgi;",
            "    server {",
        ] + listens + [
            "        server_name _;",
            "        root \(directory)/www;",
        ] + locations + [
            "    }",
            "}",
        ]).joined(separator: "\n") + "\n"
    }

    /// Starts nginx with `config` in `namespace` (its files in `directory`,
    /// which must exist), and returns once `ready()` is true: polled for up to
    /// 5 s, since nothing tells when a daemon listens.
    package static func start(in namespace: String, directory: URL, config: String,
                              ready: () -> Bool) throws -> ServerDaemon {
        guard let nginx = executable else { throw SandboxError("nginx is not installed (apt-get install nginx-light)") }
        let configFile = directory.appendingPathComponent("nginx.conf")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        // -e: the error log before the configuration is read (else /var/log/nginx, not ours to write).
        let daemon = try ServerDaemon("nginx", namespace: namespace, program: nginx,
                                      arguments: ["-e", directory.path + "/error.log", "-p", directory.path + "/",
                                                  "-c", configFile.path],
                                      directory: directory, pidFile: directory.path + "/nginx.pid")
        let deadline = Date().addingTimeInterval(5)
        while !ready() {
            guard daemon.isRunning, Date() < deadline else {
                let why = daemon.isRunning ? "not answering after 5 s" : "exited"
                let log = daemon.log("error.log")
                daemon.stop()
                throw SandboxError("nginx in \(namespace) \(why): \(log)")
            }
            usleep(10_000)
        }
        return daemon
    }
}

/// Debian's `dnsmasq-base` as a name server answering `records` (name →
/// address) and nothing else: no upstream, no hosts file, no configuration
/// file, so it sends nothing itself.
package enum Dnsmasq {
    /// The dnsmasq binary, or nil.
    package static let executable: URL? = findExecutable("dnsmasq")

    /// Starts dnsmasq on `address`:53 in `namespace` (pid file in `directory`,
    /// which must exist); returns once `ready()` is true (polled for up to 5 s).
    package static func start(in namespace: String, address: String, records: [String: String], directory: URL,
                              ready: () -> Bool) throws -> ServerDaemon {
        guard let dnsmasq = executable else { throw SandboxError("dnsmasq is not installed (apt-get install dnsmasq-base)") }
        let pidFile = directory.path + "/dnsmasq.pid"
        let daemon = try ServerDaemon("dnsmasq", namespace: namespace, program: dnsmasq, arguments: [
            "--conf-file=/dev/null", "--no-resolv", "--no-hosts", "--no-poll", "--bind-interfaces",
            // Stay root and change no group: inside a user namespace no other
            // user is mapped and setgroups is denied.
            "--listen-address=\(address)", "--user=root", "--group=", "--pid-file=\(pidFile)",
            "--local=/test/",   // any other .test name: NXDOMAIN at once, no silence
        ] + records.sorted { $0.key < $1.key }.map { "--address=/\($0.key)/\($0.value)" },
                                      directory: directory, pidFile: pidFile)
        let deadline = Date().addingTimeInterval(5)
        while !ready() {
            guard daemon.isRunning, Date() < deadline else {
                daemon.stop()
                throw SandboxError("dnsmasq in \(namespace) not answering after 5 s")
            }
            usleep(10_000)
        }
        return daemon
    }
}
