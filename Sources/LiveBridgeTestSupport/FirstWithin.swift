/// What `body` returns, or nil once `seconds` of real time passed first (the body is then
/// cancelled): a bound on how long a test waits for something that should happen, not a delay.
public func firstWithin<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async -> T?) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
