/// A configuration the exporter cannot run (exit 2): what is wrong, naming
/// the key, the file and its line where there is one.
package struct ConfigurationError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
