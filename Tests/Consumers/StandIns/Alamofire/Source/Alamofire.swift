public enum AFInfo { public static let version = "5.12.0 (stand-in)" }
