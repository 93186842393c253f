package struct ConfigurationError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
