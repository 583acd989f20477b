/// RFC 3339 timestamps (`2026-07-01T00:00:00Z`, with optional fraction and offset).
public enum RFC3339 {
    /// Unix seconds, or nil when the text is not a timestamp.
    public static func parse(_ text: String) -> Double? {
        let scalars = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= scalars.count else { return nil }
            var value = 0
            for index in range {
                let byte = scalars[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard scalars.count >= 19, let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < scalars.count, scalars[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            while index < scalars.count, scalars[index] >= 0x30 && scalars[index] <= 0x39 {
                fraction += Double(scalars[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
        }
        var offset = 0
        if index < scalars.count {
            switch scalars[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6) else {
                    return nil
                }
                offset = (hours * 3600 + minutes * 60) * (scalars[index] == UInt8(ascii: "+") ? 1 : -1)
                index += 6
            default:
                return nil
            }
        } else {
            return nil
        }
        guard index == scalars.count else { return nil }
        let days = CivilTime.daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }

    /// `2026-07-01T00:00:00Z`.
    public static func format(_ time: Double) -> String {
        let civil = CivilTime(unixSeconds: time)
        func pad(_ value: Int, _ width: Int = 2) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return
            "\(pad(civil.year, 4))-\(pad(civil.month))-\(pad(civil.day))T\(pad(civil.hour)):\(pad(civil.minute)):\(pad(civil.second))Z"
    }
}
