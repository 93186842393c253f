// README's ```swift blocks must be compiled: each is found, word for word
// (indentation aside), in ReadmeSnippets.swift, which the compiler checks.

import Foundation
import XCTest

final class ReadmeSnippetTests: XCTestCase {
    private func text(_ relative: String) throws -> String {
        let url = URL(fileURLWithPath: "\(#filePath)").deletingLastPathComponent().appendingPathComponent(relative)
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The ```swift blocks of `markdown`, each as its lines.
    private func swiftBlocks(_ markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!)
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    func testEveryReadmeSwiftSnippetIsCompiled() throws {
        let readme = try text("../../README.md")
        let compiled = try text("ReadmeSnippets.swift").split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let imports = Set(compiled.filter { $0.hasPrefix("import ") })
        let blocks = swiftBlocks(readme)
        XCTAssertGreaterThanOrEqual(blocks.count, 3, "README's Swift snippets were not found")
        for (number, block) in blocks.enumerated() {
            // Imports sit at the top of the file; blank lines may differ.
            let lines = block.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for line in lines where line.hasPrefix("import ") {
                XCTAssertTrue(imports.contains(line), "block \(number + 1): \(line)")
            }
            let code = lines.filter { !$0.hasPrefix("import ") }
            let haystack = compiled.filter { !$0.isEmpty }
            let found = code.isEmpty || (0...max(0, haystack.count - code.count)).contains { start in
                Array(haystack[start ..< min(haystack.count, start + code.count)]) == code
            }
            XCTAssertTrue(found, "README's Swift block \(number + 1) is not in ReadmeSnippets.swift word for word:\n"
                          + block.joined(separator: "\n"))
        }
    }
}
