import ArgumentParser

// What swift-argument-parser costs at start-up (make bench-startup): a hello
// world that parses its command line as `reach` does, built as `hello` is.
@main
struct ParseHello: ParsableCommand {
    @Argument(help: "What to greet.") var target: String
    @Flag(help: "Greet in JSON.") var json = false

    func run() {
        print(json ? "{\"hello\":\"\(target)\"}" : "hello \(target)")
    }
}
