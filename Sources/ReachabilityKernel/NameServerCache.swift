import ReachabilityModel
internal import CReachability
#if canImport(Glibc)
internal import Glibc
#endif

/// A resolv.conf's name servers, read again only when the file changed: the
/// evaluator reads them each time it publishes (`pathFacts`), and a `stat`
/// costs much less than opening and parsing the file.
///
/// The file counts as changed when its device, inode, size, modification or
/// change time differ (an editor or resolver that writes a new file and
/// renames it gives a new inode). A file modified within a second of being
/// read is read again the next time too: a kernel without fine-grained
/// timestamps stamps two writes a few milliseconds apart with the same time,
/// so a second same-size write could otherwise go unseen (as git treats an
/// index entry as racily clean).
package struct NameServerCache {
    private struct Stamp: Equatable {
        let device: UInt64, inode: UInt64, size: Int64
        /// Modification and change times: seconds, nanoseconds.
        let modified: Int, modifiedNanoseconds: Int, changed: Int, changedNanoseconds: Int
        init(_ info: stat) {
            device = UInt64(info.st_dev); inode = UInt64(info.st_ino); size = Int64(info.st_size)
            modified = info.st_mtim.tv_sec; modifiedNanoseconds = info.st_mtim.tv_nsec
            changed = info.st_ctim.tv_sec; changedNanoseconds = info.st_ctim.tv_nsec
        }
    }
    private var path = ""
    private var stamp: Stamp?
    private var servers: [IPAddress] = []
    /// How many times a file was read (for tests).
    package private(set) var reads = 0

    package init() {}

    /// The name servers of the resolv.conf at `path`; `now` is the realtime
    /// clock's second (tests give their own).
    package mutating func nameServers(at path: String, now: Int = NameServerCache.realtimeSecond()) -> [IPAddress] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            self.stamp = nil
            return []
        }
        let stamp = Stamp(info)
        if path == self.path, let kept = self.stamp, kept == stamp { return servers }
        servers = NetworkNamespace.nameServers(at: path)
        reads += 1
        self.path = path
        let settled = max(stamp.modified, stamp.changed) < now - 1
        self.stamp = settled ? stamp : nil
        return servers
    }

    package static func realtimeSecond() -> Int {
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME, &clock)
        return clock.tv_sec
    }
}
