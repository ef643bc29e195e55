import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// How many connections this process can hold open: the default connection cap
/// (docs/architecture.md#limits-and-slow-clients). A connection costs one descriptor and, with
/// epoll, no thread: its price is memory (the kernel's socket, its buffered head or answer, its
/// state), so the cap is the smaller of what the descriptor limit and a share of memory allow.
public struct ConnectionBudget: Sendable, Equatable {
    /// RLIMIT_NOFILE's soft limit (after `raiseDescriptorLimit`).
    public let descriptors: Int
    /// The memory this process may use: physical memory, or its cgroup's `memory.max` if lower.
    public let memoryBytes: UInt64

    /// Descriptors kept for everything but client connections: standard streams, the listening
    /// socket, each event thread's epoll, eventfd and timerfd, SQLite's files for every pooled
    /// connection, outgoing webhook and App Store Connect sockets, and the refusals lingering
    /// past the cap (`EventLoop.maxLingeringRefusals`).
    public static let reservedDescriptors = 256
    /// Memory counted per connection: the kernel's socket (a few KiB), a head of up to
    /// `maxHeaderBytes` (32 KiB) being read, and an answer's buffers.
    public static let bytesPerConnection: UInt64 = 64 * 1024
    /// The share of memory connections may take: a quarter (the rest is the read model, SQLite's
    /// caches and the answers being made).
    public static let memoryShareDivisor: UInt64 = 4
    /// Never fewer than this, whatever the limits say (the cap before it was derived).
    public static let minimumConnections = 256

    public init(descriptors: Int, memoryBytes: UInt64) {
        self.descriptors = descriptors
        self.memoryBytes = memoryBytes
    }

    /// Connections the descriptor limit allows.
    public var byDescriptors: Int { max(0, descriptors - Self.reservedDescriptors) }

    /// Connections a quarter of memory allows at `bytesPerConnection` each.
    public var byMemory: Int { Int(clamping: memoryBytes / Self.memoryShareDivisor / Self.bytesPerConnection) }

    /// The default cap: the smaller of the two, and at least `minimumConnections`.
    public var maxConnections: Int { max(Self.minimumConnections, min(byDescriptors, byMemory)) }

    /// This process's budget, the soft descriptor limit raised first.
    public static func current() -> ConnectionBudget {
        raiseDescriptorLimit()
        var limit = rlimit()
        let descriptors = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(clamping: limit.rlim_cur) : 1024
        return ConnectionBudget(descriptors: descriptors, memoryBytes: memoryAvailable())
    }

    /// Raises RLIMIT_NOFILE's soft limit to its hard limit, as any process may (getrlimit(2));
    /// systemd, for one, starts services at a soft 1024 under a hard 524288. Idempotent.
    public static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Physical memory (sysconf(3): _SC_PHYS_PAGES × _SC_PAGESIZE), or the cgroup v2 limit of this
    /// process (`memory.max` of the group /proc/self/cgroup names) when that is lower.
    static func memoryAvailable() -> UInt64 {
        let physical = UInt64(max(0, sysconf(Int32(_SC_PHYS_PAGES)))) * UInt64(max(0, sysconf(Int32(_SC_PAGESIZE))))
        guard let group = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
            let line = group.split(separator: "\n").first(where: { $0.hasPrefix("0::") }),
            let text = try? String(contentsOfFile: "/sys/fs/cgroup\(line.dropFirst(3))/memory.max", encoding: .utf8),
            let limit = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)), limit > 0
        else { return physical }
        return physical == 0 ? limit : min(physical, limit)
    }
}
