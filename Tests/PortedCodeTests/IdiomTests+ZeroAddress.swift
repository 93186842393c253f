// The driver's lines for the two isConnectedToNetwork() idioms that needed
// more of SystemConfiguration than the others: Darwin's memberwise
// `sockaddr_in` initialiser and SCNetwork.h's `kSCNetworkFlags…` constants.

import XCTest

extension IdiomTests {
    func testIsConnectedToNetworkWithTheMemberwiseZeroAddress() throws {
        try checkOneShot(reachable: true, notReachable: false) { MemberwiseConnectivity.isConnectedToNetwork() }
    }

    func testIsConnectedToNetworkWithTheRawSCNetworkFlags() throws {
        try checkOneShot(reachable: true, notReachable: false) { LegacyConnectivity.isConnectedToNetwork() }
    }
}
