public let standInOfReachabilitySwift = "5.2.4 (stand-in)"
