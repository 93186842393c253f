// What the sandbox does to the process's own view of the machine, once,
// before its first namespace: inside a user namespace, a /run/netns it may
// write (a tmpfs of its own, seen only by this process's mount namespace);
// and, anywhere, the removal of what crashed runs left behind.

import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension SandboxCore {
    /// Done once per process; nil when it worked.
    static let hostPreparation: SandboxError? = {
        do {
            try makeNamespaceDirectoryWritable()
        } catch {
            return error as? SandboxError ?? SandboxError("\(error)")
        }
        removeLeftovers()
        return nil
    }()

    /// `ip netns add` needs a writable /run/netns. Root has one (ip makes it);
    /// inside a user namespace /run belongs to the real root, so a tmpfs goes
    /// over /run/netns when it exists, else over /run with each of its entries
    /// bound back (what points into /run, such as /etc/resolv.conf on a
    /// systemd-resolved host, still resolves). The mounts are private to this
    /// process's mount namespace (`unshare -m`).
    static func makeNamespaceDirectoryWritable() throws {
        guard NetworkSandbox.runsInUserNamespace, access("/run/netns", W_OK) != 0 else { return }
        let files = FileManager.default
        if access("/run/netns", F_OK) == 0 {
            try mount(["-t", "tmpfs", "-o", "mode=0755", "reach-sandbox", "/run/netns"])
            return
        }
        if access("/run", W_OK) == 0 {
            try files.createDirectory(atPath: "/run/netns", withIntermediateDirectories: false)
            return
        }
        let stash = files.temporaryDirectory.appendingPathComponent("\(prefix)\(getpid())-run").path
        try files.createDirectory(atPath: stash, withIntermediateDirectories: true)
        try mount(["--rbind", "/run", stash])
        try mount(["-t", "tmpfs", "-o", "mode=0755", "reach-sandbox", "/run"])
        for entry in try files.contentsOfDirectory(atPath: stash) {
            let source = stash + "/" + entry, target = "/run/" + entry
            var info = stat()
            guard lstat(source, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                try? files.createSymbolicLink(atPath: target, withDestinationPath: files.destinationOfSymbolicLink(atPath: source))
            case S_IFDIR:
                try? files.createDirectory(atPath: target, withIntermediateDirectories: false)
                try? mount(["--rbind", source, target])
            default:
                _ = files.createFile(atPath: target, contents: nil)
                try? mount(["--bind", source, target])
            }
        }
        try files.createDirectory(atPath: "/run/netns", withIntermediateDirectories: false)
    }

    private static func mount(_ arguments: [String]) throws {
        guard let program = findExecutable("mount") else { throw SandboxError("mount (util-linux) is not installed") }
        let result = try runCommand(program, arguments)
        guard result.status == 0 else { throw SandboxError.command(["mount"] + arguments, result) }
    }

    /// Ends the servers and deletes the namespaces and directories of sandboxes
    /// whose process is gone (a crash skips teardown; a daemon outlives it and
    /// keeps its namespace alive). Those of live processes, parallel runs, stay.
    static func removeLeftovers() {
        let files = FileManager.default
        let temporary = files.temporaryDirectory
        for entry in (try? files.contentsOfDirectory(atPath: temporary.path)) ?? [] where madeByAGoneProcess(entry) {
            let directory = temporary.appendingPathComponent(entry)
            ServerDaemon.terminateLeftovers(in: directory)
            try? files.removeItem(at: directory)
        }
        guard let ip = ipExecutable, let list = try? runCommand(ip, ["netns", "list"]) else { return }
        for line in list.stdoutLines {
            guard let name = line.split(separator: " ").first.map(String.init), madeByAGoneProcess(name) else { continue }
            _ = try? runCommand(ip, ["netns", "delete", name])
        }
    }

    /// Whether `name` is one of ours (PREFIX PID-...) and its process is gone.
    static func madeByAGoneProcess(_ name: String) -> Bool {
        guard name.hasPrefix(prefix), let pid = pid_t(name.dropFirst(prefix.count).prefix(while: \.isNumber)),
              pid != getpid() else { return false }
        return processIsGone(pid)
    }
}
