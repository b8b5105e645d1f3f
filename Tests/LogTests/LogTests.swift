import Testing
import Log

@Suite struct JournalStreamTests {
    @Test func matchesOnlyTheSameDeviceAndInode() {
        #expect(JournalStream.isJournal(journalStream: "8:12345", stderrDevice: 8, stderrInode: 12345))
        #expect(!JournalStream.isJournal(journalStream: "8:12345", stderrDevice: 8, stderrInode: 12346))
        #expect(!JournalStream.isJournal(journalStream: "9:12345", stderrDevice: 8, stderrInode: 12345))
        #expect(!JournalStream.isJournal(journalStream: nil, stderrDevice: 8, stderrInode: 12345))
        #expect(!JournalStream.isJournal(journalStream: "8:12345:1", stderrDevice: 8, stderrInode: 12345))
        #expect(!JournalStream.isJournal(journalStream: ":12345", stderrDevice: 0, stderrInode: 12345))
        #expect(!JournalStream.isJournal(journalStream: "", stderrDevice: 0, stderrInode: 0))
    }

    @Test func prefixesEveryLineOnlyForTheJournal() {
        #expect(JournalStream.format("bad file", priority: .error, journal: true) == "<3>bad file\n")
        #expect(JournalStream.format("bad file", priority: .error, journal: false) == "bad file\n")
        #expect(JournalStream.format("a\nb\n", priority: .warning, journal: true) == "<4>a\n<4>b\n")
        #expect(JournalStream.format("a\nb", priority: .info, journal: false) == "a\nb\n")
        #expect(LogPriority.allCases.map(\.prefix) == ["<3>", "<4>", "<5>", "<6>", "<7>"])
    }
}

@Suite struct LogFormatTests {
    @Test func everyLineHasTheProgramName() {
        #expect(Log.formatted("a\nb", priority: .error, journal: false) == "darkmode-kiosk: a\ndarkmode-kiosk: b\n")
        #expect(Log.formatted("one\n", priority: .info, journal: false) == "darkmode-kiosk: one\n")
    }

    @Test func thePriorityGoesBeforeTheProgramNameInTheJournal() {
        #expect(Log.formatted("a\nb", priority: .warning, journal: true) == "<4>darkmode-kiosk: a\n<4>darkmode-kiosk: b\n")
        #expect(Log.formatted("x", priority: .debug, journal: true) == "<7>darkmode-kiosk: x\n")
    }
}
