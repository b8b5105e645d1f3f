/// syslog priorities in the form journald reads from a service's stderr: a line that starts
/// with `<N>` gets priority N (sd-daemon.h's SD_ERR "<3>", SD_WARNING "<4>", SD_INFO "<6>").
public enum LogPriority: Int, Sendable, CaseIterable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    /// The `<N>` prefix.
    public var prefix: String { "<\(rawValue)>" }
}

/// Whether stderr is the journal, and how to write a message there.
public enum JournalStream {
    /// True when `JOURNAL_STREAM` ("DEVICE:INODE", decimal, set by systemd for
    /// StandardError=journal) names the file stderr is open on. A child that inherited the
    /// variable but whose stderr was redirected (a pipe, a file) compares unequal.
    public static func isJournal(journalStream: String?, stderrDevice: UInt64, stderrInode: UInt64) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        return device == stderrDevice && inode == stderrInode
    }

    /// The text to write for `message`: every line prefixed with the priority when going to
    /// the journal (journald splits the stream into one entry per line), the message as is
    /// otherwise; always newline-terminated.
    public static func format(_ message: String, priority: LogPriority, journal: Bool) -> String {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        guard journal else { return lines.joined(separator: "\n") + "\n" }
        return lines.map { priority.prefix + $0 }.joined(separator: "\n") + "\n"
    }
}
