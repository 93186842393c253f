// reach-exporter's entry: the command line read (ReachExporterKit's
// `ReachExporter`), then the services run until SIGTERM or SIGINT
// (`ExporterLifecycle`). Exit status: 0 after an orderly shutdown, 1 when
// it could not start (port in use, no such namespace), 2 for a bad
// configuration, found before anything is bound.

import LinuxReachability
import ReachExporterKit

#if canImport(Glibc)
import Glibc
#endif

/// Reads the command line and the configuration, then runs or checks it.
func main() async {
    let command: ReachExporter
    do {
        let request: ReachExporter.Request
        (command, request) = try ReachExporter.parse(Array(CommandLine.arguments.dropFirst()))
        switch request {
        case .help: print(ReachExporter.help, terminator: ""); exit(0)
        case .version: print(ReachExporter.version); exit(0)
        case .run: break
        }
    } catch {
        ReachExporter.fail(error.description, status: 2)
    }
    let configuration: ExporterConfiguration
    do {
        configuration = try command.load()
    } catch {
        ReachExporter.fail(error.description, status: 2)
    }
    if command.checkConfig {
        for line in ReachExporter.checkConfigLines(configuration) { print(line) }
        // A warning, not an error: the interface may appear later (a modem, a VPN).
        for interface in missingUplinkInterfaces(configuration) ?? [] {
            ReachExporter.warn(missingInterfaceWarning(interface, namespace: configuration.namespace))
        }
        return
    }
    do {
        try await ExporterLifecycle.run(configuration, reload: { () throws(ConfigurationError) in try command.load() })
    } catch let error as ReachabilityError {
        ReachExporter.fail(error.description, status: 1)
    } catch {
        ReachExporter.fail("\(error)", status: 1)
    }
}

await main()
