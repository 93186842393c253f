// A private system bus per test, and ModemManager on it (a stand-in or the
// real daemon): what the tests of ReachabilityModemManager, of the compat
// modules following the modem, and of the exporter's modem series share.

import Foundation
import XCTest
import LinuxReachability
import ReachabilityModemManager

/// A dbus-daemon of the system type on a socket of its own (its
/// configuration written here: every name may be owned, every call made,
/// unless `denying` names a destination the policy refuses), a ModemManager
/// stand-in on it (python3-dbusmock with modemmanager_standin.py) or the real
/// daemon, and the mock calls the tests drive it with (busctl). Everything it
/// started is stopped, and its directory removed, when it goes.
package final class PrivateBus {
    package let directory: URL
    package let address: String
    private let daemon: Process
    private var service: Process?

    /// Skips (or, with REACH_REQUIRE_DBUS=1 or REACH_REQUIRE_NETNS=1, which CI sets, fails) when a program is missing.
    package static func requirePrograms(file: StaticString = #filePath, line: UInt = #line) throws {
        for program in ["/usr/bin/dbus-daemon", "/usr/bin/busctl", "/usr/bin/python3"] where !FileManager.default.isExecutableFile(atPath: program) {
            try skipOrFail("\(program) is missing (make setup installs dbus-daemon and python3-dbusmock)", file: file, line: line)
        }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        probe.arguments = ["-c", "import dbusmock"]
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        probe.waitUntilExit()
        if probe.terminationStatus != 0 {
            try skipOrFail("python3-dbusmock is missing (make setup installs it)", file: file, line: line)
        }
    }

    /// Skips the test, or fails it under REACH_REQUIRE_DBUS=1 or REACH_REQUIRE_NETNS=1.
    package static func skipOrFail(_ why: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try ReachabilityTestSupport.skipOrFail(why, requiredBy: "REACH_REQUIRE_DBUS", requireNetnsVariable, file: file, line: line)
    }

    /// A bus listening at `directory`/bus (by default a new directory). With
    /// `debianPolicy`, its configuration is Debian's system bus's
    /// (`debianSystemConfiguration`) instead of one that allows everything.
    package init(denying destination: String? = nil, in socketDirectory: URL? = nil, debianPolicy: Bool = false) throws {
        directory = socketDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("reach-bus-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("bus").path
        let deny = destination.map { "<deny send_destination=\"\($0)\"/>" } ?? ""
        let configuration = debianPolicy ? try Self.debianSystemConfiguration(listeningAt: socket) : """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
              "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_type="method_return"/>
                <allow send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="signal"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
                \(deny)
              </policy>
            </busconfig>
            """
        let path = directory.appendingPathComponent("bus.conf")
        try configuration.write(to: path, atomically: true, encoding: .utf8)
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(path.path)", "--nofork", "--print-address=1"]
        let output = Pipe()
        daemon.standardOutput = output
        daemon.standardError = FileHandle.nullDevice   // its policy refusals (the access-denied test)
        try daemon.run()
        // The address is printed once the bus listens: the line is the barrier.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !address.isEmpty else { throw XCTSkip("dbus-daemon printed no address") }
    }

    /// Debian's /usr/share/dbus-1/system.conf, policy untouched (any user
    /// may connect and send signals to anyone; method calls and names only
    /// where a service's file in system.d allows them: ModemManager's lets
    /// root own its name and call it), adapted only where a private bus
    /// must be: its socket, no user to switch to, no fork, pid file or
    /// syslog, and no service activation (nothing may start the real daemon).
    package static func debianSystemConfiguration(listeningAt socket: String) throws -> String {
        let path = "/usr/share/dbus-1/system.conf"
        guard var text = try? String(contentsOfFile: path, encoding: .utf8) else {
            try skipOrFail("\(path) is missing (make setup installs dbus-daemon)")
            return ""
        }
        let adaptations = [
            ("<listen>unix:path=/run/dbus/system_bus_socket</listen>", "<listen>unix:path=\(socket)</listen>"),
            ("<user>messagebus</user>", ""), ("<fork/>", ""), ("<pidfile>/run/dbus/pid</pidfile>", ""), ("<syslog/>", ""),
            ("<standard_system_servicedirs/>", ""),
            ("<servicehelper>/usr/lib/dbus-1.0/dbus-daemon-launch-helper</servicehelper>", ""),
            // Relative to the configuration's own directory, which is the test's here.
            ("<includedir>system.d</includedir>", "<includedir>/usr/share/dbus-1/system.d</includedir>"),
        ]
        for (original, adapted) in adaptations {
            guard text.contains(original) else { throw XCTSkip("\(path) has no \(original): another dbus version") }
            text = text.replacingOccurrences(of: original, with: adapted)
        }
        return text
    }

    /// Runs bus_spoofer.py as `nobody` (uid 65534): it sends `what`'s spoofed
    /// signals straight to every connection of this process, and returns once
    /// the bus routed them. Returns how many it sent.
    package func spoof(_ what: String, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("bus_spoofer.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "--",
                             "/usr/bin/python3", script.path, address, "\(getpid())", what]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "bus_spoofer.py \(what): \(message)", file: file, line: line)
        return Int(printed.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    deinit {
        stopService()
        if daemon.isRunning {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the stand-in (or `/usr/sbin/ModemManager` with `real`).
    package func startService(real: Bool = false) throws {
        let process = Process()
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        process.environment = environment
        if real {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/ModemManager")
        } else {
            // Beside this file, as bus_spoofer.py is (excluded from the target's sources).
            let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("modemmanager_standin.py")
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-m", "dbusmock", "--system", "--template", template.path]
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        service = process
    }

    /// Starts the stand-in and returns once it owns its name (a radio of the
    /// test's own sees NameOwnerChanged and reads it: no polling).
    package func startServiceAndWait(file: StaticString = #filePath, line: UInt = #line) throws {
        let radio = ModemManagerRadio(busAddress: address, retryInterval: .milliseconds(50))
        defer { radio.stop() }
        try radio.follow(into: RadioSource())
        radio.wait(file: file, line: line, "the service is absent before it starts") { $0.availability == .unavailable(.serviceAbsent) }
        try startService()
        radio.wait(file: file, line: line, "the stand-in answers") { $0.availability == .available }
    }

    /// Stops the service (SIGTERM) and waits for it.
    package func stopService() {
        guard let service else { return }
        if service.isRunning {
            service.terminate()
            service.waitUntilExit()
        }
        self.service = nil
    }

    /// `busctl call` of a mock method of the stand-in; returns once it ran
    /// (its signals were sent before its reply).
    package func mock(_ method: String, _ signature: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/busctl")
        process.arguments = ["--address=\(address)", "call", "org.freedesktop.ModemManager1", "/org/freedesktop/ModemManager1",
                             "org.freedesktop.DBus.Mock", method, signature] + arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, "busctl \(method): \(message)")
    }

    /// AddModem(index, modem properties, 3GPP properties): each property three
    /// words (name, busctl type, value; a container's value is its busctl words).
    package func addModem(_ index: Int, _ modem: [String], modem3gpp: [String] = []) throws {
        try mock("AddModem", "ua{sv}a{sv}", ["\(index)"] + Self.dictionary(modem) + Self.dictionary(modem3gpp))
    }

    /// SetModem(index, interface, properties), as `addModem` takes them.
    package func setModem(_ index: Int, _ properties: [String], interface: String = "org.freedesktop.ModemManager1.Modem") throws {
        try mock("SetModem", "usa{sv}", ["\(index)", interface] + Self.dictionary(properties))
    }

    /// busctl's words of an a{sv}: the count, then each name, type and value's words.
    private static func dictionary(_ triples: [String]) -> [String] {
        precondition(triples.count % 3 == 0, "properties come as name, type, value")
        var words = ["\(triples.count / 3)"]
        for start in stride(from: 0, to: triples.count, by: 3) {
            words += [triples[start], triples[start + 1]] + triples[start + 2].split(separator: " ").map(String.init)
        }
        return words
    }
}
