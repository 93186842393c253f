// Errors an operator reads (the log, the status page, the exit message) are
// one plain sentence: what failed, where, why; not swift-nio's internals
// (issue 52, point 13). Real errors where the kernel gives them: a
// connection to a loopback port nobody listens on, a second bind.

@testable import ReachExporterKit
import NIOCore
import NIOPosix
import NIOSSL
import XCTest

final class PlainErrorsTests: XCTestCase {
    /// A loopback port that was just closed: nothing listens on it.
    func closedPort(_ group: MultiThreadedEventLoopGroup) async throws -> Int {
        let channel = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = try XCTUnwrap(channel.localAddress?.port)
        try await channel.close()
        return port
    }

    func testARefusedPushSaysSoInOneSentence() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let port = try await closedPort(group)
        let configuration = try ExporterConfiguration.parse(yaml: "remote_write: [{url: 'http://127.0.0.1:\(port)/api/v1/write'}]",
                                                            source: "test.yml")
        let client = try RemoteWriteClient(configuration: configuration.remoteWrites[0], group: group, userAgent: "test")
        defer { client.close() }
        let outcome = await client.post([0])
        XCTAssertEqual(outcome, .failed(PushFailure(kind: .connect, description:
            "cannot connect to 127.0.0.1:\(port): the connection was refused (nothing listens there)")))
    }

    func testASecondBindSaysTheAddressIsInUse() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let first = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        defer { first.close(promise: nil) }
        let port = try XCTUnwrap(first.localAddress?.port)
        do {
            _ = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: port).get()
            XCTFail("a second bind of 127.0.0.1:\(port) succeeded")
        } catch {
            XCTAssertEqual(plainReason(error), "the address is already in use (another program listens on it)")
        }
    }

    func testTLSFailuresInWords() {
        XCTAssertEqual(RemoteWriteClient.failure(NIOSSLExtraError.failedToValidateHostname, authority: "127.0.0.1:8428").description,
                       "TLS handshake with 127.0.0.1:8428 failed: its certificate is not for the name or address connected to "
                       + "(set tls_config.server_name to a name the certificate has)")
        XCTAssertEqual(RemoteWriteClient.failure(NIOSSLError.uncleanShutdown, authority: "h:1").description,
                       "TLS handshake with h:1 failed: the receiver closed the connection in the middle of TLS")
        XCTAssertEqual(plainReason(ChannelError.connectTimeout(.seconds(30))), "no connection within 30s")
        XCTAssertEqual(plainReason(IOError(errnoCode: ECONNRESET, reason: "read(descriptor:pointer:size:)")), "the connection was reset")
        XCTAssertEqual(plainAddress(try? SocketAddress(ipAddress: "203.0.113.10", port: 9090)), "203.0.113.10:9090")
        XCTAssertEqual(plainAddress(try? SocketAddress(ipAddress: "2001:db8::1", port: 9090)), "[2001:db8::1]:9090")
    }
}
