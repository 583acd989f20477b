import Glibc

extension Double {
    /// The value with `digits` decimals, rounded as C's `%.<digits>f` prints it (what
    /// `String(format:)` prints too), without Foundation.
    package func decimalText(digits: Int) -> String {
        withVaList([self]) { arguments in
            var buffer = [CChar](repeating: 0, count: 400)
            let written = vsnprintf(&buffer, buffer.count, "%.\(digits)f", arguments)
            let length = min(max(0, Int(written)), buffer.count - 1)
            return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}

extension Int {
    /// The number with at least two digits (`7` → `"07"`), for clock times.
    package var twoDigits: String { self >= 0 && self < 10 ? "0\(self)" : String(self) }
}
