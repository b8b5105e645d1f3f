import Log

extension KioskError {
    /// Writes the message to the log at error priority; returns the exit status, so that
    /// `main` can `return error.report()`.
    @discardableResult
    public func report() -> Int32 {
        Log.error(message)
        return exitStatus
    }
}
