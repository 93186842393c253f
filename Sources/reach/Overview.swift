import ArgumentParser
import LinuxReachability

/// `reach` alone: the internet for each family, then every interface.
struct Overview: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show whether the internet is reachable (IPv4 and IPv6) and every interface with its kind and state."
    )

    @OptionGroup var kernel: KernelOptions

    func run() async throws {
        let evaluator = try kernel.makeEvaluator()
        let internet = try await evaluator.evaluate(.internet)
        let interfaces = try evaluator.interfaces()
        if kernel.json {
            print(JSON.object([
                ("internet", internet.json),
                ("interfaces", .array(interfaces.map(\.json))),
            ]).rendered)
        } else {
            for answer in internet.addresses {
                let family = answer.address.family == .v4 ? "IPv4" : "IPv6"
                print("internet (\(family))".padded(to: 18) + answer.humanLine)
            }
            print("interfaces:")
            for interface in interfaces { print(interface.humanLine) }
        }
        if !internet.isReachable { throw ExitCode(1) }
    }
}
